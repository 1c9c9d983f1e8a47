#include "arbiter/k8s/backoff.h"

#include <algorithm>

namespace arbiter::k8s {

Backoff::Backoff(std::chrono::nanoseconds initial, std::chrono::nanoseconds max, double jitter,
                 std::uint64_t seed)
    : initial_(initial),
      max_(std::max(max, initial)),
      jitter_(jitter),
      rng_(seed),
      current_(initial) {}

std::chrono::nanoseconds Backoff::Next() {
  std::chrono::nanoseconds base = current_;
  current_ = std::min(current_ * 2, max_);
  ++failures_;
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return std::chrono::nanoseconds(
      static_cast<std::int64_t>(static_cast<double>(base.count()) * (1.0 + jitter_ * u)));
}

void Backoff::Reset() {
  current_ = initial_;
  failures_ = 0;
}

}  // namespace arbiter::k8s
