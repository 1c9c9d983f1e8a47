#include "arbiter/actions/builtin.h"

#include <memory>

#include "arbiter/actions/allocate.h"
#include "arbiter/actions/backfill.h"
#include "arbiter/actions/enqueue.h"
#include "arbiter/base/check.h"

namespace arbiter {

void RegisterBuiltinActions(Registry& registry) {
  ARBITER_CHECK(registry
                    .AddAction(std::string(EnqueueAction::kName),
                               [] { return std::make_unique<EnqueueAction>(); })
                    .ok());
  ARBITER_CHECK(registry
                    .AddAction(std::string(AllocateAction::kName),
                               [] { return std::make_unique<AllocateAction>(); })
                    .ok());
  ARBITER_CHECK(registry
                    .AddAction(std::string(BackfillAction::kName),
                               [] { return std::make_unique<BackfillAction>(); })
                    .ok());
}

}  // namespace arbiter
