// Binder: sends a session's binds and evictions to the API server, off the session loop: the
// runtime's part of effects/effects.h.
//
// The Applier has already assumed every bind in the cache; Submit() queues the binds for a small
// pool of worker threads. Each bind carries the pod's uid as a precondition (k8s::Bind).
// Outcomes, each reported to `done` (the Applier's BindDone):
//   * bound: a Normal "Scheduled" event ("Successfully assigned ns/pod to node") and an info log
//     line; the watch then shows the pod bound and the cache stops treating it as assumed;
//   * already assigned: nothing (the watch says where the pod went);
//   * failed (error or timeout): a Warning "FailedScheduling" event and a warning log; the
//     Applier keeps the assumption until the watch says otherwise or its ttl passes (the API
//     server may have bound the pod even though the call failed).
// Preemptions (SubmitPreemption: one preemptor's evictions) go through the same workers, all or
// nothing: every eviction is first tried as a dry run; if the API server would refuse any (a
// PodDisruptionBudget: 429), none is made and `preempted` hears which were refused. Otherwise
// each pod is marked and evicted, with a Normal "Preempted" event; the watch shows it leaving.
// (Between the dry run and the eviction a budget may still change: such a refusal is reported
// too, and the rest of the batch stands.)
//
// The calls and the event sink are injected (BindWithApi, EvictWithApi and an EventRecorder in
// the scheduler; fakes in tests).
//
// Thread safety: Submit, SubmitPreemption, Flush, Stop and counts() from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/effects/effects.h"
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
  // How long a failed bind stays assumed (the Applier's option; set here with the binder's).
  std::chrono::nanoseconds failed_bind_ttl = std::chrono::seconds(30);
  // Asked before each bind and eviction is sent (empty: always true). A scheduler that is no
  // longer the leader (it was paused past its lease, say) must not send what it decided while it
  // was: the new leader may have used that room already. Binds not sent are placed again (as
  // refused), evictions reported refused.
  std::function<bool()> may_write;
};

class Binder {
 public:
  using BindFunction = std::function<StatusOr<k8s::BindOutcome>(const BindDecision&)>;
  using EvictFunction = std::function<Status(const EvictDecision&, bool dry_run)>;
  using EventFunction = std::function<void(k8s::EventSpec)>;
  using DoneFunction = std::function<void(const BindDecision&, BindOutcome)>;
  // The batch and the uids of the pods whose eviction was refused (empty: all were made).
  using PreemptedFunction =
      std::function<void(const PreemptionBatch&, const std::vector<std::string>& refused)>;

  struct Counts {
    std::uint64_t bound = 0;
    std::uint64_t already_assigned = 0;
    std::uint64_t failed = 0;
    std::uint64_t evicted = 0;
    std::uint64_t evictions_refused = 0;
  };

  Binder(BindFunction bind, EvictFunction evict, EventFunction record_event, DoneFunction done,
         PreemptedFunction preempted, const Clock& clock, BinderOptions options = {});
  ~Binder();  // Stop()
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  void Submit(const std::vector<BindDecision>& binds);
  void SubmitPreemption(const PreemptionBatch& batch);
  // Waits until every bind submitted before the call has finished.
  void Flush();
  // Finishes the queued work, then ends the workers; later binds are reported failed (their
  // assumptions expire) and later evictions dropped.
  void Stop();

  Counts counts() const;
  std::size_t in_flight() const;

  // The bind call of a real scheduler: k8s::Bind over `api`, which must outlive the binder.
  static BindFunction BindWithApi(k8s::ApiClient& api);
  // The eviction call: k8s::Evict over `api`, which must outlive the binder.
  // Marks the pod DisruptionTarget=True (reason and message of the decision), then evicts it; a
  // dry run only asks the Eviction API.
  static EvictFunction EvictWithApi(k8s::ApiClient& api, const Clock& clock);

 private:
  void Work();
  void Finish(const BindDecision& decision, const StatusOr<k8s::BindOutcome>& outcome,
              std::chrono::nanoseconds latency);
  void RunPreemption(const PreemptionBatch& batch);
  bool MayWrite() const { return !options_.may_write || options_.may_write(); }
  void FinishEviction(const EvictDecision& eviction, const Status& status);

  const BindFunction bind_;
  const EvictFunction evict_;
  const EventFunction record_event_;
  const DoneFunction done_;
  const PreemptedFunction preempted_;
  const Clock& clock_;
  const BinderOptions options_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::variant<BindDecision, PreemptionBatch>> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  Counts counts_;
  std::mutex join_mu_;  // one Stop() joins
  std::vector<std::thread> workers_;
};

}  // namespace arbiter::runtime
