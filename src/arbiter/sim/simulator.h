// Simulate: a workload (sim/workload.h) played on a simulated cluster with a virtual clock, by
// the real scheduling code: ClusterCache, snapshots, the Scheduler's sessions, actions and
// plugins from the built-in registry (through SimulatedCluster, sim/scenario_runner.h).
//
// The virtual clock runs sessions every `period` while anything can change, and jumps to the
// next arrival or finish when a session placed nothing and nothing arrived or finished. At each
// session time, in this order: jobs that arrive by then are created (PodGroup and pods), jobs
// whose duration is over finish (their pods and group removed), then one session runs and its
// binds are applied. A job starts at the session that brings it to minMember placed pods and
// finishes `duration` later. The simulation ends when every job has finished, at the horizon,
// or when nothing can change any more (no arrivals or finishes to come and three sessions in a
// row placed nothing); jobs that never started are reported as such.
//
// The report has two parts. Everything in `SimulationReport` except `performance` is decided by
// the inputs and the seed alone, so the same inputs give the same report, byte for byte
// (sim/report.h writes it). `performance` holds what was measured on this machine: session
// wall times, decisions per second, peak memory.
//
// Thread safety: Simulate is a pure function of its inputs (it only reads the wall clock and
// the process's memory use, for `performance`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/framework/config.h"
#include "arbiter/sim/scenario_runner.h"
#include "arbiter/sim/workload.h"

namespace arbiter::sim {

// Where a running simulation is, for a progress line.
struct SimulationProgress {
  std::int64_t t_ms = 0;  // virtual time
  std::int64_t sessions = 0;
  std::int64_t jobs_arrived = 0;
  std::int64_t jobs_started = 0;
  std::int64_t jobs_finished = 0;
  double last_session_ms = 0;
};

struct SimulationOptions {
  std::uint64_t seed = 1;  // recorded in the report; the workload was drawn with it
  SchedulerConfig config = DefaultSchedulerConfig();
  // Faults injected into binds (none by default); drawn from their own seed.
  BindFaults bind_faults;
  // Called about every `progress_every_seconds` of wall time, when set.
  std::function<void(const SimulationProgress&)> progress;
  double progress_every_seconds = 10;
  // Check the invariants of sim/invariants.h after every session (each check is a few passes
  // over every pod: large runs that measure the scheduler may leave it out).
  bool check_invariants = true;
  // Start-time estimates (sim/forecast.h): when every `eta_every`-th job arrives (0: never), a
  // forecast from the cluster as it is then, with every job's run time known exactly, estimates
  // its start; the report compares the estimates with the actual starts.
  std::int64_t eta_every = 0;
  // The forecast also knows every job still to arrive, with its arrival time: no scheduler can,
  // so this is a measurement, of how much of the estimates' error is what arrives later.
  bool eta_foresee_arrivals = false;
};

struct JobOutcome {
  std::string name;  // namespace/name
  std::string queue;
  std::int64_t pods = 0;
  std::int32_t min_member = 1;
  std::int64_t arrival_ms = 0;
  std::int64_t start_ms = -1;   // -1: never started
  std::int64_t finish_ms = -1;  // -1: not finished when the simulation ended
  // The start estimated at its arrival (eta_every): -1 not estimated, -2 estimated not to start
  // within the forecast.
  std::int64_t estimated_start_ms = -1;
};

// The cluster at one instant: requests of placed pods over allocatable, each in [0, 1].
struct UtilisationPoint {
  std::int64_t t_ms = 0;
  double cpu = 0;
  double memory = 0;
  double pods = 0;
};

struct QueuePoint {
  std::int64_t t_ms = 0;
  std::int64_t allocated_millicores = 0;
  std::int64_t deserved_millicores = 0;
};

struct QueueOutcome {
  std::string name;
  std::int32_t weight = 1;
  // Time-weighted means over the time the queue had jobs waiting or running.
  double mean_allocated_millicores = 0;
  double mean_deserved_millicores = 0;
  std::int64_t busy_ms = 0;  // how long it had jobs waiting or running
  std::int64_t jobs = 0;
  std::vector<QueuePoint> series;  // downsampled to at most kMaxSeriesPoints
};

struct Summary {
  double p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
  std::int64_t count = 0;
};

// Start-time estimates against the actual starts, over the jobs estimated.
struct EtaAccuracy {
  // Jobs that wait at least this long count in `relative_error` (the error of a job that starts
  // at once is its whole wait, however small).
  static constexpr std::int64_t kMinWaitMs = 60'000;
  std::int64_t estimated = 0;  // jobs estimated at arrival
  std::int64_t compared = 0;   // of them, estimated to start and started
  // Estimated not to start within the forecast but started, or the other way round.
  std::int64_t missed = 0;
  Summary error_ms;        // |estimated - actual start|, jobs compared
  Summary relative_error;  // the same over the actual wait, jobs compared that waited kMinWaitMs
  Summary late_ms;         // actual - estimated, jobs that started later than estimated
  double forecast_seconds = 0;  // wall time spent forecasting (performance, not decided)
};

// Where gangs started, when nodes are labelled with zones or racks (topology.kubernetes.io/zone,
// topology.arbiter.dev/rack, the topology plugin's default labels): over the jobs of minMember
// > 1, the domains their pods were on when they started.
struct TopologyOutcome {
  bool labelled = false;   // some node carries a zone or rack label; nothing is reported otherwise
  std::int64_t gangs = 0;  // gangs that started
  std::int64_t cross_rack = 0;  // of them, with pods in more than one rack
  std::int64_t cross_zone = 0;  // in more than one zone
  Summary racks_per_gang;       // racks each gang's pods were on at its start
};

// Where the pods of jobs naming their data (spec.locality) were bound: on a node holding it, in a
// rack holding it (a listed rack, or the rack of a listed node: topology.arbiter.dev/rack), or
// elsewhere. Reported when some job names its data.
struct LocalityOutcome {
  std::int64_t pods = 0;
  std::int64_t node_local = 0;
  std::int64_t rack_local = 0;
  std::int64_t remote = 0;
};

// With nodes of another speed than 1 (the workload's nodeSpeeds): how many pods ran on a slower
// node (speed below 1) among the pods running when their jobs started. Reported when some node's
// speed is not 1.
struct StragglerOutcome {
  std::int64_t slow_nodes = 0;
  std::int64_t pods = 0;
  std::int64_t pods_on_slow_nodes = 0;
  std::int64_t copies = 0;      // backup copies made (idempotent jobs)
  std::int64_t copies_won = 0;  // of those, ended before their original
};

struct Performance {
  std::vector<double> session_ms;   // every session's wall time (snapshot + session)
  Summary session;                  // of session_ms
  Summary snapshot;                 // of the snapshot's part of each session
  double scheduler_seconds = 0;     // their sum
  double decisions_per_second = 0;  // binds / scheduler_seconds
  double wall_seconds = 0;          // the whole simulation, applying decisions included
  std::int64_t peak_rss_bytes = 0;  // the process's peak resident memory (getrusage)
  // Summed over every session: each action's time, and each plugin's open and close hooks'
  // (SessionStats), in milliseconds, in the configured order.
  std::vector<std::pair<std::string, double>> action_ms;
  std::vector<std::pair<std::string, double>> plugin_ms;
  std::int64_t nodes_filtered = 0;  // node x task filter evaluations, summed
};

struct SimulationReport {
  static constexpr std::size_t kMaxSeriesPoints = 400;

