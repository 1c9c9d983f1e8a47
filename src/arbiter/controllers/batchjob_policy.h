// The BatchJob policy matcher: which action an occurrence in a job's life leads to, and whether
// it uses up one of the job's retries (spec.maxRetry).
//
// The task's own policies are asked first, then the job's; in each list the first policy that
// matches wins. A policy matches when its event (if it names one) is the occurrence's, and its
// exit codes (if it names them) hold for the occurrence's exit code: `In` when the code is one of
// the values, `NotIn` when it is none of them; a policy with exit codes never matches an
// occurrence without one (an eviction, a preemption, a task's outcome).
//
// When none matches, the defaults: PodFailed -> RestartJob; PodEvicted and PodPreempted ->
// RestartJob; TaskFailed -> FailJob; TaskSucceeded and Unschedulable -> Ignore (the job's
// successPolicy decides when it completes; an unschedulable job waits).
//
// Only a failure of the job's own making uses up a retry: a restart for PodFailed or TaskFailed.
// A restart for an eviction or a preemption never does, whatever policy asked for it (Volcano's
// users report preemptions using up maxRetry); nor does any other action.
//
// Pure; thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/model/batch_job.h"

namespace arbiter::controllers {

struct Occurrence {
  JobEvent event = JobEvent::kPodFailed;
  std::optional<std::int32_t> exit_code;  // PodFailed: the first failed container's
};

struct PolicyDecision {
  JobAction action = JobAction::kIgnore;
  bool uses_retry = false;
  std::optional<std::int64_t> timeout_seconds;  // of the policy that matched
  // Which rule decided: "task worker policy 2", "job policy 1" or "default" (for logs and the
  // job's condition message).
  std::string rule;
};

PolicyDecision DecidePolicy(const std::vector<LifecyclePolicy>& task_policies,
                            const std::vector<LifecyclePolicy>& job_policies,
                            const std::string& task_name, const Occurrence& occurrence);

}  // namespace arbiter::controllers
