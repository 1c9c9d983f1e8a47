// PodGroup (arbiter.dev/v1alpha1, namespaced): a gang, per ARCHITECTURE.md §2. Pods that must be
// placed together (minMember), the queue they draw from, and per-task minimums. Plain value, no
// I/O; thread safety: a value type.
//
// Defaults are those of the CRD schema, applied here too so that a value decoded from an object
// the API server did not default (an old object, a test) means the same: queue "default",
// phase Pending.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

inline constexpr std::string_view kDefaultQueueName = "default";

// The label that puts a pod into a group, the ecosystem conventions also understood
// (ARCHITECTURE.md §2), and the label naming a pod's task inside its job.
inline constexpr std::string_view kPodGroupLabel = "arbiter.dev/pod-group";
inline constexpr std::string_view kVolcanoGroupAnnotation = "scheduling.k8s.io/group-name";
inline constexpr std::string_view kSchedulerPluginsGroupLabel = "scheduling.x-k8s.io/pod-group";
inline constexpr std::string_view kTaskLabel = "arbiter.dev/task";

// The group a pod names: the label arbiter.dev/pod-group, else spec.schedulingGroup, else the
// Volcano annotation, else the scheduler-plugins label; empty when it names none. A group's name
// is all that links pods to it, whichever API the group is an object of.
std::string PodGroupNameOf(const Pod& pod);

// The API a PodGroup object was read from: Arbiter's own, or the gang API of Kubernetes
// (scheduling.k8s.io/v1alpha2), Volcano (scheduling.volcano.sh/v1beta1) or scheduler-plugins
// (scheduling.x-k8s.io/v1alpha1), which workloads and their controllers already write. The
// scheduler reads each into the same model and writes its status back in that API's shape.
// When objects of several APIs share a namespace and name, the one first in this order is the
// group (Arbiter's first: a user who made one meant it).
enum class PodGroupDialect : std::uint8_t { kArbiter, kKubernetes, kVolcano, kSchedulerPlugins };
inline constexpr std::size_t kPodGroupDialects = 4;

// The API's group/version, e.g. "scheduling.volcano.sh/v1beta1".
std::string_view PodGroupApiVersion(PodGroupDialect dialect);
// The collection of its PodGroups in every namespace, e.g.
// "/apis/scheduling.volcano.sh/v1beta1/podgroups".
std::string PodGroupCollectionPath(PodGroupDialect dialect);
// One PodGroup object: ".../namespaces/NS/podgroups/NAME".
std::string PodGroupObjectPath(PodGroupDialect dialect, std::string_view namespace_name,
                               std::string_view name);

// The label or annotation that names the queue of a PodGroup whose API has no queue field
// (Kubernetes', scheduler-plugins'); also what arbiter-controller reads on pods.
inline constexpr std::string_view kQueueNameKey = "arbiter.dev/queue";

enum class PodGroupPhase : std::uint8_t { kPending, kInqueue, kRunning, kCompleted, kFailed };

std::string_view PodGroupPhaseName(PodGroupPhase phase);
StatusOr<PodGroupPhase> ParsePodGroupPhase(std::string_view text);

// spec.topology: where a gang's pods must (Required) or should (Preferred) be placed together,
// one domain of a configured level (plugins/topology.h: "zone", "rack", ...). Preferred waits up
// to maxWaitSeconds (from the group's creation) for one domain, then spreads over the fewest.
enum class TopologyMode : std::uint8_t { kRequired, kPreferred };

std::string_view TopologyModeName(TopologyMode mode);
StatusOr<TopologyMode> ParseTopologyMode(std::string_view text);

struct TopologyRequest {
  TopologyMode mode = TopologyMode::kRequired;
  std::string level;
  std::int32_t max_wait_seconds = 0;  // Preferred only
  friend bool operator==(const TopologyRequest&, const TopologyRequest&) = default;
};

