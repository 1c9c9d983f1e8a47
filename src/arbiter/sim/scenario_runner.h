// SimulatedCluster and RunScenario: the scheduling core end to end, in memory, for scenarios
// (sim/scenario.h), randomized tests and, later, `arbiterctl simulate`.
//
// SimulatedCluster is a ClusterCache fed with model objects as the watches would feed it, a
// Scheduler built from a configuration and the built-in registry, and the reaction of the API
// server and kwok to what a session decided. It is the Effects (effects/effects.h) of the
// simulated world, driven by the same Applier as the real scheduler's, so that binds are assumed,
// fail and expire as they do there:
//   * a bind sets spec.nodeName and makes the pod Running (after BindFaults::latency, if any;
//     until then the cache counts it assumed); a bind the API server would refuse (the pod is
//     gone or bound already, the node does not exist) changes nothing, is recorded in
//     SessionRecord::refused_binds and reported failed; an injected failure (BindFaults) is
//     reported failed too: the pod stays assumed until the failed-bind ttl passes, then is
//     placed again;
//   * a preemptor's evictions are first dry-run against the PodDisruptionBudgets (a pod that
//     one budget with no disruption allowed, or several budgets, cover is refused: 429); if any
//     is refused, none is made, nor its nominations and victims' statuses. Otherwise each
//     evicted pod is marked as being deleted (its budget's disruptionsAllowed decremented), and
//     deleted after its grace period;
//   * a PodGroup or Queue status update replaces that object's status.
// A virtual clock starts at ScenarioEpoch() and moves one second before each session. No I/O,
// no threads; the same inputs give the same decisions.
//
// RunScenario plays a Scenario's steps on a fresh SimulatedCluster. After every session it checks
// the step's expectations and the invariants of sim/invariants.h, and returns every failure as a
// line that names the file, the step and the session.
//
//   ARBITER_ASSIGN_OR_RETURN(Scenario s, LoadScenarioFile("tests/scenarios/gang.yaml"));
//   ARBITER_ASSIGN_OR_RETURN(ScenarioOutcome outcome, RunScenario(s));
//   for (const std::string& f : outcome.failures) std::cerr << f << "\n";
//
// Thread safety: a SimulatedCluster is used from one thread at a time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/effects/effects.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/sim/scenario.h"

namespace arbiter::sim {

// Faults injected into binds, drawn from `seed` (the same seed, the same faults): each bind fails
// with probability `failure_rate`, and a bind that does not fail takes effect `latency` after the
// session that decided it (at a later session's time; zero: at once).
struct BindFaults {
  double failure_rate = 0;
  std::chrono::milliseconds latency{0};
  std::uint64_t seed = 1;
};

struct SimulatedClusterOptions {
  CacheOptions cache;
  BindFaults bind_faults;
  std::chrono::nanoseconds failed_bind_ttl = std::chrono::seconds(30);
};

// One session's decisions and what the simulated API server made of them.
struct SessionRecord {
  SessionResult result;
  std::vector<std::string> refused_binds;  // "pod ns/p: bound twice (to n1, now n2)", ...
  std::vector<std::string> failed_binds;   // pods (ns/name) whose bind an injected fault failed
  // Binds that took effect while this session was applied (with latency: decided earlier).
  std::vector<BindDecision> bound;
  std::int32_t expired_assumptions = 0;  // failed binds forgotten before the session
  // Evictions the simulated API server made, and those it refused ("pod ns/p: <why>").
  std::vector<EvictDecision> evicted;
  std::vector<std::string> refused_evictions;
  // Wall time of the scheduler's part: taking the snapshot and the session itself, and of the
  // snapshot alone.
  double scheduler_seconds = 0;
  double snapshot_seconds = 0;
};

class SimulatedCluster final : private Effects {
 public:
  // Fails when the configuration names an unknown plugin or action, or bad plugin arguments.
  static StatusOr<std::unique_ptr<SimulatedCluster>> Create(const SchedulerConfig& config,
                                                            SimulatedClusterOptions options = {});

  SimulatedCluster(const SimulatedCluster&) = delete;
  SimulatedCluster& operator=(const SimulatedCluster&) = delete;

