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

// 1 / total, the factor that turns a node's use into its fraction: a multiply by it, not a
// division, in the loops (a vector division costs several multiplies, and scoring a pod's every
// node did two per node). 0 for a node without the resource, which is then not counted.
inline double Inverse(double total) { return total > 0 ? 1.0 / total : 0.0; }

// One node's score from its cpu and memory (index 0 and 1) as doubles; Score and ScoreRange share
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
    const double f = std::clamp(used_after * Inverse(total[r]), 0.0, 1.0);
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
  const auto nodes = static_cast<std::size_t>(session.node_count());
  allocatable_cpu_.resize(nodes);
  allocatable_memory_.resize(nodes);
  inverse_cpu_.resize(nodes);
  inverse_memory_.resize(nodes);
  bool all_counted = true;
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    double total[2];
    CpuMemory(session.node(n).allocatable, total);
    allocatable_cpu_[n.pos()] = total[0];
    allocatable_memory_[n.pos()] = total[1];
    inverse_cpu_[n.pos()] = Inverse(total[0]);
    inverse_memory_[n.pos()] = Inverse(total[1]);
    all_counted = all_counted && total[0] > 0 && total[1] > 0;
  }
  all_counted_ = all_counted;
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
// selects instead of branches, so the very same doubles (a lane whose total is 0 multiplies by an
// inverse of 0, and the select drops what that gave). Adds to scores, or with `set` writes them
// (the same doubles as adding to zeros).
[[gnu::target_clones("avx2", "default")]] void ScoreLanes(
    const NodeOrderWeights& weights, std::size_t count, const double* __restrict total_cpu,
    const double* __restrict total_memory, const double* __restrict inverse_cpu,
    const double* __restrict inverse_memory, const double* __restrict free_cpu,
    const double* __restrict free_memory, const double* __restrict request, bool all_counted,
    bool set, double* __restrict scores) {
  constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(double);
  const Lanes zero = {};
  const Lanes one = zero + 1;
  const Lanes hundred = zero + 100;
  const Lanes half = zero + 0.5;
  const Lanes least_weight = zero + weights.least_allocated;
  const Lanes most_weight = zero + weights.most_allocated;
  const Lanes balanced_weight = zero + weights.balanced;
  const Lanes asked_cpu = zero + request[0];
  const Lanes asked_memory = zero + request[1];
  // One resource's part: its fraction in use once placed, added to least and most when the node
  // has some of it (written out per resource so that everything stays in registers).
  const auto part = [&](const Lanes& total, const Lanes& inverse, const Lanes& free,
                        const Lanes& asked, Lanes& fraction, Lanes& least, Lanes& most) {
    const auto counts = total > zero;
    const Lanes x = (total - free + asked) * inverse;
    const Lanes f = x < zero ? zero : (one < x ? one : x);  // std::clamp(x, 0, 1)
    fraction = f;
    least = counts ? least + (one - f) * hundred : least;
    most = counts ? most + f * hundred : most;
  };
  std::size_t i = 0;
  // Every node has cpu and memory (the usual cluster): what the selects below would choose, with
  // no select.
  for (; all_counted && i + kLanes <= count; i += kLanes) {
    Lanes total_c;
    Lanes total_m;
    Lanes inverse_c;
    Lanes inverse_m;
    Lanes free_c;
    Lanes free_m;
    std::memcpy(&total_c, total_cpu + i, sizeof(Lanes));
    std::memcpy(&total_m, total_memory + i, sizeof(Lanes));
    std::memcpy(&inverse_c, inverse_cpu + i, sizeof(Lanes));
    std::memcpy(&inverse_m, inverse_memory + i, sizeof(Lanes));
    std::memcpy(&free_c, free_cpu + i, sizeof(Lanes));
    std::memcpy(&free_m, free_memory + i, sizeof(Lanes));
    const Lanes x_c = (total_c - free_c + asked_cpu) * inverse_c;
    const Lanes x_m = (total_m - free_m + asked_memory) * inverse_m;
    const Lanes f_c = x_c < zero ? zero : (one < x_c ? one : x_c);
    const Lanes f_m = x_m < zero ? zero : (one < x_m ? one : x_m);
    const Lanes least = ((zero + (one - f_c) * hundred) + (one - f_m) * hundred) * half;
    const Lanes most = ((zero + f_c * hundred) + f_m * hundred) * half;
    const Lanes diff = f_c - f_m;
    const Lanes balanced = (one - (diff < zero ? -diff : diff)) * hundred;
    Lanes sum = least_weight * least + most_weight * most + balanced_weight * balanced;
    if (!set) {
      Lanes before;
      std::memcpy(&before, scores + i, sizeof(Lanes));
      sum = before + sum;
    }
    std::memcpy(scores + i, &sum, sizeof(Lanes));
  }
  for (; i + kLanes <= count; i += kLanes) {
    Lanes total[2];
    Lanes inverse[2];
    Lanes free[2];
    std::memcpy(&total[0], total_cpu + i, sizeof(Lanes));
    std::memcpy(&total[1], total_memory + i, sizeof(Lanes));
    std::memcpy(&inverse[0], inverse_cpu + i, sizeof(Lanes));
    std::memcpy(&inverse[1], inverse_memory + i, sizeof(Lanes));
    std::memcpy(&free[0], free_cpu + i, sizeof(Lanes));
    std::memcpy(&free[1], free_memory + i, sizeof(Lanes));
    Lanes fraction[2];
    Lanes least = zero;
    Lanes most = zero;
    part(total[0], inverse[0], free[0], asked_cpu, fraction[0], least, most);
    part(total[1], inverse[1], free[1], asked_memory, fraction[1], least, most);
    const auto both = (total[0] > zero) & (total[1] > zero);
    const auto none = (total[0] <= zero) & (total[1] <= zero);
    least = both ? least * half : least;
    most = both ? most * half : most;
    const Lanes diff = fraction[0] - fraction[1];
    const Lanes balanced = both ? (one - (diff < zero ? -diff : diff)) * hundred : hundred;
    const Lanes score = least_weight * least + most_weight * most + balanced_weight * balanced;
    Lanes sum = none ? zero : score;
    if (!set) {
      Lanes before;
      std::memcpy(&before, scores + i, sizeof(Lanes));
      sum = before + sum;
    }
    std::memcpy(scores + i, &sum, sizeof(Lanes));
  }
  for (; i < count; ++i) {
    const double total[2] = {total_cpu[i], total_memory[i]};
    const double free[2] = {free_cpu[i], free_memory[i]};
    const double score = ScoreOn(weights, total, free, request);
    scores[i] = set ? score : scores[i] + score;
  }
}

}  // namespace

