// Snapshot: the cluster as one scheduling session sees it. Immutable while anybody holds it (the
// cache builds it, and makes it the next snapshot only once the last holder let it go; a session
// only reads it and keeps its own working state), so a session never races with watch events and
// never mutates the cache (ARCHITECTURE.md §3).
//
// What is in it:
//   * nodes: every node, with what is used on it by every non-terminal pod bound or assumed there,
//     whichever scheduler, namespace or phase placed it (R7); `in_scope` says whether this
//     scheduler may place pods on it (Ready, schedulable, matching --node-selector);
//   * tasks: the pods this scheduler is responsible for (its schedulerName, its namespaces),
//     bound or not, that are not finished long ago: they make up the jobs;
//   * jobs: one per PodGroup in the scheduler's namespaces (pods or not, so that its status is
//     kept), per missing group named by pods, and per pod that names no group (a group of one in
//     queue "default"). A pod without a group and a group may share a name: FindJob finds the
//     group's job;
//   * queues, namespace labels, priority class values, PodDisruptionBudgets (each task names the
//     budget that covers it).
// Every vector is sorted by a total order (nodes by name, jobs by namespace/name, tasks by job then
// namespace/name, queues by name), so iteration is deterministic.
//
// Indexes (NodeIndex, TaskIndex, JobIndex, QueueIndex) are positions in these vectors, valid for
// this snapshot only. Pointers into the snapshot never outlive it.
//
// Thread safety: immutable while held; share it freely between threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/strong_id.h"
#include "arbiter/model/data_set.h"
#include "arbiter/model/node.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/placement_rules.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_disruption_budget.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/resource/resource_vector.h"

namespace arbiter {

// Distinct types, so that a node's index can never be passed where a job's is expected.
using NodeIndex = StrongIndex<struct NodeIndexTag>;
using TaskIndex = StrongIndex<struct TaskIndexTag>;
using JobIndex = StrongIndex<struct JobIndexTag>;
using QueueIndex = StrongIndex<struct QueueIndexTag>;
inline constexpr NodeIndex kNoNode{-1};
inline constexpr QueueIndex kNoQueue{-1};
inline constexpr JobIndex kNoJob{-1};  // e.g. the preemptor of a quota eviction: there is none

enum class TaskState : std::uint8_t {
  kPending,    // on no node
  kAllocated,  // placed by this session; only a session's working state holds it
  // Nominated by this session to room that evicted pods are freeing (preemption); counts
  // towards its gang in the plan but holds nothing until bound. Only a working state holds it.
  kPipelined,
  kBinding,  // assumed: this scheduler chose a node, the watch has not confirmed the bind yet
  kBound,    // spec.nodeName set, not running yet
  kRunning,
  kReleasing,  // being deleted, still holding its node
  kSucceeded,
  kFailed,
};

std::string_view TaskStateName(TaskState state);
// Whether a task in this state holds room on its node.
bool HoldsNode(TaskState state);
// Whether a task in this state counts towards its gang's minMember: placed, or finished well.
bool CountsTowardGang(TaskState state);

struct NodeInfo {
  std::shared_ptr<const Node> node;
  ResourceVector allocatable;
  ResourceVector used;  // every pod holding this node, any scheduler
  std::vector<HostPort> host_ports_in_use;
  std::int32_t pod_count = 0;
  bool in_scope = false;         // this scheduler may place pods here
  std::string out_of_scope_why;  // "node is not Ready", "node is unschedulable", ...

