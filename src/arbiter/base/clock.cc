#include "arbiter/base/clock.h"

#include "arbiter/base/check.h"

namespace arbiter {

Clock::WallTime RealClock::Now() const {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

Clock::MonotonicTime RealClock::MonotonicNow() const {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now());
}

const RealClock& RealClock::Instance() {
  static const RealClock kClock;
  return kClock;
}

FakeClock::FakeClock(WallTime start) : wall_(start), monotonic_(std::chrono::hours(1)) {}

Clock::WallTime FakeClock::Now() const {
  std::lock_guard lock(mu_);
  return wall_;
}

Clock::MonotonicTime FakeClock::MonotonicNow() const {
  std::lock_guard lock(mu_);
  return monotonic_;
}

void FakeClock::Advance(std::chrono::nanoseconds delta) {
  ARBITER_CHECK(delta.count() >= 0) << "FakeClock cannot go back " << delta.count() << "ns";
  std::lock_guard lock(mu_);
  wall_ += delta;
  monotonic_ += delta;
}

void FakeClock::SetNow(WallTime now) {
  std::lock_guard lock(mu_);
  wall_ = now;
}

}  // namespace arbiter
