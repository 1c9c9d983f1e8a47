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

using SteadyClock = std::chrono::steady_clock;

InformerOptions MakeInformerOptions(const RuntimeOptions& options, std::function<void()> kick) {
  InformerOptions informers;
  informers.scheduler_name = options.cache.scheduler_name;
  informers.namespaces = options.cache.namespaces;
  informers.on_new_work = std::move(kick);
  informers.page_size = options.page_size;
  return informers;
}

}  // namespace

SchedulerRuntime::SchedulerRuntime(k8s::HttpTransport& transport,
                                   std::unique_ptr<Scheduler> scheduler, RuntimeOptions options,
                                   const Clock& clock)
    : api_(transport),
      scheduler_(std::move(scheduler)),
      options_(std::move(options)),
      clock_(clock),
      cache_(options_.cache),
      events_(api_, options_.events, clock_),
      recorded_verdicts_(options_.event_repeat_interval),
      status_writer_(api_, clock_, options_.status_writer),
      binder_(
          cache_, Binder::BindWithApi(api_),
          [this](k8s::EventSpec event) { events_.Record(std::move(event)); }, clock_,
          options_.binder),
      elector_(options_.leader_election
                   ? std::make_unique<k8s::LeaderElector>(api_, *options_.leader_election, clock_)
                   : nullptr),
      informers_(transport, cache_, MakeInformerOptions(options_, [this] { Kick(); })) {}

SchedulerRuntime::~SchedulerRuntime() {
  Stop();
  Status ignored = Wait();
  static_cast<void>(ignored);
}

Status SchedulerRuntime::Start() {
  if (elector_ != nullptr) ARBITER_RETURN_IF_ERROR(elector_->config().Validate());
  // CRDs applied just before start take a few seconds to be served: wait for them a little.
  Status crds = CheckCrdsInstalled(api_);
  for (int attempt = 0; !crds.ok() && attempt < 30; ++attempt) {
    if (attempt == 0)
      ARBITER_LOG(kInfo) << "waiting for the arbiter.dev CRDs to be served: " << crds;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    crds = CheckCrdsInstalled(api_);
  }
  ARBITER_RETURN_IF_ERROR(crds);
  ARBITER_LOG(kInfo) << "starting scheduler=" << options_.cache.scheduler_name
                     << " period=" << FormatDuration(options_.period)
                     << " namespaces=" << options_.cache.namespaces.size()
                     << " node_selector_labels=" << options_.cache.node_selector.size()
                     << " leader_elect=" << (elector_ != nullptr);
  informers_.Start();
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
    binder_.Stop();
    status_writer_.Stop();
    events_.Flush();
    events_.Stop();
    if (elector_ != nullptr) {
      elector_->Stop();
      if (elector_thread_.joinable()) elector_thread_.join();
    }
    informers_.Stop();
    torn_down_ = true;
    std::lock_guard lock(mu_);
    if (loop_started_) {
      ARBITER_LOG(kInfo) << "stopped sessions=" << sessions_.load()
                         << " bound=" << binder_.counts().bound
                         << " bind_failures=" << binder_.counts().failed;
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
  if (kick_at_) return;  // a session is already due soon; it will see this too
  kick_at_ = SteadyClock::now() + options_.debounce;
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
  const auto start = SteadyClock::now();
  auto last_report = start;
  while (!informers_.HasSynced()) {
    if (!SleepFor(std::chrono::milliseconds(20))) return false;
    if (SteadyClock::now() - last_report >= std::chrono::seconds(10)) {
      last_report = SteadyClock::now();
      ARBITER_LOG(kInfo) << "waiting for watches to sync pending=" << informers_.NotSynced();
    }
  }
  ARBITER_LOG(kInfo) << "watches synced after=" << FormatDuration(SteadyClock::now() - start);
  return true;
}

bool SchedulerRuntime::WaitForTurn() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    auto due = next_session_;
    if (kick_at_ && *kick_at_ < due) due = *kick_at_;
    if (SteadyClock::now() >= due) break;
    wake_.wait_until(lock, due);
  }
  kick_at_.reset();  // this session sees everything that arrived until now
  return !stopping_;
}

