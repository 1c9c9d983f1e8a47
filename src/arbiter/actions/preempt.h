// preempt: inside a queue, a pending job that allocate could not place may evict pods of jobs of
// strictly lower priority in the same queue (R12), through the engine of actions/preemption.h
// (gang-safe victims, simulate then commit, reprieve, never-victims).
//
// Jobs are visited per queue in job order (highest priority first). A job is a preemptor when
// allocate recorded that its minimum does not fit (NotEnoughResources), it is valid, and none of
// its pods says preemptionPolicy: Never. A job whose pods are already nominated to room that is
// still being freed waits for it rather than choosing more victims (no thrash).
#pragma once

#include "arbiter/actions/preemption.h"
#include "arbiter/framework/plugin.h"

namespace arbiter {

class PreemptAction final : public Action {
 public:
  static constexpr std::string_view kName = "preempt";
  explicit PreemptAction(PreemptionOptions options = {}) : options_(options) {}
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;

 private:
  PreemptionOptions options_;
};

}  // namespace arbiter
