#include "arbiter/actions/enqueue.h"

#include <algorithm>
#include <string>
#include <vector>

#include "arbiter/framework/outcome.h"
#include "arbiter/framework/session.h"

namespace arbiter {

void EnqueueAction::Execute(Session& session) {
  ResourceVector idle;
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    if (session.node(n).in_scope) idle.Add(session.node_free(n));
  }
  std::vector<JobIndex> pending;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    if (session.job(j).group != nullptr && session.job_phase(j) == PodGroupPhase::kPending) {
      pending.push_back(j);
    }
  }
  std::sort(pending.begin(), pending.end(),
            [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
  ResourceVector available = idle;
  available.Subtract(ResourceVector::Min(available, session.total_reserved()));
  for (JobIndex j : pending) {
    const JobInfo& job = session.job(j);
    // A group whose queue refuses it is never admitted. Too few pods is no reason to wait: they
    // may still be arriving, and admission only looks at what the group needs to start.
    if (std::optional<JobVerdict> invalid = session.CheckJob(j)) {
      if (invalid->reason != JobReason::kNotEnoughPods) {
        session.RecordJobUnschedulable(j, invalid->reason, std::move(invalid->message));
        continue;
      }
      // Without minResources, what the group needs to start is known only once its minimum of
      // pods exists; until then it is not admitted, and says why once the arrival grace has
      // passed (outcome.h: before it, nothing is wrong yet).
      if (job.min_resources.IsZero()) {
        if (PodsSettled(session, j)) {
          session.RecordJobUnschedulable(j, invalid->reason, std::move(invalid->message));
        }
        continue;
      }
    }
    const ResourceVector need = session.MinimumRequest(j);
    // A gang holding a reservation against starvation (framework/reservation.h) is admitted
    // whatever is idle now and whatever its queue's share has left: its reservation makes its
    // room as the pods on its nodes end. Its queue's capability still stops it.
    if (session.ReservationOf(j) != nullptr) {
      std::optional<JobVerdict> why = session.JobNotEnqueueable(j);
      if (why.has_value() && why->reason != JobReason::kNotEnqueued) {
        session.RecordJobUnschedulable(j, why->reason, std::move(why->message));
        continue;
      }
      available.Subtract(ResourceVector::Min(need, available));
      session.AdmitJob(j);
      continue;
    }
    if (std::optional<ResourceId> r = need.FirstShortfall(available)) {
      const ResourceSpace& space = session.snapshot().resources;
      const std::string what = job.min_resources.IsZero()
                                   ? "its first " + std::to_string(job.min_member) + " pods need "
                                   : "minResources need ";
      session.RecordJobUnschedulable(
          j, JobReason::kNotEnoughResources,
          "the group cannot start: " + what + space.FormatAmount(*r, need.Get(*r)) + " " +
              space.Name(*r) + " but the cluster has " + space.FormatAmount(*r, available.Get(*r)) +
              " free that no admitted group has reserved");
      continue;
    }
    if (std::optional<JobVerdict> why = session.JobNotEnqueueable(j)) {
      session.RecordJobUnschedulable(j, why->reason, std::move(why->message));
      continue;
    }
    available.Subtract(need);
    session.AdmitJob(j);
  }
}

}  // namespace arbiter
