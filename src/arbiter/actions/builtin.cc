#include "arbiter/actions/builtin.h"

#include <memory>

#include "arbiter/actions/allocate.h"
#include "arbiter/actions/backfill.h"
#include "arbiter/actions/enqueue.h"
#include "arbiter/actions/preempt.h"
#include "arbiter/actions/reclaim.h"
#include "arbiter/base/check.h"
#include "arbiter/framework/config.h"

namespace arbiter {

void RegisterBuiltinActions(Registry& registry) {
  ARBITER_CHECK(
      registry
          .AddAction(std::string(EnqueueAction::kName),
                     [](const SchedulerConfig&) { return std::make_unique<EnqueueAction>(); })
          .ok());
  ARBITER_CHECK(registry
                    .AddAction(std::string(AllocateAction::kName),
                               [](const SchedulerConfig& c) {
                                 return std::make_unique<AllocateAction>(
                                     PreemptionOptionsFrom(c.preemption));
                               })
                    .ok());
  ARBITER_CHECK(registry
                    .AddAction(std::string(PreemptAction::kName),
                               [](const SchedulerConfig& c) {
                                 return std::make_unique<PreemptAction>(
                                     PreemptionOptionsFrom(c.preemption));
                               })
                    .ok());
  ARBITER_CHECK(registry
                    .AddAction(std::string(ReclaimAction::kName),
                               [](const SchedulerConfig& c) {
                                 return std::make_unique<ReclaimAction>(
                                     PreemptionOptionsFrom(c.preemption));
                               })
                    .ok());
  ARBITER_CHECK(
      registry
          .AddAction(std::string(BackfillAction::kName),
                     [](const SchedulerConfig&) { return std::make_unique<BackfillAction>(); })
          .ok());
}

}  // namespace arbiter
