// Binder: sends a session's binds and evictions to the API server, off the session loop: the
// runtime's part of effects/effects.h.
//
// The Applier has already assumed every bind in the cache; Submit() queues the binds for a few
// worker threads. A worker takes up to `batch` queued binds and sends them all at once
// (k8s::BindAll: streams of one HTTP/2 connection, one thread waiting for all of them), and
// finishes each as its answer comes. Each bind carries the pod's uid as a precondition.
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
#include <span>
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
  // Threads sending binds (and evictions), each with its own connection. A bind is one API round
  // trip (14-23 ms on the local cluster under load): 4 binds in flight capped Arbiter at about 200
  // pods/s (bench/e2e), so each worker sends a batch of binds at once, as kube-scheduler binds
  // every pod in its own goroutine over one connection. A worker waits for its whole batch; the
  // others take what comes meanwhile.
  int workers = 4;
  // Binds one worker sends at once (at most workers * batch in flight).
  int batch = 32;
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
  // Sends every bind at once and calls done(i, outcome) as bind i ends; returns when all have.
  // A bind is sent only if may_send() still says yes just before (else it ends CANCELLED).
  using BindDoneFunction = std::function<void(std::size_t, StatusOr<k8s::BindOutcome>)>;
  using BindFunction =
      std::function<void(std::span<const BindDecision>, const BindDoneFunction& done,
                         const std::function<bool()>& may_send)>;
  using BindOneFunction = std::function<StatusOr<k8s::BindOutcome>(const BindDecision&)>;
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

  // The bind call of a real scheduler: k8s::BindAll over `api`, which must outlive the binder.
  static BindFunction BindWithApi(k8s::ApiClient& api);
  // A batch as `bind` of each decision in turn (fakes in tests).
  static BindFunction OneAtATime(BindOneFunction bind);
  // The eviction call: k8s::Evict over `api`, which must outlive the binder.
  // Marks the pod DisruptionTarget=True (reason and message of the decision), then evicts it; a
  // dry run only asks the Eviction API.
  static EvictFunction EvictWithApi(k8s::ApiClient& api, const Clock& clock);

 private:
  void Work();
  void SendBinds(const std::vector<BindDecision>& binds);
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
