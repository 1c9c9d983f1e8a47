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
  // For the first short resource seen: the largest free amount of it on any in-scope node, and
  // which node has it ("where it falls short").
  std::optional<ResourceId> short_resource;
  std::int64_t most_free = -1;
  NodeIndex most_free_node = kNoNode;

  std::string Message(const Session& session, TaskIndex task) const;
};

std::optional<NodeIndex> PickNode(Session& session, TaskIndex task, PlacementFailure* failure);

// Whether two tasks ask for the same thing in the same way (request and placement constraints):
// after one failed to find a node, the other would fail the same way.
bool SamePlacementNeeds(const Session& session, TaskIndex a, TaskIndex b);

}  // namespace arbiter
