#include "arbiter/sim/yaml_value.h"

#include <fstream>
#include <sstream>

#include "arbiter/resource/resource_name.h"

namespace arbiter::sim::yaml {

StatusOr<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path);
  if (!in) return NotFoundError(std::string(what) + " " + path + ": cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

StatusOr<std::vector<std::string>> ReplicaNames(const Value& v, std::int64_t max) {
  ARBITER_ASSIGN_OR_RETURN(std::string name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(std::int64_t replicas, v.Key("replicas").Int(0, 1, max));
  if (v.Key("replicas").absent()) return std::vector<std::string>{name};
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < replicas; ++i) names.push_back(name + "-" + std::to_string(i));
  return names;
}

StatusOr<std::vector<Node>> ParseNodes(const Value& v, Known& known) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "replicas", "cpu", "memory", "pods", "resources",
                                       "labels", "taints", "unschedulable", "notReady"}));
  Node node;
  node.allocatable.Set(kResourcePods, 110);
  for (const char* r : {"cpu", "memory", "pods"}) {
    if (!v.Key(r).absent()) ARBITER_RETURN_IF_ERROR(v.Key(r).SetResource(r, node.allocatable));
  }
  ARBITER_ASSIGN_OR_RETURN(auto others, v.Key("resources").Entries());
  for (const auto& [name, value] : others) {
    ARBITER_RETURN_IF_ERROR(value.SetResource(name, node.allocatable));
  }
  node.capacity = node.allocatable;
  ARBITER_ASSIGN_OR_RETURN(node.meta.labels, v.Key("labels").StringMap());
  const Value taints = v.Key("taints");
  ARBITER_RETURN_IF_ERROR(taints.CheckList());
  for (std::size_t i = 0; i < taints.size(); ++i) {
    const Value t = taints.Index(i);
    ARBITER_RETURN_IF_ERROR(t.CheckKeys({"key", "value", "effect"}));
    Taint taint;
    ARBITER_ASSIGN_OR_RETURN(taint.key, t.Key("key").RequiredString());
    ARBITER_ASSIGN_OR_RETURN(taint.value, t.Key("value").String());
    ARBITER_ASSIGN_OR_RETURN(taint.effect, t.Key("effect").RequiredString());
    if (taint.effect != kEffectNoSchedule && taint.effect != kEffectPreferNoSchedule &&
        taint.effect != kEffectNoExecute) {
      return t.Key("effect").Error("expected NoSchedule, PreferNoSchedule or NoExecute");
    }
    node.taints.push_back(std::move(taint));
  }
  ARBITER_ASSIGN_OR_RETURN(node.unschedulable, v.Key("unschedulable").Bool(false));
  ARBITER_ASSIGN_OR_RETURN(bool not_ready, v.Key("notReady").Bool(false));
  node.conditions.push_back(Condition{"Ready", not_ready ? "False" : "True", "", "", std::nullopt});

  ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> names, ReplicaNames(v));
  std::vector<Node> out;
  for (const std::string& name : names) {
    if (!known.nodes.insert(name).second) {
      return v.Key("name").Error("node " + name + " defined twice");
    }
    node.meta.name = name;
    node.meta.uid = "node/" + name;
    out.push_back(node);
  }
  return out;
}

StatusOr<PriorityClass> ParsePriorityClass(const Value& v, Known& known) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "value", "globalDefault"}));
  PriorityClass pc;
  ARBITER_ASSIGN_OR_RETURN(pc.meta.name, v.Key("name").RequiredString());
  pc.meta.uid = "priorityclass/" + pc.meta.name;
  ARBITER_ASSIGN_OR_RETURN(std::int64_t value,
                           v.Key("value").Int(0, std::numeric_limits<std::int32_t>::min(),
                                              std::numeric_limits<std::int32_t>::max()));
  pc.value = static_cast<std::int32_t>(value);
  ARBITER_ASSIGN_OR_RETURN(pc.global_default, v.Key("globalDefault").Bool(false));
  if (!known.priority_classes.insert(pc.meta.name).second) {
    return v.Key("name").Error("priority class " + pc.meta.name + " defined twice");
  }
  return pc;
}

