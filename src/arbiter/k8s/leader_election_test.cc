#include "arbiter/k8s/leader_election.h"

#include <gtest/gtest.h>

namespace arbiter::k8s {
namespace {

using std::chrono::milliseconds;

LeaderElectionConfig Config(int lease_ms, int renew_ms, int retry_ms) {
  LeaderElectionConfig c;
  c.identity = "me";
  c.lease_duration = milliseconds(lease_ms);
  c.renew_deadline = milliseconds(renew_ms);
  c.retry_period = milliseconds(retry_ms);
  return c;
}

TEST(LeaderElectionConfigTest, DefaultsAreValid) {
  LeaderElectionConfig c;
  c.identity = "host_1";
  EXPECT_TRUE(c.Validate().ok());
  EXPECT_EQ(c.lease_duration, milliseconds(15'000));
  EXPECT_EQ(c.renew_deadline, milliseconds(10'000));
  EXPECT_EQ(c.retry_period, milliseconds(2'000));
}

TEST(LeaderElectionConfigTest, LeaseMustOutlastRenewDeadline) {
  EXPECT_EQ(Config(10'000, 10'000, 2'000).Validate().message(),
            "leader election: lease duration (10000ms) must be longer than the renew deadline "
            "(10000ms)");
}

TEST(LeaderElectionConfigTest, RenewDeadlineMustExceedOnePointTwoRetries) {
  EXPECT_FALSE(Config(15'000, 2'400, 2'000).Validate().ok());  // 2400 = 1.2 x 2000
  EXPECT_TRUE(Config(15'000, 2'401, 2'000).Validate().ok());
}

TEST(LeaderElectionConfigTest, NeedsIdentityAndPositiveRetry) {
  LeaderElectionConfig c = Config(15'000, 10'000, 2'000);
  c.identity.clear();
  EXPECT_FALSE(c.Validate().ok());
  EXPECT_FALSE(Config(15'000, 10'000, 0).Validate().ok());
}

TEST(FormatMicroTimeTest, IsRfc3339WithMicrosecondsInUtc) {
  Clock::WallTime t{std::chrono::seconds(1'700'000'000) + std::chrono::microseconds(42)};
  EXPECT_EQ(FormatMicroTime(t), "2023-11-14T22:13:20.000042Z");
}

}  // namespace
}  // namespace arbiter::k8s
