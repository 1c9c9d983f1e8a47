// predicates: whether a pod may go on a node, with kube-scheduler's rules and wording:
//   * the node is in scope (Ready, schedulable, matching the scheduler's --node-selector);
//   * spec.nodeSelector and required node affinity match the node's labels;
//   * every NoSchedule/NoExecute taint of the node is tolerated;
//   * the free resources hold the pod's effective request: cpu, memory, ephemeral storage,
//     extended resources (nvidia.com/gpu, ...) and the pod count;
//   * no host port the pod asks for is taken.
//
// The label, affinity and taint checks depend only on the pod's placement constraints and the
// node, so their result is shared by every pod with the same constraints (a gang's identical
// pods) for the whole session: computed once per (constraints, node), not once per pod.
//
// Extension point: Filter. No arguments.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class PredicatesPlugin final : public Plugin, public FilterExtension {
 public:
  static constexpr std::string_view kName = "predicates";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  FilterResult Filter(const Session& session, TaskIndex task, NodeIndex node) const override;

 private:
  static constexpr std::int32_t kUnknown = -2;
  static constexpr std::int32_t kPass = -1;

  std::int32_t ClassOf(const Session& session, TaskIndex task) const;
  std::int32_t StaticVerdict(const Session& session, TaskIndex task, NodeIndex node) const;

  // Per session: the constraint class of each task, and per class and node the static verdict
  // (kUnknown, kPass, or an index into reasons_).
  mutable std::vector<std::int32_t> task_class_;
  mutable std::map<std::string, std::int32_t> classes_;
  mutable std::vector<std::vector<std::int32_t>> verdicts_;
  mutable std::vector<std::string> reasons_;
  mutable std::map<std::string, std::int32_t> reason_ids_;
};

}  // namespace arbiter
