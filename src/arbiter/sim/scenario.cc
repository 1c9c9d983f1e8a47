#include "arbiter/sim/scenario.h"

#include <charconv>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "arbiter/cache/snapshot.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::sim {

namespace {

std::string Qualify(const std::string& name) {
  return name.find('/') == std::string::npos ? "default/" + name : name;
}

std::string Join(const std::set<std::string, std::less<>>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// One value of the document with where it is (file, line, path from the root), and typed
// readers whose errors say so. An absent value (a key not given) keeps its parent's line.
class Value {
 public:
  Value(const std::string& source, const YAML::Node& node, std::string path, int parent_line)
      : source_(&source), node_(node), path_(std::move(path)) {
    const YAML::Mark mark = node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark();
    line_ = mark.is_null() ? parent_line : mark.line + 1;
  }

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  bool absent() const { return !node_.IsDefined() || node_.IsNull(); }

  Status Error(const std::string& what) const {
    return Raw((path_.empty() ? "(root)" : path_) + ": " + what);
  }
  // An error whose text names its own path ("<file>:<line>: " + what).
  Status Raw(const std::string& what) const {
    std::string out = *source_;
    if (line_ > 0) out += ":" + std::to_string(line_);
    return InvalidArgumentError(out + ": " + what);
  }

  Value Key(const std::string& key) const {
    // Copy-constructed, never assigned: assigning a yaml-cpp node copies into it.
    const YAML::Node child = !absent() && node_.IsMap() ? node_[key] : YAML::Node();
    return {*source_, child, path_.empty() ? key : path_ + "." + key, line_};
  }
  Value Index(std::size_t i) const {
    return {*source_, node_[i], path_ + "[" + std::to_string(i) + "]", line_};
  }
  std::size_t size() const { return absent() ? 0 : node_.size(); }

  // Requires a mapping (or nothing) whose keys are all in `allowed`.
  Status CheckKeys(const std::set<std::string, std::less<>>& allowed) const {
    if (absent()) return Status::Ok();
    if (!node_.IsMap()) return Error("expected a mapping");
    for (const auto& kv : node_) {
      const std::string key = kv.first.Scalar();
      if (!allowed.contains(key)) {
        Value at(*source_, kv.first, path_, line_);
        return at.Error("unknown key \"" + key + "\" (known: " + Join(allowed) + ")");
      }
    }
    return Status::Ok();
  }
  // Requires a sequence (or nothing).
  Status CheckList() const {
    if (!absent() && !node_.IsSequence()) return Error("expected a list");
    return Status::Ok();
  }
  // The entries of a mapping (or nothing), with their values.
  StatusOr<std::vector<std::pair<std::string, Value>>> Entries() const {
    std::vector<std::pair<std::string, Value>> out;
    if (absent()) return out;
    if (!node_.IsMap()) return Error("expected a mapping");
    for (const auto& kv : node_) {
      const std::string key = kv.first.Scalar();
      out.emplace_back(key, Value(*source_, kv.second, Key(key).path(), line_));
    }
    return out;
  }

  StatusOr<std::string> String(const std::string& fallback = "") const {
    if (absent()) return fallback;
    if (!node_.IsScalar()) return Error("expected a string");
    return node_.Scalar();
  }
  StatusOr<std::string> RequiredString() const {
    if (absent()) return Error("required");
    ARBITER_ASSIGN_OR_RETURN(std::string s, String());
    if (s.empty()) return Error("must not be empty");
    return s;
  }
  StatusOr<std::int64_t> Int(std::int64_t fallback, std::int64_t min,
                             std::int64_t max = std::numeric_limits<std::int32_t>::max()) const {
    if (absent()) return fallback;
    if (!node_.IsScalar()) return Error("expected an integer");
    const std::string& text = node_.Scalar();
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Error("expected an integer, got \"" + text + "\"");
    }
    if (v < min || v > max) {
      return Error(std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                   std::to_string(max) + "]");
    }
    return v;
  }
  StatusOr<bool> Bool(bool fallback) const {
    if (absent()) return fallback;
    bool out = false;
    if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, out)) {
      return Error("expected true or false");
    }
    return out;
  }
  StatusOr<std::vector<std::string>> StringList() const {
    std::vector<std::string> out;
    ARBITER_RETURN_IF_ERROR(CheckList());
    if (absent()) return out;
    for (std::size_t i = 0; i < size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(std::string s, Index(i).RequiredString());
      out.push_back(std::move(s));
    }
    return out;
  }
  StatusOr<Labels> StringMap() const {
    Labels out;
    ARBITER_ASSIGN_OR_RETURN(auto entries, Entries());
    for (const auto& [key, value] : entries) {
      ARBITER_ASSIGN_OR_RETURN(out[key], value.String());
    }
    return out;
  }
  // A map of resource name to Kubernetes quantity, in canonical units.
  StatusOr<ResourceList> Resources() const {
    ResourceList out;
    ARBITER_ASSIGN_OR_RETURN(auto entries, Entries());
    for (const auto& [name, value] : entries) {
      ARBITER_RETURN_IF_ERROR(value.SetResource(name, out));
    }
    return out;
  }
  // Parses this value as a quantity of `resource` into `list`.
  Status SetResource(const std::string& resource, ResourceList& list) const {
    ARBITER_ASSIGN_OR_RETURN(std::string text, RequiredString());
    StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) return Error(q.status().message());
    StatusOr<std::int64_t> v = ToCanonical(resource, *q);
    if (!v.ok()) return Error(v.status().message());
    list.Set(resource, *v);
    return Status::Ok();
  }

 private:
  const std::string* source_;
  YAML::Node node_;
  std::string path_;
  int line_ = 0;
};

