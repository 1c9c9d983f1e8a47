#include "arbiter/plugins/predicates.h"

#include "arbiter/framework/session.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> PredicatesPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<PredicatesPlugin>());
}

FilterResult PredicatesPlugin::NodeConstraint(const Session& session, TaskIndex task,
                                              NodeIndex node) const {
  const NodeInfo& info = session.node(node);
  if (!info.in_scope) return FilterResult::Unresolvable(info.out_of_scope_why);
  const Pod& pod = *session.task(task).pod;
  const Node& n = *info.node;
  if (!MatchesNodeSelector(pod.spec.node_selector, n.meta.labels) ||
      (pod.spec.required_node_affinity.has_value() &&
       !MatchesNodeAffinity(*pod.spec.required_node_affinity, n))) {
    return FilterResult::Unresolvable("node(s) didn't match Pod's node affinity/selector");
  }
  if (const Taint* taint = FirstUntoleratedTaint(pod.spec.tolerations, n.taints)) {
    return FilterResult::Unresolvable("node(s) had untolerated taint {" + taint->key + ": " +
                                      taint->value + "}");
  }
  return FilterResult::Fit();
}

FilterResult PredicatesPlugin::Fit(const Session& session, TaskIndex task, NodeIndex node) const {
  const TaskInfo& info = session.task(task);
  if (std::optional<ResourceId> short_id = info.request.FirstShortfall(session.node_free(node))) {
    if (*short_id == kPodsId) return FilterResult::Unschedulable("Too many pods", short_id);
    return FilterResult::Unschedulable(
        "Insufficient " + session.snapshot().resources.Name(*short_id), short_id);
  }
  if (!info.host_ports.empty() && HostPortsConflict(info.host_ports, session.node_ports(node))) {
    return FilterResult::Unschedulable(
        "node(s) didn't have free ports for the requested pod ports");
  }
  return FilterResult::Fit();
}

}  // namespace arbiter
