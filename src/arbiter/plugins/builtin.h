// The plugins Arbiter ships, registered under their configuration names: gang, priority, drf,
// proportion, predicates, nodeorder, topology, locality. Called from main() and from tests that
// build a Scheduler.
#pragma once

#include "arbiter/base/status.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

void RegisterBuiltinPlugins(Registry& registry);

}  // namespace arbiter
