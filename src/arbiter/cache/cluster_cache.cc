#include "arbiter/cache/cluster_cache.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <ranges>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "arbiter/base/log.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter {

namespace {

// JobInfo::revision: one counter for every cache of the process, so that a scheduler given
// snapshots of two caches never takes one's job for the other's.
std::uint64_t NextJobRevision() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

TaskState StateOf(const Pod& pod, bool assumed) {
  if (pod.status.phase == PodPhase::kSucceeded) return TaskState::kSucceeded;
  if (pod.status.phase == PodPhase::kFailed) return TaskState::kFailed;
  const bool holds = !pod.spec.node_name.empty() || assumed;
  if (holds && pod.meta.deletion_timestamp.has_value()) return TaskState::kReleasing;
  if (!pod.spec.node_name.empty()) {
    return pod.status.phase == PodPhase::kRunning ? TaskState::kRunning : TaskState::kBound;
  }
  return assumed ? TaskState::kBinding : TaskState::kPending;
}

std::string GroupKey(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

// The budget covering the pod (an index into snapshot.pdbs), kNoPdb or kSeveralPdbs.
std::int32_t PdbOf(const Pod& pod,
                   const std::unordered_map<std::string_view, std::vector<std::int32_t>>& by_ns,
                   const Snapshot& snapshot) {
  auto it = by_ns.find(pod.meta.namespace_name);
  if (it == by_ns.end()) return kNoPdb;
  std::int32_t found = kNoPdb;
  for (std::int32_t i : it->second) {
    if (!snapshot.pdbs[static_cast<std::size_t>(i)].pdb->Selects(pod.meta.labels)) continue;
    if (found != kNoPdb) return kSeveralPdbs;
    found = i;
  }
  return found;
}

void EraseOnePort(std::vector<HostPort>& ports, const HostPort& port) {
  auto it = std::find(ports.begin(), ports.end(), port);
  if (it != ports.end()) ports.erase(it);
}

}  // namespace

ClusterCache::ClusterCache(CacheOptions options) : options_(std::move(options)) {}

bool ClusterCache::IsOurTask(const Pod& pod) const {
  return pod.spec.scheduler_name == options_.scheduler_name &&
         (options_.namespaces.empty() || options_.namespaces.contains(pod.meta.namespace_name));
}

void ClusterCache::CountLocked(PodEntry& entry) {
  const Pod& pod = *entry.pod;
  const std::string& node = pod.spec.node_name.empty() ? entry.assumed_node : pod.spec.node_name;
  if (node.empty() || pod.Finished()) return;
  NodeAggregate& agg = aggregates_[node];
  MarkNodeLocked(node);
  agg.used.Add(entry.request);
  agg.host_ports.insert(agg.host_ports.end(), entry.host_ports.begin(), entry.host_ports.end());
  ++agg.pod_count;
  entry.counted_node = node;
}

void ClusterCache::UncountLocked(PodEntry& entry) {
  if (entry.counted_node.empty()) return;
  auto it = aggregates_.find(entry.counted_node);
  MarkNodeLocked(entry.counted_node);
  if (it != aggregates_.end()) {
    NodeAggregate& agg = it->second;
    agg.used.Subtract(entry.request);
    for (const HostPort& port : entry.host_ports) EraseOnePort(agg.host_ports, port);
    --agg.pod_count;
    if (agg.pod_count == 0) aggregates_.erase(it);
  }
  entry.counted_node.clear();
}

void ClusterCache::LinkLocked(PodEntry& entry) {
  const Pod& pod = *entry.pod;
  if (!IsOurTask(pod)) {
    UnlinkLocked(entry);
    return;
  }
  std::string group = PodGroupNameOf(pod);
  const bool singleton = group.empty();
  if (singleton) group = pod.meta.name;
  JobKey key{pod.meta.namespace_name, std::move(group), singleton};
  // Most updates (status, binding) leave the pod in its job.
  if (entry.job.has_value() && (*entry.job)->first == key) return;
  UnlinkLocked(entry);
  auto [it, inserted] = jobs_.try_emplace(std::move(key));
  if (inserted && !singleton) {
    if (auto g = groups_.find(GroupKey(it->first.namespace_name, it->first.name));
        g != groups_.end()) {
      it->second.group = &g->second;
    }
  }
  auto [member, added] = it->second.pods.try_emplace(pod.meta.name, &entry);
  if (!added && member->second != &entry) {
    // Another pod of this name, with another uid, is still here: one deleted and made again whose
    // deletion the watch has not shown yet. The newer one is the job's task; the other stays
    // counted on its node, unlinked (so that no entry points at a job that forgets it), until
    // its deletion or its next update links it again.
    if (auto other = pods_.find(member->second->pod->meta.uid); other != pods_.end()) {
      other->second.job.reset();
    }
    member->second = &entry;
  }
  entry.job = it;
}

void ClusterCache::MarkNodeLocked(const std::string& name) {
  if (!rebuild_all_) changed_nodes_.insert(name);
}

void ClusterCache::MarkJobLocked(const PodEntry& entry) {
  if (entry.job.has_value() && !rebuild_all_) changed_jobs_.insert((*entry.job)->first);
}

void ClusterCache::MarkGroupJobLocked(const std::string& namespace_name, const std::string& name) {
  if (!rebuild_all_) changed_jobs_.insert(JobKey{namespace_name, name, false});
}

void ClusterCache::UnlinkLocked(PodEntry& entry) {
  if (!entry.job.has_value()) return;
  MarkJobLocked(entry);
  const JobMap::iterator it = *entry.job;
  entry.job.reset();
  auto member = it->second.pods.find(entry.pod->meta.name);
  if (member != it->second.pods.end() && member->second == &entry) it->second.pods.erase(member);
  if (it->second.pods.empty() && it->second.group == nullptr) jobs_.erase(it);
}

void ClusterCache::UpsertNode(const Node& node) {
  std::lock_guard lock(mu_);
  auto [it, added] = nodes_.try_emplace(node.meta.name);
  if (added) {
    ++node_set_generation_;  // node indexes move
    rebuild_all_ = true;
  }
  NodeEntry& entry = it->second;
  MarkNodeLocked(node.meta.name);
  entry.node = std::make_shared<const Node>(node);
  entry.allocatable = resources_.FromList(node.allocatable);
  ++generation_;
}

void ClusterCache::DeleteNode(const std::string& name) {
  std::lock_guard lock(mu_);
  if (nodes_.erase(name) > 0) {
    ++node_set_generation_;
    rebuild_all_ = true;
  }
  ++generation_;
}

void ClusterCache::UpsertPod(const Pod& pod) { UpsertPod(std::make_shared<const Pod>(pod)); }

void ClusterCache::UpsertPod(std::shared_ptr<const Pod> shared) {
  const Pod& pod = *shared;
  std::lock_guard lock(mu_);
  PodEntry& entry = pods_[pod.meta.uid];
  UncountLocked(entry);
  // A pod's name never changes (its uid would), but unlink by the name it is filed under.
  if (entry.job.has_value() && entry.pod->meta.name != pod.meta.name) UnlinkLocked(entry);
  entry.pod = std::move(shared);
  auto task_label = pod.meta.labels.find(kTaskLabel);
  entry.task_name = task_label == pod.meta.labels.end() ? std::string() : task_label->second;
  LinkLocked(entry);
  MarkJobLocked(entry);
  StatusOr<ResourceList> request = pod.EffectiveRequest();
  if (request.ok()) {
    entry.request = resources_.FromList(*request);
  } else {
    // Only an int64 overflow gets here: such a pod can fit nowhere, so it asks for all the cpu.
    ARBITER_LOG(kWarning) << "pod " << pod.meta.Key() << ": " << request.status();
    entry.request = ResourceVector();
    entry.request.Set(kCpuId, std::numeric_limits<std::int64_t>::max());
  }
  entry.host_ports = HostPortsOf(pod);
  entry.constraint_hash = PlacementConstraintHash(pod.spec);
  entry.placement_hash = entry.constraint_hash;
  for (std::size_t r = 0; r < entry.request.size(); ++r) {
    const std::int64_t amount = entry.request.Get(static_cast<ResourceId>(r));
    if (amount != 0)
      entry.placement_hash =
          HashCombine(HashCombine(entry.placement_hash, r), static_cast<std::uint64_t>(amount));
  }
  for (const HostPort& port : entry.host_ports) {
    entry.placement_hash =
        HashCombine(entry.placement_hash, std::hash<std::string>{}(port.host_ip));
    entry.placement_hash =
        HashCombine(HashCombine(entry.placement_hash, static_cast<std::uint64_t>(port.port)),
                    std::hash<std::string>{}(port.protocol));
  }
  // The watch settles an eviction once it shows the deletion, and a nomination once it shows it.
  if (pod.meta.deletion_timestamp.has_value() || pod.Finished()) entry.evicting_until.reset();
  if (entry.nominated.has_value() && pod.status.nominated_node_name == *entry.nominated) {
    entry.nominated.reset();
    entry.nominated_until.reset();
  }
  // The watch settles an assumption: the pod is bound (to whichever node), or finished.
  if (!pod.spec.node_name.empty() || pod.Finished()) {
    entry.assumed_node.clear();
    if (entry.assume_expiry.has_value()) expiring_.erase(pod.meta.uid);
    entry.assume_expiry.reset();
  }
  CountLocked(entry);
  ++generation_;
}

void ClusterCache::DeletePod(const Pod& pod) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod.meta.uid);
  if (it == pods_.end()) return;
  UncountLocked(it->second);
  UnlinkLocked(it->second);
  expiring_.erase(it->first);
  preempting_.erase(it->first);
  pods_.erase(it);
  ++generation_;
}

