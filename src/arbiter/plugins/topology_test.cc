// The topology plugin with allocate, preempt and backfill, on in-memory clusters of racks
// (docs/placement.md "Topology"): one behaviour per test.
#include "arbiter/plugins/topology.h"

#include <map>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/framework/registry.h"
#include "arbiter/plugins/rack_test_util.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using test_util::AddRacks;
using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;

SchedulerConfig WithPreempt() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue", "allocate", "preempt", "backfill"};
  return config;
}

void AddGang(FakeCluster& cluster, const std::string& name, int size, const std::string& cpu,
             TopologyMode mode, const std::string& level = "rack", std::int32_t max_wait = 0,
             std::int32_t min = -1) {
  cluster.Add(
      MakePodGroup(name).MinMember(min < 0 ? size : min).Topology(mode, level, max_wait).Build());
  for (int i = 0; i < size; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", cpu).Build());
  }
}

// The racks (node name's first letter) the group's bound pods are on, and how many are bound.
std::map<char, int> RacksOf(const FakeCluster& cluster, const std::string& group) {
  std::map<char, int> racks;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (PodGroupNameOf(pod) != group || pod.spec.node_name.empty()) continue;
    if (pod.meta.deletion_timestamp.has_value()) continue;
    ++racks[pod.spec.node_name.front()];
  }
  return racks;
}

std::string UnschedulableMessage(const FakeCluster& cluster, const std::string& group) {
  const Condition* c =
      FindCondition(cluster.group("default/" + group).status.conditions, "Unschedulable");
  return c == nullptr || c->status != "True" ? "" : c->message;
}

// Without topology the default scoring (least allocated) spreads a gang of 3 × 4 cpu over the
// emptiest nodes of both racks; Required puts it inside one, the tightest that holds it (rack a,
// 16 cpu), so that rack b (32 cpu) stays whole for a gang of 6 × 4 cpu, which then fits there.
TEST(Topology, RequiredGangsLandInOneRackByBestFit) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 4);
  AddGang(cluster, "small", 3, "4", TopologyMode::kRequired);
  cluster.RunSession();
  EXPECT_EQ(RacksOf(cluster, "small"), (std::map<char, int>{{'a', 3}}));
  AddGang(cluster, "big", 6, "4", TopologyMode::kRequired);
  cluster.RunSession();
  EXPECT_EQ(RacksOf(cluster, "big"), (std::map<char, int>{{'b', 6}}));
}

// The same two gangs without topology: the small one spreads over both racks (the baseline the
// test above differs from).
TEST(Topology, WithoutItTheSmallGangSpreadsOverRacks) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 4);
  cluster.Add(MakePodGroup("small").MinMember(3).Build());
  for (int i = 0; i < 3; ++i) {
    cluster.Add(MakePod("small-" + std::to_string(i)).Group("small").Request("cpu", "4").Build());
  }
  cluster.RunSession();
  EXPECT_EQ(RacksOf(cluster, "small").size(), 2U);
}

// A gang that fits in the cluster (48 cpu) but in no rack (16, 32) places nothing, is not
// admitted (it reserves none of the idle room), and its message names each rack's shortfall.
TEST(Topology, AnImpossibleRequiredGangPlacesNothingAndSaysWhatEachRackLacks) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 4);
  AddGang(cluster, "wide", 5, "8", TopologyMode::kRequired);
  for (int s = 0; s < 3; ++s) {
    SessionResult r = cluster.RunSession();
    EXPECT_TRUE(r.binds.empty());
  }
  EXPECT_TRUE(RacksOf(cluster, "wide").empty());
  EXPECT_EQ(cluster.group("default/wide").status.phase, PodGroupPhase::kPending);
  const std::string message = UnschedulableMessage(cluster, "wide");
  EXPECT_THAT(message, HasSubstr("cannot start within one rack (Required)"));
  EXPECT_THAT(message, HasSubstr("rack b has cpu 32 free, short of cpu 8"));
  EXPECT_THAT(message, HasSubstr("rack a has cpu 16 free, short of cpu 24"));
}

// A rack whose free room adds up but is fragmented is tried and fails; the gang goes to the other
// rack, never across both.
TEST(Topology, AFragmentedRackIsTriedThenTheNextOne) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  // Rack a: 4 cpu free on each node (8 in all); rack b: 8 and 6 free.
  cluster.Add(MakePod("x0").SchedulerName("other").Request("cpu", "4").OnNode("a0").Build());
  cluster.Add(MakePod("x1").SchedulerName("other").Request("cpu", "4").OnNode("a1").Build());
  cluster.Add(MakePod("x2").SchedulerName("other").Request("cpu", "2").OnNode("b1").Build());
  AddGang(cluster, "g", 2, "6", TopologyMode::kRequired);  // 12 cpu: rack a has 8 free
  cluster.RunSession();
  EXPECT_EQ(RacksOf(cluster, "g"), (std::map<char, int>{{'b', 2}}));
}

