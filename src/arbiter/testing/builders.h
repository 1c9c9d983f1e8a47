// Fluent builders for model objects in tests (STYLE.md §12), header-only and test-only:
//
//   Pod pod = MakePod("w-0").Namespace("ml").Group("job").Request("cpu", "500m").Build();
//   Node node = MakeNode("n1").Cpu("4").Memory("8Gi").Build();
//
// Quantities are Kubernetes strings, parsed as the API server does; a malformed one is a test
// bug and CHECK-fails. Uids default to "<namespace>/<name>" so tests read clearly; creation times
// default to a fixed instant plus Created(seconds).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "arbiter/base/check.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::testing {

inline Clock::WallTime TestEpoch() { return Clock::WallTime(std::chrono::seconds(1'750'000'000)); }

inline std::int64_t Canonical(const std::string& resource, const std::string& quantity) {
  StatusOr<Quantity> q = Quantity::Parse(quantity);
  ARBITER_CHECK(q.ok()) << resource << "=" << quantity << ": " << q.status();
  StatusOr<std::int64_t> v = ToCanonical(resource, *q);
  ARBITER_CHECK(v.ok()) << resource << "=" << quantity << ": " << v.status();
  return *v;
}

class PodBuilder {
 public:
  explicit PodBuilder(std::string name) {
    pod_.meta.name = std::move(name);
    pod_.meta.namespace_name = "default";
    pod_.spec.scheduler_name = "arbiter";
    pod_.meta.creation_timestamp = TestEpoch();
    pod_.spec.containers.push_back(Container{"main", {}, {}, ""});
  }
  PodBuilder& Namespace(std::string_view ns) {
    pod_.meta.namespace_name = ns;
    return *this;
  }
  PodBuilder& Uid(std::string uid) {
    pod_.meta.uid = std::move(uid);
    return *this;
  }
  PodBuilder& Group(const std::string& group) { return Label(std::string(kPodGroupLabel), group); }
  PodBuilder& Task(const std::string& task) { return Label(std::string(kTaskLabel), task); }
  PodBuilder& Label(const std::string& k, std::string v) {
    pod_.meta.labels[k] = std::move(v);
    return *this;
  }
  PodBuilder& Annotation(const std::string& k, std::string v) {
    pod_.meta.annotations[k] = std::move(v);
    return *this;
  }
  PodBuilder& Request(const std::string& resource, const std::string& quantity) {
    pod_.spec.containers.front().requests.Set(resource, Canonical(resource, quantity));
    return *this;
  }
  PodBuilder& HostPort(std::int32_t port) {
    pod_.spec.containers.front().host_ports.push_back({port, "TCP", ""});
    return *this;
  }
  PodBuilder& Priority(std::int32_t priority) {
    pod_.spec.priority = priority;
    return *this;
  }
  PodBuilder& SchedulerName(std::string name) {
    pod_.spec.scheduler_name = std::move(name);
    return *this;
  }
  PodBuilder& OnNode(std::string node) {
    pod_.spec.node_name = std::move(node);
    pod_.status.phase = PodPhase::kRunning;
    return *this;
  }
  PodBuilder& Phase(PodPhase phase) {
    pod_.status.phase = phase;
    return *this;
  }
  PodBuilder& StartedAt(std::int64_t seconds_after_epoch) {
    pod_.status.start_time = TestEpoch() + std::chrono::seconds(seconds_after_epoch);
    return *this;
  }
  PodBuilder& PreemptionPolicy(std::string policy) {
    pod_.spec.preemption_policy = std::move(policy);
    return *this;
  }
  PodBuilder& GracePeriod(std::int64_t seconds) {
    pod_.spec.termination_grace_period_seconds = seconds;
    return *this;
  }
  PodBuilder& NodeSelector(const std::string& k, std::string v) {
    pod_.spec.node_selector[k] = std::move(v);
    return *this;
  }
  PodBuilder& Tolerate(std::string key, std::string value, std::string effect) {
    pod_.spec.tolerations.push_back(
        {std::move(key), TolerationOperator::kEqual, std::move(value), std::move(effect), {}});
    return *this;
  }
  PodBuilder& Created(std::int64_t seconds_after_epoch) {
    pod_.meta.creation_timestamp = TestEpoch() + std::chrono::seconds(seconds_after_epoch);
    return *this;
  }
  PodBuilder& OwnedBy(std::string kind, std::string name) {
    pod_.meta.owner_references.push_back({"apps/v1", std::move(kind), std::move(name), "", true});
    return *this;
  }
  Pod Build() const {
    Pod pod = pod_;
    if (pod.meta.uid.empty()) pod.meta.uid = pod.meta.namespace_name + "/" + pod.meta.name;
    return pod;
  }

 private:
  Pod pod_;
};

class NodeBuilder {
 public:
  explicit NodeBuilder(std::string name) {
    node_.meta.name = std::move(name);
    node_.meta.uid = "node/" + node_.meta.name;
    node_.conditions.push_back(Condition{"Ready", "True", "", "", std::nullopt});
    Resource("pods", "110");
  }
  NodeBuilder& Cpu(const std::string& q) { return Resource("cpu", q); }
  NodeBuilder& Memory(const std::string& q) { return Resource("memory", q); }
  NodeBuilder& Pods(const std::string& q) { return Resource("pods", q); }
  NodeBuilder& Resource(const std::string& resource, const std::string& q) {
    node_.allocatable.Set(resource, Canonical(resource, q));
    node_.capacity.Set(resource, Canonical(resource, q));
    return *this;
  }
  NodeBuilder& Label(const std::string& k, std::string v) {
    node_.meta.labels[k] = std::move(v);
    return *this;
  }
  NodeBuilder& Taint(std::string key, std::string value, std::string effect) {
    node_.taints.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  NodeBuilder& Unschedulable() {
    node_.unschedulable = true;
    return *this;
  }
  NodeBuilder& NotReady() {
    node_.conditions.front().status = "False";
    return *this;
  }
  Node Build() const { return node_; }

 private:
  Node node_;
};

class PodGroupBuilder {
 public:
  explicit PodGroupBuilder(std::string name) {
    group_.meta.name = std::move(name);
    group_.meta.namespace_name = "default";
    group_.meta.creation_timestamp = TestEpoch();
  }
  PodGroupBuilder& Namespace(std::string_view ns) {
    group_.meta.namespace_name = ns;
    return *this;
  }
  PodGroupBuilder& MinMember(std::int32_t n) {
    group_.spec.min_member = n;
    return *this;
  }
  PodGroupBuilder& MinTaskMember(const std::string& task, std::int32_t n) {
    group_.spec.min_task_member[task] = n;
    return *this;
  }
  PodGroupBuilder& Queue(std::string queue) {
    group_.spec.queue = std::move(queue);
    return *this;
  }
  PodGroupBuilder& PriorityClass(std::string name) {
    group_.spec.priority_class_name = std::move(name);
    return *this;
  }
  PodGroupBuilder& MinResource(const std::string& resource, const std::string& q) {
    group_.spec.min_resources.Set(resource, Canonical(resource, q));
    return *this;
  }
  PodGroupBuilder& Label(const std::string& k, std::string v) {
    group_.meta.labels[k] = std::move(v);
    return *this;
  }
  PodGroupBuilder& Topology(TopologyMode mode, std::string level, std::int32_t max_wait = 0) {
    group_.spec.topology = TopologyRequest{mode, std::move(level), max_wait};
    return *this;
  }
  PodGroupBuilder& Locality(std::vector<std::string> nodes, std::vector<std::string> racks = {}) {
    group_.spec.locality = LocalityRequest{std::move(nodes), std::move(racks), ""};
    return *this;
  }
  PodGroupBuilder& DataSetName(std::string data_set) {
    if (!group_.spec.locality.has_value()) group_.spec.locality.emplace();
    group_.spec.locality->data_set = std::move(data_set);
    return *this;
  }
  PodGroupBuilder& Phase(PodGroupPhase phase) {
    group_.status.phase = phase;
    return *this;
  }
  PodGroupBuilder& Dialect(PodGroupDialect dialect) {
    group_.dialect = dialect;
    return *this;
  }
  PodGroupBuilder& Created(std::int64_t seconds_after_epoch) {
    group_.meta.creation_timestamp = TestEpoch() + std::chrono::seconds(seconds_after_epoch);
    return *this;
  }
  PodGroup Build() const {
    PodGroup group = group_;
    if (group.meta.uid.empty())
      group.meta.uid = "pg/" + group.meta.namespace_name + "/" + group.meta.name;
    return group;
  }

 private:
  PodGroup group_;
};

inline PodBuilder MakePod(std::string name) { return PodBuilder(std::move(name)); }
inline NodeBuilder MakeNode(std::string name) { return NodeBuilder(std::move(name)); }
inline PodGroupBuilder MakePodGroup(std::string name) { return PodGroupBuilder(std::move(name)); }

inline Queue MakeQueue(std::string name, std::int32_t weight = 1) {
  Queue q;
  q.meta.name = std::move(name);
  q.meta.uid = "queue/" + q.meta.name;
  q.spec.weight = weight;
  return q;
}

inline PriorityClass MakePriorityClass(std::string name, std::int32_t value) {
  PriorityClass pc;
  pc.meta.name = std::move(name);
  pc.value = value;
  return pc;
}

}  // namespace arbiter::testing
