#include "arbiter/runtime/forecaster.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Clock::WallTime kNow{std::chrono::seconds(1'750'000'000)};

sim::ForecastResult Forecast(Clock::WallTime now,
                             std::initializer_list<std::pair<const char*, minutes>> starts) {
  sim::ForecastResult r;
  r.now = now;
  r.end_reason = "every waiting job starts";
  for (const auto& [key, in] : starts) {
    sim::JobEstimate& e = r.estimates[key];
    e.job = key;
    e.start = now + in;
    e.rests_on[sim::RunTimeSource::kHint] = 1;
  }
  return r;
}

TEST(ForecasterPublishTest, AnEstimateThatHardlyMovedIsKeptAsItWas) {
  const StartEstimates first = Forecaster::Publish(Forecast(kNow, {{"ns/a", minutes(60)}}), {});
  ASSERT_TRUE(first.contains("ns/a"));
  EXPECT_EQ(first.at("ns/a").as_of, kNow);
  EXPECT_EQ(first.at("ns/a").confidence, "High");
  // 30 s later the start moved by 5 min, within 10 % of the hour left: the same estimate, so no
  // status write.
  const Clock::WallTime later = kNow + seconds(30);
  const StartEstimates second =
      Forecaster::Publish(Forecast(later, {{"ns/a", minutes(65)}}), first);
  EXPECT_EQ(second.at("ns/a"), first.at("ns/a"));
  // Moved by 20 min: published anew.
  const StartEstimates third = Forecaster::Publish(Forecast(later, {{"ns/a", minutes(80)}}), first);
  EXPECT_EQ(third.at("ns/a").as_of, later);
  EXPECT_EQ(*third.at("ns/a").start, later + minutes(80));
}

TEST(ForecasterPublishTest, NearTheStartAMinuteIsTheLeastThatCounts) {
  const StartEstimates first = Forecaster::Publish(Forecast(kNow, {{"ns/a", minutes(2)}}), {});
  EXPECT_EQ(Forecaster::Publish(Forecast(kNow, {{"ns/a", minutes(3)}}), first).at("ns/a"),
            first.at("ns/a"));
  EXPECT_NE(Forecaster::Publish(Forecast(kNow, {{"ns/a", minutes(4)}}), first).at("ns/a"),
            first.at("ns/a"));
}

TEST(ForecasterPublishTest, AnotherConfidenceOrAJobNoLongerWaitingChangesIt) {
  const StartEstimates first =
      Forecaster::Publish(Forecast(kNow, {{"ns/a", minutes(60)}, {"ns/b", minutes(5)}}), {});
  sim::ForecastResult next = Forecast(kNow, {{"ns/a", minutes(60)}});
  next.estimates["ns/a"].rests_on[sim::RunTimeSource::kLearned] = 1;
  next.estimates["ns/a"].confidence = sim::Confidence::kLow;
  const StartEstimates second = Forecaster::Publish(next, first);
  EXPECT_EQ(second.at("ns/a").confidence, "Low");
  EXPECT_FALSE(second.contains("ns/b"));
}

}  // namespace
}  // namespace arbiter::runtime
