// Pod: the parts of a Kubernetes v1 Pod that scheduling reads, as a plain value (no I/O;
// k8s/decode.h builds it from the API's JSON).
//
// Resource requests are ResourceLists in canonical units (resource/resource_name.h). A pod's
// effective request is what the scheduler reserves on a node for it, computed as upstream's
// k8s.io/component-helpers resource.PodRequests does (Kubernetes 1.29+, sidecars included):
//   regular  = sum over containers + sum over restartable init containers (sidecars, whose
//              restartPolicy is Always: they keep running beside the containers)
//   init_max = max over init containers, in order, of the container's request plus the sidecars
//              started before it (a sidecar's own entry is the running sidecar total)
//   request  = max(regular, init_max) per resource + spec.overhead, plus the implicit pods: 1
// Pod-level resources (spec.resources, alpha in 1.32) are not modelled yet.
//
// Thread safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

// The taint effects Kubernetes defines; an empty effect in a toleration matches every effect.
inline constexpr std::string_view kEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kEffectNoExecute = "NoExecute";

enum class TolerationOperator : std::uint8_t { kEqual, kExists };

struct Toleration {
  std::string key;  // empty with kExists: tolerates every taint
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  std::string effect;  // empty: every effect
  std::optional<std::int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

enum class NodeSelectorOperator : std::uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

std::string_view NodeSelectorOperatorName(NodeSelectorOperator op);
StatusOr<NodeSelectorOperator> ParseNodeSelectorOperator(std::string_view text);

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::kIn;
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&, const NodeSelectorRequirement&) = default;
};

// A term holds when all its requirements hold; match_fields select on node fields
// (metadata.name is the only one Kubernetes supports).
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: the terms are ORed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

struct HostPort {
  std::int32_t port = 0;         // hostPort, > 0
  std::string protocol = "TCP";  // TCP, UDP or SCTP
  std::string host_ip;           // empty means every address (0.0.0.0)
  friend bool operator==(const HostPort&, const HostPort&) = default;
};

struct Container {
  std::string name;
  ResourceList requests;
  std::vector<HostPort> host_ports;  // only ports with a hostPort
  // "Always" on an init container makes it a sidecar; empty otherwise.
  std::string restart_policy;

  bool IsSidecar() const { return restart_policy == "Always"; }
  friend bool operator==(const Container&, const Container&) = default;
};

struct PodSpec {
  std::string scheduler_name;
  std::string node_name;  // set once bound
  std::optional<std::int32_t> priority;
  std::string priority_class_name;
  Labels node_selector;
  std::vector<Toleration> tolerations;
  std::optional<NodeSelector> required_node_affinity;
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  // "Never": the pod never evicts others to make room (PreemptLowerPriority when empty).
  std::string preemption_policy;
  // How long the pod has to stop once deleted (or evicted); the API server defaults it to 30.
  std::optional<std::int64_t> termination_grace_period_seconds;
  // The kubelet stops the pod this long after it started: an upper bound of its run time, which
  // start-time estimates use (sim/run_time.h).
  std::optional<std::int64_t> active_deadline_seconds;
  // spec.schedulingGroup.podGroupName: the scheduling.k8s.io PodGroup the pod belongs to
  // (Kubernetes' own gang API, alpha in 1.36); empty when it names none.
  std::string scheduling_group;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

enum class PodPhase : std::uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };

std::string_view PodPhaseName(PodPhase phase);
// An unrecognised phase reads as kUnknown (the API may add phases; a pod is never dropped for it).
PodPhase ParsePodPhase(std::string_view text);

// The pod condition arbiter-scheduler sets, beside DisruptionTarget, on a pod it preempts: the
// Eviction API then rewrites DisruptionTarget's reason to EvictionByEvictionAPI, and
// arbiter-controller must still tell a preemption from other evictions.
inline constexpr std::string_view kPreemptedCondition = "arbiter.dev/Preempted";

struct PodStatus {
  PodPhase phase = PodPhase::kPending;
  std::vector<Condition> conditions;
  std::optional<Clock::WallTime> start_time;  // when the kubelet started it
  // The node whose room is being freed for it by preemption.
  std::string nominated_node_name;
  // Why it is in its phase, in a word ("Evicted" when the kubelet evicted it).
  std::string reason;
  // The exit code of the first container that terminated with a non-zero code, else of the first
  // that terminated; none while no container has terminated.
  std::optional<std::int32_t> exit_code;
  // The latest state.terminated.finishedAt of its containers (none while none has terminated):
  // for a finished pod, when it ended; with start_time, how long it ran.
  std::optional<Clock::WallTime> finished_at;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

// Whether a Pod's annotation is one Arbiter acts on, and so kept when a pod is decoded from the
// API (k8s/decode.h); the others are skipped unread. The kept ones are those of the domains
// arbiter.dev (and its subdomains), scheduling.k8s.io, scheduling.volcano.sh and volcano.sh: a
// new annotation that some part of Arbiter reads on pods belongs to one of them.
bool KeepsPodAnnotation(std::string_view key);

struct Pod {
  // meta.annotations: decoded from the API, only those KeepsPodAnnotation keeps.
  ObjectMeta meta;
  PodSpec spec;
  PodStatus status;

  // The pod's effective request (see the header comment). Fails only on int64 overflow, naming
  // the resource.
  StatusOr<ResourceList> EffectiveRequest() const;
  // Succeeded or Failed: it will not run again.
  bool Finished() const {
    return status.phase == PodPhase::kSucceeded || status.phase == PodPhase::kFailed;
  }

  friend bool operator==(const Pod&, const Pod&) = default;
};

}  // namespace arbiter