// The names that exist at the current point of the file, so that events and expectations can
// be checked when they are read.
struct Known {
  std::set<std::string> nodes;
  std::set<std::string> pods;    // namespace/name
  std::set<std::string> groups;  // PodGroups and groups named by pods, namespace/name
  std::set<std::string> queues;
  std::set<std::string> priority_classes;
};

Clock::WallTime At(std::int64_t seconds) { return ScenarioEpoch() + std::chrono::seconds(seconds); }

// `replicas: n` turns one entry into n objects named name-0 ... name-(n-1).
StatusOr<std::vector<std::string>> ReplicaNames(const Value& v) {
  ARBITER_ASSIGN_OR_RETURN(std::string name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(std::int64_t replicas, v.Key("replicas").Int(0, 1, 100000));
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

StatusOr<PodGroup> ParseGroup(const Value& v, std::int64_t now) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "namespace", "minMember", "minTaskMember", "queue",
                                       "priorityClassName", "minResources", "phase", "created"}));
  PodGroup g;
  ARBITER_ASSIGN_OR_RETURN(g.meta.name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(g.meta.namespace_name, v.Key("namespace").String("default"));
  g.meta.uid = "pg/" + g.meta.Key();
  ARBITER_ASSIGN_OR_RETURN(std::int64_t min_member, v.Key("minMember").Int(1, 1));
  g.spec.min_member = static_cast<std::int32_t>(min_member);
  ARBITER_ASSIGN_OR_RETURN(auto tasks, v.Key("minTaskMember").Entries());
  for (const auto& [task, value] : tasks) {
    ARBITER_ASSIGN_OR_RETURN(std::int64_t n, value.Int(0, 0));
    g.spec.min_task_member[task] = static_cast<std::int32_t>(n);
  }
  ARBITER_ASSIGN_OR_RETURN(g.spec.queue, v.Key("queue").String(std::string(kDefaultQueueName)));
  ARBITER_ASSIGN_OR_RETURN(g.spec.priority_class_name, v.Key("priorityClassName").String());
  ARBITER_ASSIGN_OR_RETURN(g.spec.min_resources, v.Key("minResources").Resources());
  ARBITER_ASSIGN_OR_RETURN(std::string phase, v.Key("phase").String("Pending"));
  StatusOr<PodGroupPhase> parsed = ParsePodGroupPhase(phase);
  if (!parsed.ok()) return v.Key("phase").Error(parsed.status().message());
  g.status.phase = *parsed;
  ARBITER_ASSIGN_OR_RETURN(std::int64_t created, v.Key("created").Int(now, 0));
  g.meta.creation_timestamp = At(created);
  return g;
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

StatusOr<PodPhase> ParsePhase(const Value& v, PodPhase fallback) {
  if (v.absent()) return fallback;
  ARBITER_ASSIGN_OR_RETURN(std::string text, v.String());
  for (PodPhase phase :
       {PodPhase::kPending, PodPhase::kRunning, PodPhase::kSucceeded, PodPhase::kFailed}) {
    if (PodPhaseName(phase) == text) return phase;
  }
  return v.Error("expected Pending, Running, Succeeded or Failed");
}

StatusOr<std::vector<Pod>> ParsePods(const Value& v, std::int64_t now, Known& known) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "replicas", "namespace", "group", "task", "requests", "priority",
                   "schedulerName", "nodeName", "phase", "nodeSelector", "tolerations",
                   "nodeAffinity", "hostPorts", "labels", "annotations", "owner", "created"}));
  Pod pod;
  ARBITER_ASSIGN_OR_RETURN(pod.meta.namespace_name, v.Key("namespace").String("default"));
  ARBITER_ASSIGN_OR_RETURN(pod.meta.labels, v.Key("labels").StringMap());
  ARBITER_ASSIGN_OR_RETURN(pod.meta.annotations, v.Key("annotations").StringMap());
  ARBITER_ASSIGN_OR_RETURN(std::string group, v.Key("group").String());
  if (!group.empty()) pod.meta.labels[std::string(kPodGroupLabel)] = group;
  ARBITER_ASSIGN_OR_RETURN(std::string task, v.Key("task").String());
  if (!task.empty()) pod.meta.labels[std::string(kTaskLabel)] = task;
  Container main{"main", {}, {}, ""};
  ARBITER_ASSIGN_OR_RETURN(main.requests, v.Key("requests").Resources());
  ARBITER_ASSIGN_OR_RETURN(main.host_ports, ParseHostPorts(v.Key("hostPorts")));
  pod.spec.containers.push_back(std::move(main));
  if (!v.Key("priority").absent()) {
    ARBITER_ASSIGN_OR_RETURN(std::int64_t priority,
                             v.Key("priority")
                                 .Int(0, std::numeric_limits<std::int32_t>::min(),
                                      std::numeric_limits<std::int32_t>::max()));
    pod.spec.priority = static_cast<std::int32_t>(priority);
  }
  ARBITER_ASSIGN_OR_RETURN(pod.spec.scheduler_name, v.Key("schedulerName").String("arbiter"));
  ARBITER_ASSIGN_OR_RETURN(pod.spec.node_name, v.Key("nodeName").String());
  if (!pod.spec.node_name.empty() && !known.nodes.contains(pod.spec.node_name)) {
    return v.Key("nodeName").Error("no node " + pod.spec.node_name);
  }
  ARBITER_ASSIGN_OR_RETURN(pod.status.phase, ParsePhase(v.Key("phase"), pod.spec.node_name.empty()
                                                                            ? PodPhase::kPending
                                                                            : PodPhase::kRunning));
  ARBITER_ASSIGN_OR_RETURN(pod.spec.node_selector, v.Key("nodeSelector").StringMap());
  const Value tolerations = v.Key("tolerations");
  ARBITER_RETURN_IF_ERROR(tolerations.CheckList());
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(Toleration t, ParseToleration(tolerations.Index(i)));
    pod.spec.tolerations.push_back(std::move(t));
  }
  if (!v.Key("nodeAffinity").absent()) {
    ARBITER_ASSIGN_OR_RETURN(pod.spec.required_node_affinity,
                             ParseNodeAffinity(v.Key("nodeAffinity")));
  }
  const Value owner = v.Key("owner");
  if (!owner.absent()) {
    ARBITER_RETURN_IF_ERROR(owner.CheckKeys({"kind", "name"}));
    OwnerReference ref;
    ref.api_version = "apps/v1";
    ARBITER_ASSIGN_OR_RETURN(ref.kind, owner.Key("kind").RequiredString());
    ARBITER_ASSIGN_OR_RETURN(ref.name, owner.Key("name").RequiredString());
    ref.controller = true;
    pod.meta.owner_references.push_back(std::move(ref));
  }
  ARBITER_ASSIGN_OR_RETURN(std::int64_t created, v.Key("created").Int(now, 0));
  pod.meta.creation_timestamp = At(created);

  ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> names, ReplicaNames(v));
  std::vector<Pod> out;
  for (const std::string& name : names) {
    pod.meta.name = name;
    pod.meta.uid = pod.meta.Key();
    if (!known.pods.insert(pod.meta.Key()).second) {
      return v.Key("name").Error("pod " + pod.meta.Key() + " defined twice");
    }
    const std::string named_group = PodGroupNameOf(pod);
    if (!named_group.empty()) known.groups.insert(pod.meta.namespace_name + "/" + named_group);
    out.push_back(pod);
  }
  return out;
}