// spec.locality: where the job's data lives (plugins/locality.h): nodes holding a replica of its
// input, racks holding it, and a DataSet of the same namespace (model/data_set.h) whose blocks'
// replicas say the same per block. The scheduler prefers those nodes, then nodes in those racks
// (and in the racks of those nodes), then any node, and may hold the job's pods for a bounded
// time while only non-local room is free (delay scheduling).
struct LocalityRequest {
  std::vector<std::string> nodes;
  std::vector<std::string> racks;
  std::string data_set;  // a DataSet's name; empty: none
  friend bool operator==(const LocalityRequest&, const LocalityRequest&) = default;
};

struct PodGroupSpec {
  std::int32_t min_member = 1;  // >= 1
  std::string queue{kDefaultQueueName};
  std::string priority_class_name;
  ResourceList min_resources;
  std::map<std::string, std::int32_t> min_task_member;  // task name -> minimum, each >= 0
  // scheduler-plugins' scheduleTimeoutSeconds: how long its scheduler holds a partly placed gang.
  // Arbiter never holds a partly placed gang (a gang is placed whole in one session or not at
  // all), so it is kept only to be shown.
  std::optional<std::int32_t> schedule_timeout_seconds;
  // Kubernetes' spec.priority: the priority its admission resolved from priorityClassName.
  std::optional<std::int32_t> priority;
  std::optional<TopologyRequest> topology;
  std::optional<LocalityRequest> locality;
  friend bool operator==(const PodGroupSpec&, const PodGroupSpec&) = default;
};

// One reason nodes were excluded for a pod, in kube-scheduler's words ("Insufficient cpu"), and on
// how many nodes.
struct NodeExclusion {
  std::string reason;
  std::int32_t nodes = 0;
  friend bool operator==(const NodeExclusion&, const NodeExclusion&) = default;
};

// status.explanation.estimate: when the group will start, by a forecast that runs the scheduling
// code forward from the cluster as it is (sim/forecast.h), refreshed every forecast interval.
struct StartEstimate {
  std::optional<Clock::WallTime> start;  // none: not within the forecast's horizon
  Clock::WallTime as_of{};               // when the forecast ran
  std::string confidence;                // High, Medium or Low
  // What it rests on, in words: the job ends before it by where their run times came from, its
  // own run time, and that jobs submitted later are not foreseen.
  std::string assumptions;
  static constexpr std::size_t kMaxAssumptions = 512;
  friend bool operator==(const StartEstimate&, const StartEstimate&) = default;
};

// Start estimates by job key (namespace/name).
using StartEstimates = std::map<std::string, StartEstimate, std::less<>>;

// Nodes of one class (the same instance type and allocatable, of what the pod asks for), and the
// most one of them has free: where a pod that found no node could go if room were freed.
struct NodeClassRoom {
  std::string instance_type;  // label node.kubernetes.io/instance-type; empty: none
  ResourceList allocatable;
  std::int32_t nodes = 0;
  ResourceList most_free;
  friend bool operator==(const NodeClassRoom&, const NodeClassRoom&) = default;
};

inline constexpr std::string_view kInstanceTypeLabel = "node.kubernetes.io/instance-type";

