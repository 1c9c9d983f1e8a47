// FakeCluster: the scheduling core end to end in memory, for tests and scenarios: a ClusterCache
// fed with model objects as the watches would feed it, a Scheduler built from a configuration
// and the built-in registry, and the "API server's" reaction to a session's decisions (a bind
// sets spec.nodeName and, like kwok, makes the pod Running; a status update replaces the group's
// status). No I/O and no threads; test-only.
//
//   FakeCluster cluster;
//   cluster.Add(MakeNode("n1").Cpu("4").Build());
//   cluster.Add(MakePodGroup("g").MinMember(2).Build());
//   SessionResult r = cluster.RunSession();   // decisions applied to the cache already
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "arbiter/actions/builtin.h"
#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"

namespace arbiter::testing {

class FakeCluster {
 public:
  explicit FakeCluster(const SchedulerConfig& config = DefaultSchedulerConfig(),
                       CacheOptions options = CacheOptions())
      : cache_(std::move(options)) {
    RegisterBuiltinPlugins(registry_);
    RegisterBuiltinActions(registry_);
    auto scheduler = Scheduler::Create(config, registry_);
    ARBITER_CHECK(scheduler.ok()) << scheduler.status();
    scheduler_ = std::move(*scheduler);
    Add(MakeQueue("default"));
  }

  void Add(const Node& node) { cache_.UpsertNode(node); }
  void Add(const Queue& queue) { cache_.UpsertQueue(queue); }
  void Add(const PriorityClass& pc) { cache_.UpsertPriorityClass(pc); }
  void Add(const PodGroup& group) {
    groups_[group.meta.Key()] = group;
    cache_.UpsertPodGroup(group);
  }
  void Add(const Pod& pod) {
    pods_[pod.meta.uid] = pod;
    cache_.UpsertPod(pod);
  }
  void Delete(const Pod& pod) {
    pods_.erase(pod.meta.uid);
    cache_.DeletePod(pod);
  }
  void DeletePod(const std::string& uid) {
    auto it = pods_.find(uid);
    ARBITER_CHECK(it != pods_.end()) << uid;
    Delete(Pod(it->second));
  }
  // The pod finishes (kwok's run-for): Succeeded or Failed.
  void Finish(const std::string& uid, PodPhase phase = PodPhase::kSucceeded) {
    Pod& pod = pods_.at(uid);
    pod.status.phase = phase;
    cache_.UpsertPod(pod);
  }

  // One session on a fresh snapshot; binds and status updates are then applied as the API server
  // and kwok would apply them.
  SessionResult RunSession() {
    now_ += std::chrono::seconds(1);
    std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(now_);
    SessionResult result = scheduler_->RunSession(*snapshot, now_);
    for (const BindDecision& bind : result.binds) {
      Pod& pod = pods_.at(bind.pod_uid);
      ARBITER_CHECK(pod.spec.node_name.empty()) << "bound twice: " << pod.meta.Key();
      pod.spec.node_name = bind.node_name;
      pod.status.phase = PodPhase::kRunning;
      cache_.UpsertPod(pod);
    }
    for (const PodGroupUpdate& update : result.group_updates) {
      PodGroup& group = groups_.at(update.namespace_name + "/" + update.name);
      group.status = update.status;
      cache_.UpsertPodGroup(group);
    }
    return result;
  }

  const Pod& pod(const std::string& uid) const { return pods_.at(uid); }
  const std::map<std::string, Pod>& pods() const { return pods_; }
  const PodGroup& group(const std::string& key) const { return groups_.at(key); }
  ClusterCache& cache() { return cache_; }
  std::shared_ptr<const arbiter::Snapshot> TakeSnapshot() { return cache_.TakeSnapshot(now_); }

 private:
  Registry registry_;
  ClusterCache cache_;
  std::unique_ptr<Scheduler> scheduler_;
  std::map<std::string, Pod> pods_;
  std::map<std::string, PodGroup> groups_;
  Clock::WallTime now_ = TestEpoch();
};

}  // namespace arbiter::testing