bool ClusterCache::ChooseGroupLocked(GroupEntry& entry) {
  std::shared_ptr<const PodGroup> chosen;
  for (const auto& group : entry.of_dialect) {
    if (group != nullptr) {
      chosen = group;
      break;
    }
  }
  if (chosen == nullptr) return false;
  if (entry.assumed != nullptr) {
    const bool same_object =
        entry.assumed->dialect == chosen->dialect && entry.assumed->meta.uid == chosen->meta.uid;
    if (!same_object ||
        (chosen->dialect == PodGroupDialect::kArbiter && entry.assumed->status == chosen->status)) {
      entry.assumed.reset();
    } else {
      // The object's new spec, with the status still assumed.
      auto assumed = std::make_shared<PodGroup>(*chosen);
      assumed->status = entry.assumed->status;
      entry.assumed = std::move(assumed);
    }
  }
  entry.group = std::move(chosen);
  entry.min_resources = resources_.FromList(entry.group->spec.min_resources);
  return true;
}

void ClusterCache::UpsertPodGroup(const PodGroup& group) {
  std::lock_guard lock(mu_);
  GroupEntry& entry = groups_[GroupKey(group.meta.namespace_name, group.meta.name)];
  entry.of_dialect[static_cast<std::size_t>(group.dialect)] =
      std::make_shared<const PodGroup>(group);
  ChooseGroupLocked(entry);
  jobs_[JobKey{group.meta.namespace_name, group.meta.name, false}].group = &entry;
  MarkGroupJobLocked(group.meta.namespace_name, group.meta.name);
  ++generation_;
}

