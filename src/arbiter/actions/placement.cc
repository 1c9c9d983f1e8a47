#include "arbiter/actions/placement.h"

#include <algorithm>
#include <vector>

namespace arbiter {

std::string PlacementFailure::Message(const Session& session, TaskIndex task, bool gang) const {
  std::string out = errors.Message();
  if (!short_resource.has_value() || short_nodes.empty()) return out;
  const ResourceSpace& space = session.snapshot().resources;
  const ResourceId r = *short_resource;
  std::vector<NodeIndex> nodes = short_nodes;
  // Most free first, then by name (node order): a stable message for unchanged state, so that
  // repeated events aggregate.
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeIndex a, NodeIndex b) {
    return session.node_free(a).Get(r) > session.node_free(b).Get(r);
  });
  const std::string requested = space.FormatAmount(r, session.task(task).request.Get(r));
  if (!gang) {
    out += " The pod requests " + requested + " " + space.Name(r) +
           "; the most free on one node is " +
           space.FormatAmount(r, session.node_free(nodes.front()).Get(r)) + " on " +
           session.node(nodes.front()).name() + ".";
    return out;
  }
  constexpr std::size_t kListed = 5;
  out += " Each pod requests " + requested + " " + space.Name(r) + "; " + space.Name(r) +
         " free on the nodes: ";
  for (std::size_t i = 0; i < nodes.size() && i < kListed; ++i) {
    if (i > 0) out += ", ";
    out += session.node(nodes[i]).name() + " " +
           space.FormatAmount(r, session.node_free(nodes[i]).Get(r));
  }
  if (nodes.size() > kListed) out += ", ... (" + std::to_string(nodes.size() - kListed) + " more)";
  return out + ".";
}

namespace {

void NoteFailure(const FilterResult& r, NodeIndex n, PlacementFailure* failure) {
  failure->errors.Add(r);
  if (!r.short_resource.has_value()) return;
  if (!failure->short_resource.has_value()) failure->short_resource = r.short_resource;
  if (*failure->short_resource == *r.short_resource) failure->short_nodes.push_back(n);
}

}  // namespace

std::optional<NodeIndex> PickNode(Session& session, TaskIndex task, PlacementFailure* failure) {
  const std::int32_t nodes = session.node_count();
  NodeIndex best = kNoNode;
  double best_score = 0;
  if (Session::ClassVerdicts* verdicts = session.VerdictsFor(task)) {
    // The hot loop: most entries are current, so this is a compare and a load per node.
    const std::uint64_t* versions = session.node_versions().data();
    for (NodeIndex n = 0; n < nodes; ++n) {
      const auto i = static_cast<std::size_t>(n);
      if (verdicts->version[i] != versions[i] + 1) session.Refresh(task, n, *verdicts);
      if (verdicts->result[i] != Session::kFitResult) continue;
      const double score = verdicts->score[i];
      if (best == kNoNode || score > best_score) {
        best = n;
        best_score = score;
      }
    }
    if (best != kNoNode) return best;
    if (failure != nullptr) {
      for (NodeIndex n = 0; n < nodes; ++n) {
        NoteFailure(session.InternedResult(verdicts->result[static_cast<std::size_t>(n)]), n,
                    failure);
      }
      failure->errors.AddNodes(nodes);
    }
    return std::nullopt;
  }
  for (NodeIndex n = 0; n < nodes; ++n) {
    Session::NodeVerdict verdict = session.Evaluate(task, n);
    if (!verdict.filter.fit()) {
      if (failure != nullptr) NoteFailure(verdict.filter, n, failure);
      continue;
    }
    if (best == kNoNode || verdict.score > best_score) {
      best = n;
      best_score = verdict.score;
    }
  }
  if (best != kNoNode) return best;
  if (failure != nullptr) failure->errors.AddNodes(nodes);
  return std::nullopt;
}

bool SamePlacementNeeds(const Session& session, TaskIndex a, TaskIndex b) {
  const TaskInfo& ta = session.task(a);
  const TaskInfo& tb = session.task(b);
  if (!(ta.request == tb.request)) return false;
  const PodSpec& sa = ta.pod->spec;
  const PodSpec& sb = tb.pod->spec;
  return sa.node_selector == sb.node_selector && sa.tolerations == sb.tolerations &&
         sa.required_node_affinity == sb.required_node_affinity &&
         HostPortsOf(*ta.pod) == HostPortsOf(*tb.pod);
}

}  // namespace arbiter