// status.explanation: why the group waits, as the scheduler's last session found it (what
// `arbiterctl explain` prints, with one GET). Set with the Unschedulable condition, cleared once
// nothing holds the group; bounded in size. Only what changes with the group's situation is in it
// (no session time), so that an unchanged wait writes nothing.
struct PendingExplanation {
  // Which gate holds it: Queue (missing, closed, not for its namespace), Capability,
  // DeservedShare, Admission, NotEnoughPods, Placement, WaitingForPreemption, Preempted, Invalid.
  std::string gate;
  std::string reason;  // the Unschedulable condition's reason
  ResourceList needs;  // the requests of the pods still to place, up to minMember
  // Its queue, and, when the queue is the gate (Capability, DeservedShare, Admission), the
  // queue as the session saw it: allocated, deserved (when a share plugin runs), capability (with
  // its ResourceQuota's cap; a missing resource is unlimited), and the room capability leaves
  // (capability - allocated, for the resources it limits).
  std::string queue;
  ResourceList queue_allocated;
  ResourceList queue_deserved;
  ResourceList queue_capability;
  ResourceList queue_room;
  // Placement: the pod the nodes were tried for, how many nodes, why they were excluded (most
  // nodes first, at most kMaxExclusions), and per resource how much more the pod asks than the
  // most any node has free.
  std::string pod;
  std::int32_t nodes = 0;
  std::vector<NodeExclusion> excluded;
  ResourceList shortfall;
  // Placement: the nodes the pod was tried on, by class, most nodes first (kMaxNodeClasses).
  std::vector<NodeClassRoom> node_classes;
  // Its place among its queue's waiting jobs in the order the scheduler tries them (1: next),
  // exact up to kMaxPosition, kMaxPosition + 1 beyond; and the first jobs ahead of it.
  std::int32_t position = 0;
  std::vector<std::string> ahead;
  std::optional<StartEstimate> estimate;
  // Whether the queue is the gate, so that its numbers are part of the explanation.
  bool QueueIsTheGate() const {
    return gate == "Capability" || gate == "DeservedShare" || gate == "Admission";
  }
  static constexpr std::size_t kMaxExclusions = 8;
  static constexpr std::size_t kMaxNodeClasses = 5;
  static constexpr std::int32_t kMaxPosition = 10;
  static constexpr std::size_t kMaxAhead = 3;
  friend bool operator==(const PendingExplanation&, const PendingExplanation&) = default;
};

// status.reservation: the nodes held for a gang that waited too long (framework/reservation.h):
// nothing new is placed on them but the gang and jobs that end before its estimated start.
struct GangReservationStatus {
  std::vector<std::string> nodes;  // by name, sorted
  Clock::WallTime since{};         // when the gang was elected
  // When the gang's pods fit on those nodes, by the run times of the pods holding them
  // (sim/run_time.h); none: some of them have no known run time.
  std::optional<Clock::WallTime> estimated_start;
  static constexpr std::size_t kMaxNodes = 1024;
  friend bool operator==(const GangReservationStatus&, const GangReservationStatus&) = default;
};

// status.locality, for a group that names its data (spec.locality): where its pods holding nodes
// are, by how local to the data (plugins/locality.h).
struct LocalityStatus {
  std::int32_t node_local = 0;  // on a node holding the data
  std::int32_t rack_local = 0;  // in a rack holding it
  std::int32_t remote = 0;      // elsewhere
  friend bool operator==(const LocalityStatus&, const LocalityStatus&) = default;
};

struct PodGroupStatus {
  PodGroupPhase phase = PodGroupPhase::kPending;
  std::int32_t scheduled = 0;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  // Sessions in which preemption or reclaim evicted pods of this group.
  std::int32_t preemption_count = 0;
  std::vector<Condition> conditions;  // "Scheduled", "Unschedulable", "Preempted"
  std::optional<PendingExplanation> explanation;
  std::optional<GangReservationStatus> reservation;
  std::optional<LocalityStatus> locality;
  friend bool operator==(const PodGroupStatus&, const PodGroupStatus&) = default;
};

struct PodGroup {
  ObjectMeta meta;
  PodGroupSpec spec;
  PodGroupStatus status;
  PodGroupDialect dialect = PodGroupDialect::kArbiter;
  friend bool operator==(const PodGroup&, const PodGroup&) = default;
};

// A PodGroup of another API, as its own type so that decoders and watches tell them apart
// (k8s/decode.h); it is a PodGroup with `dialect` set.
template <PodGroupDialect D>
struct DialectPodGroup : PodGroup {
  DialectPodGroup() { dialect = D; }
};
using KubernetesPodGroup = DialectPodGroup<PodGroupDialect::kKubernetes>;
using VolcanoPodGroup = DialectPodGroup<PodGroupDialect::kVolcano>;
using SchedulerPluginsPodGroup = DialectPodGroup<PodGroupDialect::kSchedulerPlugins>;

// Only the metadata of another API's PodGroup: that it exists, which is all arbiter-controller
// needs (a pod naming it needs no group of Arbiter's), and which holds even for an object whose
// spec the scheduler cannot read.
template <PodGroupDialect D>
struct DialectPodGroupMeta {
  ObjectMeta meta;
};

}  // namespace arbiter
