#include "arbiter/runtime/binder.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/base/log.h"
#include "arbiter/runtime/flag_values.h"
#include "arbiter/runtime/status_json.h"

namespace arbiter::runtime {
namespace {

k8s::EventSpec PodEvent(const BindDecision& decision) {
  k8s::EventSpec spec;
  spec.regarding.namespace_name = decision.namespace_name();
  spec.regarding.name = decision.pod_name();
  spec.regarding.uid = decision.pod_uid();
  return spec;
}

// The API server answered, and what it answered means the binding was not made: the pod can be
// placed again soon. A transport error, a timeout or a server error (5xx) may hide a binding that
// was made, so those wait for the watch (the failed-bind TTL).
bool RefusedByTheServer(const Status& status) {
  switch (status.code()) {
    case StatusCode::kResourceExhausted:  // 429, after the client's own retries
    case StatusCode::kAborted:            // 409 other than "already assigned": the pod was replaced
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
    case StatusCode::kUnauthenticated:
    case StatusCode::kInvalidArgument:
      return true;
    default:
      return false;
  }
}

}  // namespace

Binder::Binder(BindFunction bind, EvictFunction evict, EventFunction record_event,
               DoneFunction done, PreemptedFunction preempted, const Clock& clock,
               BinderOptions options)
    : bind_(std::move(bind)),
      evict_(std::move(evict)),
      record_event_(std::move(record_event)),
      done_(std::move(done)),
      preempted_(std::move(preempted)),
      clock_(clock),
      options_(std::move(options)) {
  int workers = options_.workers > 0 ? options_.workers : 1;
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
}

Binder::~Binder() { Stop(); }

Binder::BindFunction Binder::BindWithApi(k8s::ApiClient& api) {
  return [&api](std::span<const BindDecision> binds, const BindDoneFunction& done,
                const std::function<bool()>& may_send) {
    std::vector<k8s::BindTarget> targets;
    targets.reserve(binds.size());
    for (const BindDecision& d : binds) {
      targets.push_back({d.namespace_name(), d.pod_name(), d.pod_uid(), d.node_name()});
    }
    k8s::BindAll(api, targets, done, may_send);
  };
}

Binder::BindFunction Binder::OneAtATime(BindOneFunction bind) {
  return [bind = std::move(bind)](std::span<const BindDecision> binds, const BindDoneFunction& done,
                                  const std::function<bool()>& may_send) {
    for (std::size_t i = 0; i < binds.size(); ++i) {
      if (may_send && !may_send()) {
        done(i, CancelledError("bind not sent"));
        continue;
      }
      done(i, bind(binds[i]));
    }
  };
}

Binder::EvictFunction Binder::EvictWithApi(k8s::ApiClient& api, const Clock& clock) {
  return [&api, &clock](const EvictDecision& e, bool dry_run) {
    if (dry_run) {
      return k8s::Evict(api, e.namespace_name, e.pod_name, e.pod_uid, e.grace_period_seconds, true);
    }
    // The condition first, as kube-scheduler does: whoever watches the pod (its job controller)
    // learns that the coming deletion is a disruption, not a failure of the pod.
    Status marked =
        api.Expect2xx(k8s::PodStatusPatchRequest(
                          e.namespace_name, e.pod_name,
                          DisruptionTargetPatch(e.pod_uid, e.reason, e.message, clock.Now())))
            .status();
    if (marked.code() == StatusCode::kNotFound) return Status::Ok();  // gone already
    // The uid guard refuses a pod of the same name that replaced the victim: the victim is gone.
    if (!marked.ok() && k8s::PodGoneOrReplaced(api, e.namespace_name, e.pod_name, e.pod_uid)) {
      return Status::Ok();
    }
    if (!marked.ok()) return marked.WithContext("marking DisruptionTarget");
    return k8s::Evict(api, e.namespace_name, e.pod_name, e.pod_uid, e.grace_period_seconds);
  };
}

void Binder::Submit(const std::vector<BindDecision>& binds) {
  if (binds.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      queue_.insert(queue_.end(), binds.begin(), binds.end());
      changed_.notify_all();
      return;
    }
  }
  for (const BindDecision& d : binds) done_(d, BindOutcome::kFailed);
}

void Binder::SubmitPreemption(const PreemptionBatch& batch) {
  std::lock_guard lock(mu_);
  if (stopping_) return;  // the next leader's session decides again
  queue_.emplace_back(batch);
  changed_.notify_all();
}

void Binder::Flush() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

void Binder::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }
  std::lock_guard join_lock(join_mu_);
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
}

Binder::Counts Binder::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::size_t Binder::in_flight() const {
  std::lock_guard lock(mu_);
  return queue_.size() + running_;
}

void Binder::Work() {
  const std::size_t batch = options_.batch > 0 ? static_cast<std::size_t>(options_.batch) : 1;
  while (true) {
    std::vector<BindDecision> binds;
    std::optional<PreemptionBatch> preemption;
    std::size_t taken = 0;
    {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [this] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, and all queued work has been sent
      if (auto* batch_of_evictions = std::get_if<PreemptionBatch>(&queue_.front())) {
        preemption = std::move(*batch_of_evictions);
        queue_.pop_front();
        taken = 1;
      } else {
        while (!queue_.empty() && binds.size() < batch &&
               std::holds_alternative<BindDecision>(queue_.front())) {
          binds.push_back(std::move(std::get<BindDecision>(queue_.front())));
          queue_.pop_front();
        }
        taken = binds.size();
      }
      running_ += taken;
    }
    if (preemption.has_value()) {
      RunPreemption(*preemption);
    } else {
      SendBinds(binds);
    }
    std::lock_guard lock(mu_);
    running_ -= taken;
    changed_.notify_all();
  }
}

