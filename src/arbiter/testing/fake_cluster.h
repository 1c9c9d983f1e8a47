// FakeCluster: the scheduling core end to end in memory, for unit tests: a SimulatedCluster
// (sim/scenario_runner.h) under a test's names, so that decisions reach the cache through the
// same Applier and Effects as in the scheduler and the simulator (assume, then bind: the pod's
// spec.nodeName is set and, like kwok, it is Running; a status update replaces the group's
// status). A bind the simulated API server refuses (bound twice, pod or node gone) is a test
// failure. No I/O and no threads; test-only.
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

#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/config.h"
#include "arbiter/sim/scenario_runner.h"
#include "arbiter/testing/builders.h"

namespace arbiter::testing {

class FakeCluster {
 public:
  explicit FakeCluster(const SchedulerConfig& config = DefaultSchedulerConfig(),
                       CacheOptions options = CacheOptions()) {
    sim::SimulatedClusterOptions cluster_options;
    cluster_options.cache = std::move(options);
    auto cluster = sim::SimulatedCluster::Create(config, std::move(cluster_options));
    ARBITER_CHECK(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
  }

  void Add(const Node& node) { cluster_->Add(node); }
  void Add(const Queue& queue) { cluster_->Add(queue); }
  void Add(const PriorityClass& pc) { cluster_->Add(pc); }
  void Add(const PodGroup& group) { cluster_->Add(group); }
  void Add(const Pod& pod) { cluster_->Add(pod); }
  void Add(const PodDisruptionBudget& pdb) { cluster_->Add(pdb); }
  void Add(const DataSet& data_set) { cluster_->Add(data_set); }
  void Delete(const DataSet& data_set) { cluster_->cache().DeleteDataSet(data_set); }
  // As the scheduler's watch of ResourceQuotas would (a queue's, by its annotation).
  void Add(const ResourceQuota& quota) { cluster_->cache().UpsertResourceQuota(quota); }
  void Delete(const Pod& pod) { DeletePod(pod.meta.uid); }
  void DeletePod(const std::string& uid) {
    const Status deleted = cluster_->DeletePod(uid);
    ARBITER_CHECK(deleted.ok()) << deleted;
  }
  // The pod finishes (kwok's run-for): Succeeded or Failed.
  void Finish(const std::string& uid, PodPhase phase = PodPhase::kSucceeded) {
    const Status finished = cluster_->FinishPod(uid, phase);
    ARBITER_CHECK(finished.ok()) << finished;
  }

  // One session on a fresh snapshot one second after the last; binds and status updates are
  // then applied as the API server and kwok would apply them.
  SessionResult RunSession() {
    sim::SessionRecord record = cluster_->RunSession();
    ARBITER_CHECK(record.refused_binds.empty()) << record.refused_binds.front();
    return std::move(record.result);
  }

  const Pod& pod(const std::string& uid) const { return cluster_->pods().at(uid); }
  const std::map<std::string, Pod>& pods() const { return cluster_->pods(); }
  const PodGroup& group(const std::string& key) const { return cluster_->groups().at(key); }
  ClusterCache& cache() { return cluster_->cache(); }
  // The clock of the last session (each session runs one second after the one before).
  Clock::WallTime now() const { return cluster_->now(); }
  std::shared_ptr<const arbiter::Snapshot> TakeSnapshot() {
    return cluster_->cache().TakeSnapshot(cluster_->now());
  }

 private:
  std::unique_ptr<sim::SimulatedCluster> cluster_;
};

// Pods bound and not being deleted whose group (in namespace default) is in `queue`.
inline int RunningInQueue(const FakeCluster& cluster, const std::string& queue) {
  int n = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (pod.spec.node_name.empty() || pod.meta.deletion_timestamp.has_value()) continue;
    n += cluster.group("default/" + PodGroupNameOf(pod)).spec.queue == queue ? 1 : 0;
  }
  return n;
}

}  // namespace arbiter::testing
