// Forecast: when will each waiting job start? Answered by running the real scheduling code
// forward from the cluster as it is now, on a SimulatedCluster (sim/scenario_runner.h) with a
// virtual clock: the same configuration, actions and plugins as the scheduler, so the estimate
// follows the same gates (queue shares, capability, gangs, priority, preemption) the real
// sessions will apply.
//
// What the forecast assumes:
//   * the cluster as `snapshot` shows it: its nodes, queues (with their ResourceQuota caps),
//     budgets, this scheduler's jobs and pods; room that other schedulers' pods use stays used;
//   * every running job ends at the time `timing` gives it (sim/run_time.h says where run times
//     come from) and a job that starts in the forecast runs for its run time; a job whose run
//     time is unknown holds its room beyond the horizon;
//   * nothing else arrives: jobs submitted later, even of higher priority, are not foreseen, so
//     an estimate can only move later because of them (the error the benchmarks report);
//   * evicted pods are created again by their job's controller once gone, as they would be.
// Sessions run one `period` apart while anything changes; when nothing can change until the
// next job ends, the clock jumps there. The forecast stops when every waiting job has started,
// when nothing can change any more, at the horizon, after `max_sessions` sessions or when its
// wall-time budget is spent.
//
// Each estimate says what it rests on: how many job ends before it were known exactly, hinted,
// bounded by a deadline or learned, and a confidence derived from them.
//
// Thread safety: Forecast is a pure function of its inputs (no I/O, no clock); the snapshot is
// immutable and may be shared with a running scheduler.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/config.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/sim/run_time.h"

namespace arbiter::sim {

// A job's timing as the forecast takes it. For a job running now, `ends`; for one that starts
// in the forecast, `run_time`.
struct JobTiming {
  std::optional<Clock::WallTime> ends;  // none while running: beyond the horizon
  RunTime run_time;
};

struct ForecastOptions {
  SchedulerConfig config = DefaultSchedulerConfig();
  std::chrono::milliseconds period = std::chrono::seconds(1);
  std::chrono::milliseconds horizon = std::chrono::hours(24 * 7);
  std::int64_t max_sessions = 2000;
  // Wall time the forecast may take (zero: no limit). A scheduler sets one so that a huge cluster
  // with many distinct job ends cannot keep a core busy; what is not reached by then has no start.
  // With a limit the result depends on the machine's speed, so the simulator's reports set none.
  std::chrono::nanoseconds budget{0};
};

// Jobs to add to the cluster as if submitted now (`arbiterctl whatif`): a PodGroup (optional: a
// single pod needs none) and its pods, with their run time. One that `arrives` later is added
// when the forecast's clock reaches it and is not estimated: the simulator's measure of what
// foreseeing every arrival would be worth (`arbiterctl simulate --eta-foresee-arrivals`).
struct ExtraJob {
  std::optional<PodGroup> group;
  std::vector<Pod> pods;
  RunTime run_time;
  std::optional<Clock::WallTime> arrives;  // none: now
};

enum class Confidence : std::uint8_t { kHigh, kMedium, kLow };
std::string_view ConfidenceName(Confidence confidence);

struct JobEstimate {
  std::string job;                       // namespace/name
  std::optional<Clock::WallTime> start;  // none: not within the forecast
  // The ends of running jobs (and jobs started in the forecast) that came before its start, by
  // where their run time came from.
  std::map<RunTimeSource, std::int32_t> rests_on;
  // High: every end it rests on was given exactly or by a hint; Medium: some were bounded by a
  // deadline (the jobs may end sooner, and this one start sooner); Low: some were learned.
  Confidence confidence = Confidence::kHigh;
  RunTimeSource run_time_source = RunTimeSource::kUnknown;  // its own run time's
};

struct ForecastResult {
  Clock::WallTime now{};
  Clock::WallTime until{};  // how far the forecast's clock went
  std::int64_t sessions = 0;
  // "every waiting job starts", "nothing changes any more", "horizon", "session limit",
  // "time budget".
  std::string end_reason;
  // Jobs holding room now whose end the forecast could not place: they hold it throughout.
  std::int32_t running_without_end = 0;
  std::map<std::string, JobEstimate> estimates;  // every waiting job (and extra job), by key
};

// Jobs of `snapshot` that are waiting: fewer than minMember pods placed or finished.
bool IsWaiting(const Snapshot& snapshot, const JobInfo& job);

// Timing for every job of the snapshot by the rules of sim/run_time.h.
std::map<std::string, JobTiming> TimingFromHints(const Snapshot& snapshot,
                                                 const RunTimeHistory* history,
                                                 Clock::WallTime now);

// Fails only when the configuration cannot be built.
StatusOr<ForecastResult> Forecast(const Snapshot& snapshot, Clock::WallTime now,
                                  const std::map<std::string, JobTiming>& timing,
                                  const ForecastOptions& options,
                                  const std::vector<ExtraJob>& extra = {});

// What the estimate rests on, in words, for the PodGroup's status and `arbiterctl explain`:
//   "after 3 job ends (2 by run-for, 1 learned); its own run time: run-for; 1 running job has no
//   run time and is taken to run on; jobs submitted later are not foreseen"
std::string DescribeAssumptions(const JobEstimate& estimate, const ForecastResult& forecast);

}  // namespace arbiter::sim
