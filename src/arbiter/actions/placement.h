// Choosing a node for one task: every node is filtered (plugins' Filter), the feasible ones scored
// (plugins' Score), and the best taken; ties go to the node that sorts first by name, so the
// choice is deterministic. When no node fits, `errors` says why, per node, in kube-scheduler's
// words, plus where the most of a short resource is free.
#pragma once

#include <optional>
#include <string>

#include "arbiter/framework/session.h"

namespace arbiter {

struct PlacementFailure {
  FitErrors errors;
  // The first short resource seen, and the nodes that lacked it: the message says which of them
  // has the most of it free ("where it falls short"), read from the session when the message is
  // made, so that a gang's message describes the nodes after its tentative placements were undone.
  std::optional<ResourceId> short_resource;
  std::vector<NodeIndex> short_nodes;

  // kube-scheduler's summary, then where the short resource is free. For a gang (`gang` true)
  // several pods compete for that room, so the message lists the most free nodes rather than
  // the single best one: "Each pod requests 50 cpu; cpu free on the nodes: n1 80, n2 80, n0 30."
  std::string Message(const Session& session, TaskIndex task, bool gang = false) const;
};

std::optional<NodeIndex> PickNode(Session& session, TaskIndex task, PlacementFailure* failure);

// Whether two tasks ask for the same thing in the same way (request and placement constraints):
// after one failed to find a node, the other would fail the same way.
bool SamePlacementNeeds(const Session& session, TaskIndex a, TaskIndex b);

}  // namespace arbiter
