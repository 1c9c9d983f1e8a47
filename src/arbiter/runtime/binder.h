// Binder: turns a session's bind decisions into pods/binding calls, off the session loop.
//
// Submit() assumes every decision in the cache at once, on the caller's thread (so the next
// session already counts the pod on its node), then queues the binds for a small pool of worker
// threads. Each bind carries the pod's uid as a precondition (k8s::Bind). Outcomes:
//   * bound: a Normal "Scheduled" event ("Successfully assigned ns/pod to node") and an info log
//     line; the watch then shows the pod bound and the cache stops treating it as assumed;
//   * already assigned: nothing (the watch says where the pod went);
//   * failed (error or timeout): cache.BindFailed(uid, now, failed_bind_ttl), so the assumption
//     stays until the watch says otherwise or the ttl passes (the API server may have bound the
//     pod even though the call failed), a Warning "FailedScheduling" event and a warning log.
//
// The bind call and the event sink are injected (BindWithApi and an EventRecorder in the
// scheduler; fakes in tests).
//
// Thread safety: Submit, Flush, Stop and counts() from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/session_result.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/event_recorder.h"
#include "arbiter/k8s/writes.h"

namespace arbiter::runtime {

struct BinderOptions {
  // Binds in flight. A bind is one API round trip (14-23 ms on the local cluster under load), so
  // 4 capped Arbiter at about 200 pods/s (bench/e2e); kube-scheduler binds every pod in its own
  // goroutine.
  int workers = 16;
  std::chrono::nanoseconds failed_bind_ttl = std::chrono::seconds(30);
};

class Binder {
 public:
  using BindFunction = std::function<StatusOr<k8s::BindOutcome>(const BindDecision&)>;
  using EventFunction = std::function<void(k8s::EventSpec)>;

  struct Counts {
    std::uint64_t bound = 0;
    std::uint64_t already_assigned = 0;
    std::uint64_t failed = 0;
  };

  // `cache` must outlive the binder.
  Binder(ClusterCache& cache, BindFunction bind, EventFunction record_event, const Clock& clock,
         BinderOptions options = {});
  ~Binder();  // Stop()
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  void Submit(const std::vector<BindDecision>& binds);
  // Waits until every bind submitted before the call has finished.
  void Flush();
  // Finishes the queued binds, then ends the workers; later submissions are refused (and their
  // assumptions left to expire as failed binds).
  void Stop();

  Counts counts() const;
  std::size_t in_flight() const;

  // The bind call of a real scheduler: k8s::Bind over `api`, which must outlive the binder.
  static BindFunction BindWithApi(k8s::ApiClient& api);

 private:
  void Work();
  void Finish(const BindDecision& decision, const StatusOr<k8s::BindOutcome>& outcome,
              std::chrono::nanoseconds latency);

  ClusterCache& cache_;
  const BindFunction bind_;
  const EventFunction record_event_;
  const Clock& clock_;
  const BinderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<BindDecision> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  Counts counts_;
  std::mutex join_mu_;  // one Stop() joins
  std::vector<std::thread> workers_;
};

}  // namespace arbiter::runtime
