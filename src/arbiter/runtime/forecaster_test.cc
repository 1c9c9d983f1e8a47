#include "arbiter/runtime/forecaster.h"

#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/testing/builders.h"

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

// The runtime offers every session's snapshot; the forecaster keeps one only when its thread has
// asked, so between observations no snapshot outlives its session (the cache moves the jobs that
// did not change out of a snapshot nobody else holds, and copies them out of one held).
TEST(ForecasterOfferTest, ASnapshotIsKeptOnlyWhenTheThreadAskedForIt) {
  ClusterCache cache(CacheOptions{});
  cache.UpsertQueue(testing::MakeQueue("default"));
  cache.UpsertNode(testing::MakeNode("n1").Cpu("4").Memory("16Gi").Pods("110").Build());
  cache.UpsertPodGroup(testing::MakePodGroup("waits").MinMember(1).Build());
  cache.UpsertPod(testing::MakePod("waits-0").Group("waits").Request("cpu", "1").Build());
  const std::shared_ptr<const Snapshot> snapshot = cache.TakeSnapshot(kNow);
  const long held = snapshot.use_count();

  RealClock clock;
  ForecasterOptions options;
  options.interval = std::chrono::milliseconds(1);
  options.observe_every = std::chrono::milliseconds(1);
  options.forecast.budget = seconds(5);
  Forecaster forecaster(clock, options);
  forecaster.Offer(snapshot);  // no thread has asked
  EXPECT_EQ(snapshot.use_count(), held);

  forecaster.Start();
  const auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (forecaster.counts().forecasts == 0 && std::chrono::steady_clock::now() < deadline) {
    forecaster.Offer(snapshot);
    std::this_thread::yield();
  }
  EXPECT_GE(forecaster.counts().forecasts, 1) << "the thread never got an offered snapshot";
  forecaster.Stop();
  EXPECT_EQ(snapshot.use_count(), held);
}

}  // namespace
}  // namespace arbiter::runtime
