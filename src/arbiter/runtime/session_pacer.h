// SessionPacer: when the scheduler's next session is due. Pure bookkeeping over the times it is
// told (no clock, no thread), so that the runtime's loop only waits and the rule is unit-tested.
//
// The rule:
//   * a session is due `period` after the previous one started, whatever happens;
//   * a kick (a pending pod of ours or a PodGroup appeared) makes one due sooner: `debounce` after
//     the kick, so that a burst of creations becomes one session, but never sooner than
//     `min_gap` after the previous session started. Under a stream of arrivals every session
//     copies the whole cluster into its snapshot whatever it has to place, so one session per
//     `debounce` (about 25 a second at 250 pods/s, 10 pods each) spent a third of the
//     scheduler's CPU on sessions; the gap batches such a stream into fewer, larger sessions, at
//     the price of up to `min_gap` more latency. After a quiet spell longer than the gap a kick
//     still waits only `debounce`. (bench/e2e, docs/benchmarks.md: 50 ms keeps the create->bind
//     p99 under kube-scheduler's, 100 ms does not.)
//   * a kick while one is already due changes nothing: that session will see it too.
//
//   SessionPacer pacer({.period = 1s, .debounce = 30ms, .min_gap = 100ms});
//   pacer.Started(t0);        // a session began
//   pacer.Kick(t0 + 5ms);     // due at t0 + 100ms (the gap), not t0 + 35ms
//   pacer.Due();
//
// Thread safety: none; the runtime calls it under its own lock.
#pragma once

#include <chrono>
#include <optional>

#include "arbiter/base/clock.h"

namespace arbiter::runtime {

struct PacingOptions {
  std::chrono::nanoseconds period = std::chrono::seconds(1);
  std::chrono::nanoseconds debounce = std::chrono::milliseconds(30);
  std::chrono::nanoseconds min_gap = std::chrono::milliseconds(50);
};

class SessionPacer {
 public:
  explicit SessionPacer(PacingOptions options) : options_(options) {}

  // The first session is due at `t` (the watches have synced).
  void DueAt(Clock::MonotonicTime t);
  // A session started at `t`: what was kicked before is in it.
  void Started(Clock::MonotonicTime t);
  void Kick(Clock::MonotonicTime t);
  // When the next session should start.
  Clock::MonotonicTime Due() const;
  // Whether a kick made the next session due sooner than its period (tests, logs).
  bool kicked() const { return kick_at_.has_value(); }

 private:
  const PacingOptions options_;
  Clock::MonotonicTime next_periodic_{};
  std::optional<Clock::MonotonicTime> last_start_;
  std::optional<Clock::MonotonicTime> kick_at_;
};

}  // namespace arbiter::runtime
