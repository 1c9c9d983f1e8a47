#include "arbiter/k8s/backoff.h"

#include <gtest/gtest.h>

namespace arbiter::k8s {
namespace {

using std::chrono::milliseconds;

TEST(BackoffTest, DoublesUpToMaxWithoutJitter) {
  Backoff b(milliseconds(100), milliseconds(500), /*jitter=*/0, /*seed=*/1);
  EXPECT_EQ(b.Next(), milliseconds(100));
  EXPECT_EQ(b.Next(), milliseconds(200));
  EXPECT_EQ(b.Next(), milliseconds(400));
  EXPECT_EQ(b.Next(), milliseconds(500));
  EXPECT_EQ(b.Next(), milliseconds(500));
  EXPECT_EQ(b.failures(), 5);
}

TEST(BackoffTest, JitterStaysWithinItsBandAndIsSeeded) {
  Backoff a(milliseconds(100), milliseconds(100), 0.5, 42);
  Backoff same(milliseconds(100), milliseconds(100), 0.5, 42);
  for (int i = 0; i < 100; ++i) {
    auto d = a.Next();
    EXPECT_GE(d, milliseconds(100));
    EXPECT_LT(d, milliseconds(150));
    EXPECT_EQ(d, same.Next());
  }
}

TEST(BackoffTest, ResetStartsOver) {
  Backoff b(milliseconds(10), milliseconds(1000), 0, 1);
  (void)b.Next();
  (void)b.Next();
  b.Reset();
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.Next(), milliseconds(10));
}

}  // namespace
}  // namespace arbiter::k8s
