#include "arbiter/actions/reclaim.h"

#include <optional>
#include <string>
#include <vector>

#include "arbiter/actions/quota_reclaim.h"
#include "arbiter/framework/reservation.h"
#include "arbiter/framework/session.h"

namespace arbiter {

void ReclaimAction::Execute(Session& session) {
  // Pods beyond a lowered quota first: the room they free is then shared as usual.
  ReclaimBeyondQuota(session, options_);
  const std::size_t queues = session.snapshot().queues.size();
  std::vector<std::optional<ResourceVector>> deserved(queues);
  for (QueueIndex q : QueueIndex::Range(static_cast<std::int32_t>(queues))) {
    deserved[q.pos()] = session.QueueDeserved(q);
  }
  const VictimFilter other_reclaimable = [&](const Session& s, JobIndex preemptor, TaskIndex v) {
    const QueueIndex vq = s.job(s.task(v).job).queue_index;
    if (vq == kNoQueue || vq == s.job(preemptor).queue_index) return false;
    return s.snapshot().queues[vq.pos()].queue->spec.reclaimable && deserved[vq.pos()].has_value();
  };
  // A victim's queue stays at or above its guarantee and deserved share (victims come only
  // from queues with a share: other_reclaimable).
  const QueueGuard keeps_share = [](const Session& s, QueueIndex q, const ResourceVector& taken) {
    return KeepsShareWithout(s, q, taken);
  };
  std::optional<VictimIndex> index;  // made when the first job plans
  for (JobIndex j : PreemptorCandidates(session)) {
    if (PreemptionNever(session, j)) continue;
    const QueueIndex q = session.job(j).queue_index;
    if (!deserved[q.pos()].has_value()) continue;  // no share plugin: nothing to reclaim by
    if (std::optional<JobVerdict> wait = WaitOrTimeout(session, j, options_)) {
      session.RecordJobUnschedulable(j, wait->reason, std::move(wait->message),
                                     /*tell_pods=*/true, /*replace=*/true);
      continue;
    }
    ResourceVector after = session.queue_allocated(q);
    after.Add(session.MinimumRequest(j));
    if (!after.FitsIn(*deserved[q.pos()])) continue;  // it would go over its share
    if (!index.has_value()) index.emplace(session, options_);
    PreemptionPlan plan = PreemptFor(session, j, EvictionKind::kReclaim, other_reclaimable,
                                     options_, keeps_share, /*within=*/nullptr, &*index);
    if (plan.committed) {
      session.RecordJobUnschedulable(
          j, JobReason::kWaitingForPreemption,
          "reclaiming " + std::to_string(plan.evicted) + " pod(s) from queues above their share" +
              " for queue " + session.job(j).queue + "; " +
              (plan.withdrawn > 0 ? "taking back " + std::to_string(plan.withdrawn) +
                                        " placement(s) not yet bound; "
                                  : std::string()) +
              std::to_string(plan.pipelined) + " pod(s) nominated to the room they free",
          /*tell_pods=*/true, /*replace=*/true);
    }
  }
}

}  // namespace arbiter
