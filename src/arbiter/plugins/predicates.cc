#include "arbiter/plugins/predicates.h"

#include "arbiter/framework/session.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> PredicatesPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<PredicatesPlugin>());
}

void PredicatesPlugin::OnSessionOpen(const Session& session) {
  task_class_.assign(session.snapshot().tasks.size(), kUnknown);
  classes_.clear();
  verdicts_.clear();
  reasons_.clear();
  reason_ids_.clear();
}

std::int32_t PredicatesPlugin::ClassOf(const Session& session, TaskIndex task) const {
  std::int32_t& cls = task_class_[static_cast<std::size_t>(task)];
  if (cls != kUnknown) return cls;
  auto [it, inserted] = classes_.try_emplace(PlacementConstraintKey(*session.task(task).pod),
                                             static_cast<std::int32_t>(verdicts_.size()));
  if (inserted) verdicts_.emplace_back(static_cast<std::size_t>(session.node_count()), kUnknown);
  cls = it->second;
  return cls;
}

std::int32_t PredicatesPlugin::StaticVerdict(const Session& session, TaskIndex task,
                                             NodeIndex node) const {
  std::int32_t& verdict =
      verdicts_[static_cast<std::size_t>(ClassOf(session, task))][static_cast<std::size_t>(node)];
  if (verdict != kUnknown) return verdict;
  const Pod& pod = *session.task(task).pod;
  const Node& n = *session.node(node).node;
  std::string reason;
  if (!MatchesNodeSelector(pod.spec.node_selector, n.meta.labels) ||
      (pod.spec.required_node_affinity.has_value() &&
       !MatchesNodeAffinity(*pod.spec.required_node_affinity, n))) {
    reason = "node(s) didn't match Pod's node affinity/selector";
  } else if (const Taint* taint = FirstUntoleratedTaint(pod.spec.tolerations, n.taints)) {
    reason = "node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}";
  }
  if (reason.empty()) {
    verdict = kPass;
  } else {
    auto [it, inserted] =
        reason_ids_.try_emplace(reason, static_cast<std::int32_t>(reasons_.size()));
    if (inserted) reasons_.push_back(reason);
    verdict = it->second;
  }
  return verdict;
}

FilterResult PredicatesPlugin::Filter(const Session& session, TaskIndex task,
                                      NodeIndex node) const {
  const NodeInfo& info = session.node(node);
  if (!info.in_scope) return FilterResult::Unresolvable(info.out_of_scope_why);
  if (std::int32_t v = StaticVerdict(session, task, node); v != kPass) {
    return FilterResult::Unresolvable(reasons_[static_cast<std::size_t>(v)]);
  }
  const ResourceVector& request = session.task(task).request;
  if (std::optional<ResourceId> short_id = request.FirstShortfall(session.node_free(node))) {
    if (*short_id == kPodsId) return FilterResult::Unschedulable("Too many pods", short_id);
    return FilterResult::Unschedulable(
        "Insufficient " + session.snapshot().resources.Name(*short_id), short_id);
  }
  const std::vector<HostPort> wanted = HostPortsOf(*session.task(task).pod);
  if (!wanted.empty() && HostPortsConflict(wanted, session.node_ports(node))) {
    return FilterResult::Unschedulable(
        "node(s) didn't have free ports for the requested pod ports");
  }
  return FilterResult::Fit();
}

}  // namespace arbiter