void SchedulerRuntime::Loop() {
  if (WaitForSync()) {
    {
      std::lock_guard lock(mu_);
      next_session_ = SteadyClock::now();
    }
    while (WaitForTurn()) {
      const auto started = SteadyClock::now();
      {
        std::lock_guard lock(mu_);
        next_session_ = started + options_.period;
      }
      if (elector_ != nullptr && !elector_->IsLeader()) continue;
      if (!default_queue_ready_) {
        Status ensured = EnsureDefaultQueue(api_);
        default_queue_ready_ = ensured.ok();
        if (!ensured.ok()) ARBITER_LOG(kWarning) << "default queue: " << ensured;
      }
      RunSession();
    }
  }
  std::lock_guard lock(mu_);
  loop_done_ = true;
}

void SchedulerRuntime::RunSession() {
  const Clock::MonotonicTime start = clock_.MonotonicNow();
  const int expired = cache_.ExpireAssumed(start);
  // The snapshot is reused while nothing changes; the session's time is now, not its.
  const Clock::WallTime now = clock_.Now();
  std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(now);
  const Clock::MonotonicTime snapshotted = clock_.MonotonicNow();
  SessionResult result = scheduler_->RunSession(*snapshot, now);
  const Clock::MonotonicTime decided = clock_.MonotonicNow();

  binder_.Submit(result.binds);
  ReportUnschedulable(result.unschedulable, *snapshot);
  for (const PodGroupUpdate& update : result.group_updates) {
    status_writer_.WritePodGroupStatus(update);
  }
  for (const QueueUpdate& update : result.queue_updates) {
    auto [it, fresh] = queue_written_.try_emplace(update.name, start);
    if (!fresh && start - it->second < options_.period) continue;
    it->second = start;
    status_writer_.WriteQueueStatus(update);
  }
  const Clock::MonotonicTime applied = clock_.MonotonicNow();
  const std::uint64_t n = ++sessions_;

  ARBITER_VLOG(2) << "session n=" << n << " nodes=" << snapshot->nodes.size()
                  << " tasks=" << snapshot->tasks.size() << " jobs=" << snapshot->jobs.size()
                  << " binds=" << result.binds.size()
                  << " unschedulable=" << result.unschedulable.size()
                  << " group_updates=" << result.group_updates.size()
                  << " jobs_committed=" << result.stats.jobs_committed
                  << " jobs_discarded=" << result.stats.jobs_discarded
                  << " expired_assumptions=" << expired
                  << " snapshot=" << FormatDuration(snapshotted - start)
                  << " decide=" << FormatDuration(decided - snapshotted)
                  << " apply=" << FormatDuration(applied - decided)
                  << " duration=" << FormatDuration(applied - start);
}

void SchedulerRuntime::ReportUnschedulable(const std::vector<PodVerdict>& verdicts,
                                           const Snapshot& snapshot) {
  if (verdicts.empty()) return;
  // The pods' conditions as the snapshot saw them: one pass over the tasks, looked up by uid.
  std::unordered_map<std::string_view, const Pod*> observed;
  observed.reserve(verdicts.size());
  for (const PodVerdict& v : verdicts) observed.emplace(v.pod_uid, nullptr);
  for (const TaskInfo& task : snapshot.tasks) {
    auto it = observed.find(task.uid());
    if (it != observed.end()) it->second = task.pod.get();
  }
  static const std::vector<Condition> kNoConditions;
  const Clock::MonotonicTime now = clock_.MonotonicNow();
  for (const PodVerdict& v : verdicts) {
    const Pod* pod = observed[v.pod_uid];
    if (recorded_verdicts_.Claim(v.pod_uid, v.message, now)) {
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
      if (!events_.Record(std::move(event))) recorded_verdicts_.Forget(v.pod_uid, v.message);
    }
    status_writer_.WriteUnschedulable(v, pod != nullptr ? pod->status.conditions : kNoConditions);
  }
}

}  // namespace arbiter::runtime
