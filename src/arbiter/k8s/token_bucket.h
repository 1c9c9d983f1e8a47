// TokenBucket: the client-side rate limit on requests to the API server (client-go's QPS and
// burst flags). Up to `burst` requests may go at once; after that, one every 1/qps seconds.
//
// It reads time from an injected Clock and never sleeps itself: Reserve() says how long the
// caller must wait before sending, so the waiting is the caller's (and tests need no sleeps).
// qps <= 0 means unlimited.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <mutex>

#include "arbiter/base/clock.h"

namespace arbiter::k8s {

class TokenBucket {
 public:
  TokenBucket(double qps, int burst, const Clock& clock);

  // Takes one token, returning how long to wait before using it (zero if one was available).
  // Tokens taken ahead of time are debts: the next callers wait behind them, in order.
  std::chrono::nanoseconds Reserve();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  const double qps_;
  const int burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;              // may go negative: reserved ahead
  Clock::MonotonicTime last_;  // when tokens_ was last brought up to date
};

}  // namespace arbiter::k8s