// A list of pod names, each of which must exist now.
StatusOr<std::vector<std::string>> ParsePodRefs(const Value& v, const Known& known) {
  ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> names, v.StringList());
  for (std::size_t i = 0; i < names.size(); ++i) {
    names[i] = Qualify(names[i]);
    if (!known.pods.contains(names[i])) return v.Index(i).Error("no pod " + names[i]);
  }
  return names;
}

Status CheckGroup(const Value& at, const std::string& key, const Known& known) {
  if (!known.groups.contains(key)) return at.Error("no pod group " + key);
  return Status::Ok();
}

StatusOr<Expectation> ParseExpectation(const Value& v, const Known& known) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"binds", "bindCount", "boundCount", "bound", "unbound",
                                       "phases", "conditions", "failedScheduling"}));
  Expectation e;
  ARBITER_ASSIGN_OR_RETURN(auto binds, v.Key("binds").Entries());
  for (const auto& [pod, value] : binds) {
    BindExpectation b;
    b.pod = Qualify(pod);
    if (!known.pods.contains(b.pod)) return value.Error("no pod " + b.pod);
    if (value.node().IsSequence()) {
      ARBITER_ASSIGN_OR_RETURN(b.nodes, value.StringList());
    } else {
      ARBITER_ASSIGN_OR_RETURN(std::string node, value.RequiredString());
      b.nodes.push_back(std::move(node));
    }
    if (b.nodes.empty()) return value.Error("expected a node or a list of nodes");
    for (const std::string& n : b.nodes) {
      if (!known.nodes.contains(n)) return value.Error("no node " + n);
    }
    e.binds.push_back(std::move(b));
  }
  if (!v.Key("bindCount").absent()) {
    ARBITER_ASSIGN_OR_RETURN(e.bind_count, v.Key("bindCount").Int(0, 0));
  }
  ARBITER_ASSIGN_OR_RETURN(auto counts, v.Key("boundCount").Entries());
  for (const auto& [group, value] : counts) {
    ARBITER_RETURN_IF_ERROR(CheckGroup(value, Qualify(group), known));
    ARBITER_ASSIGN_OR_RETURN(std::int64_t n, value.Int(0, 0));
    e.bound_count[Qualify(group)] = static_cast<std::int32_t>(n);
  }
  ARBITER_ASSIGN_OR_RETURN(e.bound, ParsePodRefs(v.Key("bound"), known));
  ARBITER_ASSIGN_OR_RETURN(e.unbound, ParsePodRefs(v.Key("unbound"), known));
  ARBITER_ASSIGN_OR_RETURN(auto phases, v.Key("phases").Entries());
  for (const auto& [group, value] : phases) {
    ARBITER_RETURN_IF_ERROR(CheckGroup(value, Qualify(group), known));
    ARBITER_ASSIGN_OR_RETURN(std::string text, value.RequiredString());
    StatusOr<PodGroupPhase> phase = ParsePodGroupPhase(text);
    if (!phase.ok()) return value.Error(phase.status().message());
    e.phases[Qualify(group)] = *phase;
  }
  const Value conditions = v.Key("conditions");
  ARBITER_RETURN_IF_ERROR(conditions.CheckList());
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const Value c = conditions.Index(i);
    ARBITER_RETURN_IF_ERROR(c.CheckKeys({"group", "type", "status", "reason", "message"}));
    ConditionExpectation ce;
    ARBITER_ASSIGN_OR_RETURN(std::string group, c.Key("group").RequiredString());
    ce.group = Qualify(group);
    ARBITER_RETURN_IF_ERROR(CheckGroup(c.Key("group"), ce.group, known));
    ARBITER_ASSIGN_OR_RETURN(ce.type, c.Key("type").RequiredString());
    if (!c.Key("status").absent()) {
      ARBITER_ASSIGN_OR_RETURN(ce.status, c.Key("status").RequiredString());
    }
    if (!c.Key("reason").absent()) {
      ARBITER_ASSIGN_OR_RETURN(ce.reason, c.Key("reason").RequiredString());
    }
    ARBITER_ASSIGN_OR_RETURN(ce.message, c.Key("message").String());
    e.conditions.push_back(std::move(ce));
  }
  ARBITER_ASSIGN_OR_RETURN(auto verdicts, v.Key("failedScheduling").Entries());
  for (const auto& [pod, value] : verdicts) {
    if (!known.pods.contains(Qualify(pod))) return value.Error("no pod " + Qualify(pod));
    ARBITER_ASSIGN_OR_RETURN(e.failed_scheduling[Qualify(pod)], value.RequiredString());
  }
  return e;
}