  const std::string& name() const { return node->meta.name; }
};

struct TaskInfo {
  std::shared_ptr<const Pod> pod;
  std::string task_name;             // label arbiter.dev/task; empty when absent
  std::int32_t priority = 0;         // spec.priority (R3)
  ResourceVector request;            // the effective request (pod.h)
  std::vector<HostPort> host_ports;  // every host port its containers ask for
  // Hashes of what placement depends on, computed once per pod update: its placement constraints
  // (PlacementConstraintHash), and those with its request and host ports (framework/placement.h).
  std::uint64_t constraint_hash = 0;
  std::uint64_t placement_hash = 0;
  TaskState state = TaskState::kPending;
  NodeIndex node = kNoNode;
  // A pending pod's status.nominatedNodeName: the node whose room preemption is freeing for it.
  NodeIndex nominated = kNoNode;
  JobIndex job{0};
  // The PodDisruptionBudget covering the pod: an index into Snapshot::pdbs, kNoPdb, or
  // kSeveralPdbs (the Eviction API refuses to evict a pod that several budgets cover).
  std::int32_t pdb = -1;
  // An eviction of this pod was refused lately (ClusterCache::AssumeEvictionRefused): a plan
  // does not count on it again until the refusal is forgotten.
  bool eviction_refused = false;

  const std::string& namespace_name() const { return pod->meta.namespace_name; }
  const std::string& name() const { return pod->meta.name; }
  const std::string& uid() const { return pod->meta.uid; }
  std::string Key() const { return pod->meta.Key(); }
};

struct JobInfo {
  std::string namespace_name;
  std::string name;                       // the group's name, or the pod's for a group of one
  std::string uid;                        // the group's uid, or the pod's
  std::shared_ptr<const PodGroup> group;  // null for a group of one and for a missing group
  // The DataSet its group names in spec.locality.dataSet (same namespace); null when it names
  // none or the DataSet does not exist (then only the group's node and rack hints count).
  std::shared_ptr<const DataSet> data_set;
  bool group_missing = false;  // pods name a group that does not exist
  std::string queue{kDefaultQueueName};
  QueueIndex queue_index = kNoQueue;  // kNoQueue when the queue does not exist
  std::int32_t min_member = 1;
  std::map<std::string, std::int32_t> min_task_member;
  std::string priority_class_name;
  std::int32_t priority = 0;
  ResourceVector min_resources;
  PodGroupPhase phase = PodGroupPhase::kPending;
  Clock::WallTime creation{};
  std::vector<TaskIndex> tasks;  // sorted by namespace/name
  // Which build of the job this is: ClusterCache numbers each JobInfo it builds, unique in the
  // process, and a job it carries over keeps its number, so two snapshots' jobs of one number
  // hold the same (tasks included). 0: not known (snapshots built otherwise).
  std::uint64_t revision = 0;

  bool IsSingleton() const { return group == nullptr && !group_missing; }
  std::string Key() const { return namespace_name + "/" + name; }
};

inline constexpr std::int32_t kNoPdb = -1;
inline constexpr std::int32_t kSeveralPdbs = -2;

// A PodDisruptionBudget as far as preemption cares: how many pods it covers may be evicted now.
struct PdbInfo {
  std::shared_ptr<const PodDisruptionBudget> pdb;
  std::int32_t allowed = 0;  // PodDisruptionBudget::Allowed()
};

struct QueueInfo {
  std::shared_ptr<const Queue> queue;
  // What the queue's ResourceQuotas let it take (model/resource_quota.h QuotaCap); none: no quota.
  std::optional<ResourceList> quota_cap;
  const std::string& name() const { return queue->meta.name; }
};

struct Snapshot {
  ResourceSpace resources;
  std::vector<NodeInfo> nodes;
  std::vector<TaskInfo> tasks;
  std::vector<JobInfo> jobs;
  std::vector<QueueInfo> queues;
  std::vector<PdbInfo> pdbs;  // by namespace/name
  std::map<std::string, Labels, std::less<>> namespace_labels;
  // Every PriorityClass (by name): jobs carry their resolved priority; a forecast that adds jobs
  // (sim/forecast.h) resolves theirs the same way.
  std::vector<PriorityClass> priority_classes;
  // When the snapshot was built. A snapshot is reused while nothing changes, so sessions take
  // their time from Scheduler::RunSession's `now`, not from here.
  Clock::WallTime now{};

  std::optional<NodeIndex> FindNode(std::string_view name) const;
  std::optional<JobIndex> FindJob(std::string_view namespace_name, std::string_view name) const;
  std::optional<QueueIndex> FindQueue(std::string_view name) const;
};

}  // namespace arbiter
