// Clock: the one way Arbiter code reads time, injected so that tests and the simulator can step
// time by hand (no sleeps, same decisions for the same inputs; ARCHITECTURE.md §3 Determinism).
//
// Now() is wall-clock time (comparable with Kubernetes timestamps); MonotonicNow() only ever moves
// forward and is what durations, timeouts and rate limits use.
//
// RealClock reads the system clocks. FakeClock starts at a given instant and moves only when told;
// it is safe to read and advance from several threads.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace arbiter {

class Clock {
 public:
  using WallTime = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;
  using MonotonicTime =
      std::chrono::time_point<std::chrono::steady_clock, std::chrono::nanoseconds>;

  virtual ~Clock() = default;
  virtual WallTime Now() const = 0;
  virtual MonotonicTime MonotonicNow() const = 0;
};

class RealClock final : public Clock {
 public:
  WallTime Now() const override;
  MonotonicTime MonotonicNow() const override;

  // A shared instance for main(); RealClock has no state, so sharing it is safe.
  static const RealClock& Instance();
};

class FakeClock final : public Clock {
 public:
  // Starts at `start` (wall) and at an arbitrary fixed monotonic origin.
  explicit FakeClock(WallTime start = WallTime(std::chrono::seconds(1'700'000'000)));

  WallTime Now() const override;
  MonotonicTime MonotonicNow() const override;

  // Moves both clocks forward by `delta` (which must not be negative).
  void Advance(std::chrono::nanoseconds delta);
  // Sets the wall clock (it may move backwards, as wall clocks can); monotonic time is unchanged.
  void SetNow(WallTime now);

 private:
  mutable std::mutex mu_;
  WallTime wall_;
  MonotonicTime monotonic_;
};

// The one time formatter: RFC 3339 in UTC, as the API server writes it: whole seconds
// ("2023-11-14T22:13:20Z", metav1.Time) or with microseconds ("2023-11-14T22:13:20.000042Z",
// metav1.MicroTime).
std::string FormatRfc3339(Clock::WallTime t);
std::string FormatMicroTime(Clock::WallTime t);

}  // namespace arbiter