// The `add:` of a step (or the top level's nodes, podGroups and pods), appended to the vectors.
Status ParseObjects(const Value& v, std::int64_t now, Known& known, std::vector<Node>& nodes,
                    std::vector<PodGroup>& groups, std::vector<Pod>& pods,
                    std::set<std::string>& group_keys) {
  const Value node_list = v.Key("nodes");
  ARBITER_RETURN_IF_ERROR(node_list.CheckList());
  for (std::size_t i = 0; i < node_list.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(std::vector<Node> more, ParseNodes(node_list.Index(i), known));
    nodes.insert(nodes.end(), more.begin(), more.end());
  }
  const Value group_list = v.Key("podGroups");
  ARBITER_RETURN_IF_ERROR(group_list.CheckList());
  for (std::size_t i = 0; i < group_list.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(PodGroup g, ParseGroup(group_list.Index(i), now));
    if (!group_keys.insert(g.meta.Key()).second) {
      return group_list.Index(i).Key("name").Error("pod group " + g.meta.Key() + " defined twice");
    }
    known.groups.insert(g.meta.Key());
    groups.push_back(std::move(g));
  }
  const Value pod_list = v.Key("pods");
  ARBITER_RETURN_IF_ERROR(pod_list.CheckList());
  for (std::size_t i = 0; i < pod_list.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(std::vector<Pod> more, ParsePods(pod_list.Index(i), now, known));
    pods.insert(pods.end(), more.begin(), more.end());
  }
  return Status::Ok();
}

