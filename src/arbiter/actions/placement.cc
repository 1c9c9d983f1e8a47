#include "arbiter/actions/placement.h"

namespace arbiter {

std::string PlacementFailure::Message(const Session& session, TaskIndex task) const {
  std::string out = errors.Message();
  if (short_resource.has_value() && most_free_node != kNoNode) {
    const ResourceSpace& space = session.snapshot().resources;
    const ResourceId r = *short_resource;
    out += " The pod requests " + space.FormatAmount(r, session.task(task).request.Get(r)) + " " +
           space.Name(r) + "; the most free on one node is " + space.FormatAmount(r, most_free) +
           " on " + session.node(most_free_node).name() + ".";
  }
  return out;
}

std::optional<NodeIndex> PickNode(Session& session, TaskIndex task, PlacementFailure* failure) {
  std::optional<NodeIndex> best;
  double best_score = 0;
  const std::int32_t nodes = session.node_count();
  for (NodeIndex n = 0; n < nodes; ++n) {
    const Session::NodeVerdict& verdict = session.Evaluate(task, n);
    const FilterResult& r = verdict.filter;
    if (!r.fit()) {
      if (failure != nullptr) {
        failure->errors.Add(r);
        if (r.short_resource.has_value()) {
          if (!failure->short_resource.has_value()) failure->short_resource = r.short_resource;
          if (*failure->short_resource == *r.short_resource) {
            const std::int64_t free = session.node_free(n).Get(*r.short_resource);
            if (free > failure->most_free) {
              failure->most_free = free;
              failure->most_free_node = n;
            }
          }
        }
      }
      continue;
    }
    const double score = verdict.score;
    if (!best.has_value() || score > best_score) {
      best = n;
      best_score = score;
    }
  }
  if (!best.has_value() && failure != nullptr) failure->errors.AddNodes(nodes);
  return best;
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
