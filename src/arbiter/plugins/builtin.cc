#include "arbiter/plugins/builtin.h"

#include "arbiter/base/check.h"
#include "arbiter/plugins/drf.h"
#include "arbiter/plugins/gang.h"
#include "arbiter/plugins/locality.h"
#include "arbiter/plugins/nodeorder.h"
#include "arbiter/plugins/predicates.h"
#include "arbiter/plugins/priority.h"
#include "arbiter/plugins/proportion.h"
#include "arbiter/plugins/straggler.h"
#include "arbiter/plugins/topology.h"

namespace arbiter {

void RegisterBuiltinPlugins(Registry& registry) {
  ARBITER_CHECK(registry.AddPlugin(std::string(DrfPlugin::kName), &DrfPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(ProportionPlugin::kName), &ProportionPlugin::Create).ok());
  ARBITER_CHECK(registry.AddPlugin(std::string(GangPlugin::kName), &GangPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(PriorityPlugin::kName), &PriorityPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(PredicatesPlugin::kName), &PredicatesPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(NodeOrderPlugin::kName), &NodeOrderPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(TopologyPlugin::kName), &TopologyPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(LocalityPlugin::kName), &LocalityPlugin::Create).ok());
  ARBITER_CHECK(
      registry.AddPlugin(std::string(StragglerPlugin::kName), &StragglerPlugin::Create).ok());
}

}  // namespace arbiter