  std::string cluster;  // the files' names as given
  std::string workload;
  std::string description;
  std::uint64_t seed = 0;
  std::int64_t period_ms = 0;
  std::int64_t nodes = 0;
  std::int64_t pods = 0;
  std::int64_t jobs = 0;
  std::int64_t sessions = 0;
  std::int64_t binds = 0;
  BindFaults bind_faults;          // as configured; reported only when any is set
  std::int64_t bind_failures = 0;  // binds an injected fault failed (placed again later)
  std::int64_t partial_gangs = 0;  // jobs that ever had 1 .. minMember-1 pods placed: must be 0
  // Violations of sim/invariants.h after any session (must be 0), the first 20 as text, when
  // they were checked.
  bool invariants_checked = false;
  std::int64_t invariant_violations = 0;
  std::vector<std::string> violations;
  // Preemption and reclaim. An evicted pod leaves its node when its grace period has passed and
  // is then created again, as its job's controller would; a job that fell below its minimum
  // starts over (its finish is put off by its whole duration).
  std::int64_t evictions = 0;
  std::map<std::string, std::int64_t> evictions_by_queue;  // the victims' queues
  std::map<std::string, std::int64_t> evictions_by_kind;   // "preempt", "reclaim"
  double work_lost_pod_seconds = 0;  // evicted pods' running time, from bind to eviction
  // Of it, what reclaim lost, and the least any choice of victims could have lost for the same
  // CPU freed in each session (a lower bound: see BoundReclaimWorkLost in simulator.cc).
  double reclaim_work_lost_pod_seconds = 0;
  double reclaim_work_lost_bound_pod_seconds = 0;
  std::int64_t jobs_preempted = 0;  // jobs that lost pods at least once
  std::int64_t max_preemptions_per_job = 0;
  // Thrash: jobs preempted more than kThrashPreemptions times, and pods (by name: a recreated
  // pod keeps its name) evicted twice within kThrashWindowMs.
  static constexpr std::int64_t kThrashPreemptions = 3;
  static constexpr std::int64_t kThrashWindowMs = 300'000;
  std::vector<std::string> thrash;  // one line per flag, first 20
  std::int64_t jobs_started = 0;
  std::int64_t jobs_finished = 0;
  std::int64_t end_ms = 0;          // virtual time when the simulation ended
  std::int64_t makespan_ms = 0;     // first arrival to last finish (or to the end)
  std::string end_reason;           // "all jobs finished", "horizon", "no progress possible"
  Summary wait_ms;                  // arrival to start, jobs that started
  Summary gang_wait_ms;             // the same, jobs with minMember > 1
  Summary completion_ms;            // arrival to finish, jobs that finished
  double mean_cpu_utilisation = 0;  // time-weighted over [first arrival, end]
  double mean_memory_utilisation = 0;
  double jain_index = 1;                      // over queues of mean allocated / mean deserved
  std::vector<UtilisationPoint> utilisation;  // downsampled to at most kMaxSeriesPoints
  std::vector<QueueOutcome> queues;           // by name
  std::vector<JobOutcome> job_outcomes;       // in arrival order
  std::vector<std::string> never_started;     // first 20 names of jobs that never started
  EtaAccuracy eta;                            // with eta_every only
  TopologyOutcome topology;                   // with nodes in zones or racks only
  LocalityOutcome locality;                   // with jobs naming their data only
  StragglerOutcome stragglers;                // with nodeSpeeds only

  Performance performance;
};

// Fails when the configuration cannot be built or a job names a missing queue or priority
// class; bad objects are reported, never crash.
StatusOr<SimulationReport> Simulate(const ClusterSpec& cluster, const Workload& workload,
                                    const SimulationOptions& options);

// Nearest-rank percentiles, mean and max of `values` (sorted by the call).
Summary Summarize(std::vector<double> values);

}  // namespace arbiter::sim
