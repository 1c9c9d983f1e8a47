// Backoff: how long to wait before retrying a failed request or re-watching: exponential from
// `initial`, doubled per failure up to `max`, with random jitter so that many clients do not
// retry in lockstep. Reset() after a success starts again from `initial`.
//
// Randomness is injected (a seed), so a test can predict every delay. Not thread-safe: one
// Backoff per retry loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace arbiter::k8s {

class Backoff {
 public:
  // Each delay is d * (1 + jitter * u) with u uniform in [0, 1), where d doubles per call.
  Backoff(std::chrono::nanoseconds initial, std::chrono::nanoseconds max, double jitter,
          std::uint64_t seed);

  std::chrono::nanoseconds Next();
  void Reset();
  int failures() const { return failures_; }

 private:
  std::chrono::nanoseconds initial_;
  std::chrono::nanoseconds max_;
  double jitter_;
  std::mt19937_64 rng_;
  std::chrono::nanoseconds current_;
  int failures_ = 0;
};

}  // namespace arbiter::k8s
