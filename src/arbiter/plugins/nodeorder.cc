#include "arbiter/plugins/nodeorder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
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

namespace {

// Four doubles, one instruction each where the machine has AVX (else two SSE2 halves).
using Lanes = double __attribute__((vector_size(32)));

// ScoreOn for nodes i .. i+3 of side-by-side arrays: the same operations in the same order, with
// selects instead of branches, so the very same doubles (a lane whose total is 0 divides by it,
// and the select drops what that gave).
[[gnu::target_clones("avx2", "default")]] void ScoreLanes(
    const NodeOrderWeights& weights, std::size_t count, const double* total_cpu,
    const double* total_memory, const double* free_cpu, const double* free_memory,
    const double* request, double* scores) {
  constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(double);
  const Lanes zero = {0, 0, 0, 0};
  const Lanes one = zero + 1;
  const Lanes hundred = zero + 100;
  const Lanes half = zero + 0.5;
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Lanes total[2];
    Lanes free[2];
    std::memcpy(&total[0], total_cpu + i, sizeof(Lanes));
    std::memcpy(&total[1], total_memory + i, sizeof(Lanes));
    std::memcpy(&free[0], free_cpu + i, sizeof(Lanes));
    std::memcpy(&free[1], free_memory + i, sizeof(Lanes));
    Lanes fraction[2];
    Lanes least = zero;
    Lanes most = zero;
    for (int r = 0; r < 2; ++r) {
      const auto counts = total[r] > zero;
      const Lanes x = (total[r] - free[r] + request[r]) / total[r];
      const Lanes f = x < zero ? zero : (one < x ? one : x);  // std::clamp(x, 0, 1)
      fraction[r] = f;
      least = counts ? least + (one - f) * hundred : least;
      most = counts ? most + f * hundred : most;
    }
    const auto both = (total[0] > zero) & (total[1] > zero);
    const auto none = (total[0] <= zero) & (total[1] <= zero);
    least = both ? least * half : least;
    most = both ? most * half : most;
    const Lanes diff = fraction[0] - fraction[1];
    const Lanes balanced = both ? (one - (diff < zero ? -diff : diff)) * hundred : hundred;
    const Lanes score = (zero + weights.least_allocated) * least +
                        (zero + weights.most_allocated) * most +
                        (zero + weights.balanced) * balanced;
    Lanes sum;
    std::memcpy(&sum, scores + i, sizeof(Lanes));
    sum += none ? zero : score;
    std::memcpy(scores + i, &sum, sizeof(Lanes));
  }
  for (; i < count; ++i) {
    const double total[2] = {total_cpu[i], total_memory[i]};
    const double free[2] = {free_cpu[i], free_memory[i]};
    scores[i] += ScoreOn(weights, total, free, request);
  }
}

}  // namespace

void NodeOrderPlugin::ScoreNodes(const Session& session, TaskIndex task,
                                 std::span<const NodeIndex> nodes, std::span<double> scores) const {
  double request[2];
  CpuMemory(session.task(task).request, request);
  // Gathered side by side first, then scored several nodes per instruction.
  const std::size_t count = nodes.size();
  const auto columns = std::make_unique_for_overwrite<double[]>(4 * count);
  double* const total_cpu = columns.get();
  double* const total_memory = total_cpu + count;
  double* const free_cpu = total_memory + count;
  double* const free_memory = free_cpu + count;
  const std::int64_t* const cpu = session.free_column(kCpuId);
  const std::int64_t* const memory = session.free_column(kMemoryId);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = nodes[i].pos();
    total_cpu[i] = allocatable_[2 * n];
    total_memory[i] = allocatable_[2 * n + 1];
    free_cpu[i] = static_cast<double>(cpu[n]);
    free_memory[i] = static_cast<double>(memory[n]);
  }
  ScoreLanes(weights_, count, total_cpu, total_memory, free_cpu, free_memory, request,
             scores.data());
}

}  // namespace arbiter
