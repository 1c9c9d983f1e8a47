// Scheduler: the configured scheduling algorithm. Built once at start-up from a SchedulerConfig
// and a Registry (every plugin and action instantiated, arguments validated, extension points
// resolved); then each RunSession() opens a Session on a snapshot, runs the actions in order and
// returns what they decided. Pure: no I/O, no clock (time comes with the snapshot).
//
//   Registry registry;
//   RegisterBuiltinPlugins(registry);
//   RegisterBuiltinActions(registry);
//   ARBITER_ASSIGN_OR_RETURN(auto scheduler, Scheduler::Create(DefaultSchedulerConfig(),
//   registry)); SessionResult result = scheduler->RunSession(*cache.TakeSnapshot(clock.Now()));
//
// Thread safety: RunSession is not reentrant (plugins keep per-session state); call it from one
// thread at a time.
#pragma once

#include <memory>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/base/worker_pool.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/config.h"
#include "arbiter/framework/eviction_history.h"
#include "arbiter/framework/outcome.h"
#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

class Scheduler {
 public:
  static StatusOr<std::unique_ptr<Scheduler>> Create(const SchedulerConfig& config,
                                                     const Registry& registry);

  // One session at wall time `now`. Without `now`, the snapshot's time is used.
  SessionResult RunSession(const Snapshot& snapshot, Clock::WallTime now);
  SessionResult RunSession(const Snapshot& snapshot) { return RunSession(snapshot, snapshot.now); }

  const PluginSet& plugins() const { return plugins_; }
  const ReservationBook& reservations() const { return reservations_; }
  // Evictions of earlier sessions that were never made (Applier::TakeUnmadeEvictions): the
  // history of what this scheduler evicted forgets them.
  void ForgetEvictions(const std::vector<std::string>& pod_uids) { history_.Forget(pod_uids); }
  // The start estimates the next sessions' explanations carry (runtime/forecaster.h).
  void SetStartEstimates(std::shared_ptr<const StartEstimates> estimates) {
    estimates_ = std::move(estimates);
  }

 private:
  Scheduler() = default;

  std::vector<std::unique_ptr<Action>> actions_;
  PluginSet plugins_;
  std::unique_ptr<WorkerPool> filter_pool_;  // config.filter_threads > 0
  EvictionHistory history_;                  // what earlier sessions evicted
  ReservationBook reservations_;             // gangs holding reservations
  std::shared_ptr<const StartEstimates> estimates_;
  QuietGroups quiet_groups_;  // PodGroups the last session found quiet
};

}  // namespace arbiter
