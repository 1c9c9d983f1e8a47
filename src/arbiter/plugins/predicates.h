// predicates: whether a pod may go on a node, with kube-scheduler's rules and wording:
//   * the node is in scope (Ready, schedulable, matching the scheduler's --node-selector);
//   * spec.nodeSelector and required node affinity match the node's labels;
//   * every NoSchedule/NoExecute taint of the node is tolerated;
//   * the free resources hold the pod's effective request: cpu, memory, ephemeral storage,
//     extended resources (nvidia.com/gpu, ...) and the pod count;
//   * no host port the pod asks for is taken.
//
// The scope, label, affinity and taint checks are its NodeConstraint: they depend only on the
// pod's placement constraints and the node, so the session computes them once per constraint
// class and node (framework/placement.h), not once per pod. Resources and ports are its Fit.
// It keeps no state.
//
// Extension point: Filter. No arguments.
#pragma once

#include <memory>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class PredicatesPlugin final : public Plugin, public FilterExtension {
 public:
  static constexpr std::string_view kName = "predicates";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  std::string_view Name() const override { return kName; }
  FilterResult NodeConstraint(const Session& session, TaskIndex task,
                              NodeIndex node) const override;
  FilterResult Fit(const Session& session, TaskIndex task, NodeIndex node) const override;
  void FitRange(const Session& session, TaskIndex task, NodeIndex first,
                std::span<const std::uint8_t> in_play, const Refuse& refuse) const override;
};

}  // namespace arbiter
