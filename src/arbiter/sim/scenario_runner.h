// SimulatedCluster and RunScenario: the scheduling core end to end, in memory, for scenarios
// (sim/scenario.h), randomized tests and, later, `arbiterctl simulate`.
//
// SimulatedCluster is a ClusterCache fed with model objects as the watches would feed it, a
// Scheduler built from a configuration and the built-in registry, and the reaction of the API
// server and kwok to what a session decided:
//   * a bind sets spec.nodeName and makes the pod Running; a bind the API server would refuse
//     (the pod is gone or bound already, the node does not exist) changes nothing and is
//     recorded in SessionRecord::refused_binds;
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

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/sim/scenario.h"

namespace arbiter::sim {

// One session's decisions and what the simulated API server made of them.
struct SessionRecord {
  SessionResult result;
  std::vector<std::string> refused_binds;  // "pod ns/p: bound twice (to n1, now n2)", ...
  // Wall time of the scheduler's part: taking the snapshot and the session itself, and of the
  // snapshot alone.
  double scheduler_seconds = 0;
  double snapshot_seconds = 0;
};

class SimulatedCluster {
 public:
  // Fails when the configuration names an unknown plugin or action, or bad plugin arguments.
  static StatusOr<std::unique_ptr<SimulatedCluster>> Create(const SchedulerConfig& config);

  SimulatedCluster(const SimulatedCluster&) = delete;
  SimulatedCluster& operator=(const SimulatedCluster&) = delete;

  // Create or replace, as a watch event would.
  void Add(const Node& node);
  void Add(const Queue& queue);
  void Add(const PriorityClass& priority_class);
  void Add(const PodGroup& group);
  void Add(const Pod& pod);
  // NotFound when there is no such pod.
  Status DeletePod(const std::string& uid);
  // `key` is namespace/name. NotFound when there is no such group.
  Status DeletePodGroup(const std::string& key);
  // The pod's containers exit: phase Succeeded or Failed. NotFound when there is no such pod.
  Status FinishPod(const std::string& uid, PodPhase phase);

  // One session on a fresh snapshot one second after the last, its decisions then applied
  // (binds, PodGroup and Queue status).
  SessionRecord RunSession();
  // The same at `now`, which must not be before the last session's time.
  SessionRecord RunSessionAt(Clock::WallTime now);

  const std::map<std::string, Pod>& pods() const { return pods_; }           // by uid
  const std::map<std::string, Node>& nodes() const { return nodes_; }        // by name
  const std::map<std::string, PodGroup>& groups() const { return groups_; }  // by ns/name
  const std::map<std::string, Queue>& queues() const { return queues_; }     // by name
  const std::string& scheduler_name() const { return scheduler_name_; }
  Clock::WallTime now() const { return now_; }
  std::int64_t sessions_run() const { return sessions_run_; }

 private:
  SimulatedCluster();

  Registry registry_;
  ClusterCache cache_;
  std::unique_ptr<Scheduler> scheduler_;
  std::string scheduler_name_ = "arbiter";
  std::map<std::string, Pod> pods_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, PodGroup> groups_;
  std::map<std::string, Queue> queues_;
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
