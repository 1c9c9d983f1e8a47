// LeaderElector: one active scheduler among replicas, through a coordination.k8s.io/v1 Lease, as
// client-go's leaderelection does.
//
// The holder renews the Lease every retry_period. Another candidate takes it over only when it has
// seen the same Lease record unchanged for lease_duration by its own clock (so clocks of
// different machines need not agree). A holder that cannot renew for renew_deadline stops leading:
// IsLeader() turns false at once by its own clock, even before it learns that someone else took
// over, so a process that was paused (GC, SIGSTOP, a slow disk) never acts on a stale lease; then
// on_stopped runs and Run() returns. Stop() ends Run() and, if leading, releases the Lease so a
// successor need not wait out the duration.
//
// Requires lease_duration > renew_deadline > 1.2 * retry_period (client-go's rule), checked by
// Validate(). Each request about the Lease is sent once and given up at the renew deadline (at
// least a second), as client-go bounds a renewal by its deadline.
//
// Thread safety: Run() on one thread; IsLeader() and Stop() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/k8s/api_client.h"

namespace arbiter::k8s {

struct LeaderElectionConfig {
  std::string namespace_name = "kube-system";
  std::string lease_name = "arbiter-scheduler";
  std::string identity;  // unique per candidate, e.g. hostname_pid
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};

  Status Validate() const;
};

class LeaderElector {
 public:
  LeaderElector(ApiClient& api, LeaderElectionConfig config, const Clock& clock);

  // Blocks: acquires the Lease (retrying every retry_period), calls on_started, renews until it
  // cannot or Stop() is called, then calls on_stopped (if it had started) and returns.
  void Run(const std::function<void()>& on_started, const std::function<void()>& on_stopped);
  void Stop();
  bool IsLeader() const;
  // True once an attempt got an answer: it leads, or it is a standby that saw who does (what
  // readiness waits for).
  bool KnowsRole() const { return knows_role_.load(); }

  const LeaderElectionConfig& config() const { return config_; }

 private:
  // One attempt to take or renew the Lease: true if we hold it afterwards.
  StatusOr<bool> TryAcquireOrRenew();
  Status Release();
  // A request about the Lease: sent once (the loops try again every retry_period) and given up by
  // the time this replica would stop leading anyway, so that one that hangs cannot keep a replica
  // that lost the Lease from learning it (the transport's timeout and retries take minutes).
  StatusOr<std::string> LeaseRequest(std::string method, std::string path, std::string body = {});
  // Waits up to `d` of real time, or less if Stop() is called; false once stopping.
  bool WaitFor(std::chrono::milliseconds d);
  std::string LeasePath() const;

  ApiClient& api_;
  const LeaderElectionConfig config_;
  const Clock& clock_;

  // What we last saw of the Lease, and when (by our clock): the takeover rule's evidence.
  std::string observed_record_;
  std::optional<Clock::MonotonicTime> observed_at_;

  std::atomic<bool> leading_{false};
  std::atomic<bool> knows_role_{false};
  std::atomic<std::int64_t> last_renew_ns_{0};  // monotonic, when we last renewed
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace arbiter::k8s
