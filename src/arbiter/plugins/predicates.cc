#include "arbiter/plugins/predicates.h"

#include <algorithm>
#include <array>
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

namespace {

// shortage[i] set (all ones) where column[i] < want: one resource over a run of nodes, several
// nodes per instruction (runtime dispatch: one binary everywhere). Marks as wide as the column's
// entries, so that the compare needs no narrowing.
[[gnu::target_clones("avx2", "default")]] void MarkShort(const std::int64_t* __restrict column,
                                                         std::int64_t want, std::size_t count,
                                                         std::int64_t* __restrict shortage) {
  for (std::size_t i = 0; i < count; ++i) shortage[i] |= column[i] < want ? -1 : 0;
}

// Runs of at most this many nodes at a time: the shortage marks stay on the stack.
constexpr std::size_t kRun = 512;

bool AnySet(const std::int64_t* marks, std::size_t count) {
  std::int64_t any = 0;
  for (std::size_t i = 0; i < count; ++i) any |= marks[i];
  return any != 0;
}

}  // namespace

void PredicatesPlugin::FitRange(const Session& session, TaskIndex task, NodeIndex first,
                                std::span<const std::uint8_t> in_play, const Refuse& refuse) const {
  const TaskInfo& info = session.task(task);
  const std::span<const std::int64_t> want = info.request.amounts();
  if (want.size() > session.snapshot().resources.size()) {  // not of this snapshot: one by one
    FilterExtension::FitRange(session, task, first, in_play, refuse);
    return;
  }
  // Whether each node lacks any resource, over the session's free columns; then, for the nodes
  // that do, which resource comes first in id order (FirstShortfall's answer).
  const bool ports = !info.host_ports.empty();
  std::array<std::int64_t, kRun> shortage;
  for (std::size_t run = 0; run < in_play.size(); run += kRun) {
    const std::size_t count = std::min(kRun, in_play.size() - run);
    const std::size_t base = first.pos() + run;
    std::fill_n(shortage.begin(), count, 0);
    for (std::size_t r = 0; r < want.size(); ++r) {
      MarkShort(session.free_column(static_cast<ResourceId>(r)) + base, want[r], count,
                shortage.data());
    }
    if (!ports && !AnySet(shortage.data(), count)) continue;  // the common case: all fit
    for (std::size_t i = 0; i < count; ++i) {
      if (in_play[run + i] == 0) continue;
      const NodeIndex n = NodeIndex::Of(base + i);
      if (shortage[i] != 0) {
        std::size_t r = 0;
        while (want[r] <= session.free_column(static_cast<ResourceId>(r))[n.pos()]) ++r;
        refuse(n, Short(session, static_cast<ResourceId>(r)));
      } else if (ports && HostPortsConflict(info.host_ports, session.node_ports(n))) {
        refuse(n, PortsTaken());
      }
    }
  }
}

}  // namespace arbiter