StatusOr<Queue> ParseQueue(const Value& v, Known& known) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "weight", "capability", "guarantee", "reclaimable", "parent", "state"}));
  Queue q;
  ARBITER_ASSIGN_OR_RETURN(q.meta.name, v.Key("name").RequiredString());
  q.meta.uid = "queue/" + q.meta.name;
  ARBITER_ASSIGN_OR_RETURN(std::int64_t weight, v.Key("weight").Int(1, 1));
  q.spec.weight = static_cast<std::int32_t>(weight);
  ARBITER_ASSIGN_OR_RETURN(q.spec.capability, v.Key("capability").Resources());
  ARBITER_ASSIGN_OR_RETURN(q.spec.guarantee, v.Key("guarantee").Resources());
  ARBITER_ASSIGN_OR_RETURN(q.spec.reclaimable, v.Key("reclaimable").Bool(true));
  ARBITER_ASSIGN_OR_RETURN(q.spec.parent, v.Key("parent").String());
  ARBITER_ASSIGN_OR_RETURN(std::string state, v.Key("state").String("Open"));
  StatusOr<QueueState> parsed = ParseQueueState(state);
  if (!parsed.ok()) return v.Key("state").Error(parsed.status().message());
  q.spec.state = *parsed;
  if (!known.queues.insert(q.meta.name).second) {
    return v.Key("name").Error("queue " + q.meta.name + " defined twice");
  }
  return q;
}

StatusOr<TopologyRequest> ParseTopology(const Value& v) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"mode", "level", "maxWaitSeconds"}));
  TopologyRequest request;
  ARBITER_ASSIGN_OR_RETURN(std::string mode, v.Key("mode").String("Required"));
  StatusOr<TopologyMode> parsed_mode = ParseTopologyMode(mode);
  if (!parsed_mode.ok()) return v.Key("mode").Error(parsed_mode.status().message());
  request.mode = *parsed_mode;
  ARBITER_ASSIGN_OR_RETURN(request.level, v.Key("level").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(std::int64_t wait, v.Key("maxWaitSeconds").Int(0, 0));
  request.max_wait_seconds = static_cast<std::int32_t>(wait);
  return request;
}

StatusOr<LocalityRequest> ParseLocality(const Value& v) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"nodes", "racks", "dataSet"}));
  LocalityRequest request;
  ARBITER_ASSIGN_OR_RETURN(request.nodes, v.Key("nodes").StringList());
  ARBITER_ASSIGN_OR_RETURN(request.racks, v.Key("racks").StringList());
  ARBITER_ASSIGN_OR_RETURN(request.data_set, v.Key("dataSet").String());
  return request;
}

StatusOr<DataSet> ParseDataSet(const Value& v, Known& known) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "namespace", "blocks"}));
  DataSet d;
  ARBITER_ASSIGN_OR_RETURN(d.meta.name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(d.meta.namespace_name, v.Key("namespace").String("default"));
  d.meta.uid = "dataset/" + d.meta.Key();
  if (!known.data_sets.insert(d.meta.Key()).second) {
    return v.Key("name").Error("data set " + d.meta.Key() + " defined twice");
  }
  const Value blocks = v.Key("blocks");
  ARBITER_RETURN_IF_ERROR(blocks.CheckList());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Value b = blocks.Index(i);
    ARBITER_RETURN_IF_ERROR(b.CheckKeys({"name", "nodes"}));
    DataBlock& block = d.blocks.emplace_back();
    ARBITER_ASSIGN_OR_RETURN(block.name, b.Key("name").RequiredString());
    ARBITER_ASSIGN_OR_RETURN(block.nodes, b.Key("nodes").StringList());
    for (std::size_t n = 0; n < block.nodes.size(); ++n) {
      if (!known.nodes.contains(block.nodes[n])) {
        return b.Key("nodes").Index(n).Error("no node " + block.nodes[n] + " in the cluster");
      }
    }
  }
  return d;
}