// Preferred waits for one rack up to maxWaitSeconds, saying so, and then spreads over the fewest
// racks.
TEST(Topology, PreferredWaitsForOneRackThenSpreads) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 4);
  AddGang(cluster, "wide", 5, "8", TopologyMode::kPreferred, "rack", /*max_wait=*/30);
  cluster.RunSession();
  EXPECT_TRUE(RacksOf(cluster, "wide").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "wide"),
              HasSubstr("for one rack (Preferred, maxWaitSeconds 30)"));
  int sessions = 1;
  while (RacksOf(cluster, "wide").empty() && sessions < 60) {
    cluster.RunSession();
    ++sessions;
  }
  const std::map<char, int> racks = RacksOf(cluster, "wide");
  EXPECT_EQ(racks.size(), 2U);  // the fewest racks that hold 5 × 8 cpu
  EXPECT_EQ(racks.at('a') + racks.at('b'), 5);
  // Not before its wait was over (a session a second, from the group's creation).
  const double waited = std::chrono::duration<double>(cluster.now() - testing::TestEpoch()).count();
  EXPECT_GE(waited, 30);
}

// A level the scheduler does not know makes the group invalid, naming the levels it has.
TEST(Topology, AnUnknownLevelIsRefusedByName) {
  FakeCluster cluster;
  AddRacks(cluster, 1, 1);
  AddGang(cluster, "g", 2, "1", TopologyMode::kRequired, "pod");
  cluster.RunSession();
  EXPECT_TRUE(RacksOf(cluster, "g").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "g"),
              HasSubstr("spec.topology.level: \"pod\" is not a topology level of this scheduler "
                        "(zone, rack, node)"));
}

// Level "node": the whole gang on one node.
TEST(Topology, LevelNodePutsTheGangOnOneNode) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 0);
  AddGang(cluster, "g", 4, "2", TopologyMode::kRequired, "node");
  cluster.RunSession();
  std::set<std::string> nodes;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (PodGroupNameOf(pod) == "g" && !pod.spec.node_name.empty()) nodes.insert(pod.spec.node_name);
  }
  EXPECT_EQ(nodes.size(), 1U);
}

// The pods beyond a gang's minimum join it in its rack (backfill), even when the other rack has
// more room.
TEST(Topology, PodsBeyondTheMinimumJoinTheGangsRack) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 4);
  AddGang(cluster, "g", 4, "4", TopologyMode::kRequired, "rack", 0, /*min=*/2);
  cluster.RunSession();
  EXPECT_EQ(RacksOf(cluster, "g"), (std::map<char, int>{{'a', 4}}));
}

// A Required gang that needs preemption takes all its victims inside one rack: the rack where
// they cost the least (priority 1 in rack b rather than priority 5 in rack a), though each rack
// has one free node.
TEST(Topology, ARequiredGangPreemptsInsideOneRackTheCheapest) {
  FakeCluster cluster(WithPreempt());
  AddRacks(cluster, 2, 2);
  cluster.Add(MakePriorityClass("high", 100));
  cluster.Add(MakePod("mid").Priority(5).Request("cpu", "8").OnNode("a1").Build());
  cluster.Add(MakePod("low").Priority(1).Request("cpu", "8").OnNode("b0").Build());
  cluster.Add(MakePodGroup("g")
                  .MinMember(2)
                  .PriorityClass("high")
                  .Topology(TopologyMode::kRequired, "rack")
                  .Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "8").Build());
  }
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.evictions.size(), 1U);
  EXPECT_EQ(r.evictions.front().pod_name, "low");
  // The victim leaves within its grace period; then the gang binds where it was nominated.
  for (int s = 0; s < 60 && RacksOf(cluster, "g").empty(); ++s) {
    SessionResult later = cluster.RunSession();
    EXPECT_TRUE(later.evictions.empty())
        << "session " << s << ": " << later.evictions.front().pod_name
        << "; g: " << UnschedulableMessage(cluster, "g");
  }
  EXPECT_EQ(RacksOf(cluster, "g"), (std::map<char, int>{{'b', 2}}));
}

TEST(TopologyPlugin, ArgumentsAreChecked) {
  EXPECT_TRUE(TopologyPlugin::Create(YAML::Load("levels: [{name: rack, label: r}]")).ok());
  EXPECT_EQ(TopologyPlugin::Create(YAML::Load("levels: [{name: rack}]")).status().message(),
            "plugin topology: arguments.levels[0].label: missing");
  EXPECT_EQ(
      TopologyPlugin::Create(YAML::Load("levels: [{name: node, label: x}]")).status().message(),
      "plugin topology: arguments.levels[0].name: \"node\" is always the narrowest level");
  EXPECT_EQ(TopologyPlugin::Create(YAML::Load("levels: [{name: a, label: x}, {name: a, label: y}]"))
                .status()
                .message(),
            "plugin topology: arguments.levels[1].name: \"a\" given twice");
  EXPECT_EQ(TopologyPlugin::Create(YAML::Load("level: []")).status().message().substr(0, 44),
            "plugin topology: arguments: unknown key \"lev");
}

}  // namespace
}  // namespace arbiter