void ClusterCache::DeletePodGroup(const PodGroup& group) {
  std::lock_guard lock(mu_);
  auto entry = groups_.find(GroupKey(group.meta.namespace_name, group.meta.name));
  if (entry == groups_.end()) return;
  entry->second.of_dialect[static_cast<std::size_t>(group.dialect)].reset();
  MarkGroupJobLocked(group.meta.namespace_name, group.meta.name);
  if (!ChooseGroupLocked(entry->second)) {
    groups_.erase(entry);
    if (auto it = jobs_.find(JobKey{group.meta.namespace_name, group.meta.name, false});
        it != jobs_.end()) {
      it->second.group = nullptr;
      if (it->second.pods.empty()) jobs_.erase(it);
    }
  }
  ++generation_;
}

bool ClusterCache::HasQueue(std::string_view name) const {
  std::lock_guard lock(mu_);
  return queues_.find(name) != queues_.end();
}

void ClusterCache::UpsertQueue(const Queue& queue) {
  std::lock_guard lock(mu_);
  auto [it, added] = queues_.try_emplace(queue.meta.name);
  it->second = std::make_shared<const Queue>(queue);
  if (added) queue_set_changed_ = true;
  ++generation_;
}

void ClusterCache::DeleteQueue(const std::string& name) {
  std::lock_guard lock(mu_);
  if (queues_.erase(name) > 0) queue_set_changed_ = true;
  ++generation_;
}

void ClusterCache::UpsertResourceQuota(const ResourceQuota& quota) {
  std::lock_guard lock(mu_);
  if (QuotaQueueOf(quota).empty()) {
    quotas_.erase(quota.meta.Key());
  } else {
    quotas_[quota.meta.Key()] = quota;
  }
  ++generation_;
}

void ClusterCache::DeleteResourceQuota(const ResourceQuota& quota) {
  std::lock_guard lock(mu_);
  quotas_.erase(quota.meta.Key());
  ++generation_;
}

void ClusterCache::UpsertPriorityClass(const PriorityClass& priority_class) {
  std::lock_guard lock(mu_);
  priority_classes_[priority_class.meta.name] = priority_class;
  rebuild_all_ = true;  // jobs' priorities
  ++generation_;
}

void ClusterCache::DeletePriorityClass(const std::string& name) {
  std::lock_guard lock(mu_);
  priority_classes_.erase(name);
  rebuild_all_ = true;
  ++generation_;
}

void ClusterCache::UpsertNamespace(const Namespace& ns) {
  std::lock_guard lock(mu_);
  namespaces_[ns.meta.name] = ns.meta.labels;
  ++generation_;
}

void ClusterCache::DeleteNamespace(const std::string& name) {
  std::lock_guard lock(mu_);
  namespaces_.erase(name);
  ++generation_;
}

void ClusterCache::Assume(const std::string& pod_uid, const std::string& node_name) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || !it->second.pod->spec.node_name.empty()) return;
  UncountLocked(it->second);
  it->second.assumed_node = node_name;
  it->second.assume_expiry.reset();
  expiring_.erase(pod_uid);
  CountLocked(it->second);
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::BindFailed(const std::string& pod_uid, Clock::MonotonicTime now,
                              std::chrono::nanoseconds ttl) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || it->second.assumed_node.empty()) return;
  it->second.assume_expiry = now + ttl;
  expiring_.insert(pod_uid);
}

void ClusterCache::UpsertPodDisruptionBudget(const PodDisruptionBudget& pdb) {
  std::lock_guard lock(mu_);
  auto [it, added] = pdbs_.try_emplace(pdb.meta.Key());
  // Which budget covers a task moves only with the set of budgets and their selectors, not with
  // the status that the disruption controller rewrites as pods come and go.
  if (added || it->second->selector != pdb.selector) rebuild_all_ = true;
  it->second = std::make_shared<const PodDisruptionBudget>(pdb);
  ++generation_;
}

void ClusterCache::DeletePodDisruptionBudget(const PodDisruptionBudget& pdb) {
  std::lock_guard lock(mu_);
  if (pdbs_.erase(pdb.meta.Key()) > 0) {
    rebuild_all_ = true;
    ++generation_;
  }
}

