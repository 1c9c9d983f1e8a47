#include "arbiter/sim/forecast.h"

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/sim/run_time.h"
#include "arbiter/testing/builders.h"

namespace arbiter::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::TestEpoch;

Clock::WallTime At(std::chrono::seconds s) { return TestEpoch() + s; }

class ForecastTest : public ::testing::Test {
 protected:
  ForecastTest() : cache_(CacheOptions()) {
    cache_.UpsertQueue(testing::MakeQueue("default"));
    cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("16Gi").Pods("110").Build());
  }

  // A gang of `pods` pods of 1 CPU; running on n1 since the epoch when `running`; run-for hint.
  void AddGang(const std::string& name, int pods, bool running, const std::string& run_for,
               std::int64_t created = 0) {
    PodGroup group = MakePodGroup(name).MinMember(pods).Created(created).Build();
    if (!run_for.empty()) group.meta.annotations[std::string(kRunForAnnotation)] = run_for;
    cache_.UpsertPodGroup(group);
    for (int i = 0; i < pods; ++i) {
      auto pod =
          MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", "1").Created(created);
      if (running) pod.OnNode("n1").Phase(PodPhase::kRunning).StartedAt(0);
      cache_.UpsertPod(pod.Build());
    }
  }

  // A job of one pod of `cpu` running on n1 since the epoch (its group added), with a run-for
  // hint unless empty; for the caller to change before adding it.
  Pod RunningPod(const std::string& group, const std::string& cpu, const std::string& run_for) {
    cache_.UpsertPodGroup(MakePodGroup(group).MinMember(1).Build());
    Pod pod = MakePod(group + "-0")
                  .Group(group)
                  .Request("cpu", cpu)
                  .OnNode("n1")
                  .Phase(PodPhase::kRunning)
                  .StartedAt(0)
                  .Build();
    if (!run_for.empty()) pod.meta.annotations[std::string(kRunForAnnotation)] = run_for;
    return pod;
  }

  ForecastResult Run(Clock::WallTime now, const std::vector<ExtraJob>& extra = {},
                     const RunTimeHistory* history = nullptr) {
    std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(now);
    StatusOr<ForecastResult> r = Forecast(*snapshot, now, TimingFromHints(*snapshot, history, now),
                                          ForecastOptions(), extra);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : ForecastResult();
  }

  ClusterCache cache_;
};

TEST_F(ForecastTest, AWaitingGangStartsWhenTheRunningOneEndsByItsHint) {
  AddGang("running", 4, true, "10m");
  AddGang("waiting", 4, false, "5m", 60);
  const ForecastResult r = Run(At(minutes(2)));
  ASSERT_TRUE(r.estimates.contains("default/waiting"));
  const JobEstimate& e = r.estimates.at("default/waiting");
  ASSERT_TRUE(e.start.has_value());
  EXPECT_EQ(*e.start, At(minutes(10)));
  EXPECT_EQ(e.confidence, Confidence::kHigh);
  EXPECT_EQ(e.rests_on.at(RunTimeSource::kHint), 1);
  EXPECT_EQ(e.run_time_source, RunTimeSource::kHint);
  EXPECT_EQ(r.end_reason, "every waiting job starts");
  EXPECT_FALSE(r.estimates.contains("default/running"));
}

