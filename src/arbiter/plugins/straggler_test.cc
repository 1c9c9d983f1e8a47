// The straggler plugin (slow nodes judged by tasks against their peers,
// docs/placement.md#stragglers) with allocate, on in-memory clusters: one behaviour per test.
#include "arbiter/plugins/straggler.h"

#include <chrono>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/framework/config.h"
#include "arbiter/plugins/rack_test_util.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using test_util::AddRacks;
using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakePod;
using testing::MakePodGroup;

// A task of job `job` (role worker) that ran on `node` from `started` seconds before the cluster's
// now for `ran` seconds (still running when `ran` is negative).
void AddTask(FakeCluster& cluster, const std::string& job, const std::string& name,
             const std::string& node, int started, int ran) {
  Pod pod = MakePod(name)
                .Group(job)
                .Task("worker")
                .Request("cpu", "1")
                .OnNode(node)
                .Phase(ran < 0 ? PodPhase::kRunning : PodPhase::kSucceeded)
                .Build();
  pod.status.start_time = cluster.now() - std::chrono::seconds(started);
  if (ran >= 0) pod.status.finished_at = *pod.status.start_time + std::chrono::seconds(ran);
  cluster.Add(pod);
}

// A job of 4 workers, one on each of a0..a3, all started `started` s ago: the one on a<slow>
// ran `slow_ran` s (still running when negative), the three others 60 s.
void AddJudgedJob(FakeCluster& cluster, const std::string& job, int slow, int started,
                  int slow_ran) {
  cluster.Add(MakePodGroup(job).MinMember(4).Build());
  for (int i = 0; i < 4; ++i) {
    AddTask(cluster, job, job + "-" + std::to_string(i), "a" + std::to_string(i), started,
            i == slow ? slow_ran : 60);
  }
}

// Of nodes a0..a3, all but a<free> hold a pod of 3 cpu: a<free> is the default scoring's first
// choice.
void LoadAllBut(FakeCluster& cluster, int free) {
  for (int i = 0; i < 4; ++i) {
    if (i == free) continue;
    const std::string name = "load-" + std::to_string(i);
    cluster.Add(MakePodGroup(name).Build());
    cluster.Add(
        MakePod(name).Group(name).Request("cpu", "3").OnNode("a" + std::to_string(i)).Build());
  }
}

std::string NodeOf(const FakeCluster& cluster, const std::string& pod) {
  return cluster.pod("default/" + pod).spec.node_name;
}

void AddSingle(FakeCluster& cluster, const std::string& name) {
  cluster.Add(MakePodGroup(name).Build());
  cluster.Add(MakePod(name).Group(name).Request("cpu", "1").Build());
}

// Without judgement the empty a0 wins; once a task on a0 took 2.5 times its peers' median, a0 is
// avoided even though it is the emptiest.
TEST(Straggler, ANodeWhereATaskTookLongerThanItsPeersIsAvoided) {
  FakeCluster cluster;
  AddRacks(cluster, 4, 0);
  LoadAllBut(cluster, 0);
  AddSingle(cluster, "before");
  cluster.RunSession();
  EXPECT_EQ(NodeOf(cluster, "before"), "a0");

  FakeCluster judged;
  AddRacks(judged, 4, 0);
  LoadAllBut(judged, 0);
  AddJudgedJob(judged, "done", 0, 300, 150);  // the straggler, on the emptiest node
  AddSingle(judged, "after");
  judged.RunSession();
  EXPECT_NE(NodeOf(judged, "after"), "a0");
  EXPECT_FALSE(NodeOf(judged, "after").empty());
}

// A straggler is seen while it straggles: a task still running at 150 s whose three peers took
// 60 s makes its node slow before it ends.
TEST(Straggler, ARunningStragglerMarksItsNodeBeforeItEnds) {
  FakeCluster cluster;
  AddRacks(cluster, 4, 0);
  AddJudgedJob(cluster, "live", 3, 150, -1);
  // a3 holds the running straggler (1 cpu); the others are loaded more, so that the default
  // scoring would choose a3.
  LoadAllBut(cluster, 3);
  AddSingle(cluster, "next");
  cluster.RunSession();
  EXPECT_NE(NodeOf(cluster, "next"), "a3");
  EXPECT_FALSE(NodeOf(cluster, "next").empty());
}

// A role with fewer than minPeers (3) finished tasks has no median: nothing is judged.
TEST(Straggler, FewerThanMinPeersFinishedJudgeNothing) {
  FakeCluster cluster;
  AddRacks(cluster, 4, 0);
  LoadAllBut(cluster, 0);
  cluster.Add(MakePodGroup("pair").MinMember(2).Build());
  AddTask(cluster, "pair", "pair-0", "a0", 300, 150);
  AddTask(cluster, "pair", "pair-1", "a1", 300, 60);
  AddSingle(cluster, "next");
  cluster.RunSession();
  EXPECT_EQ(NodeOf(cluster, "next"), "a0");
}

// What was seen fades after memorySeconds: the slow node is tried again.
TEST(Straggler, ObservationsFadeAfterTheMemory) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(R"(
actions: [enqueue, allocate]
tiers:
  - plugins: [{name: priority}, {name: gang}]
  - plugins: [{name: predicates}, {name: nodeorder},
              {name: straggler, arguments: {memorySeconds: 60}}]
)",
                                                          "test");
  ASSERT_TRUE(config.ok()) << config.status();
  FakeCluster cluster(*config);
  AddRacks(cluster, 4, 0);
  LoadAllBut(cluster, 0);
  AddJudgedJob(cluster, "done", 0, 200, 150);  // a0's task ended 50 s ago
  AddSingle(cluster, "soon");
  cluster.RunSession();
  EXPECT_NE(NodeOf(cluster, "soon"), "a0");
  for (int i = 0; i < 15; ++i) cluster.RunSession();  // 65 s after a0's task ended
  cluster.DeletePod("default/soon");
  AddSingle(cluster, "later");
  cluster.RunSession();
  EXPECT_EQ(NodeOf(cluster, "later"), "a0");
}

TEST(StragglerPlugin, ArgumentsAreChecked) {
  EXPECT_TRUE(StragglerPlugin::Create(YAML::Load("{}")).ok());
  EXPECT_TRUE(
      StragglerPlugin::Create(YAML::Load("{weight: 2, minPeers: 5, memorySeconds: 600}")).ok());
  StatusOr<std::unique_ptr<Plugin>> bad = StragglerPlugin::Create(YAML::Load("{minPeers: 1}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("plugin straggler: arguments.minPeers"));
  bad = StragglerPlugin::Create(YAML::Load("{minPeers: 2.5}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "plugin straggler: arguments.minPeers: must be a whole number");
  bad = StragglerPlugin::Create(YAML::Load("{memory: 3}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("memory"));
}

}  // namespace
}  // namespace arbiter