  // Create or replace, as a watch event would.
  void Add(const Node& node);
  void Add(const Queue& queue);
  void Add(const PriorityClass& priority_class);
  void Add(const PodGroup& group);
  void Add(const Pod& pod);
  void Add(const PodDisruptionBudget& pdb);
  void Add(const DataSet& data_set);
  // NotFound when there is no such pod.
  Status DeletePod(const std::string& uid);
  // `key` is namespace/name. NotFound when there is no such group.
  Status DeletePodGroup(const std::string& key);
  // The pod's containers exit: phase Succeeded or Failed, at `at` (default: the cluster's now).
  // NotFound when there is no such pod.
  Status FinishPod(const std::string& uid, PodPhase phase,
                   std::optional<Clock::WallTime> at = std::nullopt);
  // The next bind of this pod fails (as an API server error would), whatever BindFaults say.
  void FailNextBind(const std::string& uid) { fail_next_bind_.insert(uid); }
  // From now on the Eviction API refuses this pod (429), as a budget the scheduler has not seen
  // yet would.
  void RefuseEvictions(const std::string& uid) { refuse_evictions_.insert(uid); }
  // Whether the cache holds the pod assumed on a node: its bind in flight, or failed and waiting
  // for the failed-bind ttl. Such a pod is not pending: its room is held.
  bool Assumed(const std::string& uid) const { return cache_.IsAssumed(uid); }
  // Whether something will change with time alone: a bind in flight, a failed bind the cache
  // still holds assumed, an evicted pod in its grace period.
  bool Settling() const {
    return !binds_in_flight_.empty() || !deletions_.empty() || cache_.assumed_count() > 0;
  }
  // When the next bind in flight takes effect or the next evicted pod is deleted; none when
  // neither is to come.
  std::optional<Clock::WallTime> NextChange() const {
    std::optional<Clock::WallTime> next;
    if (!binds_in_flight_.empty()) next = binds_in_flight_.begin()->first;
    if (!deletions_.empty()) {
      next = next ? std::min(*next, deletions_.begin()->first) : deletions_.begin()->first;
    }
    return next;
  }

  // One session on a fresh snapshot one second after the last, its decisions then applied
  // (binds, PodGroup and Queue status).
  SessionRecord RunSession();
  // The same at `now`, which must not be before the last session's time.
  SessionRecord RunSessionAt(Clock::WallTime now);

  ClusterCache& cache() { return cache_; }
  const std::map<std::string, Pod>& pods() const { return pods_; }           // by uid
  const std::map<std::string, Node>& nodes() const { return nodes_; }        // by name
  const std::map<std::string, PodGroup>& groups() const { return groups_; }  // by ns/name
  const std::map<std::string, Queue>& queues() const { return queues_; }     // by name
  const std::string& scheduler_name() const { return scheduler_name_; }
  Clock::WallTime now() const { return now_; }
  std::int64_t sessions_run() const { return sessions_run_; }

 private:
  explicit SimulatedCluster(SimulatedClusterOptions options);

  // Effects.
  void Bind(const std::vector<BindDecision>& binds) override;
  void Preempt(const PreemptionBatch& batch) override;
  void Nominate(const NominationDecision& nomination) override;
  void ReportUnschedulable(const PodVerdict& verdict, const Pod* observed) override;
  void WriteGroupStatus(const PodGroupUpdate& update) override;
  void WriteQueueStatus(const QueueUpdate& update) override;

  // Why the Eviction API would refuse to evict the pod now; empty: it would not.
  std::string EvictionRefusal(const Pod& pod) const;
  void Evict(const EvictDecision& eviction);
  // The bind as the API server and kwok take it, now.
  void CompleteBind(const BindDecision& bind);
  // Binds whose latency has passed, and evicted pods whose grace has, by `now_`.
  void AdvanceTo(Clock::WallTime now);
  Clock::MonotonicTime Monotonic() const { return Clock::MonotonicTime(now_.time_since_epoch()); }

  const SimulatedClusterOptions options_;
  Registry registry_;
  ClusterCache cache_;
  Applier applier_;
  std::mt19937_64 fault_random_;
  std::multimap<Clock::WallTime, BindDecision> binds_in_flight_;  // by when they take effect
  std::multimap<Clock::WallTime, std::string> deletions_;         // evicted pods' uids, by when
  SessionRecord* record_ = nullptr;                               // the session being applied
  std::set<std::string> fail_next_bind_;
  std::set<std::string> refuse_evictions_;
  std::unique_ptr<Scheduler> scheduler_;
  std::string scheduler_name_ = "arbiter";
  std::map<std::string, Pod> pods_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, PodGroup> groups_;
  std::map<std::string, Queue> queues_;
  std::map<std::string, PodDisruptionBudget> pdbs_;  // by ns/name
  Clock::WallTime now_ = ScenarioEpoch();
  std::int64_t sessions_run_ = 0;
};

struct ScenarioOutcome {
  std::int64_t sessions = 0;
  std::vector<std::string> failures;  // empty when every expectation and invariant held
};

// Fails only when the scenario's scheduler configuration cannot be built.
StatusOr<ScenarioOutcome> RunScenario(const Scenario& scenario);

}  // namespace arbiter::sim
