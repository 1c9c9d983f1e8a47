#include "arbiter/metrics/scheduler_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter::metrics {
namespace {

using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using ::testing::Not;

TEST(SchedulerMetricsTest, ASessionsDecisionsDurationsAndGauges) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n1").Cpu("4").Build());
  Queue capped = MakeQueue("capped");
  capped.spec.capability.Set("cpu", 2000);
  cluster.Add(MakeQueue("default"));
  cluster.Add(capped);
  cluster.Add(MakePodGroup("runs").MinMember(2).Build());
  cluster.Add(MakePod("runs-0").Group("runs").Request("cpu", "1500m").Build());
  cluster.Add(MakePod("runs-1").Group("runs").Request("cpu", "1500m").Build());
  cluster.Add(MakePod("too-big").Request("cpu", "5").Build());  // no node has 5
  const std::shared_ptr<const Snapshot> snapshot = cluster.TakeSnapshot();
  const SessionResult result = cluster.RunSession();

  Metrics metrics;
  SchedulerMetrics scheduler(metrics);
  scheduler.ObserveSession(*snapshot, result,
                           {.snapshot = std::chrono::milliseconds(2),
                            .decide = std::chrono::milliseconds(5),
                            .apply = std::chrono::milliseconds(1)});
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("arbiter_sessions_total 1\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_decisions_total{decision=\"bind\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_decisions_total{decision=\"unschedulable\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_session_duration_seconds_sum{phase=\"total\"} 0.008\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_action_duration_seconds_count{action=\"allocate\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_plugin_duration_seconds_count{plugin=\"gang\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_pending_jobs{queue=\"default\",gate=\"Placement\"} 1\n"));
  // cpu in cores, as kube-state-metrics reports it; capability only where a queue has one.
  EXPECT_THAT(text, HasSubstr("arbiter_queue_allocated{queue=\"default\",resource=\"cpu\","
                              "unit=\"core\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_queue_capability{queue=\"capped\",resource=\"cpu\","
                              "unit=\"core\"} 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("arbiter_queue_capability{queue=\"default\"")));

  // The gauges are the last session's: nothing waits any more, no pending series is left.
  scheduler.ObserveSession(*snapshot, SessionResult{}, {});
  EXPECT_THAT(metrics.Scrape(), Not(HasSubstr("arbiter_pending_jobs{")));
  EXPECT_THAT(metrics.Scrape(), HasSubstr("arbiter_sessions_total 2\n"));
}

}  // namespace
}  // namespace arbiter::metrics