void ClusterCache::UpsertDataSet(const DataSet& data_set) {
  std::lock_guard lock(mu_);
  data_sets_[data_set.meta.Key()] = std::make_shared<const DataSet>(data_set);
  rebuild_all_ = true;  // the jobs whose groups name it
  ++generation_;
}

void ClusterCache::DeleteDataSet(const DataSet& data_set) {
  std::lock_guard lock(mu_);
  if (data_sets_.erase(data_set.meta.Key()) > 0) {
    rebuild_all_ = true;
    ++generation_;
  }
}

void ClusterCache::ForgetEvicting(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || !it->second.evicting_until.has_value()) return;
  it->second.evicting_until.reset();
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::AssumeEvictionRefused(const std::string& pod_uid, Clock::MonotonicTime until) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end()) return;
  it->second.refused_until = until;
  preempting_.insert(pod_uid);
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::ForgetNominated(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || !it->second.nominated.has_value()) return;
  it->second.nominated.reset();
  it->second.nominated_until.reset();
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::ForgetGroupStatus(const std::string& namespace_name, const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(GroupKey(namespace_name, name));
  if (it == groups_.end() || it->second.assumed == nullptr) return;
  it->second.assumed.reset();
  MarkGroupJobLocked(namespace_name, name);
  ++generation_;
}

void ClusterCache::AssumeEvicting(const std::string& pod_uid, Clock::MonotonicTime until) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || it->second.pod->meta.deletion_timestamp.has_value()) return;
  it->second.evicting_until = until;
  preempting_.insert(pod_uid);
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::AssumeNominated(const std::string& pod_uid, const std::string& node,
                                   Clock::MonotonicTime until) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end()) return;
  if (it->second.pod->status.nominated_node_name == node) {
    it->second.nominated.reset();
    it->second.nominated_until.reset();
  } else {
    it->second.nominated = node;
    it->second.nominated_until = until;
    preempting_.insert(pod_uid);
  }
  MarkJobLocked(it->second);
  ++generation_;
}

void ClusterCache::AssumeGroupStatus(const std::string& namespace_name, const std::string& name,
                                     const PodGroupStatus& status, Clock::MonotonicTime until) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(GroupKey(namespace_name, name));
  if (it == groups_.end() || it->second.group == nullptr) return;
  GroupEntry& entry = it->second;
  if (entry.group->status == status) {
    entry.assumed.reset();
  } else {
    auto assumed = std::make_shared<PodGroup>(*entry.group);
    assumed->status = status;
    entry.assumed = std::move(assumed);
    entry.assumed_until = until;
    // Another API's status never shows all of it: kept until the next write (no expiry).
    if (entry.group->dialect == PodGroupDialect::kArbiter)
      group_expiries_.emplace(until, it->first);
  }
  MarkGroupJobLocked(namespace_name, name);
  ++generation_;
}

int ClusterCache::ExpireAssumed(Clock::MonotonicTime now) {
  std::lock_guard lock(mu_);
  while (!group_expiries_.empty() && group_expiries_.begin()->first <= now) {
    auto due = group_expiries_.extract(group_expiries_.begin());
    auto it = groups_.find(due.mapped());
    if (it == groups_.end() || it->second.assumed == nullptr || it->second.assumed_until > now) {
      continue;
    }
    it->second.assumed.reset();
    MarkGroupJobLocked(it->second.group->meta.namespace_name, it->second.group->meta.name);
    ++generation_;
  }
  for (auto uid = preempting_.begin(); uid != preempting_.end();) {
    auto it = pods_.find(*uid);
    if (it == pods_.end()) {
      uid = preempting_.erase(uid);
      continue;
    }
    PodEntry& entry = it->second;
    if (entry.evicting_until.has_value() && *entry.evicting_until <= now) {
      entry.evicting_until.reset();
      MarkJobLocked(entry);
      ++generation_;
    }
    if (entry.nominated_until.has_value() && *entry.nominated_until <= now) {
      entry.nominated.reset();
      entry.nominated_until.reset();
      MarkJobLocked(entry);
      ++generation_;
    }
    if (entry.refused_until.has_value() && *entry.refused_until <= now) {
      entry.refused_until.reset();
      MarkJobLocked(entry);
      ++generation_;
    }
    if (!entry.evicting_until.has_value() && !entry.nominated.has_value() &&
        !entry.refused_until.has_value()) {
      uid = preempting_.erase(uid);
    } else {
      ++uid;
    }
  }
  int expired = 0;
  for (auto uid = expiring_.begin(); uid != expiring_.end();) {
    auto it = pods_.find(*uid);
    if (it == pods_.end() || !it->second.assume_expiry.has_value() ||
        it->second.assumed_node.empty()) {
      uid = expiring_.erase(uid);
      continue;
    }
    PodEntry& entry = it->second;
    if (*entry.assume_expiry > now) {
      ++uid;
      continue;
    }
    UncountLocked(entry);
    entry.assumed_node.clear();
    entry.assume_expiry.reset();
    CountLocked(entry);
    MarkJobLocked(entry);
    uid = expiring_.erase(uid);
    ++expired;
  }
  if (expired > 0) ++generation_;
  return expired;
}

