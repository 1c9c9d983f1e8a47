// BatchJob lifecycle policies (arbiter.dev/v1alpha1 BatchJob spec.policies and
// spec.tasks[].policies, issue 14): what happens to a job when one of its pods fails, is evicted
// or preempted, a task succeeds or fails, or the job stays unschedulable. Plain values and the
// names the API spells them with; no I/O. Thread safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"

namespace arbiter {

enum class JobEvent : std::uint8_t {
  kPodFailed,      // a pod's containers failed (exit code known)
  kPodEvicted,     // a pod was evicted (node pressure, drain): a disruption, not its fault
  kPodPreempted,   // a pod was evicted by a scheduler's preemption (DisruptionTarget)
  kTaskSucceeded,  // a task has its minimum of pods succeeded
  kTaskFailed,     // a task can no longer reach its minimum
  kUnschedulable,  // the job's PodGroup is Unschedulable
};

enum class JobAction : std::uint8_t {
  kRestartJob,   // every pod of the job is stopped, then the job starts over
  kRestartTask,  // the task's pods are stopped, then the task starts over
  kFailJob,      // the job fails: its pods are stopped
  kCompleteJob,  // the job completes: its pods are stopped
  kIgnore,       // nothing happens
};

// "PodFailed", ... / "RestartJob", ...: the API's spelling.
std::string_view JobEventName(JobEvent event);
std::string_view JobActionName(JobAction action);
// The value the API's spelling names; INVALID_ARGUMENT naming the text and the known values.
StatusOr<JobEvent> ParseJobEvent(std::string_view text);
StatusOr<JobAction> ParseJobAction(std::string_view text);

// exitCodes: {operator: In|NotIn, values}.
struct ExitCodeRule {
  bool in = true;  // false: NotIn
  std::vector<std::int32_t> values;
  friend bool operator==(const ExitCodeRule&, const ExitCodeRule&) = default;
};

// One entry of spec.policies: an event, or exit codes (of PodFailed), or both, and the action.
struct LifecyclePolicy {
  std::optional<JobEvent> event;
  std::optional<ExitCodeRule> exit_codes;
  JobAction action = JobAction::kIgnore;
  // The action is taken once the event has lasted this long (Unschedulable), or this long after
  // it (the others); none: at once.
  std::optional<std::int64_t> timeout_seconds;
  friend bool operator==(const LifecyclePolicy&, const LifecyclePolicy&) = default;
};

}  // namespace arbiter
