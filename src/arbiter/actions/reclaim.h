// reclaim: between queues. A queue below its deserved share, with a job that allocate could not
// place, may evict pods of other queues that are above their deserved share and reclaimable
// (spec.reclaimable, true by default), through the engine of actions/preemption.h.
//
// Both sides stop at their shares, so that reclaim never ping-pongs:
//   * the reclaiming queue takes back only while its allocation plus the job's minimum stays
//     within its deserved share in every resource;
//   * a victim queue keeps at least its deserved share (its share, the largest ratio over
//     resources of allocated to deserved, stays >= 1, as the proportion plugin measures it) and
//     every resource of its guarantee.
// A queue that lost pods to reclaim is therefore at or above its share and cannot reclaim them
// back. Before all that, pods running beyond a lowered ResourceQuota are evicted once its grace
// period has passed (actions/quota_reclaim.h). The victim's priority does not matter between
// queues; among possible victims the engine still prefers the fewest broken jobs, the lowest
// priority and the youngest pods.
#pragma once

#include "arbiter/actions/preemption.h"
#include "arbiter/framework/plugin.h"

namespace arbiter {

class ReclaimAction final : public Action {
 public:
  static constexpr std::string_view kName = "reclaim";
  explicit ReclaimAction(PreemptionOptions options = {}) : options_(options) {}
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;

 private:
  PreemptionOptions options_;
};

}  // namespace arbiter