void ClusterCache::Forget(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end() || it->second.assumed_node.empty()) return;
  UncountLocked(it->second);
  it->second.assumed_node.clear();
  it->second.assume_expiry.reset();
  expiring_.erase(pod_uid);
  CountLocked(it->second);
  MarkJobLocked(it->second);
  ++generation_;
}

std::size_t ClusterCache::assumed_count() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(
      pods_.begin(), pods_.end(), [](const auto& kv) { return !kv.second.assumed_node.empty(); }));
}

ClusterCache::Counts ClusterCache::counts() const {
  std::lock_guard lock(mu_);
  Counts c;
  c.nodes = nodes_.size();
  c.pods = pods_.size();
  c.pod_groups = groups_.size();
  c.jobs = jobs_.size();
  c.queues = queues_.size();
  c.assumed = static_cast<std::size_t>(std::count_if(
      pods_.begin(), pods_.end(), [](const auto& kv) { return !kv.second.assumed_node.empty(); }));
  return c;
}

bool ClusterCache::IsAssumed(std::string_view pod_uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod_uid);
  return it != pods_.end() && !it->second.assumed_node.empty();
}

std::uint64_t ClusterCache::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

std::shared_ptr<const Snapshot> ClusterCache::TakeSnapshot(Clock::WallTime now) {
  std::shared_ptr<Snapshot> previous;
  std::shared_ptr<const Snapshot> built;
  {
    std::lock_guard lock(mu_);
    if (last_snapshot_ != nullptr && snapshot_generation_ == generation_) return last_snapshot_;
    previous = std::move(last_snapshot_);
    // Nobody else can take a new reference to `previous` (only this method hands snapshots out,
    // under the lock), so when the cache holds the only one it can be changed into the next.
    const bool movable = previous != nullptr && previous.use_count() == 1;
    // What the last other holder did with it happens before what is done here (its release of
    // the count, then this acquire).
    if (movable) std::atomic_thread_fence(std::memory_order_acquire);
    // Nothing is carried over from a snapshot whose jobs and nodes may all have moved.
    const bool carry = previous != nullptr && options_.share_unchanged && !rebuild_all_;
    std::shared_ptr<Snapshot> snapshot;
    if (carry && movable) {
      // Patched where it is: what nothing changed is not even moved, so the snapshot costs what
      // changed (at 150,000 pods, moving every unchanged job and task was 14 ms a snapshot).
      snapshot = std::exchange(previous, nullptr);
    } else {
      snapshot = std::make_shared<Snapshot>();
      snapshot->tasks = std::exchange(spare_.tasks, {});
      snapshot->jobs = std::exchange(spare_.jobs, {});
      if (carry) {  // somebody still reads the previous one: patch a copy
        snapshot->nodes = previous->nodes;
        snapshot->jobs = previous->jobs;
        snapshot->tasks = previous->tasks;
      }
    }
    BuildLocked(*snapshot, now, carry);
    rebuild_all_ = !options_.share_unchanged;
    last_snapshot_ = std::move(snapshot);
    snapshot_generation_ = generation_;
    built = last_snapshot_;
  }
  // The previous snapshot, when nobody else holds it and it was not patched into the next, is
  // freed after the lock is released: at 150,000 pods freeing it takes tens of milliseconds that
  // the watches need not wait for. Its task and job arrays are kept, emptied, for the next
  // snapshot built whole: arrays that large come fresh from the OS a page at a time, and those
  // page faults were a seventh of a session's time.
  if (previous != nullptr && previous.use_count() == 1) {
    std::atomic_thread_fence(std::memory_order_acquire);  // as for `movable` above
    SpareArrays spare{std::move(previous->tasks), std::move(previous->jobs)};
    previous.reset();
    spare.tasks.clear();
    spare.jobs.clear();
    std::lock_guard lock(mu_);
    if (spare_.tasks.capacity() < spare.tasks.capacity()) spare_ = std::move(spare);
  }
  return built;
}

NodeInfo ClusterCache::NodeInfoLocked(const std::string& name, const NodeEntry& entry) const {
  NodeInfo info;
  info.node = entry.node;
  info.allocatable = entry.allocatable;
  if (auto it = aggregates_.find(name); it != aggregates_.end()) {
    info.used = it->second.used;
    info.host_ports_in_use = it->second.host_ports;
    info.pod_count = it->second.pod_count;
  }
  const Node& node = *entry.node;
  if (!MatchesNodeSelector(options_.node_selector, node.meta.labels)) {
    info.out_of_scope_why = "node(s) didn't match the scheduler's --node-selector";
  } else if (node.unschedulable) {
    info.out_of_scope_why = "node(s) were unschedulable";
  } else if (!node.Ready()) {
    info.out_of_scope_why = "node(s) were not ready";
  } else if (node.meta.deletion_timestamp.has_value()) {
    info.out_of_scope_why = "node(s) were being deleted";
  }
  info.in_scope = info.out_of_scope_why.empty();
  return info;
}

