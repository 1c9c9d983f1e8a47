#include "arbiter/base/clock.h"

#include <cstdio>
#include <ctime>

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

namespace {

std::string FormatUtc(Clock::WallTime t, bool micros) {
  const auto since_epoch = t.time_since_epoch();
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const auto fraction =
      std::chrono::duration_cast<std::chrono::microseconds>(since_epoch - seconds);
  std::time_t tt = seconds.count();
  std::tm utc{};
  gmtime_r(&tt, &utc);
  char buf[64];  // ample for any int year: no truncation
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
  std::string out = buf;
  if (micros) {
    std::snprintf(buf, sizeof(buf), ".%06ld",
                  static_cast<long>(fraction.count()));  // NOLINT(google-runtime-int)
    out += buf;
  }
  return out + "Z";
}

}  // namespace

std::string FormatRfc3339(Clock::WallTime t) { return FormatUtc(t, false); }
std::string FormatMicroTime(Clock::WallTime t) { return FormatUtc(t, true); }

}  // namespace arbiter
