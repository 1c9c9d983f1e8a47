// nodeorder: which feasible node is best for a pod, as a weighted sum of kube-scheduler's
// classic scores over cpu and memory, each in [0, 100]:
//   leastAllocated  spread: the more left free after placing the pod, the better;
//   mostAllocated   binpack: the fuller after placing the pod, the better (keeps whole nodes free
//                   for big gangs);
//   balanced        the closer the cpu and memory fractions in use after placing, the better.
//
// Arguments (each a weight in [0, 100]): leastAllocatedWeight (default 1), mostAllocatedWeight
// (default 0), balancedWeight (default 1).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

struct NodeOrderWeights {
  double least_allocated = 1;
  double most_allocated = 0;
  double balanced = 1;
};

class NodeOrderPlugin final : public Plugin, public ScoreExtension {
 public:
  static constexpr std::string_view kName = "nodeorder";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  explicit NodeOrderPlugin(NodeOrderWeights weights) : weights_(weights) {}
  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  double Score(const Session& session, TaskIndex task, NodeIndex node) const override;
  void ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                  std::span<const std::uint8_t> in_play, std::span<double> scores) const override;
  void ScoreRangeFirst(const Session& session, TaskIndex task, NodeIndex first,
                       std::span<const std::uint8_t> in_play,
                       std::span<double> scores) const override;

 private:
  // Scores the run straight from the columns, adding or, with `set`, writing; false (nothing
  // done) when the run is not of the session opened.
  bool Columns(const Session& session, TaskIndex task, NodeIndex first, bool set,
               std::span<double> scores) const;

  NodeOrderWeights weights_;
  // Per node, this session: allocatable cpu and memory as doubles, each a column (ScoreRange).
  std::vector<double> allocatable_cpu_;
  std::vector<double> allocatable_memory_;
  std::vector<double> inverse_cpu_;  // 1 / allocatable (0 where none): a multiply, not a division
  std::vector<double> inverse_memory_;
  bool all_counted_ = false;  // every node has some cpu and some memory allocatable
};

}  // namespace arbiter
