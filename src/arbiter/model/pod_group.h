// PodGroup (arbiter.dev/v1alpha1, namespaced): a gang, per ARCHITECTURE.md §2. Pods that must be
// placed together (minMember), the queue they draw from, and per-task minimums. Plain value, no
// I/O; thread safety: a value type.
//
// Defaults are those of the CRD schema, applied here too so that a value decoded from an object
// the API server did not default (an old object, a test) means the same: queue "default",
// phase Pending.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

inline constexpr std::string_view kDefaultQueueName = "default";

// The label that puts a pod into a group, the two ecosystem conventions also understood
// (ARCHITECTURE.md §2), and the label naming a pod's task inside its job.
inline constexpr std::string_view kPodGroupLabel = "arbiter.dev/pod-group";
inline constexpr std::string_view kVolcanoGroupAnnotation = "scheduling.k8s.io/group-name";
inline constexpr std::string_view kSchedulerPluginsGroupLabel = "scheduling.x-k8s.io/pod-group";
inline constexpr std::string_view kTaskLabel = "arbiter.dev/task";

// The group a pod names, by the precedence above; empty when it names none.
std::string PodGroupNameOf(const Pod& pod);

enum class PodGroupPhase : std::uint8_t { kPending, kInqueue, kRunning, kCompleted, kFailed };

std::string_view PodGroupPhaseName(PodGroupPhase phase);
StatusOr<PodGroupPhase> ParsePodGroupPhase(std::string_view text);

struct PodGroupSpec {
  std::int32_t min_member = 1;  // >= 1
  std::string queue{kDefaultQueueName};
  std::string priority_class_name;
  ResourceList min_resources;
  std::map<std::string, std::int32_t> min_task_member;  // task name -> minimum, each >= 0
  friend bool operator==(const PodGroupSpec&, const PodGroupSpec&) = default;
};

struct PodGroupStatus {
  PodGroupPhase phase = PodGroupPhase::kPending;
  std::int32_t scheduled = 0;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  // Sessions in which preemption or reclaim evicted pods of this group.
  std::int32_t preemption_count = 0;
  std::vector<Condition> conditions;  // "Scheduled", "Unschedulable", "Preempted"
  friend bool operator==(const PodGroupStatus&, const PodGroupStatus&) = default;
};

struct PodGroup {
  ObjectMeta meta;
  PodGroupSpec spec;
  PodGroupStatus status;
  friend bool operator==(const PodGroup&, const PodGroup&) = default;
};

}  // namespace arbiter