void NodeOrderPlugin::ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                                 std::span<const std::uint8_t> in_play,
                                 std::span<double> scores) const {
  if (!Columns(session, task, first, /*set=*/false, scores)) {
    ScoreExtension::ScoreRange(session, task, first, in_play, scores);
  }
}

void NodeOrderPlugin::ScoreRangeFirst(const Session& session, TaskIndex task, NodeIndex first,
                                      std::span<const std::uint8_t> in_play,
                                      std::span<double> scores) const {
  if (!Columns(session, task, first, /*set=*/true, scores)) {
    ScoreExtension::ScoreRangeFirst(session, task, first, in_play, scores);
  }
}

bool NodeOrderPlugin::Columns(const Session& session, TaskIndex task, NodeIndex first, bool set,
                              std::span<double> scores) const {
  if (first.pos() + scores.size() > allocatable_cpu_.size()) return false;  // another session's
  double request[2];
  CpuMemory(session.task(task).request, request);
  // Every node of the run, in play or not, straight from the columns, several per instruction.
  const std::size_t b = first.pos();
  ScoreLanes(weights_, scores.size(), allocatable_cpu_.data() + b, allocatable_memory_.data() + b,
             inverse_cpu_.data() + b, inverse_memory_.data() + b,
             session.free_column_as_double(kCpuId) + b,
             session.free_column_as_double(kMemoryId) + b, request, all_counted_, set,
             scores.data());
  return true;
}

}  // namespace arbiter
