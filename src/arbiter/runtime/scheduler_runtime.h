// SchedulerRuntime: the arbiter-scheduler process, minus flag parsing. It owns the watches
// (Informers) feeding a ClusterCache, the session loop that runs the Scheduler on snapshots, and
// the side effects of each session: the Binder, the StatusWriter and an EventRecorder.
//
// The session loop (one thread):
//   * waits until every informer has synced; no session runs before;
//   * runs a session every `period`, and sooner (after `debounce`) when a pending pod of ours or
//     a PodGroup appears, so that a burst of creations becomes one session; under a stream of
//     arrivals, sessions start at least `min_session_gap` apart (session_pacer.h);
//   * each session: ExpireAssumed, TakeSnapshot, RunSession, then the Applier applies the result
//     through the runtime's Effects (effects/effects.h): binds are assumed in the cache at once
//     and sent by the binder's workers, as are evictions; pods left pending get a Warning
//     FailedScheduling event (again only when the message changes or every
//     `event_repeat_interval`) and the PodScheduled=False condition; PodGroup statuses that
//     changed are written. Nothing in the loop waits for the API server.
//   * with leader election, only the leader runs sessions (and so writes); the watches run on
//     every replica so that a new leader starts warm. Losing the lease ends the runtime with
//     ABORTED: the process should exit and start afresh, as kube-scheduler does.
//
// Start-up checks that the arbiter.dev CRDs are installed (FAILED_PRECONDITION otherwise) and,
// once leading, creates the Queue "default" if it is missing.
//
//   SchedulerRuntime runtime(*transport, std::move(scheduler), options, RealClock::Instance());
//   ARBITER_RETURN_IF_ERROR(runtime.Start());
//   ... on SIGTERM: runtime.Stop();
//   Status exit = runtime.Wait();   // joins everything; events flushed, lease released
//
// Ownership: the runtime owns the cache, the scheduler and every worker; `transport` and `clock`
// must outlive it. Thread safety: Start and Wait from one thread; Stop, done, the counters and
// Flush from any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/effects/effects.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/event_recorder.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/leader_election.h"
#include "arbiter/metrics/endpoint_server.h"
#include "arbiter/metrics/metrics.h"
#include "arbiter/metrics/scheduler_metrics.h"
#include "arbiter/runtime/binder.h"
#include "arbiter/runtime/forecaster.h"
#include "arbiter/runtime/informers.h"
#include "arbiter/runtime/recent_writes.h"
#include "arbiter/runtime/session_pacer.h"
#include "arbiter/runtime/status_writer.h"

namespace arbiter::runtime {

struct RuntimeOptions {
  CacheOptions cache;  // scheduler name, namespaces, node selector
  std::chrono::nanoseconds period = std::chrono::seconds(1);
  std::chrono::nanoseconds debounce = std::chrono::milliseconds(30);
  // A kicked session starts no sooner than this after the previous one started (SessionPacer).
  std::chrono::nanoseconds min_session_gap = std::chrono::milliseconds(50);
  std::chrono::nanoseconds event_repeat_interval = std::chrono::seconds(60);
  BinderOptions binder;
  StatusWriterOptions status_writer;
  k8s::EventRecorderOptions events;
  std::optional<k8s::LeaderElectionConfig> leader_election;  // none: always leading
  int page_size = 500;                                       // LIST pages of the informers
  // Where /metrics, /healthz and /readyz are served (metrics/endpoint_server.h): host and port
  // (0: any free one); none: not served.
  std::optional<std::pair<std::string, int>> endpoint;
  // Where the metrics go (main gives the same to the transport's API metrics); null: the
  // runtime's own.
  std::shared_ptr<metrics::Metrics> metrics;
  // Start-time estimates (runtime/forecaster.h); interval zero: none.
  ForecasterOptions forecaster;
};

class SchedulerRuntime {
 public:
  SchedulerRuntime(k8s::HttpTransport& transport, std::unique_ptr<Scheduler> scheduler,
                   RuntimeOptions options, const Clock& clock);
  ~SchedulerRuntime();  // Stop() and Wait()
  SchedulerRuntime(const SchedulerRuntime&) = delete;
  SchedulerRuntime& operator=(const SchedulerRuntime&) = delete;

