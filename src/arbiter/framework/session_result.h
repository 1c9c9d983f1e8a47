// SessionResult: what one scheduling session decided, as data. The session never does I/O; the
// runtime turns these into side effects: assume + bind, events, PodGroup status writes.
//
// Thread safety: a value type.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"

namespace arbiter {

// A pod to bind to a node. It shares the pod and the node with the snapshot it was decided in,
// so that a session copies no string per bind (copying the four names was a fifth of a session of
// identical pods); whoever holds the decision keeps both alive.
class BindDecision {
 public:
  BindDecision(std::shared_ptr<const Pod> pod, std::shared_ptr<const Node> node)
      : pod_(std::move(pod)), node_(std::move(node)) {}
  // A decision about a pod and a node known by name alone (tests, tools): builds both.
  static BindDecision Of(std::string_view namespace_name, std::string pod_name, std::string pod_uid,
                         std::string node_name);

  const std::string& namespace_name() const { return pod_->meta.namespace_name; }
  const std::string& pod_name() const { return pod_->meta.name; }
  const std::string& pod_uid() const { return pod_->meta.uid; }
  const std::string& node_name() const { return node_->meta.name; }

 private:
  std::shared_ptr<const Pod> pod_;
  std::shared_ptr<const Node> node_;
};

inline BindDecision BindDecision::Of(std::string_view namespace_name, std::string pod_name,
                                     std::string pod_uid, std::string node_name) {
  auto pod = std::make_shared<Pod>();
  pod->meta.namespace_name = namespace_name;
  pod->meta.name = std::move(pod_name);
  pod->meta.uid = std::move(pod_uid);
  auto node = std::make_shared<Node>();
  node->meta.name = std::move(node_name);
  return {std::move(pod), std::move(node)};
}

// Why a pod is evicted: for a higher-priority job of its queue, for a queue below its share,
// because its own queue runs beyond its lowered ResourceQuota, because its gang held nodes
// below its minimum for too long and is released to start again whole (these two: no
// preemptor), or because it accepted preemption (arbiter.dev/preemptable: "true") to run on
// nodes reserved for a gang whose reservation is now ready (framework/reservation.h).
enum class EvictionKind : std::uint8_t { kPreempt, kReclaim, kQuota, kRelease, kReservation };
inline std::string_view EvictionKindName(EvictionKind kind) {
  switch (kind) {
    case EvictionKind::kPreempt:
      return "preempt";
    case EvictionKind::kReclaim:
      return "reclaim";
    case EvictionKind::kQuota:
      return "quota";
    case EvictionKind::kRelease:
      return "release";
    case EvictionKind::kReservation:
      return "reservation";
  }
  return "unknown";
}

// A pod to evict (preemption, reclaim): through the Eviction API, so that PodDisruptionBudgets
// are honoured; the pod first gets the DisruptionTarget condition with `reason` and `message`.
struct EvictDecision {
  std::string namespace_name;
  std::string pod_name;
  std::string pod_uid;
  std::string node_name;  // where it runs: the room its eviction frees
  std::string reason;     // e.g. "PreemptionByScheduler"
  std::string message;    // names the preemptor
  std::int64_t grace_period_seconds = 30;
  EvictionKind kind = EvictionKind::kPreempt;
  std::string
      preemptor;  // the job it makes room for, namespace/name; empty for kQuota and kRelease
  std::string victim_job;  // the job it belongs to, namespace/name
  std::string queue;       // the victim's queue
};

// status.nominatedNodeName for a pod that preemption makes room for: set to the node whose room
// its victims free, or cleared (node_name empty) once the nomination no longer holds.
struct NominationDecision {
  std::string namespace_name;
  std::string pod_name;
  std::string pod_uid;
  std::string node_name;
  std::string job;  // the pod's job, namespace/name
};

// A pod that stays pending after this session, and why: the FailedScheduling event's note, e.g.
// "0/3 nodes are available: 3 Insufficient cpu." or "pod group ns/g: 2/3 pods could be placed".
struct PodVerdict {
  std::string namespace_name;
  std::string pod_name;
  std::string pod_uid;
  std::string reason = "FailedScheduling";
  std::string message;
  // The pod's task in the session's snapshot (TaskIndex::pos()), where its observed conditions
  // are; -1: unknown, looked up by uid.
  std::int32_t task = -1;
};

// The PodGroup status this session computed, emitted only when it differs from the status the
// snapshot saw (so the runtime writes only changes). Condition transition times are kept from the
// old status when a condition's status did not change.
struct PodGroupUpdate {
  std::string namespace_name;
  std::string name;
  PodGroupStatus status;
  // The API of the group's object, whose shape the status is written in, and its minMember
  // (which scheduler-plugins' phases depend on).
  PodGroupDialect dialect = PodGroupDialect::kArbiter;
  std::int32_t min_member = 1;
  // The group's metadata.resourceVersion as the snapshot saw it: a write conditional on it needs
  // no read first (empty: unknown, read first).
  std::string resource_version;
  // The status takes the group past Pending (it admits it): from then on its spec.queue may not
  // change (the CRD's rule reads status.phase), so the write may not wait.
  bool admits = false;
};

// A Queue's status as this session leaves it (deserved from the proportion plugin; allocated: the
// requests of its pods holding nodes, this session's placements included; used: of its running
// pods; counts of its PodGroups by phase), emitted only when it differs from the snapshot's.
struct QueueUpdate {
  std::string name;
  QueueStatus status;
};

// How long one named part of a session took (an action; a plugin's open and close hooks).
struct NamedDuration {
  std::string name;
  std::int64_t nanos = 0;
};

// How many jobs of a queue wait behind one gate (PendingExplanation::gate) after a session.
struct PendingJobCount {
  std::string queue;
  std::string gate;
  std::int64_t jobs = 0;
  friend bool operator==(const PendingJobCount&, const PendingJobCount&) = default;
};

struct SessionStats {
  std::vector<NamedDuration> action_nanos;  // per action, in the configured order
  std::vector<NamedDuration> plugin_nanos;  // per plugin, OnSessionOpen + OnSessionClose
  std::int64_t jobs_considered = 0;
  std::int64_t jobs_committed = 0;
  std::int64_t jobs_discarded = 0;
  std::int64_t tasks_bound = 0;
  std::int64_t nodes_filtered = 0;  // node x task filter evaluations
  // Jobs the session left waiting with a verdict (groups and pods of no group), by queue and gate,
  // sorted: the metrics' pending jobs.
  std::vector<PendingJobCount> pending_jobs;
  // Pods bound this session whose job names its data, by how local their node is (node, rack,
  // any: LocalityLevel's order).
  std::array<std::int64_t, 3> locality_binds{};
  // PodGroups whose status was not drafted again: quiet since the session before (QuietGroups).
  std::int64_t group_drafts_skipped = 0;
};

struct SessionResult {
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
  std::vector<NominationDecision> nominations;
  std::vector<PodVerdict> unschedulable;
  std::vector<PodGroupUpdate> group_updates;
  std::vector<QueueUpdate> queue_updates;
  SessionStats stats;
};

}  // namespace arbiter
