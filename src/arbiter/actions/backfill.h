// backfill: after allocate gave every admitted gang its chance at its minimum, places the pods
// beyond the minimum of jobs that are ready (elastic members), one pod at a time, so that such
// extras never take the room a waiting gang's minimum needed in this session. Progressive filling:
// each next pod goes to the job first in job order at that moment (with drf, the lowest dominant
// share), its pods in task order; a queue at its deserved share or capability gets no more.
#pragma once

#include "arbiter/framework/plugin.h"

namespace arbiter {

class BackfillAction final : public Action {
 public:
  static constexpr std::string_view kName = "backfill";
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;
};

}  // namespace arbiter
