#include "arbiter/runtime/session_pacer.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

using std::chrono_literals::operator""ms;
using std::chrono_literals::operator""s;

constexpr PacingOptions kOptions{.period = 1s, .debounce = 30ms, .min_gap = 100ms};
const Clock::MonotonicTime kT0 = Clock::MonotonicTime(std::chrono::hours(1));

TEST(SessionPacerTest, WithoutKicksASessionIsDueEveryPeriod) {
  SessionPacer pacer(kOptions);
  pacer.DueAt(kT0);
  EXPECT_EQ(pacer.Due(), kT0);
  pacer.Started(kT0);
  EXPECT_EQ(pacer.Due(), kT0 + 1s);
  pacer.Started(kT0 + 1s + 2ms);  // the loop woke a little late
  EXPECT_EQ(pacer.Due(), kT0 + 2s + 2ms);
  EXPECT_FALSE(pacer.kicked());
}

TEST(SessionPacerTest, AKickAfterAQuietSpellWaitsOnlyTheDebounce) {
  SessionPacer pacer(kOptions);
  pacer.DueAt(kT0);
  pacer.Started(kT0);
  pacer.Kick(kT0 + 400ms);
  EXPECT_TRUE(pacer.kicked());
  EXPECT_EQ(pacer.Due(), kT0 + 430ms);
}

TEST(SessionPacerTest, AKickBeforeAnySessionWaitsOnlyTheDebounce) {
  SessionPacer pacer(kOptions);
  pacer.DueAt(kT0 + 1s);
  pacer.Kick(kT0);
  EXPECT_EQ(pacer.Due(), kT0 + 30ms);
}

TEST(SessionPacerTest, UnderAStreamSessionsStartTheGapApart) {
  SessionPacer pacer(kOptions);
  pacer.DueAt(kT0);
  pacer.Started(kT0);
  // Pods arrive every 5 ms: the first kick after the session sets when the next one is due, the
  // next ones change nothing.
  for (auto t = kT0 + 5ms; t < kT0 + 100ms; t += 5ms) {
    pacer.Kick(t);
    EXPECT_EQ(pacer.Due(), kT0 + 100ms) << "kick at +" << (t - kT0).count() << " ns";
  }
  pacer.Started(kT0 + 100ms);
  EXPECT_FALSE(pacer.kicked());
  pacer.Kick(kT0 + 180ms);  // the debounce runs past the gap: the debounce decides
  EXPECT_EQ(pacer.Due(), kT0 + 210ms);
}

TEST(SessionPacerTest, ThePeriodStillComesFirstWhenSooner) {
  SessionPacer pacer(PacingOptions{.period = 50ms, .debounce = 30ms, .min_gap = 100ms});
  pacer.DueAt(kT0);
  pacer.Started(kT0);
  pacer.Kick(kT0 + 1ms);
  EXPECT_EQ(pacer.Due(), kT0 + 50ms);
}

TEST(SessionPacerTest, AZeroGapIsADebounceAfterEveryArrival) {
  SessionPacer pacer(PacingOptions{.period = 1s, .debounce = 30ms, .min_gap = 0ms});
  pacer.DueAt(kT0);
  pacer.Started(kT0);
  pacer.Kick(kT0 + 5ms);
  EXPECT_EQ(pacer.Due(), kT0 + 35ms);
}

}  // namespace
}  // namespace arbiter::runtime
