#include "arbiter/sim/scenario.h"

#include <charconv>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "arbiter/cache/snapshot.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/sim/yaml_value.h"

namespace arbiter::sim {

namespace {

using yaml::Known;
using yaml::Value;

std::string Qualify(const std::string& name) {
  return name.find('/') == std::string::npos ? "default/" + name : name;
}

Clock::WallTime At(std::int64_t seconds) { return ScenarioEpoch() + std::chrono::seconds(seconds); }

StatusOr<PodGroup> ParseGroup(const Value& v, std::int64_t now) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "namespace", "minMember", "minTaskMember", "queue", "priorityClassName",
                   "minResources", "phase", "labels", "created", "topology"}));
  PodGroup g;
  ARBITER_ASSIGN_OR_RETURN(g.meta.name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(g.meta.namespace_name, v.Key("namespace").String("default"));
  ARBITER_ASSIGN_OR_RETURN(g.meta.labels, v.Key("labels").StringMap());
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
  if (const Value t = v.Key("topology"); !t.absent()) {
    ARBITER_ASSIGN_OR_RETURN(g.spec.topology, yaml::ParseTopology(t));
  }
  return g;
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
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name",
                                       "replicas",
                                       "namespace",
                                       "group",
                                       "task",
                                       "requests",
                                       "priority",
                                       "schedulerName",
                                       "nodeName",
                                       "phase",
                                       "nodeSelector",
                                       "tolerations",
                                       "nodeAffinity",
                                       "hostPorts",
                                       "labels",
                                       "annotations",
                                       "owner",
                                       "created",
                                       "priorityClassName",
                                       "preemptionPolicy",
                                       "terminationGracePeriodSeconds"}));
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
  ARBITER_ASSIGN_OR_RETURN(pod.spec.priority_class_name, v.Key("priorityClassName").String());
  ARBITER_ASSIGN_OR_RETURN(pod.spec.preemption_policy, v.Key("preemptionPolicy").String());
  if (!pod.spec.preemption_policy.empty() && pod.spec.preemption_policy != "Never" &&
      pod.spec.preemption_policy != "PreemptLowerPriority") {
    return v.Key("preemptionPolicy").Error("expected Never or PreemptLowerPriority");
  }
  if (!v.Key("terminationGracePeriodSeconds").absent()) {
    ARBITER_ASSIGN_OR_RETURN(pod.spec.termination_grace_period_seconds,
                             v.Key("terminationGracePeriodSeconds").Int(0, 0));
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
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"binds", "bindCount", "boundCount", "bound", "unbound", "phases", "conditions",
                   "failedScheduling", "evicted", "refusedEvictions", "nominated"}));
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
  if (!v.Key("evicted").absent()) {
    ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> evicted,
                             ParsePodRefs(v.Key("evicted"), known));
    e.evicted.emplace(evicted.begin(), evicted.end());
  }
  if (!v.Key("refusedEvictions").absent()) {
    ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> refused,
                             ParsePodRefs(v.Key("refusedEvictions"), known));
    e.refused_evictions.emplace(refused.begin(), refused.end());
  }
  ARBITER_ASSIGN_OR_RETURN(auto nominated, v.Key("nominated").Entries());
  for (const auto& [pod, value] : nominated) {
    if (!known.pods.contains(Qualify(pod))) return value.Error("no pod " + Qualify(pod));
    ARBITER_ASSIGN_OR_RETURN(std::string node, value.String());
    if (!node.empty() && !known.nodes.contains(node)) return value.Error("no node " + node);
    e.nominated[Qualify(pod)] = node;
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

StatusOr<PodDisruptionBudget> ParsePdb(const Value& v) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "namespace", "matchLabels", "disruptionsAllowed"}));
  PodDisruptionBudget pdb;
  ARBITER_ASSIGN_OR_RETURN(pdb.meta.name, v.Key("name").RequiredString());
  ARBITER_ASSIGN_OR_RETURN(pdb.meta.namespace_name, v.Key("namespace").String("default"));
  pdb.meta.uid = "pdb/" + pdb.meta.Key();
  ARBITER_ASSIGN_OR_RETURN(pdb.selector.emplace().match_labels, v.Key("matchLabels").StringMap());
  ARBITER_ASSIGN_OR_RETURN(std::int64_t allowed, v.Key("disruptionsAllowed").Int(0, 0, 1'000'000));
  pdb.disruptions_allowed = static_cast<std::int32_t>(allowed);
  return pdb;
}

StatusOr<ScenarioStep> ParseStep(const Value& v, std::size_t index, std::int64_t now, Known& known,
                                 std::set<std::string>& group_keys) {
  ARBITER_RETURN_IF_ERROR(v.CheckKeys({"name", "delete", "succeed", "fail", "failBinds",
                                       "refuseEvictions", "add", "repeat", "expect"}));
  ScenarioStep step;
  ARBITER_ASSIGN_OR_RETURN(std::string name, v.Key("name").String());
  step.name = "sessions[" + std::to_string(index) + "]";
  if (!name.empty()) step.name += " (" + name + ")";
  ARBITER_ASSIGN_OR_RETURN(step.delete_pods, ParsePodRefs(v.Key("delete"), known));
  for (const std::string& pod : step.delete_pods) known.pods.erase(pod);
  ARBITER_ASSIGN_OR_RETURN(step.succeed_pods, ParsePodRefs(v.Key("succeed"), known));
  ARBITER_ASSIGN_OR_RETURN(step.fail_pods, ParsePodRefs(v.Key("fail"), known));
  ARBITER_ASSIGN_OR_RETURN(step.fail_binds, ParsePodRefs(v.Key("failBinds"), known));
  ARBITER_ASSIGN_OR_RETURN(step.refuse_evictions, ParsePodRefs(v.Key("refuseEvictions"), known));
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
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"description", "scheduler", "nodes", "priorityClasses", "queues", "podGroups",
                   "pods", "podDisruptionBudgets", "sessions"}));
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
  const Value pdbs = v.Key("podDisruptionBudgets");
  ARBITER_RETURN_IF_ERROR(pdbs.CheckList());
  for (std::size_t i = 0; i < pdbs.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(PodDisruptionBudget pdb, ParsePdb(pdbs.Index(i)));
    s.pdbs.push_back(std::move(pdb));
  }

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
  return yaml::WithDocument(yaml, name,
                            [&](const YAML::Node& root) { return Convert(root, name); });
}

StatusOr<Scenario> LoadScenarioFile(const std::string& path) {
  ARBITER_ASSIGN_OR_RETURN(std::string text, yaml::ReadFile(path, "scenario"));
  return ParseScenario(text, path);
}

}  // namespace arbiter::sim
