#include "arbiter/k8s/leader_election.h"

#include <algorithm>
#include <ctime>

#include <nlohmann/json.hpp>

#include "arbiter/base/log.h"

namespace arbiter::k8s {

Status LeaderElectionConfig::Validate() const {
  if (identity.empty()) return InvalidArgumentError("leader election: identity is empty");
  if (lease_name.empty() || namespace_name.empty()) {
    return InvalidArgumentError("leader election: lease namespace and name are required");
  }
  if (retry_period.count() <= 0) {
    return InvalidArgumentError("leader election: retry period must be positive");
  }
  if (lease_duration <= renew_deadline) {
    return InvalidArgumentError("leader election: lease duration (" +
                                std::to_string(lease_duration.count()) +
                                "ms) must be longer than the renew deadline (" +
                                std::to_string(renew_deadline.count()) + "ms)");
  }
  if (static_cast<double>(renew_deadline.count()) <=
      1.2 * static_cast<double>(retry_period.count())) {
    return InvalidArgumentError("leader election: renew deadline (" +
                                std::to_string(renew_deadline.count()) +
                                "ms) must be longer than 1.2 x the retry period (" +
                                std::to_string(retry_period.count()) + "ms)");
  }
  return Status::Ok();
}

LeaderElector::LeaderElector(ApiClient& api, LeaderElectionConfig config, const Clock& clock)
    : api_(api), config_(std::move(config)), clock_(clock) {}

std::string LeaderElector::LeasePath() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.namespace_name + "/leases/" +
         config_.lease_name;
}

bool LeaderElector::IsLeader() const {
  if (!leading_.load()) return false;
  std::int64_t since = clock_.MonotonicNow().time_since_epoch().count() - last_renew_ns_.load();
  return since < std::chrono::nanoseconds(config_.renew_deadline).count();
}

StatusOr<bool> LeaderElector::TryAcquireOrRenew() {
  const std::string now = FormatMicroTime(clock_.Now());
  const auto duration_seconds = static_cast<std::int64_t>(
      std::chrono::ceil<std::chrono::seconds>(config_.lease_duration).count());
  StatusOr<std::string> current = LeaseRequest("GET", LeasePath());
  if (!current.ok() && current.status().code() == StatusCode::kNotFound) {
    nlohmann::json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.namespace_name}}},
        {"spec",
         {{"holderIdentity", config_.identity},
          {"leaseDurationSeconds", duration_seconds},
          {"acquireTime", now},
          {"renewTime", now},
          {"leaseTransitions", 0}}},
    };
    StatusOr<std::string> created = LeaseRequest(
        "POST", "/apis/coordination.k8s.io/v1/namespaces/" + config_.namespace_name + "/leases",
        lease.dump());
    if (created.ok()) return true;
    if (created.status().code() == StatusCode::kAlreadyExists) return false;  // lost the race
    return created.status();
  }
  if (!current.ok()) return current.status();

  nlohmann::json lease = nlohmann::json::parse(*current, nullptr, /*allow_exceptions=*/false);
  if (!lease.is_object()) return InternalError("lease " + LeasePath() + ": not a JSON object");
  nlohmann::json& spec = lease["spec"];
  if (!spec.is_object()) spec = nlohmann::json::object();
  std::string holder = spec.value("holderIdentity", "");
  std::string record = spec.dump();
  Clock::MonotonicTime seen = clock_.MonotonicNow();
  if (record != observed_record_ || !observed_at_) {
    observed_record_ = record;
    observed_at_ = seen;
  }
  std::chrono::seconds held_for(spec.value("leaseDurationSeconds", duration_seconds));
  if (!holder.empty() && holder != config_.identity && seen < *observed_at_ + held_for) {
    return false;  // someone else holds it and has renewed within its duration, as far as we saw
  }
  if (holder != config_.identity) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + (holder.empty() ? 0 : 1);
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = duration_seconds;
  spec["renewTime"] = now;
  // The PUT carries the resourceVersion we read: if anyone wrote in between, it is a conflict.
  StatusOr<std::string> updated = LeaseRequest("PUT", LeasePath(), lease.dump());
  if (updated.ok()) {
    observed_record_ = nlohmann::json::parse(*updated, nullptr, false)["spec"].dump();
    observed_at_ = seen;
    return true;
  }
  if (updated.status().code() == StatusCode::kAborted) return false;
  return updated.status();
}

Status LeaderElector::Release() {
  StatusOr<std::string> current = LeaseRequest("GET", LeasePath());
  if (!current.ok()) return current.status();
  nlohmann::json lease = nlohmann::json::parse(*current, nullptr, false);
  if (!lease.is_object() || lease["spec"].value("holderIdentity", "") != config_.identity) {
    return Status::Ok();  // not ours any more
  }
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = FormatMicroTime(clock_.Now());
  return LeaseRequest("PUT", LeasePath(), lease.dump()).status();
}

StatusOr<std::string> LeaderElector::LeaseRequest(std::string method, std::string path,
                                                  std::string body) {
  std::chrono::milliseconds timeout = config_.renew_deadline;
  if (leading_.load()) {
    const std::chrono::nanoseconds since(clock_.MonotonicNow().time_since_epoch().count() -
                                         last_renew_ns_.load());
    timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config_.renew_deadline - since);
  }
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  request.timeout = std::max(timeout, std::chrono::milliseconds(1'000));
  request.retryable = false;
  request.retry_throttled = false;
  return api_.Expect2xx(request);
}

bool LeaderElector::WaitFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, d, [this] { return stopping_; });
  return !stopping_;
}

void LeaderElector::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void LeaderElector::Run(const std::function<void()>& on_started,
                        const std::function<void()>& on_stopped) {
  // Acquire.
  while (true) {
    StatusOr<bool> held = TryAcquireOrRenew();
    if (held.ok()) knows_role_ = true;  // leader, or a standby that saw the holder
    if (held.ok() && *held) break;
    if (!held.ok()) ARBITER_LOG(kWarning) << "leader election: " << held.status();
    if (!WaitFor(config_.retry_period)) return;
  }
  last_renew_ns_ = clock_.MonotonicNow().time_since_epoch().count();
  leading_ = true;
  on_started();

  // Renew until we cannot within the deadline, or until told to stop.
  while (WaitFor(config_.retry_period)) {
    StatusOr<bool> held = TryAcquireOrRenew();
    if (held.ok() && *held) {
      last_renew_ns_ = clock_.MonotonicNow().time_since_epoch().count();
      continue;
    }
    if (held.ok() || !IsLeader()) break;  // someone else holds it, or our deadline passed
    ARBITER_LOG(kWarning) << "leader election: renew failed: " << held.status();
  }
  bool stopping = false;
  {
    std::lock_guard lock(mu_);
    stopping = stopping_;
  }
  bool still_ours = IsLeader();
  leading_ = false;
  if (stopping && still_ours) {
    Status released = Release();
    if (!released.ok()) {
      ARBITER_LOG(kWarning) << "leader election: release: " << released;
    }
  }
  on_stopped();
}

}  // namespace arbiter::k8s
