#include "arbiter/plugins/nodeorder.h"

#include <algorithm>
#include <cmath>

#include "arbiter/framework/session.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> NodeOrderPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Check());
  NodeOrderWeights w;
  ARBITER_ASSIGN_OR_RETURN(w.least_allocated, reader.GetDouble("leastAllocatedWeight", 1, 0, 100));
  ARBITER_ASSIGN_OR_RETURN(w.most_allocated, reader.GetDouble("mostAllocatedWeight", 0, 0, 100));
  ARBITER_ASSIGN_OR_RETURN(w.balanced, reader.GetDouble("balancedWeight", 1, 0, 100));
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<NodeOrderPlugin>(w));
}

double NodeOrderPlugin::Score(const Session& session, TaskIndex task, NodeIndex node) const {
  const ResourceVector& allocatable = session.node(node).allocatable;
  const ResourceVector& free = session.node_free(node);
  const ResourceVector& request = session.task(task).request;
  // The fraction of cpu and of memory in use once the pod is placed (ratios: doubles are fine
  // here, nothing stored).
  double fraction[2] = {0, 0};
  int counted = 0;
  double least = 0;
  double most = 0;
  for (ResourceId r : {kCpuId, kMemoryId}) {
    const auto total = static_cast<double>(allocatable.Get(r));
    if (total <= 0) continue;
    const double used_after =
        total - static_cast<double>(free.Get(r)) + static_cast<double>(request.Get(r));
    const double f = std::clamp(used_after / total, 0.0, 1.0);
    fraction[r] = f;
    least += (1 - f) * 100;
    most += f * 100;
    ++counted;
  }
  if (counted == 0) return 0;
  least /= counted;
  most /= counted;
  const double balanced = counted == 2 ? (1 - std::fabs(fraction[0] - fraction[1])) * 100 : 100;
  return weights_.least_allocated * least + weights_.most_allocated * most +
         weights_.balanced * balanced;
}

}  // namespace arbiter
