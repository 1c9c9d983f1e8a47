#include "arbiter/runtime/recent_writes.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

using std::chrono::seconds;

TEST(RecentWritesTest, TheSameValueIsClaimedOncePerTtl) {
  FakeClock clock;
  RecentWrites<std::string> writes(seconds(30));
  EXPECT_TRUE(writes.Claim("pod-a", "no room", clock.MonotonicNow()));
  clock.Advance(seconds(29));
  EXPECT_FALSE(writes.Claim("pod-a", "no room", clock.MonotonicNow()));
  clock.Advance(seconds(1));
  EXPECT_TRUE(writes.Claim("pod-a", "no room", clock.MonotonicNow()));
}

TEST(RecentWritesTest, ADifferentValueIsClaimedAtOnce) {
  FakeClock clock;
  RecentWrites<std::string> writes(seconds(30));
  EXPECT_TRUE(writes.Claim("pod-a", "no room", clock.MonotonicNow()));
  EXPECT_TRUE(writes.Claim("pod-a", "no node matches", clock.MonotonicNow()));
  EXPECT_FALSE(writes.Claim("pod-a", "no node matches", clock.MonotonicNow()));
  // Going back to the first value is a change too.
  EXPECT_TRUE(writes.Claim("pod-a", "no room", clock.MonotonicNow()));
}

TEST(RecentWritesTest, KeysAreIndependent) {
  FakeClock clock;
  RecentWrites<int> writes(seconds(30));
  EXPECT_TRUE(writes.Claim("a", 1, clock.MonotonicNow()));
  EXPECT_TRUE(writes.Claim("b", 1, clock.MonotonicNow()));
}

TEST(RecentWritesTest, ForgetReleasesOnlyTheSameValue) {
  FakeClock clock;
  RecentWrites<std::string> writes(seconds(30));
  ASSERT_TRUE(writes.Claim("pod-a", "old", clock.MonotonicNow()));
  ASSERT_TRUE(writes.Claim("pod-a", "new", clock.MonotonicNow()));
  writes.Forget("pod-a", "old");  // the failed write was superseded: the newer claim stays
  EXPECT_FALSE(writes.Claim("pod-a", "new", clock.MonotonicNow()));
  writes.Forget("pod-a", "new");
  EXPECT_TRUE(writes.Claim("pod-a", "new", clock.MonotonicNow()));
}

TEST(RecentWritesTest, OldEntriesArePruned) {
  FakeClock clock;
  RecentWrites<int> writes(seconds(30));
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(writes.Claim("k" + std::to_string(i), i, clock.MonotonicNow()));
  EXPECT_EQ(writes.size(), 100U);
  clock.Advance(seconds(31));
  EXPECT_TRUE(writes.Claim("fresh", 0, clock.MonotonicNow()));
  EXPECT_EQ(writes.size(), 1U);
}

}  // namespace
}  // namespace arbiter::runtime