StatusOr<ScenarioStep> ParseStep(const Value& v, std::size_t index, std::int64_t now, Known& known,
                                 std::set<std::string>& group_keys) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "delete", "succeed", "fail", "add", "repeat", "expect"}));
  ScenarioStep step;
  ARBITER_ASSIGN_OR_RETURN(std::string name, v.Key("name").String());
  step.name = "sessions[" + std::to_string(index) + "]";
  if (!name.empty()) step.name += " (" + name + ")";
  ARBITER_ASSIGN_OR_RETURN(step.delete_pods, ParsePodRefs(v.Key("delete"), known));
  for (const std::string& pod : step.delete_pods) known.pods.erase(pod);
  ARBITER_ASSIGN_OR_RETURN(step.succeed_pods, ParsePodRefs(v.Key("succeed"), known));
  ARBITER_ASSIGN_OR_RETURN(step.fail_pods, ParsePodRefs(v.Key("fail"), known));
  const Value add = v.Key("add");
  ARBITER_RETURN_IF_ERROR(add.CheckKeys({"nodes", "podGroups", "pods"}));
  ARBITER_RETURN_IF_ERROR(
      ParseObjects(add, now, known, step.add_nodes, step.add_groups, step.add_pods, group_keys));
  ARBITER_ASSIGN_OR_RETURN(std::int64_t repeat, v.Key("repeat").Int(1, 1, 1000));
  step.repeat = static_cast<std::int32_t>(repeat);
  ARBITER_ASSIGN_OR_RETURN(step.expect, ParseExpectation(v.Key("expect"), known));
  return step;
}