TEST_F(ForecastTest, GangsQueueBehindEachOther) {
  AddGang("running", 4, true, "10m");
  AddGang("first", 4, false, "5m", 60);
  AddGang("second", 4, false, "5m", 120);
  const ForecastResult r = Run(At(minutes(2)));
  ASSERT_TRUE(r.estimates.at("default/first").start.has_value());
  ASSERT_TRUE(r.estimates.at("default/second").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/first").start, At(minutes(10)));
  EXPECT_EQ(*r.estimates.at("default/second").start, At(minutes(15)));
  EXPECT_EQ(r.estimates.at("default/second").rests_on.at(RunTimeSource::kHint), 2);
}

TEST_F(ForecastTest, ALateJobEndsNow) {
  AddGang("running", 4, true, "10m");
  AddGang("waiting", 4, false, "", 60);
  const ForecastResult r = Run(At(minutes(30)));
  ASSERT_TRUE(r.estimates.at("default/waiting").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/waiting").start, At(minutes(30)));
  EXPECT_EQ(r.estimates.at("default/waiting").run_time_source, RunTimeSource::kUnknown);
}

TEST_F(ForecastTest, AJobWithoutARunTimeHoldsItsRoomAndNothingIsEstimated) {
  AddGang("running", 4, true, "");
  AddGang("waiting", 4, false, "5m", 60);
  const ForecastResult r = Run(At(minutes(2)));
  EXPECT_FALSE(r.estimates.at("default/waiting").start.has_value());
  EXPECT_EQ(r.running_without_end, 1);
  EXPECT_EQ(r.end_reason, "nothing changes any more");
}

TEST_F(ForecastTest, ADeadlineBoundsTheRunTimeWithMediumConfidence) {
  Pod pod = RunningPod("running", "4", "");
  pod.spec.active_deadline_seconds = 600;
  cache_.UpsertPod(pod);
  AddGang("waiting", 4, false, "5m", 60);
  const ForecastResult r = Run(At(minutes(1)));
  const JobEstimate& e = r.estimates.at("default/waiting");
  ASSERT_TRUE(e.start.has_value());
  EXPECT_EQ(*e.start, At(minutes(10)));
  EXPECT_EQ(e.confidence, Confidence::kMedium);
}

TEST_F(ForecastTest, LearnedRunTimesGiveLowConfidence) {
  AddGang("running", 4, true, "");
  AddGang("waiting", 4, false, "", 60);
  RunTimeHistory history;
  for (int m : {8, 12, 10}) history.Record("default", minutes(m));
  const ForecastResult r = Run(At(minutes(2)), {}, &history);
  const JobEstimate& e = r.estimates.at("default/waiting");
  ASSERT_TRUE(e.start.has_value());
  EXPECT_EQ(*e.start, At(minutes(10)));  // the median of 8, 10, 12
  EXPECT_EQ(e.confidence, Confidence::kLow);
  EXPECT_EQ(e.run_time_source, RunTimeSource::kLearned);
}

TEST_F(ForecastTest, RoomOtherSchedulersUseStaysUsed) {
  cache_.UpsertPod(MakePod("daemon")
                       .SchedulerName("default-scheduler")
                       .Request("cpu", "1")
                       .OnNode("n1")
                       .Phase(PodPhase::kRunning)
                       .Build());
  AddGang("waiting", 4, false, "5m");
  const ForecastResult r = Run(At(minutes(1)));
  EXPECT_FALSE(r.estimates.at("default/waiting").start.has_value());
}

TEST_F(ForecastTest, PodsOfOtherSchedulersTakeOnePodSlotEach) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("16Gi").Pods("3").Build());
  for (int i = 0; i < 2; ++i) {
    cache_.UpsertPod(MakePod("daemon-" + std::to_string(i))
                         .SchedulerName("default-scheduler")
                         .OnNode("n1")
                         .Phase(PodPhase::kRunning)
                         .Build());
  }
  AddGang("one", 1, false, "5m");
  AddGang("two", 2, false, "5m", 10);
  const ForecastResult r = Run(At(minutes(1)));
  EXPECT_TRUE(r.estimates.at("default/one").start.has_value());   // the third slot
  EXPECT_FALSE(r.estimates.at("default/two").start.has_value());  // one slot short, ever
}

