#include "arbiter/plugins/predicates.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

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

namespace {

FilterResult Short(const Session& session, ResourceId id) {
  if (id == kPodsId) return FilterResult::Unschedulable("Too many pods", id);
  return FilterResult::Unschedulable("Insufficient " + session.snapshot().resources.Name(id), id);
}

FilterResult PortsTaken() {
  return FilterResult::Unschedulable("node(s) didn't have free ports for the requested pod ports");
}

}  // namespace

FilterResult PredicatesPlugin::Fit(const Session& session, TaskIndex task, NodeIndex node) const {
  const TaskInfo& info = session.task(task);
  if (std::optional<ResourceId> short_id = info.request.FirstShortfall(session.node_free(node))) {
    return Short(session, *short_id);
  }
  if (!info.host_ports.empty() && HostPortsConflict(info.host_ports, session.node_ports(node))) {
    return PortsTaken();
  }
  return FilterResult::Fit();
}

void PredicatesPlugin::FitNodes(const Session& session, TaskIndex task,
                                std::vector<NodeIndex>& nodes, const Refuse& refuse) const {
  const TaskInfo& info = session.task(task);
  // FirstShortfall over the session's free columns: the first resource, in id order, of which
  // the node has less free than the pod asks.
  const std::span<const std::int64_t> want = info.request.amounts();
  if (want.size() > session.snapshot().resources.size()) {  // not of this snapshot: one by one
    FilterExtension::FitNodes(session, task, nodes, refuse);
    return;
  }
  std::vector<const std::int64_t*> free(want.size());
  for (std::size_t r = 0; r < want.size(); ++r) {
    free[r] = session.free_column(static_cast<ResourceId>(r));
  }
  const bool ports = !info.host_ports.empty();
  std::size_t kept = 0;
  for (NodeIndex n : nodes) {
    std::size_t r = 0;
    while (r < want.size() && want[r] <= free[r][n.pos()]) ++r;
    if (r < want.size()) {
      refuse(n, Short(session, static_cast<ResourceId>(r)));
    } else if (ports && HostPortsConflict(info.host_ports, session.node_ports(n))) {
      refuse(n, PortsTaken());
    } else {
      nodes[kept++] = n;
    }
  }
  nodes.resize(kept);
}

}  // namespace arbiter
