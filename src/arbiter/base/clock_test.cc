#include "arbiter/base/clock.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using std::chrono::seconds;

TEST(FakeClockTest, StandsStillUntilAdvanced) {
  FakeClock clock(Clock::WallTime(seconds(100)));
  EXPECT_EQ(clock.Now(), Clock::WallTime(seconds(100)));
  auto mono = clock.MonotonicNow();
  EXPECT_EQ(clock.MonotonicNow(), mono);
  clock.Advance(seconds(5));
  EXPECT_EQ(clock.Now(), Clock::WallTime(seconds(105)));
  EXPECT_EQ(clock.MonotonicNow() - mono, seconds(5));
}

TEST(FakeClockTest, SetNowMovesOnlyWallTime) {
  FakeClock clock(Clock::WallTime(seconds(100)));
  auto mono = clock.MonotonicNow();
  clock.SetNow(Clock::WallTime(seconds(50)));
  EXPECT_EQ(clock.Now(), Clock::WallTime(seconds(50)));
  EXPECT_EQ(clock.MonotonicNow(), mono);
}

TEST(FakeClockDeathTest, CannotGoBackwards) {
  FakeClock clock;
  EXPECT_DEATH(clock.Advance(seconds(-1)), "cannot go back");
}

TEST(RealClockTest, MonotonicNeverDecreases) {
  const Clock& clock = RealClock::Instance();
  auto a = clock.MonotonicNow();
  auto b = clock.MonotonicNow();
  EXPECT_LE(a, b);
  EXPECT_GT(clock.Now().time_since_epoch().count(), 0);
}

}  // namespace
}  // namespace arbiter
