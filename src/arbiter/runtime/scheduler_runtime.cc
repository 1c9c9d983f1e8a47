#include "arbiter/runtime/scheduler_runtime.h"

#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arbiter/base/log.h"
#include "arbiter/runtime/bootstrap.h"
#include "arbiter/runtime/flag_values.h"

namespace arbiter::runtime {
namespace {

BinderOptions WhileLeading(BinderOptions options, std::function<bool()> leading) {
  options.may_write = std::move(leading);
  return options;
}

InformerOptions MakeInformerOptions(const RuntimeOptions& options, std::function<void()> kick) {
  InformerOptions informers;
  informers.scheduler_name = options.cache.scheduler_name;
  informers.namespaces = options.cache.namespaces;
  informers.on_new_work = std::move(kick);
  informers.page_size = options.page_size;
  return informers;
}

}  // namespace

class SchedulerRuntime::ApiEffects final : public Effects {
 public:
  explicit ApiEffects(SchedulerRuntime& runtime) : r_(runtime) {}

  void Bind(const std::vector<BindDecision>& binds) override { r_.binder_.Submit(binds); }
  void Preempt(const PreemptionBatch& batch) override { r_.binder_.SubmitPreemption(batch); }
  void Nominate(const NominationDecision& nomination) override {
    r_.status_writer_.WriteNomination(nomination);
  }

  void ReportUnschedulable(const PodVerdict& v, const Pod* observed) override {
    static const std::vector<Condition> kNoConditions;
    if (r_.recorded_verdicts_.Claim(v.pod_uid, v.message, r_.clock_.MonotonicNow())) {
      ARBITER_VLOG(3) << "unschedulable pod=" << v.namespace_name << "/" << v.pod_name
                      << " reason=" << v.reason << " message=\"" << v.message << "\"";
      k8s::EventSpec event;
      event.regarding.namespace_name = v.namespace_name;
      event.regarding.name = v.pod_name;
      event.regarding.uid = v.pod_uid;
      event.type = "Warning";
      event.reason = v.reason;
      event.action = "Scheduling";
      event.note = v.message;
      if (!r_.events_.Record(std::move(event))) r_.recorded_verdicts_.Forget(v.pod_uid, v.message);
    }
    r_.status_writer_.WriteUnschedulable(
        v, observed != nullptr ? observed->status.conditions : kNoConditions);
  }

  void WriteGroupStatus(const PodGroupUpdate& update) override {
    r_.status_writer_.WritePodGroupStatus(update);
  }

  // At most once per period per queue: a queue's allocation changes with every bind, and a
  // skipped change is emitted again by the next session, which still sees the old status.
  void WriteQueueStatus(const QueueUpdate& update) override {
    // Queues are cluster-wide: an instance that sees only some namespaces would write a partial
    // allocation over the unrestricted instance's.
    if (!r_.options_.cache.namespaces.empty()) return;
    const Clock::MonotonicTime now = r_.clock_.MonotonicNow();
    auto [it, fresh] = r_.queue_written_.try_emplace(update.name, now);
    if (!fresh && now - it->second < r_.options_.period) return;
    it->second = now;
    r_.status_writer_.WriteQueueStatus(update);
  }

