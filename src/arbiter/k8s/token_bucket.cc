#include "arbiter/k8s/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace arbiter::k8s {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps),
      burst_(std::max(burst, 1)),
      clock_(clock),
      tokens_(burst_),
      last_(clock.MonotonicNow()) {}

std::chrono::nanoseconds TokenBucket::Reserve() {
  if (qps_ <= 0) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mu_);
  Clock::MonotonicTime now = clock_.MonotonicNow();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
  last_ = now;
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(-tokens_ / qps_ * 1e9)));
}

}  // namespace arbiter::k8s
