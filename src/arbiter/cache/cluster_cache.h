// ClusterCache: Arbiter's model of the cluster, fed by watch events (k8s/reflector.h) and by the
// scheduler's own decisions (assume), from which each session takes a Snapshot (R7).
//
// What it guarantees:
//   * every non-terminal pod bound to a node counts on that node, whichever scheduler, namespace
//     or phase (a pod created with spec.nodeName set included), and so does a pod this scheduler
//     assumed onto a node while its bind is in flight;
//   * an assumed pod stays counted until the watch shows it bound, gone or finished; after a failed
//     or timed-out bind it stays counted until the watch says otherwise or until the expiry given
//     to BindFailed passes (the API server may have bound it even though the call failed);
//   * filters (scheduler name, namespaces, node selector) limit which pods become tasks and which
//     nodes are in scope, never what is counted on a node.
//
// Incremental: each event updates the per-node aggregates (used, ports, pod count) and the job
// membership in place, and marks the job and node it touched; TakeSnapshot() copies the current
// state (shared pointers to the immutable objects, aggregates by value), builds only the marked
// jobs and nodes and carries the others over from the previous snapshot, and returns the previous
// snapshot again when nothing changed. When nobody else holds the previous snapshot any more, the
// next is that very one with what changed built again in place (and the jobs after one that came
// or went shifted), so a snapshot costs what changed; otherwise it is a copy, patched.
//
// Thread safety: all methods may be called from any thread (one mutex); a snapshot does not
// change while anybody holds it.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/model/data_set.h"
#include "arbiter/model/namespace.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_disruption_budget.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/model/resource_quota.h"

namespace arbiter {

struct CacheOptions {
  std::string scheduler_name = "arbiter";
  std::set<std::string> namespaces;  // empty: every namespace
  Labels node_selector;              // empty: every node (R9's static zone)
  // A snapshot carries over, from the one before it, the jobs (with their tasks) and the nodes
  // that nothing changed since, and builds only the others. Off: every snapshot builds them all
  // (the same snapshot, more slowly; for tests and benchmarks to compare against).
  bool share_unchanged = true;
};

class ClusterCache {
 public:
  explicit ClusterCache(CacheOptions options);

  void UpsertNode(const Node& node);
  void DeleteNode(const std::string& name);
  void UpsertPod(const Pod& pod);
  // The same, keeping `pod` itself (never changed after; the reflector's store shares it).
  void UpsertPod(std::shared_ptr<const Pod> pod);
  void DeletePod(const Pod& pod);
  void UpsertPodGroup(const PodGroup& group);
  void DeletePodGroup(const PodGroup& group);
  void UpsertQueue(const Queue& queue);
  void DeleteQueue(const std::string& name);
  // Whether the watch has delivered the Queue `name`.
  bool HasQueue(std::string_view name) const;
  void UpsertPriorityClass(const PriorityClass& priority_class);
  void DeletePriorityClass(const std::string& name);
  void UpsertNamespace(const Namespace& ns);
  void DeleteNamespace(const std::string& name);
  void UpsertPodDisruptionBudget(const PodDisruptionBudget& pdb);
  void DeletePodDisruptionBudget(const PodDisruptionBudget& pdb);
  // arbiter-controller's ResourceQuotas (kQuotaQueueAnnotation names their queue); others are
  // ignored.
  void UpsertResourceQuota(const ResourceQuota& quota);
  void DeleteResourceQuota(const ResourceQuota& quota);
  // DataSets (model/data_set.h): a job whose PodGroup names one in spec.locality.dataSet gets it
  // in JobInfo::data_set while it exists.
  void UpsertDataSet(const DataSet& data_set);
  void DeleteDataSet(const DataSet& data_set);