StatusOr<Scenario> Convert(const YAML::Node& root, const std::string& source) {
  const Value v(source, root, "", 0);
  if (!root.IsMap()) return v.Error("expected a mapping");
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"description", "scheduler", "nodes", "priorityClasses",
                                       "queues", "podGroups", "pods", "sessions"}));
  Scenario s;
  s.source = source;
  ARBITER_ASSIGN_OR_RETURN(s.description, v.Key("description").String());
  if (const Value scheduler = v.Key("scheduler"); !scheduler.absent()) {
    StatusOr<SchedulerConfig> config =
        ParseSchedulerConfig(YAML::Dump(scheduler.node()), "scheduler");
    // Its errors read "scheduler: <path in the config>: <what>".
    if (!config.ok()) return scheduler.Raw(config.status().message());
    s.config = *std::move(config);
  } else {
    s.config = DefaultSchedulerConfig();
  }

  Known known;
  const Value classes = v.Key("priorityClasses");
  ARBITER_RETURN_IF_ERROR(classes.CheckList());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(PriorityClass pc, ParsePriorityClass(classes.Index(i), known));
    s.priority_classes.push_back(std::move(pc));
  }
  const Value queues = v.Key("queues");
  ARBITER_RETURN_IF_ERROR(queues.CheckList());
  for (std::size_t i = 0; i < queues.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(Queue q, ParseQueue(queues.Index(i), known));
    s.queues.push_back(std::move(q));
  }
  std::set<std::string> group_keys;
  ARBITER_RETURN_IF_ERROR(ParseObjects(v, 0, known, s.nodes, s.groups, s.pods, group_keys));

  const Value sessions = v.Key("sessions");
  ARBITER_RETURN_IF_ERROR(sessions.CheckList());
  std::int64_t sessions_run = 0;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(ScenarioStep step,
                             ParseStep(sessions.Index(i), i, sessions_run, known, group_keys));
    sessions_run += step.repeat;
    s.steps.push_back(std::move(step));
  }
  if (s.steps.empty()) return v.Key("sessions").Error("expected at least one session");
  return s;
}

}  // namespace

StatusOr<Scenario> ParseScenario(std::string_view yaml, std::string_view source) {
  const std::string name(source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(name + ":" + std::to_string(e.mark.line + 1) +
                                ": not valid YAML: " + e.msg);
  }
  try {
    return Convert(root, name);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

StatusOr<Scenario> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("scenario " + path + ": cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseScenario(buffer.str(), path);
}

}  // namespace arbiter::sim
