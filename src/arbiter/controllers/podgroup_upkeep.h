// PodGroup upkeep: the PodGroups that pods name but nobody made. Workloads that already speak a
// gang convention (our label arbiter.dev/pod-group, Volcano's annotation
// scheduling.k8s.io/group-name, scheduler-plugins' label scheduling.x-k8s.io/pod-group) would
// otherwise wait with PodGroupNotFound; arbiter-controller creates the group for them.
//
// For each namespace/group named by pods of this scheduler (spec.schedulerName) that are not
// finished, when no arbiter.dev PodGroup of that name exists, the group to create has:
//   * minMember: the annotation arbiter.dev/min-member of its pods (a whole number >= 1; pods that
//     disagree take the largest), else the number of its pods that share the first pod's
//     controlling owner (a Job's or a StatefulSet's pods: as many as exist of that owner);
//   * queue: the annotation arbiter.dev/queue of its pods (the first that has one), else
//     "default"; priorityClassName: the first pod's;
//   * an owner reference to the pods' controlling owner when they all share one, so that the
//     garbage collector removes the group with the workload; none otherwise;
//   * the label arbiter.dev/created-by: arbiter-controller.
// A pod whose arbiter.dev/min-member is not a whole number >= 1 makes its group an error (named
// in `errors`, the pod and the annotation) and no group is made for it until it is fixed.
//
// Pure: a function of its inputs, no I/O. Thread safety: reentrant.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"

namespace arbiter::controllers {

inline constexpr std::string_view kMinMemberAnnotation = "arbiter.dev/min-member";
inline constexpr std::string_view kQueueAnnotation = kQueueNameKey;
inline constexpr std::string_view kCreatedByLabel = "arbiter.dev/created-by";
inline constexpr std::string_view kControllerName = "arbiter-controller";

struct UpkeepPlan {
  std::vector<PodGroup> create;     // by namespace/name
  std::vector<std::string> errors;  // "pod ns/p: annotation arbiter.dev/min-member: ..."
};

// `existing`: the namespace/name of every arbiter.dev PodGroup.
UpkeepPlan PlanPodGroupUpkeep(const std::vector<const Pod*>& pods,
                              const std::set<std::string>& existing,
                              std::string_view scheduler_name);

}  // namespace arbiter::controllers
