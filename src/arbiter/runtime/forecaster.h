// Forecaster: arbiter-scheduler's start-time estimates (status.explanation.estimate of waiting
// PodGroups, `arbiterctl explain`). Off the session loop, on a thread of its own:
//   * every `observe_every` it asks for the snapshot the next session runs on (Offer) and reads
//     it into a sim::RunTimeHistory, which learns each queue's run times from the jobs seen to
//     finish. It asks rather than being handed every session's: a snapshot held past the next
//     session's would make the cache copy every job that did not change instead of moving it;
//   * every `interval`, when some job waits, it runs sim::Forecast on that snapshot (the same
//     scheduling code, run forward on a simulated cluster) and publishes the estimates, which the
//     next sessions put into the explanations they write (Scheduler::SetStartEstimates).
// An estimate that moved by less than max(1 min, 10 % of the time left to it), with the same
// confidence, is published unchanged (with its first asOf), so a steady forecast costs no status
// writes.
//
// Thread safety: Offer, Latest and counts from any thread; Start and Stop from one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "arbiter/base/clock.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/sim/forecast.h"
#include "arbiter/sim/run_time.h"

namespace arbiter::runtime {

struct ForecasterOptions {
  std::chrono::nanoseconds interval = std::chrono::seconds(30);  // zero: no forecasts
  std::chrono::nanoseconds observe_every = std::chrono::seconds(5);
  // forecast.budget: at most 10 s of one core per forecast, whatever the cluster's size.
  sim::ForecastOptions forecast = {.config = DefaultSchedulerConfig(),
                                   .period = std::chrono::seconds(1),
                                   .horizon = std::chrono::hours(24 * 7),
                                   .max_sessions = 2000,
                                   .budget = std::chrono::seconds(10)};
};

class Forecaster {
 public:
  Forecaster(const Clock& clock, ForecasterOptions options);
  ~Forecaster();
  Forecaster(const Forecaster&) = delete;
  Forecaster& operator=(const Forecaster&) = delete;

  void Start();
  void Stop();

  // The snapshot a session just ran on: kept for the thread only when it asked for one.
  void Offer(const std::shared_ptr<const Snapshot>& snapshot);
  // The latest published estimates; null before the first forecast.
  std::shared_ptr<const StartEstimates> Latest() const;

  struct Counts {
    std::int64_t forecasts = 0;
    std::int64_t failures = 0;
    double last_seconds = 0;  // wall time of the last forecast
    std::int64_t last_sessions = 0;
  };
  Counts counts() const;

  // The estimates to publish: `forecast`'s, where they moved enough from `previous`.
  static StartEstimates Publish(const sim::ForecastResult& forecast,
                                const StartEstimates& previous);

 private:
  void Loop();
  void RunForecast(const Snapshot& snapshot);

  const Clock& clock_;
  const ForecasterOptions options_;
  sim::RunTimeHistory history_;  // the thread's alone
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool wanted_ = false;  // the thread waits for the next Offer
  std::shared_ptr<const Snapshot> offered_;
  std::shared_ptr<const StartEstimates> latest_;
  Counts counts_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace arbiter::runtime