void Binder::SendBinds(const std::vector<BindDecision>& binds) {
  const Clock::MonotonicTime start = clock_.MonotonicNow();
  // Asked before each bind is sent, not once per batch: the batch's rate-limit waits and retries
  // may outlast the leader lease.
  bind_(
      binds,
      [&](std::size_t i, const StatusOr<k8s::BindOutcome>& outcome) {
        const BindDecision& decision = binds[i];
        if (!outcome.ok() && outcome.status().code() == StatusCode::kCancelled) {
          ARBITER_LOG(kWarning) << "bind not sent pod=" << decision.namespace_name() << "/"
                                << decision.pod_name() << " node=" << decision.node_name()
                                << ": no longer allowed to write (the leader lease is lost)";
          done_(decision, BindOutcome::kRefused);
          return;
        }
        Finish(decision, outcome, clock_.MonotonicNow() - start);
      },
      [this] { return MayWrite(); });
}

void Binder::Finish(const BindDecision& decision, const StatusOr<k8s::BindOutcome>& outcome,
                    std::chrono::nanoseconds latency) {
  const std::string pod = decision.namespace_name() + "/" + decision.pod_name();
  if (outcome.ok() && *outcome == k8s::BindOutcome::kBound) {
    ARBITER_LOG(kInfo) << "bound pod=" << pod << " node=" << decision.node_name()
                       << " latency=" << FormatDuration(latency);
    k8s::EventSpec event = PodEvent(decision);
    event.type = "Normal";
    event.reason = "Scheduled";
    event.action = "Binding";
    event.note = "Successfully assigned " + pod + " to " + decision.node_name();
    record_event_(std::move(event));
    done_(decision, BindOutcome::kBound);
    std::lock_guard lock(mu_);
    ++counts_.bound;
    return;
  }
  if (outcome.ok()) {  // kAlreadyAssigned: the watch will say where
    ARBITER_VLOG(2) << "bind skipped pod=" << pod << " reason=already-assigned";
    done_(decision, BindOutcome::kAlreadyAssigned);
    std::lock_guard lock(mu_);
    ++counts_.already_assigned;
    return;
  }
  done_(decision,
        RefusedByTheServer(outcome.status()) ? BindOutcome::kRefused : BindOutcome::kFailed);
  ARBITER_LOG(kWarning) << "bind failed pod=" << pod << " node=" << decision.node_name()
                        << " latency=" << FormatDuration(latency) << " error=" << outcome.status();
  k8s::EventSpec event = PodEvent(decision);
  event.type = "Warning";
  event.reason = "FailedScheduling";
  event.action = "Binding";
  event.note = "Binding rejected: " + outcome.status().message();
  record_event_(std::move(event));
  std::lock_guard lock(mu_);
  ++counts_.failed;
}

void Binder::RunPreemption(const PreemptionBatch& batch) {
  std::vector<std::string> refused;
  auto refuse_all = [&] {
    ARBITER_LOG(kWarning) << "preemption not sent preemptor=" << batch.preemptor
                          << ": no longer allowed to write (the leader lease is lost)";
    for (const EvictDecision& e : batch.evictions) refused.push_back(e.pod_uid);
    preempted_(batch, refused);
  };
  if (!MayWrite()) return refuse_all();
  for (const EvictDecision& e : batch.evictions) {
    Status status = evict_(e, /*dry_run=*/true);
    if (status.ok()) continue;
    ARBITER_LOG(kWarning) << "preemption refused preemptor=" << batch.preemptor
                          << " pod=" << e.namespace_name << "/" << e.pod_name
                          << " error=" << status;
    refused.push_back(e.pod_uid);
  }
  if (refused.empty() && !MayWrite()) return refuse_all();
  if (refused.empty()) {
    // A gang is evicted whole or not at all: once one of a victim job's evictions is refused
    // (a budget that changed since the dry run, or a 429 the server meant as throttling), its
    // other pods are not evicted, so that it is not left running below its minimum (found by the
    // soak). They are reported refused, like it, and the next session plans again.
    std::set<std::string_view> kept_jobs;
    for (const EvictDecision& e : batch.evictions) {
      if (kept_jobs.contains(e.victim_job)) {
        refused.push_back(e.pod_uid);
        continue;
      }
      Status status = evict_(e, /*dry_run=*/false);
      FinishEviction(e, status);
      if (!status.ok()) {
        refused.push_back(e.pod_uid);
        kept_jobs.insert(e.victim_job);
      }
    }
  } else {
    std::lock_guard lock(mu_);
    counts_.evictions_refused += refused.size();
  }
  preempted_(batch, refused);
}

void Binder::FinishEviction(const EvictDecision& eviction, const Status& status) {
  const std::string pod = eviction.namespace_name + "/" + eviction.pod_name;
  if (status.ok()) {
    ARBITER_LOG(kInfo) << "evicted pod=" << pod << " node=" << eviction.node_name
                       << " reason=" << eviction.reason << " preemptor=" << eviction.preemptor;
    k8s::EventSpec event;
    event.regarding.namespace_name = eviction.namespace_name;
    event.regarding.name = eviction.pod_name;
    event.regarding.uid = eviction.pod_uid;
    event.type = "Normal";
    event.reason = "Preempted";
    event.action = "Preempting";
    event.note = eviction.message;
    record_event_(std::move(event));
    std::lock_guard lock(mu_);
    ++counts_.evicted;
    return;
  }
  ARBITER_LOG(kWarning) << "eviction refused pod=" << pod << " error=" << status;
  std::lock_guard lock(mu_);
  ++counts_.evictions_refused;
}

}  // namespace arbiter::runtime