  // The scheduler chose `node_name` for the pod: count it there (TaskState::kBinding) until the
  // watch shows the pod bound, deleted or finished. A pod not in the cache is ignored.
  void Assume(const std::string& pod_uid, const std::string& node_name);
  // The bind call failed or timed out at `now`: the assumption stays until the watch says
  // otherwise or `now + ttl` passes (then ExpireAssumed forgets it).
  void BindFailed(const std::string& pod_uid, Clock::MonotonicTime now,
                  std::chrono::nanoseconds ttl);
  // Preemption decided to evict the pod: it is releasing its node (TaskState::kReleasing) until
  // the watch shows it being deleted or gone, or `until` passes (the eviction was refused, e.g. by
  // a PodDisruptionBudget: it runs on). So the next session neither counts it as running nor
  // chooses it again.
  void AssumeEvicting(const std::string& pod_uid, Clock::MonotonicTime until);
  // Preemption nominated the pod to `node` (empty: cleared the nomination): the snapshot says so
  // until the watch shows the pod's status.nominatedNodeName equal to it, or `until` passes.
  void AssumeNominated(const std::string& pod_uid, const std::string& node,
                       Clock::MonotonicTime until);
  // A session wrote this status for the PodGroup: the snapshot shows it until the watch shows
  // the same status or `until` passes, so that what a session records once (a preemption's
  // count and condition) is not lost to a session that runs before the watch delivers the write.
  void AssumeGroupStatus(const std::string& namespace_name, const std::string& name,
                         const PodGroupStatus& status, Clock::MonotonicTime until);
  // The plan that evicted the pod was refused (a PodDisruptionBudget, or another victim's
  // eviction was): it runs on, and is not counted as releasing any more.
  void ForgetEvicting(const std::string& pod_uid);
  // The API server refused to evict the pod: TaskInfo::eviction_refused until `until`.
  void AssumeEvictionRefused(const std::string& pod_uid, Clock::MonotonicTime until);
  // Drops the nomination assumed for the pod (the plan it was part of was refused).
  void ForgetNominated(const std::string& pod_uid);
  // Drops the status assumed for the group (it was not written).
  void ForgetGroupStatus(const std::string& namespace_name, const std::string& name);
  // Forgets failed assumptions whose expiry has passed; returns how many binds it forgot.
  // Evictions and nominations the watch never confirmed are forgotten too.
  int ExpireAssumed(Clock::MonotonicTime now);
  // Drops an assumption at once (the pod was bound elsewhere, or the bind was refused for good).
  void Forget(const std::string& pod_uid);
  std::size_t assumed_count() const;
  // How many objects of each kind the cache holds (a soak compares them with a fresh LIST: a
  // cache that only grows, or misses a deletion, shows here first).
  struct Counts {
    std::size_t nodes = 0;
    std::size_t pods = 0;
    std::size_t pod_groups = 0;
    std::size_t jobs = 0;  // pod groups and pods of no group alike
    std::size_t queues = 0;
    std::size_t assumed = 0;
  };
  Counts counts() const;
  // Whether the pod is assumed on a node (its bind in flight, or failed and not yet expired).
  bool IsAssumed(std::string_view pod_uid) const;

  // The state now, as an immutable snapshot stamped with `now` (wall time, for conditions).
  std::shared_ptr<const Snapshot> TakeSnapshot(Clock::WallTime now);
  // Increments on every change that a snapshot can see.
  std::uint64_t generation() const;

 private:
  struct NodeAggregate {
    ResourceVector used;
    std::vector<HostPort> host_ports;
    std::int32_t pod_count = 0;
  };
  struct NodeEntry {
    std::shared_ptr<const Node> node;
    ResourceVector allocatable;
  };
  struct GroupEntry {
    // The objects of this namespace/name, by dialect; `group` is the first of them (the order
    // of PodGroupDialect).
    std::array<std::shared_ptr<const PodGroup>, kPodGroupDialects> of_dialect;
    std::shared_ptr<const PodGroup> group;
    ResourceVector min_resources;
    // AssumeGroupStatus: the group with the status written, until the watch shows it. For a
    // group of another API, whose status cannot hold all of Arbiter's (no admission in
    // Kubernetes' conditions, no counts of preemptions), until the scheduler writes another.
    std::shared_ptr<const PodGroup> assumed;
    Clock::MonotonicTime assumed_until{};
  };
  struct PodEntry;
  // A job of the snapshot: a PodGroup (namespace, name), or a pod with no group (singleton),
  // so that a pod without a group never merges with a group of the same name.
  struct JobKey {
    std::string namespace_name;
    std::string name;
    bool singleton = false;
    friend auto operator<=>(const JobKey&, const JobKey&) = default;
  };
  // Kept up to date by every pod and group change, so that a snapshot need not regroup every
  // pod (at 150,000 pods regrouping was most of a snapshot's time).
  struct JobMembers {
    std::map<std::string, const PodEntry*, std::less<>> pods;  // our tasks, by pod name
    const GroupEntry* group = nullptr;                         // its PodGroup, if it exists
  };
  using JobMap = std::map<JobKey, JobMembers>;
  struct PodEntry {
    std::shared_ptr<const Pod> pod;
    ResourceVector request;
    std::string assumed_node;  // non-empty while assumed
    std::optional<Clock::MonotonicTime> assume_expiry;
    std::string counted_node;             // the node whose aggregate includes this pod, if any
    std::optional<JobMap::iterator> job;  // the job it is a task of (our tasks only)
    std::string task_name;                // its arbiter.dev/task label, read once per update
    std::vector<HostPort> host_ports;     // read once per update, as the hashes below
    std::uint64_t constraint_hash = 0;
    std::uint64_t placement_hash = 0;
    std::optional<Clock::MonotonicTime> evicting_until;  // AssumeEvicting
    std::optional<std::string> nominated;                // AssumeNominated
    std::optional<Clock::MonotonicTime> nominated_until;
    std::optional<Clock::MonotonicTime> refused_until;  // AssumeEvictionRefused
    // The index of node `indexed_node` in the snapshots made while the set of nodes was at
    // `node_set_generation` (BuildJobsLocked, under the lock).
    mutable std::string indexed_node;
    mutable NodeIndex node_index = kNoNode;
    mutable std::uint64_t node_set_generation = 0;
  };

