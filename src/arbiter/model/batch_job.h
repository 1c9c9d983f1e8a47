// BatchJob (arbiter.dev/v1alpha1, namespaced, short name bj): a job of several tasks (a launcher
// and workers, parameter servers and workers) that arbiter-controller runs as one gang
// (docs/batchjob.md). Its lifecycle policies (spec.policies and spec.tasks[].policies) say what
// happens when one of its pods fails, is evicted or preempted, a task succeeds or fails, or the job
// stays unschedulable. Plain values and the names the API spells them with; no I/O. Thread
// safety: value types.
//
// A task's pod template is kept as the API server's JSON text (the controller copies it into each
// pod it creates, so every field the user wrote reaches the pod, including ones Arbiter does not
// model).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod_group.h"

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

// dependsOn: this task's pods are created only once `task` is Ready (its minimum of pods Ready)
// or Succeeded.
enum class DependencyCondition : std::uint8_t { kReady, kSucceeded };
std::string_view DependencyConditionName(DependencyCondition condition);
StatusOr<DependencyCondition> ParseDependencyCondition(std::string_view text);

struct TaskDependency {
  std::string task;
  DependencyCondition condition = DependencyCondition::kReady;
  friend bool operator==(const TaskDependency&, const TaskDependency&) = default;
};

struct BatchTaskSpec {
  std::string name;
  std::int32_t replicas = 1;                  // >= 0
  std::optional<std::int32_t> min_available;  // none: replicas
  std::string template_json;                  // a PodTemplateSpec, as JSON text; may be empty
  std::vector<TaskDependency> depends_on;
  std::vector<LifecyclePolicy> policies;
  // Its pods may run twice without harm (they read their input and write their output whole):
  // a pod that runs far behind its peers may get a backup copy on another node, and the first
  // of the two to succeed is kept (controllers/backup_copies.h).
  bool idempotent = false;

  std::int32_t MinAvailable() const { return min_available.value_or(replicas); }
  friend bool operator==(const BatchTaskSpec&, const BatchTaskSpec&) = default;
};

// successPolicy: the job completes when All (default) or Any of the named tasks (none named: every
// task) have succeeded.
struct SuccessPolicy {
  bool any = false;
  std::vector<std::string> tasks;
  friend bool operator==(const SuccessPolicy&, const SuccessPolicy&) = default;
};

struct BatchJobSpec {
  std::string queue = "default";
  std::string priority_class_name;
  std::optional<std::int32_t> min_available;  // none: the sum of the tasks' minimums
  std::int32_t max_retry = 3;
  std::optional<std::int64_t> ttl_seconds_after_finished;
  std::optional<std::int64_t> active_deadline_seconds;
  bool suspend = false;
  std::vector<BatchTaskSpec> tasks;
  std::vector<LifecyclePolicy> policies;
  SuccessPolicy success_policy;
  // Given to its PodGroup (model/pod_group.h TopologyRequest).
  std::optional<TopologyRequest> topology;
  // Where the job's data lives; given to its PodGroup (model/pod_group.h LocalityRequest).
  std::optional<LocalityRequest> locality;

  std::int32_t MinAvailable() const;
  std::int32_t Replicas() const;
  const BatchTaskSpec* FindTask(std::string_view name) const;
  friend bool operator==(const BatchJobSpec&, const BatchJobSpec&) = default;
};

enum class BatchJobPhase : std::uint8_t {
  kPending,     // pods being created, or waiting to be placed
  kRunning,     // at least minAvailable pods running (or succeeded)
  kRestarting,  // the pods of an earlier attempt are being stopped; then Pending
  kCompleting,  // succeeded; the pods still running are being stopped
  kCompleted,
  kFailing,  // failed; the pods still running are being stopped
  kFailed,
  kSuspended,  // spec.suspend: no pods
};
std::string_view BatchJobPhaseName(BatchJobPhase phase);
StatusOr<BatchJobPhase> ParseBatchJobPhase(std::string_view text);
// Completed or Failed.
bool IsFinished(BatchJobPhase phase);

struct TaskCounts {
  std::int32_t pending = 0;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  // RestartTask bumps it; the task's pods of an earlier task attempt are stopped and made again.
  std::int32_t attempt = 0;
  // Backup copies of this task attempt that exist now (idempotent tasks; a copy deleted after its
  // pair settled is no longer counted; none of the counts above: a task index counts once, as
  // succeeded when either of its two pods succeeded).
  std::int32_t backups = 0;
  friend bool operator==(const TaskCounts&, const TaskCounts&) = default;
};

// A condition of the job, with the generation of its spec it was set for.
using JobCondition = ObservedCondition;

struct BatchJobStatus {
  BatchJobPhase phase = BatchJobPhase::kPending;
  // One per phase the job has been in, by the phase's name: True for the current phase only.
  std::vector<JobCondition> conditions;
  std::int64_t observed_generation = 0;
  std::map<std::string, TaskCounts> tasks;  // by task name
  std::int32_t running = 0;                 // pods Running, for the printer column
  std::int32_t min_available = 0;           // the effective minimum, for the printer column
  std::int32_t retry_count = 0;       // restarts that used a retry (failures of its own making)
  std::int32_t preemption_count = 0;  // restarts after a preemption or an eviction
  // Every restart of the whole job bumps it; pods carry the attempt they belong to, and those of
  // an earlier attempt are stopped (this is what makes a restart survive the controller's).
  std::int32_t attempt = 0;
  std::optional<Clock::WallTime> start_time;
  std::optional<Clock::WallTime> completion_time;
  friend bool operator==(const BatchJobStatus&, const BatchJobStatus&) = default;
};

// Whether `ref` names a BatchJob (of any arbiter.dev version).
inline bool IsBatchJobReference(const OwnerReference& ref) {
  return ref.kind == "BatchJob" && ref.api_version.starts_with("arbiter.dev/");
}

struct BatchJob {
  ObjectMeta meta;
  BatchJobSpec spec;
  BatchJobStatus status;
  friend bool operator==(const BatchJob&, const BatchJob&) = default;
};

}  // namespace arbiter
