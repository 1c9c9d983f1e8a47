// enqueue: admits pending groups (phase Pending -> Inqueue) when what they need to start (their
// minResources, or else the requests of their first minMember pods) fits into what the cluster
// has free, less what groups admitted earlier and still waiting to start have reserved (a group
// found unplaceable, or short of pods, holds nothing; one that its own queue holds back holds
// room only in its queue's share and capability: framework/outcome.h, HoldsReservation), and
// every JobEnqueue plugin accepts (the proportion plugin: the queue's deserved share and
// capability). A group whose queue refuses it (missing, closed, not for its namespace) is never
// admitted. Jobs are taken in job order, so the first in order reserves first. Admission is what
// allocate looks at: it only places admitted jobs. A gang holding a reservation against
// starvation (framework/reservation.h) is admitted whatever is free and whatever its queue's
// share has left (its capability still counts).
#pragma once

#include "arbiter/framework/plugin.h"

namespace arbiter {

class EnqueueAction final : public Action {
 public:
  static constexpr std::string_view kName = "enqueue";
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;
};

}  // namespace arbiter