  // Makes the first object of entry.of_dialect the group (dropping an assumed status that was
  // for another object); false when the entry holds none any more.
  bool ChooseGroupLocked(GroupEntry& entry);
  void CountLocked(PodEntry& entry);
  void UncountLocked(PodEntry& entry);
  void LinkLocked(PodEntry& entry);
  void UnlinkLocked(PodEntry& entry);
  bool IsOurTask(const Pod& pod) const;
  // The task and job arrays of a snapshot nobody holds any more, emptied, kept for the next one.
  struct SpareArrays {
    std::vector<TaskInfo> tasks;
    std::vector<JobInfo> jobs;
  };
  // Makes `snapshot` the cluster as it is now. `carry`: it holds the snapshot built last (itself,
  // when nobody else held that one, or a copy), and only what changed since is built again;
  // otherwise every node and job is built.
  void BuildLocked(Snapshot& snapshot, Clock::WallTime now, bool carry);
  NodeInfo NodeInfoLocked(const std::string& name, const NodeEntry& entry) const;
  void BuildNodesLocked(Snapshot& snapshot, bool carry);
  void BuildJobsLocked(Snapshot& snapshot, bool carry);
  // What the next snapshot must build again rather than carry over.
  void MarkNodeLocked(const std::string& name);
  void MarkJobLocked(const PodEntry& entry);
  void MarkGroupJobLocked(const std::string& namespace_name, const std::string& name);

  const CacheOptions options_;
  mutable std::mutex mu_;
  ResourceSpace resources_;
  std::map<std::string, NodeEntry, std::less<>> nodes_;
  std::map<std::string, NodeAggregate, std::less<>> aggregates_;  // by node name
  std::map<std::string, PodEntry, std::less<>> pods_;             // by uid
  std::map<std::string, GroupEntry, std::less<>> groups_;         // by ns/name
  JobMap jobs_;  // every job with a task or a PodGroup
  // Arbiter PodGroups' assumed statuses by when they expire, so that ExpireAssumed visits only
  // those due (with a thousand gangs written within the ttl, a walk of all of them each session
  // was a tenth of the session thread). An entry whose group was assumed again since, or was
  // shown by the watch, is dropped when its time comes.
  std::multimap<Clock::MonotonicTime, std::string> group_expiries_;
  // Pods with an assumed eviction or nomination: what ExpireAssumed visits for them.
  std::set<std::string, std::less<>> preempting_;
  // Pods whose failed bind has an expiry: what ExpireAssumed visits, rather than every pod.
  std::set<std::string, std::less<>> expiring_;
  std::map<std::string, std::shared_ptr<const Queue>, std::less<>> queues_;
  std::map<std::string, PriorityClass, std::less<>> priority_classes_;
  std::map<std::string, Labels, std::less<>> namespaces_;
  std::map<std::string, std::shared_ptr<const PodDisruptionBudget>, std::less<>> pdbs_;  // ns/name
  std::map<std::string, ResourceQuota, std::less<>> quotas_;                             // ns/name
  std::map<std::string, std::shared_ptr<const DataSet>, std::less<>> data_sets_;         // ns/name
  std::uint64_t generation_ = 1;
  std::uint64_t node_set_generation_ = 1;  // moves when a node is added or removed
  std::uint64_t snapshot_generation_ = 0;
  std::shared_ptr<Snapshot> last_snapshot_;  // handed out as const; only the cache recycles it
  SpareArrays spare_;
  // Jobs changed since last_snapshot_ was built (present or gone from jobs_ now), in the order of
  // the snapshot's jobs. A change that can move what every job refers to (the set of nodes, of
  // budgets or of their selectors, priority classes, data sets) rebuilds them all instead.
  std::set<JobKey> changed_jobs_;
  // Nodes whose object or aggregate changed since (the set of nodes did not: that rebuilds all).
  std::set<std::string, std::less<>> changed_nodes_;
  bool rebuild_all_ = true;
  bool queue_set_changed_ = false;  // a queue came or went: jobs' queue indexes move
};

}  // namespace arbiter