TEST_F(ForecastTest, AnExtraJobIsEstimatedAsIfSubmittedNow) {
  AddGang("running", 2, true, "10m");
  ExtraJob job;
  job.group = MakePodGroup("whatif").MinMember(3).Build();
  for (int i = 0; i < 3; ++i) {
    job.pods.push_back(
        MakePod("whatif-" + std::to_string(i)).Group("whatif").Request("cpu", "1").Build());
  }
  job.run_time = {minutes(5), RunTimeSource::kHint};
  const ForecastResult r = Run(At(minutes(1)), {job});
  ASSERT_TRUE(r.estimates.at("default/whatif").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/whatif").start, At(minutes(10)));
}

TEST_F(ForecastTest, ATimeBudgetStopsTheForecastAfterItsFirstSession) {
  AddGang("running", 4, true, "10m");
  AddGang("waiting", 4, false, "5m", 60);
  std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(At(minutes(2)));
  ForecastOptions options;
  options.budget = std::chrono::nanoseconds(1);  // spent by any session
  StatusOr<ForecastResult> r = Forecast(
      *snapshot, At(minutes(2)), TimingFromHints(*snapshot, nullptr, At(minutes(2))), options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->end_reason, "time budget");
  EXPECT_EQ(r->sessions, 1);
  EXPECT_FALSE(r->estimates.at("default/waiting").start.has_value());
}

TEST_F(ForecastTest, AJobThatFitsNowStartsNow) {
  AddGang("waiting", 2, false, "5m");
  const ForecastResult r = Run(At(minutes(1)));
  ASSERT_TRUE(r.estimates.at("default/waiting").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/waiting").start, At(minutes(1)));
  EXPECT_EQ(r.sessions, 1);
}

TEST_F(ForecastTest, SessionsKeepThePeriodsGrid) {
  // The running gang ends at 10m, between two sessions of a scheduler whose sessions fall on
  // the half second: the next session sees it.
  AddGang("running", 4, true, "10m");
  AddGang("waiting", 4, false, "5m", 60);
  const Clock::WallTime now = At(minutes(2)) + std::chrono::milliseconds(500);
  const ForecastResult r = Run(now);
  ASSERT_TRUE(r.estimates.at("default/waiting").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/waiting").start,
            At(minutes(10)) + std::chrono::milliseconds(500));
}

TEST_F(ForecastTest, AnExtraJobGetsItsPriorityClassEvenWhenNoOtherJobNamesIt) {
  cache_.UpsertPriorityClass(testing::MakePriorityClass("high", 1000));
  AddGang("running", 4, true, "10m");
  ExtraJob job;
  job.group = MakePodGroup("urgent").MinMember(1).PriorityClass("high").Build();
  job.pods.push_back(
      MakePod("urgent-0").Group("urgent").Request("cpu", "1").Priority(1000).Build());
  job.run_time = {minutes(5), RunTimeSource::kHint};
  const ForecastResult r = Run(At(minutes(1)), {job});
  // It preempts the running gang rather than waiting for its end.
  ASSERT_TRUE(r.estimates.at("default/urgent").start.has_value());
  EXPECT_LT(*r.estimates.at("default/urgent").start, At(minutes(2)));
}

TEST_F(ForecastTest, PodsEvictedBeforeTheForecastAreCreatedAgain) {
  // The victim's pod is being evicted: gone after its grace period, then created again (as its
  // controller would) and placed.
  Pod pod = RunningPod("victim", "4", "10m");
  pod.meta.deletion_timestamp = At(minutes(1));
  pod.spec.termination_grace_period_seconds = 30;
  pod.status.conditions.push_back(
      Condition{"DisruptionTarget", "True", "PreemptionByScheduler", "", At(minutes(1))});
  cache_.UpsertPod(pod);
  const ForecastResult r = Run(At(minutes(1)));
  ASSERT_TRUE(r.estimates.contains("default/victim"));
  ASSERT_TRUE(r.estimates.at("default/victim").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/victim").start, At(minutes(1) + seconds(31)));
}

TEST_F(ForecastTest, AnExtraJobThatArrivesLaterTakesRoomFromThenAndIsNotEstimated) {
  cache_.UpsertPod(RunningPod("running", "2", "10m"));
  AddGang("waiting", 4, false, "5m", 60);  // needs all 4 CPUs
  ExtraJob later;
  later.group = MakePodGroup("later").MinMember(1).Build();
  later.pods.push_back(MakePod("later-0").Group("later").Request("cpu", "2").Build());
  later.run_time = {minutes(30), RunTimeSource::kExact};
  later.arrives = At(minutes(3));
  // Alone, the gang starts when the running job ends; the later job takes the 2 free CPUs at
  // 3m (a pending gang holds nothing), so the gang waits for its end as well.
  EXPECT_EQ(*Run(At(minutes(2))).estimates.at("default/waiting").start, At(minutes(10)));
  const ForecastResult r = Run(At(minutes(2)), {later});
  ASSERT_TRUE(r.estimates.at("default/waiting").start.has_value());
  EXPECT_EQ(*r.estimates.at("default/waiting").start, At(minutes(33)));
  EXPECT_FALSE(r.estimates.contains("default/later"));
}

TEST(RunTimeTest, TheHintWinsThenTheDeadlineThenTheHistory) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertQueue(testing::MakeQueue("default"));
  PodGroup hinted = MakePodGroup("hinted").Build();
  hinted.meta.annotations[std::string(kRunForAnnotation)] = "1h30m";
  cache.UpsertPodGroup(hinted);
  Pod a = MakePod("a").Group("hinted").Build();
  a.spec.active_deadline_seconds = 60;
  cache.UpsertPod(a);
  cache.UpsertPodGroup(MakePodGroup("deadline").Build());
  Pod b = MakePod("b").Group("deadline").Build();
  b.spec.active_deadline_seconds = 60;
  cache.UpsertPod(b);
  PodGroup from_job = MakePodGroup("from-job").Build();
  from_job.meta.annotations[std::string(kActiveDeadlineAnnotation)] = "120";
  cache.UpsertPodGroup(from_job);
  cache.UpsertPodGroup(MakePodGroup("pods").Build());
  cache.UpsertPod(
      MakePod("p0").Group("pods").Annotation(std::string(kRunForAnnotation), "1m").Build());
  cache.UpsertPod(
      MakePod("p1").Group("pods").Annotation(std::string(kRunForAnnotation), "3m").Build());
  cache.UpsertPodGroup(MakePodGroup("plain").Build());
  cache.UpsertPod(MakePod("c").Group("plain").Build());
  PodGroup bad = MakePodGroup("bad").Build();
  bad.meta.annotations[std::string(kRunForAnnotation)] = "soon";
  cache.UpsertPodGroup(bad);
  auto snapshot = cache.TakeSnapshot(TestEpoch());
  RunTimeHistory history;
  auto of = [&](const std::string& name, const RunTimeHistory* h) {
    return RunTimeOf(*snapshot, snapshot->jobs[snapshot->FindJob("default", name)->pos()], h);
  };
  EXPECT_EQ(of("hinted", nullptr).duration, minutes(90));
  EXPECT_EQ(of("hinted", nullptr).source, RunTimeSource::kHint);
  EXPECT_EQ(of("deadline", nullptr).duration, seconds(60));
  EXPECT_EQ(of("deadline", nullptr).source, RunTimeSource::kDeadline);
  EXPECT_EQ(of("from-job", nullptr).duration, seconds(120));
  EXPECT_EQ(of("from-job", nullptr).source, RunTimeSource::kDeadline);
  EXPECT_EQ(of("pods", nullptr).duration, minutes(3));  // the longest pod's
  EXPECT_EQ(of("pods", nullptr).source, RunTimeSource::kHint);
  EXPECT_EQ(of("plain", &history).source, RunTimeSource::kUnknown);
  EXPECT_EQ(of("bad", &history).source, RunTimeSource::kUnknown);  // unparseable: no hint
  for (int m : {1, 2}) history.Record("default", minutes(m));
  EXPECT_EQ(of("plain", &history).source, RunTimeSource::kUnknown);  // two samples: too few
  history.Record("default", minutes(3));
  EXPECT_EQ(of("plain", &history).duration, minutes(2));
  EXPECT_EQ(of("plain", &history).source, RunTimeSource::kLearned);
}

TEST(RunTimeHistoryTest, LearnsFromJobsSeenRunningThenDone) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertQueue(testing::MakeQueue("default"));
  cache.UpsertNode(MakeNode("n1").Cpu("4").Pods("110").Build());
  cache.UpsertPodGroup(MakePodGroup("job").MinMember(2).Build());
  cache.UpsertPodGroup(MakePodGroup("failed").MinMember(1).Build());
  for (int i = 0; i < 2; ++i) {
    cache.UpsertPod(MakePod("job-" + std::to_string(i))
                        .Group("job")
                        .OnNode("n1")
                        .Phase(PodPhase::kRunning)
                        .StartedAt(0)
                        .Build());
  }
  cache.UpsertPod(MakePod("failed-0")
                      .Group("failed")
                      .OnNode("n1")
                      .Phase(PodPhase::kRunning)
                      .StartedAt(0)
                      .Build());
  RunTimeHistory history;
  history.Observe(*cache.TakeSnapshot(At(minutes(1))));
  for (int i = 0; i < 2; ++i) {
    cache.UpsertPod(MakePod("job-" + std::to_string(i))
                        .Group("job")
                        .OnNode("n1")
                        .Phase(PodPhase::kSucceeded)
                        .StartedAt(0)
                        .Build());
  }
  cache.UpsertPod(MakePod("failed-0")
                      .Group("failed")
                      .OnNode("n1")
                      .Phase(PodPhase::kFailed)
                      .StartedAt(0)
                      .Build());
  history.Observe(*cache.TakeSnapshot(At(minutes(7))));
  EXPECT_EQ(history.Samples("default"), 1u);  // the failed job is no sample
  history.Record("default", minutes(5));
  history.Record("default", minutes(9));
  EXPECT_EQ(history.Learned("default"), minutes(7));
}

}  // namespace
}  // namespace arbiter::sim