StatusOr<Toleration> ParseToleration(const Value& v) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"key", "operator", "value", "effect"}));
  Toleration t;
  ARBITER_ASSIGN_OR_RETURN(t.key, v.Key("key").String());
  ARBITER_ASSIGN_OR_RETURN(std::string op, v.Key("operator").String("Equal"));
  if (op == "Exists") {
    t.op = TolerationOperator::kExists;
  } else if (op != "Equal") {
    return v.Key("operator").Error("expected Equal or Exists");
  }
  ARBITER_ASSIGN_OR_RETURN(t.value, v.Key("value").String());
  ARBITER_ASSIGN_OR_RETURN(t.effect, v.Key("effect").String());
  return t;
}

namespace {

StatusOr<std::vector<NodeSelectorRequirement>> ParseRequirements(const Value& v) {
  std::vector<NodeSelectorRequirement> out;
  ARBITER_RETURN_IF_ERROR(v.CheckList());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Value r = v.Index(i);
    ARBITER_RETURN_IF_ERROR(r.CheckKeys({"key", "operator", "values"}));
    NodeSelectorRequirement req;
    ARBITER_ASSIGN_OR_RETURN(req.key, r.Key("key").RequiredString());
    ARBITER_ASSIGN_OR_RETURN(std::string op, r.Key("operator").RequiredString());
    StatusOr<NodeSelectorOperator> parsed = ParseNodeSelectorOperator(op);
    if (!parsed.ok()) return r.Key("operator").Error(parsed.status().message());
    req.op = *parsed;
    ARBITER_ASSIGN_OR_RETURN(req.values, r.Key("values").StringList());
    out.push_back(std::move(req));
  }
  return out;
}

}  // namespace

StatusOr<NodeSelector> ParseNodeAffinity(const Value& v) {
  NodeSelector affinity;
  ARBITER_RETURN_IF_ERROR(v.CheckList());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Value term = v.Index(i);
    ARBITER_RETURN_IF_ERROR(term.CheckKeys({"matchExpressions", "matchFields"}));
    NodeSelectorTerm t;
    ARBITER_ASSIGN_OR_RETURN(t.match_expressions, ParseRequirements(term.Key("matchExpressions")));
    ARBITER_ASSIGN_OR_RETURN(t.match_fields, ParseRequirements(term.Key("matchFields")));
    affinity.terms.push_back(std::move(t));
  }
  return affinity;
}

StatusOr<std::vector<HostPort>> ParseHostPorts(const Value& v) {
  std::vector<HostPort> out;
  ARBITER_RETURN_IF_ERROR(v.CheckList());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Value p = v.Index(i);
    HostPort port;
    if (p.node().IsScalar()) {
      ARBITER_ASSIGN_OR_RETURN(std::int64_t n, p.Int(0, 1, 65535));
      port.port = static_cast<std::int32_t>(n);
    } else {
      ARBITER_RETURN_IF_ERROR(p.CheckKeys({"port", "protocol", "hostIP"}));
      if (p.Key("port").absent()) return p.Key("port").Error("required");
      ARBITER_ASSIGN_OR_RETURN(std::int64_t n, p.Key("port").Int(0, 1, 65535));
      port.port = static_cast<std::int32_t>(n);
      ARBITER_ASSIGN_OR_RETURN(port.protocol, p.Key("protocol").String("TCP"));
      if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP") {
        return p.Key("protocol").Error("expected TCP, UDP or SCTP");
      }
      ARBITER_ASSIGN_OR_RETURN(port.host_ip, p.Key("hostIP").String());
    }
    out.push_back(std::move(port));
  }
  return out;
}

}  // namespace arbiter::sim::yaml