void ClusterCache::BuildNodesLocked(Snapshot& snapshot, bool carry) {
  if (!carry) {
    snapshot.nodes.clear();
    snapshot.nodes.reserve(nodes_.size());
    for (const auto& [name, entry] : nodes_) snapshot.nodes.push_back(NodeInfoLocked(name, entry));
  } else {
    // The same nodes in the same order: those that changed are built again.
    for (const std::string& name : changed_nodes_) {
      auto entry = nodes_.find(name);
      const std::optional<NodeIndex> n = snapshot.FindNode(name);
      if (entry != nodes_.end() && n.has_value()) {
        snapshot.nodes[n->pos()] = NodeInfoLocked(name, entry->second);
      }
    }
  }
  changed_nodes_.clear();
}

void ClusterCache::BuildJobsLocked(Snapshot& snapshot, bool carry) {
  std::optional<std::int32_t> default_priority;
  for (const auto& [name, pc] : priority_classes_) {
    if (pc.global_default)
      default_priority = std::max(default_priority.value_or(pc.value), pc.value);
  }
  // Node names to indexes: what a pod's entry remembers from the last snapshot while the set of
  // nodes stays the same (a bound pod's node rarely changes), else a binary search of the nodes
  // (sorted by name) for the first few, and a hash map made once for more: under a stream a
  // snapshot looks up the nodes of a few dozen newly bound pods, for which hashing every node
  // name was most of the lookups' cost.
  constexpr int kSearchesBeforeMap = 256;
  int searches = 0;
  std::unordered_map<std::string_view, NodeIndex> node_index;
  const auto index_of = [&](const PodEntry& entry, const std::string& name) {
    if (entry.node_set_generation == node_set_generation_ && entry.indexed_node == name) {
      return entry.node_index;
    }
    if (searches < kSearchesBeforeMap) {
      ++searches;
      entry.node_index = snapshot.FindNode(name).value_or(kNoNode);
    } else {
      if (node_index.empty()) {
        node_index.reserve(snapshot.nodes.size());
        for (std::size_t i = 0; i < snapshot.nodes.size(); ++i) {
          node_index.emplace(snapshot.nodes[i].name(), NodeIndex::Of(i));
        }
      }
      auto it = node_index.find(name);
      entry.node_index = it == node_index.end() ? kNoNode : it->second;
    }
    entry.indexed_node = name;
    entry.node_set_generation = node_set_generation_;
    return entry.node_index;
  };

  // Budgets by namespace, so that a pod is matched only against its own namespace's.
  std::unordered_map<std::string_view, std::vector<std::int32_t>> pdbs_by_namespace;
  snapshot.pdbs.clear();
  snapshot.pdbs.reserve(pdbs_.size());
  for (const auto& [key, pdb] : pdbs_) {
    pdbs_by_namespace[pdb->meta.namespace_name].push_back(
        static_cast<std::int32_t>(snapshot.pdbs.size()));
    snapshot.pdbs.push_back(PdbInfo{pdb, pdb->Allowed()});
  }

  std::vector<JobInfo>& jobs = snapshot.jobs;
  std::vector<TaskInfo>& tasks = snapshot.tasks;
  // Groups with no pod yet still get a job, so that their status is kept (admission, counts), if
  // their namespace is in scope (pods out of scope are never members).
  const auto builds = [&](const JobKey& key, const JobMembers& members) {
    return !members.pods.empty() || options_.namespaces.empty() ||
           options_.namespaces.contains(key.namespace_name);
  };
  // The job of `key`, at `job_index`; `place` puts each of its tasks, in order, and says where.
  const auto make_job = [&](const JobKey& key, const JobMembers& members, JobIndex job_index,
                            const auto& place) {
    const auto& [ns, name, singleton] = key;
    JobInfo job;
    job.namespace_name = ns;
    job.name = name;
    job.revision = NextJobRevision();
    if (singleton) {
      const Pod& pod = *members.pods.begin()->second->pod;
      job.uid = pod.meta.uid;
      job.priority = pod.spec.priority.value_or(default_priority.value_or(0));
      job.priority_class_name = pod.spec.priority_class_name;
      job.creation = pod.meta.creation_timestamp;
      job.phase = pod.spec.node_name.empty() && !pod.Finished() ? PodGroupPhase::kInqueue
                                                                : PodGroupPhase::kRunning;
    } else if (members.group != nullptr) {
      const auto& shown =
          members.group->assumed != nullptr ? members.group->assumed : members.group->group;
      const PodGroup& group = *shown;
      job.group = shown;
      job.uid = group.meta.uid;
      job.queue = group.spec.queue;
      job.min_member = group.spec.min_member;
      job.min_task_member = group.spec.min_task_member;
      job.priority_class_name = group.spec.priority_class_name;
      if (auto pc = priority_classes_.find(group.spec.priority_class_name);
          pc != priority_classes_.end()) {
        job.priority = pc->second.value;
      } else if (group.spec.priority.has_value()) {
        job.priority = *group.spec.priority;  // Kubernetes' PodGroup: resolved at admission
      } else {
        job.priority = default_priority.value_or(0);
      }
      job.min_resources = members.group->min_resources;
      if (group.spec.locality.has_value() && !group.spec.locality->data_set.empty()) {
        if (auto d = data_sets_.find(ns + "/" + group.spec.locality->data_set);
            d != data_sets_.end()) {
          job.data_set = d->second;
        }
      }
      job.phase = group.status.phase;
      job.creation = group.meta.creation_timestamp;
    } else {
      const Pod& first = *members.pods.begin()->second->pod;
      job.group_missing = true;
      job.uid = first.meta.uid;
      job.creation = first.meta.creation_timestamp;
    }
    if (auto q = snapshot.FindQueue(job.queue)) job.queue_index = *q;
    job.tasks.reserve(members.pods.size());
    for (const auto& [pod_name, entry] : members.pods) {
      TaskInfo task;
      task.pod = entry->pod;
      task.task_name = entry->task_name;
      task.priority = entry->pod->spec.priority.value_or(0);
      task.request = entry->request;
      task.host_ports = entry->host_ports;
      task.constraint_hash = entry->constraint_hash;
      task.placement_hash = entry->placement_hash;
      task.state = StateOf(*entry->pod, !entry->assumed_node.empty());
      if (entry->evicting_until.has_value() && HoldsNode(task.state)) {
        task.state = TaskState::kReleasing;
      }
      const std::string& node =
          entry->pod->spec.node_name.empty() ? entry->assumed_node : entry->pod->spec.node_name;
      if (!node.empty() && task.state != TaskState::kSucceeded &&
          task.state != TaskState::kFailed) {
        task.node = index_of(*entry, node);
      } else if (const std::string& nominated =
                     entry->nominated.value_or(entry->pod->status.nominated_node_name);
                 !nominated.empty() && task.state == TaskState::kPending) {
        task.nominated = index_of(*entry, nominated);
      }
      task.eviction_refused = entry->refused_until.has_value();
      if (!pdbs_by_namespace.empty()) task.pdb = PdbOf(*entry->pod, pdbs_by_namespace, snapshot);
      task.job = job_index;
      job.tasks.push_back(place(std::move(task)));
    }
    return job;
  };
  const auto append_task = [&](TaskInfo&& task) {
    tasks.push_back(std::move(task));
    return TaskIndex::Of(tasks.size() - 1);
  };
  const auto build_job = [&](const JobKey& key, const JobMembers& members) {
    if (builds(key, members)) {
      jobs.push_back(make_job(key, members, JobIndex::Of(jobs.size()), append_task));
    }
  };

  jobs.reserve(jobs_.size());
  tasks.reserve(pods_.size());
  if (!carry) {
    jobs.clear();
    tasks.clear();
    for (const auto& [key, members] : jobs_) build_job(key, members);
    changed_jobs_.clear();
    queue_set_changed_ = false;
    return;
  }

  if (queue_set_changed_) {
    for (JobInfo& job : jobs) {
      job.queue_index = snapshot.FindQueue(job.queue).value_or(kNoQueue);
      // A revision promises the whole JobInfo the same, and its queue_index may have moved.
      job.revision = NextJobRevision();
    }
    queue_set_changed_ = false;
  }
  // The order of JobKey, one comparison of each string per pair.
  const auto order = [](const JobInfo& old, const JobKey& key) {
    if (int c = old.namespace_name.compare(key.namespace_name); c != 0) return c;
    if (int c = old.name.compare(key.name); c != 0) return c;
    return static_cast<int>(old.IsSingleton()) - static_cast<int>(key.singleton);
  };
  // Both in the order of jobs_. A changed job that keeps its number of tasks is built again in
  // its place, its tasks where its old ones were, and nothing else moves; from the first that
  // comes, goes or changes its number of tasks, the rest shifts (below). Under a stream new jobs
  // sort last (names that grow), so nothing shifts; finding each changed job is a binary search
  // from the one before.
  auto changed = changed_jobs_.begin();
  auto at = jobs.begin();
  for (; changed != changed_jobs_.end(); ++changed) {
    const JobKey& key = *changed;
    at = std::partition_point(at, jobs.end(),
                              [&](const JobInfo& old) { return order(old, key) < 0; });
    const bool was = at != jobs.end() && order(*at, key) == 0;
    const auto now = jobs_.find(key);
    const bool is = now != jobs_.end() && builds(now->first, now->second);
    if (!was && !is) continue;
    if (!was || !is || now->second.pods.size() != at->tasks.size()) break;
    const std::vector<TaskIndex> places = std::move(at->tasks);
    std::size_t next_place = 0;
    const auto replace_task = [&](TaskInfo&& task) {
      const TaskIndex t = places[next_place++];
      tasks[t.pos()] = std::move(task);
      return t;
    };
    *at = make_job(now->first, now->second, JobIndex::Of(at - jobs.begin()), replace_task);
    ++at;
  }
  if (changed == changed_jobs_.end()) {
    changed_jobs_.clear();
    return;
  }

  // From `at` on, jobs come and go and change their number of tasks: the old jobs in between
  // (runs of them, each shifted by the same number of jobs and of tasks) move to their new places
  // in the same arrays, and the changed jobs are built in the places left. A run moved right is
  // moved before any run left of it, a run moved left after any run left of it, so no element
  // is overwritten before it has moved (both keep their order). Cost: the moves (none for a run
  // that stays), and the runs and changed jobs, not the jobs that stay where they are.
  struct Run {
    std::size_t from_job, to_job, jobs, from_task, to_task, tasks;
  };
  struct Built {
    const JobKey* key;
    const JobMembers* members;
    std::size_t to_job, to_task;
  };
  std::vector<Run> runs;
  std::vector<Built> built;
  // The position of old job j's first task, or where it would be: tasks are laid out in the
  // order of their jobs.
  const auto first_task_of = [&](std::size_t j) {
    for (; j < jobs.size(); ++j) {
      if (!jobs[j].tasks.empty()) return jobs[j].tasks.front().pos();
    }
    return tasks.size();
  };
  std::size_t old_job = static_cast<std::size_t>(at - jobs.begin());
  std::size_t old_task = first_task_of(old_job);
  std::size_t new_job = old_job;
  std::size_t new_task = old_task;
  const auto carry_until = [&](std::size_t end) {
    if (end == old_job) return;
    const std::size_t end_task = first_task_of(end);
    runs.push_back({old_job, new_job, end - old_job, old_task, new_task, end_task - old_task});
    new_job += end - old_job;
    new_task += end_task - old_task;
    old_job = end;
    old_task = end_task;
  };
  for (; changed != changed_jobs_.end(); ++changed) {
    const JobKey& key = *changed;
    carry_until(static_cast<std::size_t>(
        std::partition_point(jobs.begin() + static_cast<std::ptrdiff_t>(old_job), jobs.end(),
                             [&](const JobInfo& old) { return order(old, key) < 0; }) -
        jobs.begin()));
    if (old_job < jobs.size() && order(jobs[old_job], key) == 0) {  // built again, or gone
      old_task += jobs[old_job].tasks.size();
      ++old_job;
    }
    if (auto it = jobs_.find(key); it != jobs_.end() && builds(it->first, it->second)) {
      built.push_back({&it->first, &it->second, new_job, new_task});
      ++new_job;
      new_task += it->second.pods.size();
    }
  }
  carry_until(jobs.size());

  if (new_job > jobs.size()) jobs.resize(new_job);
  if (new_task > tasks.size()) tasks.resize(new_task);
  const auto move = [](auto& array, std::size_t from, std::size_t to, std::size_t count) {
    const auto first = array.begin() + static_cast<std::ptrdiff_t>(from);
    const auto last = first + static_cast<std::ptrdiff_t>(count);
    if (to > from) {
      std::move_backward(first, last, array.begin() + static_cast<std::ptrdiff_t>(to + count));
    } else if (to < from) {
      std::move(first, last, array.begin() + static_cast<std::ptrdiff_t>(to));
    }
  };
  for (const Run& r : std::ranges::reverse_view(runs)) {
    if (r.to_job > r.from_job) move(jobs, r.from_job, r.to_job, r.jobs);
    if (r.to_task > r.from_task) move(tasks, r.from_task, r.to_task, r.tasks);
  }
  for (const Run& r : runs) {
    if (r.to_job < r.from_job) move(jobs, r.from_job, r.to_job, r.jobs);
    if (r.to_task < r.from_task) move(tasks, r.from_task, r.to_task, r.tasks);
  }
  // The moved jobs' task indexes and their tasks' job index.
  for (const Run& r : runs) {
    if (r.to_job == r.from_job && r.to_task == r.from_task) continue;
    for (std::size_t j = r.to_job; j < r.to_job + r.jobs; ++j) {
      for (TaskIndex& t : jobs[j].tasks) {
        t = TaskIndex::Of(t.pos() - r.from_task + r.to_task);
        tasks[t.pos()].job = JobIndex::Of(j);
      }
    }
  }
  for (const Built& b : built) {
    std::size_t next_place = b.to_task;
    const auto place_task = [&](TaskInfo&& task) {
      tasks[next_place] = std::move(task);
      return TaskIndex::Of(next_place++);
    };
    jobs[b.to_job] = make_job(*b.key, *b.members, JobIndex::Of(b.to_job), place_task);
  }
  jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(new_job), jobs.end());
  tasks.erase(tasks.begin() + static_cast<std::ptrdiff_t>(new_task), tasks.end());
  changed_jobs_.clear();
}

void ClusterCache::BuildLocked(Snapshot& snapshot, Clock::WallTime now, bool carry) {
  snapshot.now = now;
  snapshot.resources = resources_;
  BuildNodesLocked(snapshot, carry);
  snapshot.queues.clear();
  snapshot.queues.reserve(queues_.size());
  std::map<std::string_view, std::vector<const ResourceQuota*>> quotas;  // by queue
  for (const auto& [key, quota] : quotas_) quotas[QuotaQueueOf(quota)].push_back(&quota);
  for (const auto& [name, queue] : queues_) {
    QueueInfo& info = snapshot.queues.emplace_back(QueueInfo{queue, std::nullopt});
    if (auto it = quotas.find(name); it != quotas.end()) info.quota_cap = QuotaCap(it->second);
  }
  BuildJobsLocked(snapshot, carry);
  snapshot.namespace_labels.clear();
  for (const auto& [name, labels] : namespaces_) snapshot.namespace_labels.emplace(name, labels);
  snapshot.priority_classes.clear();
  snapshot.priority_classes.reserve(priority_classes_.size());
  for (const auto& [name, pc] : priority_classes_) snapshot.priority_classes.push_back(pc);
}

}  // namespace arbiter
