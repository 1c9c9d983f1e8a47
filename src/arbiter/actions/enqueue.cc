#include "arbiter/actions/enqueue.h"

#include <algorithm>
#include <string>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

void EnqueueAction::Execute(Session& session) {
  ResourceVector idle;
  for (NodeIndex n = 0; n < session.node_count(); ++n) {
    if (session.node(n).in_scope) idle.Add(session.node_free(n));
  }
  ResourceVector reserved;
  std::vector<JobIndex> pending;
  for (JobIndex j = 0; j < session.job_count(); ++j) {
    const JobInfo& job = session.job(j);
    if (job.group == nullptr) continue;
    if (session.job_phase(j) == PodGroupPhase::kPending) {
      pending.push_back(j);
    } else if (session.HoldsReservation(j)) {
      reserved.Add(session.MinimumRequest(j));
    }
  }
  std::sort(pending.begin(), pending.end(),
            [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
  ResourceVector available = idle;
  available.Subtract(ResourceVector::Min(available, reserved));
  for (JobIndex j : pending) {
    const JobInfo& job = session.job(j);
    // A group whose queue refuses it is never admitted. Too few pods is no reason to wait: they
    // may still be arriving, and admission only looks at what the group needs to start.
    std::string reason;
    if (auto why = session.JobInvalid(j, &reason)) {
      if (reason != "NotEnoughPods") {
        session.RecordJobUnschedulable(j, reason, *why);
        continue;
      }
      // Without minResources, what the group needs to start is known only once its minimum of
      // pods exists; until then it is not admitted (pods hear why after the arrival grace).
      if (job.min_resources.IsZero()) {
        const bool settled = session.now() - job.creation >= kPodsArrivalGrace;
        session.RecordJobUnschedulable(j, reason, *why, settled);
        continue;
      }
    }
    const ResourceVector need = session.MinimumRequest(j);
    if (std::optional<ResourceId> r = need.FirstShortfall(available)) {
      const ResourceSpace& space = session.snapshot().resources;
      const std::string what = job.min_resources.IsZero()
                                   ? "its first " + std::to_string(job.min_member) + " pods need "
                                   : "minResources need ";
      session.RecordJobUnschedulable(
          j, "NotEnoughResources",
          "the group cannot start: " + what + space.FormatAmount(*r, need.Get(*r)) + " " +
              space.Name(*r) + " but the cluster has " + space.FormatAmount(*r, available.Get(*r)) +
              " free that no admitted group has reserved");
      continue;
    }
    if (auto why = session.JobNotEnqueueable(j)) {
      session.RecordJobUnschedulable(j, "NotEnqueued", *why);
      continue;
    }
    available.Subtract(need);
    session.SetJobPhase(j, PodGroupPhase::kInqueue);
  }
}

}  // namespace arbiter
