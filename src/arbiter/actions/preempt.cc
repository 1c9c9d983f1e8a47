#include "arbiter/actions/preempt.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

void PreemptAction::Execute(Session& session) {
  const VictimFilter same_queue_lower = [](const Session& s, JobIndex preemptor, TaskIndex v) {
    const JobInfo& victim = s.job(s.task(v).job);
    const JobInfo& job = s.job(preemptor);
    return victim.queue_index == job.queue_index && victim.priority < job.priority;
  };
  for (JobIndex j : PreemptorCandidates(session)) {
    if (PreemptionNever(session, j)) continue;
    if (std::optional<JobVerdict> wait = WaitOrTimeout(session, j, options_)) {
      session.RecordJobUnschedulable(j, wait->reason, std::move(wait->message),
                                     /*tell_pods=*/true, /*replace=*/true);
      continue;
    }
    PreemptionPlan plan =
        PreemptFor(session, j, EvictionKind::kPreempt, same_queue_lower, options_);
    if (plan.committed) {
      session.RecordJobUnschedulable(
          j, JobReason::kWaitingForPreemption,
          "preempting " + std::to_string(plan.evicted) +
              " pod(s) of lower-priority jobs in queue " + session.job(j).queue + "; " +
              (plan.withdrawn > 0 ? "taking back " + std::to_string(plan.withdrawn) +
                                        " placement(s) not yet bound; "
                                  : std::string()) +
              std::to_string(plan.pipelined) + " pod(s) nominated to the room they free",
          /*tell_pods=*/true, /*replace=*/true);
    } else if (!plan.why_not.empty()) {
      session.RecordJobUnschedulable(j, JobReason::kPreemptionWouldNotFit,
                                     "preemption would not make room: " + plan.why_not,
                                     /*tell_pods=*/true, /*replace=*/true);
    }
  }
}

}  // namespace arbiter
