#include "arbiter/actions/enqueue.h"

#include <algorithm>
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
    } else if (session.job_phase(j) == PodGroupPhase::kInqueue && !session.JobReady(j)) {
      reserved.Add(job.min_resources);
    }
  }
  std::sort(pending.begin(), pending.end(),
            [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
  ResourceVector available = idle;
  available.Subtract(ResourceVector::Min(available, reserved));
  for (JobIndex j : pending) {
    const JobInfo& job = session.job(j);
    if (auto why = session.JobNotEnqueueable(j)) {
      session.RecordJobUnschedulable(j, "NotEnqueued", *why);
      continue;
    }
    if (std::optional<ResourceId> r = job.min_resources.FirstShortfall(available)) {
      const ResourceSpace& space = session.snapshot().resources;
      session.RecordJobUnschedulable(
          j, "NotEnoughResources",
          "minResources need " + space.FormatAmount(*r, job.min_resources.Get(*r)) + " " +
              space.Name(*r) + " but the cluster has " + space.FormatAmount(*r, available.Get(*r)) +
              " free that no admitted group has reserved");
      continue;
    }
    available.Subtract(job.min_resources);
    session.SetJobPhase(j, PodGroupPhase::kInqueue);
  }
}

}  // namespace arbiter
