// SchedulerMetrics: what arbiter-scheduler's sessions add to /metrics (docs/metrics.md):
//
//   arbiter_session_duration_seconds{phase}     histogram: snapshot, decide, apply, and total
//   arbiter_action_duration_seconds{action}     histogram: each action's share of decide
//   arbiter_plugin_duration_seconds{plugin}     histogram: each plugin's session open and close
//   arbiter_sessions_total                      counter
//   arbiter_decisions_total{decision}           counter: bind, evict, nominate, unschedulable
//                                               (pods left pending with a verdict)
//   arbiter_evictions_decided_total{kind}       counter: preempt, reclaim, quota, release
//   arbiter_locality_binds_total{level}         counter: pods bound whose job names its data, by
//                                               node, rack, any (plugins/locality.h)
//   arbiter_pending_jobs{queue, gate}           gauge, as the last session left them
//   arbiter_queue_{deserved,allocated,used}{queue, resource}   gauge, canonical units
//   arbiter_queue_capability{queue, resource}   gauge, for the resources the queue limits
//
// The gauges are the last session's values, replaced whole by each session, so a queue deleted or
// a gate no job waits behind any more leaves no stale series.
//
// Thread safety: ObserveSession from the session loop; scrapes from any thread.
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>

#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/plugin.h"
#include "arbiter/framework/session_result.h"
#include "arbiter/metrics/metrics.h"

namespace arbiter::metrics {

struct SessionTimes {
  std::chrono::nanoseconds snapshot{0};
  std::chrono::nanoseconds decide{0};
  std::chrono::nanoseconds apply{0};
};

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(Metrics& metrics);
  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  void ObserveSession(const Snapshot& snapshot, const SessionResult& result,
                      const SessionTimes& times);

 private:
  prometheus::Histogram& Child(prometheus::Family<prometheus::Histogram>& family,
                               std::map<std::string, prometheus::Histogram*, std::less<>>& cache,
                               const std::string& label, const std::string& value);

  prometheus::Family<prometheus::Histogram>& phases_;
  prometheus::Histogram& snapshot_;
  prometheus::Histogram& decide_;
  prometheus::Histogram& apply_;
  prometheus::Histogram& total_;
  prometheus::Family<prometheus::Histogram>& actions_;
  prometheus::Family<prometheus::Histogram>& plugins_;
  std::map<std::string, prometheus::Histogram*, std::less<>> action_children_;
  std::map<std::string, prometheus::Histogram*, std::less<>> plugin_children_;
  prometheus::Counter& sessions_;
  prometheus::Family<prometheus::Counter>& decisions_;
  prometheus::Counter& binds_;
  prometheus::Counter& evictions_;
  prometheus::Counter& nominations_;
  prometheus::Counter& unschedulable_;
  prometheus::Family<prometheus::Counter>& evictions_by_kind_;
  std::map<EvictionKind, prometheus::Counter*> kind_children_;
  prometheus::Family<prometheus::Counter>& locality_binds_;
  std::array<prometheus::Counter*, 3> locality_children_{};  // by LocalityLevel

  mutable std::mutex mu_;
  Families state_;  // the gauges of the last session
};

}  // namespace arbiter::metrics
