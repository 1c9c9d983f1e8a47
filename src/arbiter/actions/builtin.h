// The actions Arbiter ships, registered under their configuration names: enqueue, allocate,
// preempt, reclaim, backfill. Called from main() and from tests that build a Scheduler.
#pragma once

#include "arbiter/framework/registry.h"

namespace arbiter {

void RegisterBuiltinActions(Registry& registry);

}  // namespace arbiter
