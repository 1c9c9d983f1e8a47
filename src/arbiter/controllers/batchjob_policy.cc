#include "arbiter/controllers/batchjob_policy.h"

#include <algorithm>

namespace arbiter::controllers {
namespace {

bool Matches(const LifecyclePolicy& policy, const Occurrence& occurrence) {
  if (policy.event.has_value() && *policy.event != occurrence.event) return false;
  if (!policy.exit_codes.has_value()) return true;
  if (!occurrence.exit_code.has_value()) return false;
  const std::vector<std::int32_t>& values = policy.exit_codes->values;
  const bool listed =
      std::find(values.begin(), values.end(), *occurrence.exit_code) != values.end();
  return policy.exit_codes->in == listed;
}

JobAction DefaultAction(JobEvent event) {
  switch (event) {
    case JobEvent::kPodFailed:
    case JobEvent::kPodEvicted:
    case JobEvent::kPodPreempted:
      return JobAction::kRestartJob;
    case JobEvent::kTaskFailed:
      return JobAction::kFailJob;
    case JobEvent::kTaskSucceeded:
    case JobEvent::kUnschedulable:
      return JobAction::kIgnore;
  }
  return JobAction::kIgnore;
}

bool UsesRetry(JobEvent event, JobAction action) {
  const bool restart = action == JobAction::kRestartJob || action == JobAction::kRestartTask;
  return restart && (event == JobEvent::kPodFailed || event == JobEvent::kTaskFailed);
}

}  // namespace

PolicyDecision DecidePolicy(const std::vector<LifecyclePolicy>& task_policies,
                            const std::vector<LifecyclePolicy>& job_policies,
                            const std::string& task_name, const Occurrence& occurrence) {
  PolicyDecision decision;
  const auto decide = [&](const LifecyclePolicy& policy, std::string rule) {
    decision.action = policy.action;
    decision.timeout_seconds = policy.timeout_seconds;
    decision.rule = std::move(rule);
  };
  bool found = false;
  for (std::size_t i = 0; i < task_policies.size() && !found; ++i) {
    if (!Matches(task_policies[i], occurrence)) continue;
    decide(task_policies[i], "task " + task_name + " policy " + std::to_string(i));
    found = true;
  }
  for (std::size_t i = 0; i < job_policies.size() && !found; ++i) {
    if (!Matches(job_policies[i], occurrence)) continue;
    decide(job_policies[i], "job policy " + std::to_string(i));
    found = true;
  }
  if (!found) {
    decision.action = DefaultAction(occurrence.event);
    decision.rule = "default";
  }
  decision.uses_retry = UsesRetry(occurrence.event, decision.action);
  return decision;
}

}  // namespace arbiter::controllers
