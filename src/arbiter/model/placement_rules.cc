#include "arbiter/model/placement_rules.h"

#include <charconv>
#include <cstdint>
#include <functional>
#include <string>

namespace arbiter {

std::vector<HostPort> HostPortsOf(const Pod& pod) {
  std::vector<HostPort> out;
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const Container& c : *containers) {
      out.insert(out.end(), c.host_ports.begin(), c.host_ports.end());
    }
  }
  return out;
}

std::uint64_t PlacementConstraintHash(const PodSpec& spec) {
  const std::hash<std::string_view> text;
  // Each part is tagged, so that parts of different kinds cannot run together into equal hashes.
  std::uint64_t h = 0;
  for (const auto& [k, v] : spec.node_selector) {
    h = HashCombine(HashCombine(HashCombine(h, 's'), text(k)), text(v));
  }
  for (const Toleration& t : spec.tolerations) {
    h = HashCombine(HashCombine(h, 't'), text(t.key));
    h = HashCombine(h, t.op == TolerationOperator::kExists ? 1 : 2);
    h = HashCombine(HashCombine(h, text(t.value)), text(t.effect));
  }
  if (spec.required_node_affinity.has_value()) {
    for (const NodeSelectorTerm& term : spec.required_node_affinity->terms) {
      h = HashCombine(h, '|');
      for (const auto* reqs : {&term.match_expressions, &term.match_fields}) {
        h = HashCombine(h, reqs == &term.match_fields ? 'f' : 'e');
        for (const NodeSelectorRequirement& r : *reqs) {
          h = HashCombine(HashCombine(h, text(r.key)), static_cast<std::uint64_t>(r.op));
          h = HashCombine(h, r.values.size());
          for (const std::string& v : r.values) h = HashCombine(h, text(v));
        }
      }
    }
  }
  return h;
}
namespace {

bool ParseInt64(std::string_view text, std::int64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool AnyAddress(const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; }

}  // namespace

bool Tolerates(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (toleration.key.empty()) return toleration.op == TolerationOperator::kExists;
  if (toleration.key != taint.key) return false;
  return toleration.op == TolerationOperator::kExists || toleration.value == taint.value;
}

const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                   const std::vector<Taint>& taints) {
  for (const Taint& taint : taints) {
    if (taint.effect != kEffectNoSchedule && taint.effect != kEffectNoExecute) continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      if (Tolerates(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return &taint;
  }
  return nullptr;
}

bool MatchesNodeSelector(const Labels& selector, const Labels& node_labels) {
  for (const auto& [key, value] : selector) {
    auto it = node_labels.find(key);
    if (it == node_labels.end() || it->second != value) return false;
  }
  return true;
}

bool MatchesRequirement(const NodeSelectorRequirement& requirement, const Labels& labels) {
  auto it = labels.find(requirement.key);
  bool present = it != labels.end();
  auto listed = [&] {
    for (const std::string& v : requirement.values) {
      if (v == it->second) return true;
    }
    return false;
  };
  switch (requirement.op) {
    case NodeSelectorOperator::kIn:
      return present && listed();
    case NodeSelectorOperator::kNotIn:
      return !present || !listed();
    case NodeSelectorOperator::kExists:
      return present;
    case NodeSelectorOperator::kDoesNotExist:
      return !present;
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt: {
      std::int64_t have = 0;
      std::int64_t bound = 0;
      if (!present || requirement.values.size() != 1 || !ParseInt64(it->second, &have) ||
          !ParseInt64(requirement.values[0], &bound)) {
        return false;
      }
      return requirement.op == NodeSelectorOperator::kGt ? have > bound : have < bound;
    }
  }
  return false;
}

bool MatchesNodeAffinity(const NodeSelector& affinity, const Node& node) {
  const Labels fields = {{"metadata.name", node.meta.name}};
  for (const NodeSelectorTerm& term : affinity.terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    bool all = true;
    for (const NodeSelectorRequirement& r : term.match_expressions) {
      all = all && MatchesRequirement(r, node.meta.labels);
    }
    for (const NodeSelectorRequirement& r : term.match_fields) {
      all = all && MatchesRequirement(r, fields);
    }
    if (all) return true;
  }
  return false;
}

bool HostPortsConflict(const std::vector<HostPort>& wanted, const std::vector<HostPort>& in_use) {
  for (const HostPort& w : wanted) {
    for (const HostPort& u : in_use) {
      if (w.port != u.port || w.protocol != u.protocol) continue;
      if (AnyAddress(w.host_ip) || AnyAddress(u.host_ip) || w.host_ip == u.host_ip) return true;
    }
  }
  return false;
}

}  // namespace arbiter
