#include "arbiter/k8s/token_bucket.h"

#include <gtest/gtest.h>

namespace arbiter::k8s {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(TokenBucketTest, BurstGoesAtOnceThenOnePerInterval) {
  FakeClock clock;
  TokenBucket bucket(/*qps=*/10, /*burst=*/3, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  // The fourth waits one interval (100 ms at 10 qps), the fifth two: reservations queue up.
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
  EXPECT_EQ(bucket.Reserve(), milliseconds(200));
}

TEST(TokenBucketTest, RefillsWithTimeUpToBurst) {
  FakeClock clock;
  TokenBucket bucket(10, 2, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  clock.Advance(std::chrono::seconds(60));  // a long idle time refills only up to the burst
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
  clock.Advance(milliseconds(150));  // the debt is paid and half a token more has come
  EXPECT_EQ(bucket.Reserve(), milliseconds(50));
}

TEST(TokenBucketTest, ZeroQpsIsUnlimited) {
  FakeClock clock;
  TokenBucket bucket(0, 1, clock);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
}

}  // namespace
}  // namespace arbiter::k8s
