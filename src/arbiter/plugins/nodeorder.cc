#include "arbiter/plugins/nodeorder.h"

#include <algorithm>
#include <cmath>
#include <span>

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

namespace {

// One node's score from its cpu and memory (index 0 and 1) as doubles; Score and ScoreNodes share
// it so that both give the very same doubles.
inline double ScoreOn(const NodeOrderWeights& weights, const double* total, const double* free,
                      const double* request) {
  // The fraction of cpu and of memory in use once the pod is placed (ratios: doubles are fine
  // here, nothing stored).
  double fraction[2] = {0, 0};
  int counted = 0;
  double least = 0;
  double most = 0;
  for (int r = 0; r < 2; ++r) {
    if (total[r] <= 0) continue;
    const double used_after = total[r] - free[r] + request[r];
    const double f = std::clamp(used_after / total[r], 0.0, 1.0);
    fraction[r] = f;
    least += (1 - f) * 100;
    most += f * 100;
    ++counted;
  }
  if (counted == 0) return 0;
  if (counted == 2) {  // the mean of two: halving is exact, and cheaper than a division
    least *= 0.5;
    most *= 0.5;
  }
  const double balanced = counted == 2 ? (1 - std::fabs(fraction[0] - fraction[1])) * 100 : 100;
  return weights.least_allocated * least + weights.most_allocated * most +
         weights.balanced * balanced;
}

// cpu and memory of a vector, as doubles.
inline void CpuMemory(const ResourceVector& v, double* out) {
  static_assert(kCpuId == 0 && kMemoryId == 1);
  out[0] = static_cast<double>(v.Get(kCpuId));
  out[1] = static_cast<double>(v.Get(kMemoryId));
}

}  // namespace

void NodeOrderPlugin::OnSessionOpen(const Session& session) {
  allocatable_.resize(2 * static_cast<std::size_t>(session.node_count()));
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    CpuMemory(session.node(n).allocatable, &allocatable_[2 * n.pos()]);
  }
}

double NodeOrderPlugin::Score(const Session& session, TaskIndex task, NodeIndex node) const {
  double total[2];
  double free[2];
  double request[2];
  CpuMemory(session.node(node).allocatable, total);
  CpuMemory(session.node_free(node), free);
  CpuMemory(session.task(task).request, request);
  return ScoreOn(weights_, total, free, request);
}

void NodeOrderPlugin::ScoreNodes(const Session& session, TaskIndex task,
                                 std::span<const NodeIndex> nodes, std::span<double> scores) const {
  double request[2];
  CpuMemory(session.task(task).request, request);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    double free[2];
    CpuMemory(session.node_free(nodes[i]), free);
    scores[i] += ScoreOn(weights_, &allocatable_[2 * nodes[i].pos()], free, request);
  }
}

}  // namespace arbiter