 private:
  SchedulerRuntime& r_;
};

SchedulerRuntime::SchedulerRuntime(k8s::HttpTransport& transport,
                                   std::unique_ptr<Scheduler> scheduler, RuntimeOptions options,
                                   const Clock& clock)
    : api_(transport),
      scheduler_(std::move(scheduler)),
      options_(std::move(options)),
      clock_(clock),
      metrics_(options_.metrics != nullptr ? options_.metrics
                                           : std::make_shared<metrics::Metrics>()),
      scheduler_metrics_(*metrics_),
      cache_(options_.cache),
      applier_(cache_, ApplierOptions{.failed_bind_ttl = options_.binder.failed_bind_ttl,
                                      .preemption_ttl = std::chrono::seconds(30)}),
      events_(api_, options_.events, clock_),
      recorded_verdicts_(options_.event_repeat_interval),
      status_writer_(api_, clock_, options_.status_writer),
      binder_(
          Binder::BindWithApi(api_), Binder::EvictWithApi(api_, clock_),
          [this](k8s::EventSpec event) { events_.Record(std::move(event)); },
          [this](const BindDecision& bind, BindOutcome outcome) {
            applier_.BindDone(bind, outcome, clock_.MonotonicNow());
          },
          [this](const PreemptionBatch& batch, const std::vector<std::string>& refused) {
            // What depends on the evictions is written only once they are made.
            if (refused.empty()) {
              for (const NominationDecision& n : batch.nominations) {
                status_writer_.WriteNomination(n);
              }
              for (const PodGroupUpdate& u : batch.victim_updates) {
                status_writer_.WritePodGroupStatus(u);
              }
            }
            applier_.PreemptionDone(batch, refused, clock_.MonotonicNow());
          },
          clock_,
          // Binds and evictions are sent only while this replica leads (elector_ is set by then).
          WhileLeading(options_.binder,
                       [this] { return elector_ == nullptr || elector_->IsLeader(); })),
      effects_(std::make_unique<ApiEffects>(*this)),
      elector_(options_.leader_election
                   ? std::make_unique<k8s::LeaderElector>(api_, *options_.leader_election, clock_)
                   : nullptr),
      informers_(transport, cache_, MakeInformerOptions(options_, [this] { Kick(); })),
      forecaster_(clock_, options_.forecaster) {
  AddCollectors();
}

void SchedulerRuntime::AddCollectors() {
  // What the binder, the watches and the election count already, read at each scrape.
  metrics_->AddCollector([this](metrics::Families& out) {
    using metrics::AddFamily;
    using metrics::AddSample;
    const Binder::Counts c = binder_.counts();
    prometheus::MetricFamily& binds =
        AddFamily(out, "arbiter_binds_total",
                  "Binds sent to the API server, by result: bound, already_assigned (the pod "
                  "was bound by someone else), failed",
                  metrics::kCounter);
    AddSample(binds, {{"result", "bound"}}, static_cast<double>(c.bound));
    AddSample(binds, {{"result", "already_assigned"}}, static_cast<double>(c.already_assigned));
    AddSample(binds, {{"result", "failed"}}, static_cast<double>(c.failed));
    prometheus::MetricFamily& evictions =
        AddFamily(out, "arbiter_evictions_total",
                  "Evictions sent to the API server, by result: evicted, refused (a "
                  "PodDisruptionBudget's 429 or another refusal)",
                  metrics::kCounter);
    AddSample(evictions, {{"result", "evicted"}}, static_cast<double>(c.evicted));
    AddSample(evictions, {{"result", "refused"}}, static_cast<double>(c.evictions_refused));
    metrics::AddWatchFamilies(out, informers_.watch_counts());
    const ClusterCache::Counts cached = cache_.counts();
    prometheus::MetricFamily& objects = AddFamily(
        out, "arbiter_cache_objects",
        "Objects in the scheduler's cache, by kind (pods: those it schedules or that hold a "
        "node; jobs: pod groups and pods of no group; assumed: pods it placed whose bind the "
        "watch has not shown yet)",
        metrics::kGauge);
    AddSample(objects, {{"kind", "node"}}, static_cast<double>(cached.nodes));
    AddSample(objects, {{"kind", "pod"}}, static_cast<double>(cached.pods));
    AddSample(objects, {{"kind", "podgroup"}}, static_cast<double>(cached.pod_groups));
    AddSample(objects, {{"kind", "job"}}, static_cast<double>(cached.jobs));
    AddSample(objects, {{"kind", "queue"}}, static_cast<double>(cached.queues));
    AddSample(objects, {{"kind", "assumed"}}, static_cast<double>(cached.assumed));
    AddSample(AddFamily(out, "arbiter_watch_errors_total",
                        "Objects the watches skipped (they did not decode) and watch requests "
                        "that failed",
                        metrics::kCounter),
              {}, static_cast<double>(informers_.errors()));
    metrics::AddLeaderFamily(out, leading(), "runs sessions");
    const Forecaster::Counts f = forecaster_.counts();
    prometheus::MetricFamily& forecasts =
        AddFamily(out, "arbiter_forecasts_total",
                  "Start-time forecasts (status.explanation.estimate), by result: done, failed",
                  metrics::kCounter);
    AddSample(forecasts, {{"result", "done"}}, static_cast<double>(f.forecasts));
    AddSample(forecasts, {{"result", "failed"}}, static_cast<double>(f.failures));
    AddSample(AddFamily(out, "arbiter_forecast_last_duration_seconds",
                        "Wall time of the last start-time forecast", metrics::kGauge),
              {}, f.last_seconds);
  });
}

bool SchedulerRuntime::LoopEnded() const {
  std::lock_guard lock(mu_);
  return loop_done_;
}

std::optional<std::string> SchedulerRuntime::NotReady() const {
  if (!informers_.HasSynced()) return "watches not synced: " + informers_.NotSynced();
  if (elector_ != nullptr && !elector_->KnowsRole()) {
    return std::string("the leader election has had no answer from the API server yet");
  }
  return std::nullopt;
}

SchedulerRuntime::~SchedulerRuntime() {
  Stop();
  Status ignored = Wait();
  static_cast<void>(ignored);
}

Status SchedulerRuntime::Start() {
  if (elector_ != nullptr) ARBITER_RETURN_IF_ERROR(elector_->config().Validate());
  if (options_.endpoint) {
    // Before the CRD check and the watches: the probes answer while the process starts.
    ARBITER_ASSIGN_OR_RETURN(
        auto served, metrics::ServeEndpoints(*options_.endpoint,
                                             {.metrics = [this] { return metrics_->Scrape(); },
                                              .live = [this] { return !LoopEnded(); },
                                              .ready = [this] { return NotReady(); }}));
    endpoint_server_ = std::move(served.first);
    endpoint_port_ = served.second;
  }
  ARBITER_RETURN_IF_ERROR(WaitForCrds(api_));
  ARBITER_LOG(kInfo) << "starting scheduler=" << options_.cache.scheduler_name
                     << " period=" << FormatDuration(options_.period)
                     << " min_session_gap=" << FormatDuration(options_.min_session_gap)
                     << " namespaces=" << options_.cache.namespaces.size()
                     << " node_selector_labels=" << options_.cache.node_selector.size()
                     << " leader_elect=" << (elector_ != nullptr);
  informers_.Start();
  forecaster_.Start();
  if (elector_ != nullptr) {
    elector_thread_ = std::thread([this] {
      elector_->Run(
          [this] {
            ARBITER_LOG(kInfo) << "became leader lease=" << elector_->config().namespace_name << "/"
                               << elector_->config().lease_name
                               << " identity=" << elector_->config().identity;
            Kick();
          },
          [this] { OnLeadershipLost(); });
    });
  }
  {
    std::lock_guard lock(mu_);
    loop_started_ = true;
  }
  loop_thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void SchedulerRuntime::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  wake_.notify_all();
}

bool SchedulerRuntime::done() const {
  std::lock_guard lock(mu_);
  return !loop_started_ || loop_done_;
}

Status SchedulerRuntime::Wait() {
  std::lock_guard wait_lock(wait_mu_);
  if (!torn_down_) {
    if (loop_thread_.joinable()) loop_thread_.join();
    // The loop has ended: no more sessions, so no new work for the writers. Finish what is
    // queued, then let go of the lease and the watches.
    forecaster_.Stop();
    binder_.Stop();
    status_writer_.Stop();
    events_.Flush();
    events_.Stop();
    if (elector_ != nullptr) {
      elector_->Stop();
      if (elector_thread_.joinable()) elector_thread_.join();
    }
    informers_.Stop();
    if (endpoint_server_ != nullptr) endpoint_server_->Stop();
    torn_down_ = true;
    std::lock_guard lock(mu_);
    if (loop_started_) {
      ARBITER_LOG(kInfo) << "stopped sessions=" << sessions_.load()
                         << " bound=" << binder_.counts().bound
                         << " bind_failures=" << binder_.counts().failed
                         << " group_status_writes_unread="
                         << status_writer_.group_write_counts().unread
                         << " group_status_writes_read_first="
                         << status_writer_.group_write_counts().read_first;
    }
  }
  std::lock_guard lock(mu_);
  if (lost_leadership_) {
    return AbortedError("lost the leader lease " + elector_->config().namespace_name + "/" +
                        elector_->config().lease_name);
  }
  return Status::Ok();
}

void SchedulerRuntime::Flush() {
  binder_.Flush();
  status_writer_.Flush();
  events_.Flush();
}

void SchedulerRuntime::Kick() {
  std::lock_guard lock(mu_);
  pacer_.Kick(clock_.MonotonicNow());
  wake_.notify_all();
}

void SchedulerRuntime::OnLeadershipLost() {
  std::lock_guard lock(mu_);
  if (stopping_) return;  // we let go ourselves
  ARBITER_LOG(kError) << "lost leadership lease=" << elector_->config().namespace_name << "/"
                      << elector_->config().lease_name << ": stopping";
  lost_leadership_ = true;
  stopping_ = true;
  wake_.notify_all();
}

bool SchedulerRuntime::SleepFor(std::chrono::nanoseconds d) {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, d, [this] { return stopping_; });
  return !stopping_;
}