  // Checks the CRDs, then starts the watches, the leader election (if configured) and the session
  // loop; returns without waiting for the watches to sync.
  Status Start();
  // Asks everything to stop; returns at once. Idempotent.
  void Stop();
  // Blocks until the loop has ended (after Stop(), or when the lease is lost), then stops the
  // binder (finishing queued binds), the status writer and the event recorder (flushing both),
  // the leader election (releasing the lease) and the watches. OK after Stop(); ABORTED when
  // leadership was lost.
  Status Wait();
  // True once the session loop has ended, or when it never started (Wait() then returns
  // promptly).
  bool done() const;

  // Waits until the binds, status writes and events queued so far have been sent (tests).
  void Flush();

  std::uint64_t sessions() const { return sessions_.load(); }
  bool synced() const { return informers_.HasSynced(); }
  bool leading() const { return elector_ == nullptr || elector_->IsLeader(); }
  Binder::Counts bind_counts() const { return binder_.counts(); }
  ClusterCache& cache() { return cache_; }
  // The port /metrics, /healthz and /readyz answer on; 0 when not served.
  int endpoint_port() const { return endpoint_port_; }
  metrics::Metrics& metrics() { return *metrics_; }

 private:
  void Loop();
  // Waits for the informers' first LIST; false when stopping first.
  bool WaitForSync();
  // Waits until a session is due (the period passed, or a kick's debounce did); false when
  // stopping.
  bool WaitForTurn();
  // Waits (at most 10 s of real time) until the cache has the default Queue; false when stopping.
  bool WaitForDefaultQueue();
  // Waits up to `d` unless stopping; false when stopping.
  bool SleepFor(std::chrono::nanoseconds d);
  void RunSession();
  void Kick();
  void OnLeadershipLost();
  // The readiness probe's answer: nullopt when ready, else what it waits for.
  std::optional<std::string> NotReady() const;
  // The liveness probe's: alive while starting (the CRD check may wait) and while the loop runs.
  bool LoopEnded() const;
  void AddCollectors();

  k8s::ApiClient api_;
  std::unique_ptr<Scheduler> scheduler_;
  const RuntimeOptions options_;
  const Clock& clock_;
  std::shared_ptr<metrics::Metrics> metrics_;
  metrics::SchedulerMetrics scheduler_metrics_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool loop_started_ = false;
  bool loop_done_ = false;
  bool lost_leadership_ = false;
  // Monotonic times of the injected clock; a condition variable waits until them, so the clock
  // must be steady_clock-based (RealClock) wherever the loop runs.
  SessionPacer pacer_{PacingOptions{.period = options_.period,
                                    .debounce = options_.debounce,
                                    .min_gap = options_.min_session_gap}};
  bool default_queue_ready_ = false;  // loop thread only
  std::atomic<std::uint64_t> sessions_{0};

  ClusterCache cache_;
  Applier applier_;
  k8s::EventRecorder events_;
  RecentWrites<std::string> recorded_verdicts_;  // by pod uid: the FailedScheduling note
  // When each queue's status was last sent for writing: at most once per period (a queue's
  // allocation changes with every bind; a skipped change is emitted again by the next session,
  // which still sees the old status).
  std::map<std::string, Clock::MonotonicTime> queue_written_;
  StatusWriter status_writer_;
  Binder binder_;
  class ApiEffects;  // the Effects of a real scheduler: the API server, off the session loop
  std::unique_ptr<ApiEffects> effects_;
  std::unique_ptr<k8s::LeaderElector> elector_;
  Informers informers_;
  Forecaster forecaster_;

  std::mutex wait_mu_;  // one Wait() tears down
  bool torn_down_ = false;
  std::thread elector_thread_;
  std::thread loop_thread_;
  std::unique_ptr<metrics::EndpointServer> endpoint_server_;
  int endpoint_port_ = 0;
};

}  // namespace arbiter::runtime
