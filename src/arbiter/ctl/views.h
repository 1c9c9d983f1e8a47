// What `arbiterctl jobs`, `queues` and `explain` print (docs/arbiterctl.md): pure functions of
// the API objects the command read, so that the wording is tested without a cluster.
//
//   jobs     one row per PodGroup (BatchJobs show as the PodGroup they run as): queue, phase,
//            running/min, how long it has waited, and why (its Unschedulable reason);
//   queues   the tree of queues, with weight, deserved, allocated, capability and guarantee per
//            resource (cpu and memory; every resource with `wide`), jobs pending and running, and
//            a bar of allocated against deserved;
//   explain  the group's explanation as the scheduler published it (PodGroupStatus::explanation):
//            the gate that holds it and the numbers behind it, never re-derived here.
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"

namespace arbiter::ctl {

struct JobsOptions {
  bool all_namespaces = false;  // a NAMESPACE column
  bool wide = false;            // the Unschedulable message too
};

// The table of `arbiterctl jobs`, sorted by namespace then name; `kinds[i]` is "BatchJob" when
// groups[i] is a BatchJob's PodGroup, else "PodGroup".
std::string FormatJobs(const std::vector<PodGroup>& groups, const std::vector<std::string>& kinds,
                       Clock::WallTime now, const JobsOptions& options);

// The tree of `arbiterctl queues`: children under their parent, by name; a queue whose parent is
// missing is shown at the top with a note.
std::string FormatQueues(const std::vector<Queue>& queues, bool wide);

// `arbiterctl explain`: `what` names what was asked for ("BatchJob ml/train", "pod ml/train-0"),
// `group` is its PodGroup; `newest_pod`, when known, the creation of the group's newest pod (the
// scheduler's arrival grace runs from it too).
std::string FormatExplanation(const std::string& what, const PodGroup& group, Clock::WallTime now,
                              std::optional<Clock::WallTime> newest_pod = std::nullopt);

// "3m20s", "45s", "2h5m", "3d4h": kubectl's short durations.
std::string ShortDuration(std::chrono::nanoseconds d);

// "cpu 1500m, memory 1Gi": a resource list in Kubernetes quantities, by name; "-" when empty.
std::string FormatResources(const ResourceList& list);

}  // namespace arbiter::ctl