bool SchedulerRuntime::WaitForSync() {
  const auto start = clock_.MonotonicNow();
  auto last_report = start;
  while (!informers_.HasSynced()) {
    if (!SleepFor(std::chrono::milliseconds(20))) return false;
    if (clock_.MonotonicNow() - last_report >= std::chrono::seconds(10)) {
      last_report = clock_.MonotonicNow();
      ARBITER_LOG(kInfo) << "waiting for watches to sync pending=" << informers_.NotSynced();
    }
  }
  ARBITER_LOG(kInfo) << "watches synced after=" << FormatDuration(clock_.MonotonicNow() - start);
  return true;
}

bool SchedulerRuntime::WaitForDefaultQueue() {
  // Just created, the Queue reaches the cache through its watch a moment later; a session before
  // that would find every pod of the default queue without a queue and tell each so (on a fresh
  // cluster: a FailedScheduling event and a PodScheduled=False write for every waiting pod).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!cache_.HasQueue(kDefaultQueueName)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ARBITER_LOG(kWarning) << "default queue: created, but not seen by the watch after 10s; "
                               "scheduling without it";
      return true;
    }
    if (!SleepFor(std::chrono::milliseconds(10))) return false;
  }
  return true;
}

bool SchedulerRuntime::WaitForTurn() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const Clock::MonotonicTime due = pacer_.Due();
    const Clock::MonotonicTime now = clock_.MonotonicNow();
    if (now >= due) {
      pacer_.Started(now);  // this session sees everything that arrived until now
      break;
    }
    wake_.wait_until(lock, due);
  }
  return !stopping_;
}

