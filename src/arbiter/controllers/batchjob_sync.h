// The BatchJob state machine: from what is observed of one job (the job, the pods it controls,
// its PodGroup, the pods the watch saw deleted), what to write next. arbiter-controller calls it
// for every job on every reconcile and applies the plan (runtime/controller_runtime.h).
//
// Level-triggered: the plan is a function of the observation alone, and everything the machine
// must remember is in the job's status, written before any pod is touched. Each restart of the
// whole job bumps status.attempt (RestartTask bumps the task's attempt); every pod carries the
// attempts it was made for (labels arbiter.dev/job-attempt, arbiter.dev/task-attempt), and a pod
// of an earlier attempt is stale: it is deleted, and its failure or deletion is no longer an
// occurrence. A controller that stops between any two writes therefore finds, when it starts
// again, a status and pods from which the same plan follows.
//
// Phases (docs/batchjob.md draws them):
//   Pending    -> Running     once minAvailable pods run (or have succeeded); start time set
//   Pending/Running -> Restarting  a policy restarts the job: every pod is deleted; the attempt
//                                  (and retryCount, or preemptionCount) is written first
//   Restarting -> Pending     once no pod of an earlier attempt remains (blocking: the new pods
//                             have the old pods' names and are made only then)
//   Pending/Running -> Completing / Failing  successPolicy holds, or a policy completes or fails
//                             the job, or activeDeadlineSeconds passed, or a restart would
//                             exceed maxRetry: the pods not finished are deleted
//   Completing -> Completed, Failing -> Failed  once none of its pods is still running; finished
//                             pods stay (their logs) until ttlSecondsAfterFinished, when the job
//                             itself is deleted (the garbage collector takes what it owns)
//   any but finished -> Suspended while spec.suspend (every pod deleted); back to Pending after
//
// Occurrences, in this order, each asked of the policies (controllers/batchjob_policy.h); the
// first whose action is not Ignore (and whose timeout, if any, has passed) is acted on:
//   a pod of the current attempt deleted by someone else (PodPreempted when it carries the
//   condition arbiter.dev/Preempted or DisruptionTarget by PreemptionByScheduler, else
//   PodEvicted); a pod Failed (PodPreempted, PodEvicted when the kubelet evicted it or it has
//   DisruptionTarget, else PodFailed with its exit code); a task succeeded (its minimum
//   succeeded, none of its pods running) or failed (more pods failed than it can spare); the
//   PodGroup Unschedulable.
//
// Pods are named <job>-<task>-<index>, labelled arbiter.dev/pod-group, arbiter.dev/task,
// arbiter.dev/job-name and the attempts, with hostname and subdomain (the job's headless
// Service) and env ARBITER_TASK_INDEX, ARBITER_TASK_REPLICAS; they are made only once the job's
// PodGroup is observed (so the scheduler never sees a job's pods without their gang), and a task
// with dependsOn only once the tasks it depends on are Ready (their minimum of pods Ready) or
// Succeeded. Only pods whose controlling owner is the job are its pods: a pod made by hand with
// the job's labels is never adopted.
//
// Backup copies (tasks marked idempotent; controllers/backup_copies.h chooses them): a pod far
// behind its peers gets a copy <job>-<task>-<index>-backup (label arbiter.dev/backup) on a node
// other than those the job saw slow; the first of the two to succeed is kept and the other
// deleted. A copy is never an occurrence (its failure, its deletion), and a task index counts
// once in the status: succeeded when either of its pods succeeded.
//
// Pure: no I/O, no clock (the time is an input). Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/model/batch_job.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"

namespace arbiter::controllers {

inline constexpr std::string_view kJobNameLabel = "arbiter.dev/job-name";
inline constexpr std::string_view kJobAttemptLabel = "arbiter.dev/job-attempt";
inline constexpr std::string_view kTaskAttemptLabel = "arbiter.dev/task-attempt";
inline constexpr std::string_view kTaskIndexLabel = "arbiter.dev/task-index";

// A pod the watch saw deleted, as it last was.
struct GonePod {
  Pod last;
  Clock::WallTime seen_at{};
};

struct JobObservation {
  const BatchJob* job = nullptr;
  std::vector<const Pod*> pods;     // pods whose controlling owner reference is the job's uid
  const PodGroup* group = nullptr;  // the job's PodGroup (same name), if observed
  std::vector<GonePod> gone;        // pods of the job deleted since the last plan
  Clock::WallTime now{};
  std::string scheduler_name = "arbiter";
};

struct PodToCreate {
  std::string name;
  std::string json;  // the Pod, ready to POST
};

struct PodToDelete {
  std::string name;
  std::string uid;  // precondition
};

struct JobPlan {
  // The status to write (before anything else), when it changed.
  std::optional<BatchJobStatus> status;
  // Create the job's PodGroup (when it is not observed), Service and hosts ConfigMap.
  std::optional<PodGroup> create_group;
  // The job's spec.topology changed since its PodGroup (owned by the job) was made: the
  // PodGroup's spec.topology is set to it (nullopt inside: removed).
  std::optional<std::optional<TopologyRequest>> set_group_topology;
  // The same for spec.locality.
  std::optional<std::optional<LocalityRequest>> set_group_locality;
  bool ensure_service = false;
  bool ensure_hosts = false;
  std::vector<PodToDelete> delete_pods;
  std::vector<PodToCreate> create_pods;
  bool delete_job = false;  // ttlSecondsAfterFinished has passed
  // What was decided and why, for the log ("restart: pod ns/j-w-1 failed (exit 3), rule default").
  std::vector<std::string> notes;
};

JobPlan PlanBatchJob(const JobObservation& observation);

// The job's PodGroup: same name and namespace, owned by the job; minMember is the job's minimum,
// or, when some tasks wait on others (dependsOn), the minimums of the tasks that do not, which
// are all that can exist at first (the others join the running gang); minTaskMember likewise.
PodGroup JobPodGroup(const BatchJob& job);

// The bodies the controller creates besides pods: the headless Service named after the job, and
// the ConfigMap <job>-hosts whose key "<task>.host" lists the task's host names, one per line
// (<job>-<task>-<i>.<job>), and "hostfile" all of them.
std::string JobServiceJson(const BatchJob& job);
std::string JobHostsConfigMapJson(const BatchJob& job);
// spec.topology as JSON ("null" when absent), and the merge patch that sets a PodGroup's to it.
std::string TopologyJson(const std::optional<TopologyRequest>& topology);
std::string PodGroupTopologyPatchJson(const std::optional<TopologyRequest>& topology);
// The same for spec.locality.
std::string LocalityJson(const std::optional<LocalityRequest>& locality);
std::string PodGroupLocalityPatchJson(const std::optional<LocalityRequest>& locality);
// A merge patch of the status subresource, guarded by the job's resourceVersion.
std::string JobStatusPatchJson(const BatchJob& job, const BatchJobStatus& status);

}  // namespace arbiter::controllers