void SchedulerRuntime::Loop() {
  if (WaitForSync()) {
    {
      std::lock_guard lock(mu_);
      pacer_.DueAt(clock_.MonotonicNow());
    }
    while (WaitForTurn()) {
      if (elector_ != nullptr && !elector_->IsLeader()) continue;
      if (!default_queue_ready_) {
        Status ensured = EnsureDefaultQueue(api_);
        default_queue_ready_ = ensured.ok();
        if (!ensured.ok()) ARBITER_LOG(kWarning) << "default queue: " << ensured;
        if (ensured.ok() && !WaitForDefaultQueue()) break;
      }
      RunSession();
    }
  }
  std::lock_guard lock(mu_);
  loop_done_ = true;
}

void SchedulerRuntime::RunSession() {
  const Clock::MonotonicTime start = clock_.MonotonicNow();
  const int expired = applier_.ExpireAssumed(start);
  // The snapshot is reused while nothing changes; the session's time is now, not its.
  const Clock::WallTime now = clock_.Now();
  std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(now);
  const Clock::MonotonicTime snapshotted = clock_.MonotonicNow();
  scheduler_->ForgetEvictions(applier_.TakeUnmadeEvictions());
  scheduler_->SetStartEstimates(forecaster_.Latest());
  SessionResult result = scheduler_->RunSession(*snapshot, now);
  forecaster_.Offer(snapshot);
  const Clock::MonotonicTime decided = clock_.MonotonicNow();

  applier_.Apply(result, *snapshot, *effects_, clock_.MonotonicNow());
  const Clock::MonotonicTime applied = clock_.MonotonicNow();
  const std::uint64_t n = ++sessions_;
  scheduler_metrics_.ObserveSession(*snapshot, result,
                                    {.snapshot = snapshotted - start,
                                     .decide = decided - snapshotted,
                                     .apply = applied - decided});

  ARBITER_VLOG(2) << "session n=" << n << " nodes=" << snapshot->nodes.size()
                  << " tasks=" << snapshot->tasks.size() << " jobs=" << snapshot->jobs.size()
                  << " binds=" << result.binds.size()
                  << " unschedulable=" << result.unschedulable.size()
                  << " group_updates=" << result.group_updates.size()
                  << " group_drafts_skipped=" << result.stats.group_drafts_skipped
                  << " jobs_committed=" << result.stats.jobs_committed
                  << " jobs_discarded=" << result.stats.jobs_discarded
                  << " expired_assumptions=" << expired
                  << " snapshot=" << FormatDuration(snapshotted - start)
                  << " decide=" << FormatDuration(decided - snapshotted)
                  << " apply=" << FormatDuration(applied - decided)
                  << " duration=" << FormatDuration(applied - start);
}

}  // namespace arbiter::runtime
