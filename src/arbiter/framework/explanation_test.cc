// PodGroupStatus::explanation: what the scheduler publishes about a waiting group, gate by gate,
// with the numbers behind it, on in-memory clusters with the default configuration.
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::Canonical;
using testing::FakeCluster;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;

// Two nodes of 4 cpu and queue `q` (weight 1) beside default.
FakeCluster TwoNodes(const Queue& q) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n1").Cpu("4").Build());
  cluster.Add(MakeNode("n2").Cpu("4").Build());
  cluster.Add(MakeQueue("default"));
  cluster.Add(q);
  return cluster;
}

void AddJob(FakeCluster& cluster, const std::string& queue, const std::string& name, int pods,
            const std::string& cpu, std::int64_t created = 0) {
  cluster.Add(MakePodGroup(name).MinMember(pods).Queue(queue).Created(created).Build());
  for (int i = 0; i < pods; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i))
                    .Group(name)
                    .Request("cpu", cpu)
                    .Created(created)
                    .Build());
  }
}

const PendingExplanation& ExplanationOf(const FakeCluster& cluster, const std::string& group) {
  const std::optional<PendingExplanation>& e = cluster.group("default/" + group).status.explanation;
  EXPECT_TRUE(e.has_value()) << group << " has no explanation";
  static const PendingExplanation kNone;
  return e.has_value() ? *e : kNone;
}

TEST(Explanation, AClosedQueueIsTheQueueGate) {
  Queue q = MakeQueue("q");
  q.spec.state = QueueState::kClosed;
  FakeCluster cluster = TwoNodes(q);
  AddJob(cluster, "q", "job", 1, "1");
  cluster.RunSession();
  const PendingExplanation& e = ExplanationOf(cluster, "job");
  EXPECT_EQ(e.gate, "Queue");
  EXPECT_EQ(e.reason, "QueueClosed");
  EXPECT_EQ(e.queue, "q");
}

TEST(Explanation, CapabilityGivesTheRoomItLeaves) {
  Queue q = MakeQueue("q");
  q.spec.capability.Set("cpu", Canonical("cpu", "2500m"));
  FakeCluster cluster = TwoNodes(q);
  AddJob(cluster, "q", "small", 1, "1");
  cluster.RunSession();
  AddJob(cluster, "q", "big", 2, "1", 5);
  cluster.RunSession();
  const PendingExplanation& e = ExplanationOf(cluster, "big");
  EXPECT_EQ(e.gate, "Capability");
  EXPECT_EQ(e.needs.Get("cpu"), 2000);
  EXPECT_EQ(e.queue_capability.Get("cpu"), 2500);
  EXPECT_EQ(e.queue_allocated.Get("cpu"), 1000);
  EXPECT_EQ(e.queue_room.Get("cpu"), 1500);
  EXPECT_FALSE(cluster.group("default/small").status.explanation.has_value());
}

TEST(Explanation, PlacementCountsTheNodesExcludedAndTheShortfall) {
  FakeCluster cluster = TwoNodes(MakeQueue("q"));
  cluster.Add(MakeNode("tainted").Cpu("16").Taint("gpu", "true", "NoSchedule").Build());
  AddJob(cluster, "q", "wide", 1, "6");
  cluster.RunSession();
  const PendingExplanation& e = ExplanationOf(cluster, "wide");
  EXPECT_EQ(e.gate, "Placement");
  EXPECT_EQ(e.reason, "NotEnoughResources");
  EXPECT_EQ(e.pod, "default/wide-0");
  EXPECT_EQ(e.nodes, 3);
  ASSERT_EQ(e.excluded.size(), 2U);
  EXPECT_EQ(e.excluded[0].reason, "Insufficient cpu");  // most nodes first
  EXPECT_EQ(e.excluded[0].nodes, 2);
  EXPECT_EQ(e.excluded[1].nodes, 1);
  EXPECT_NE(e.excluded[1].reason.find("untolerated taint"), std::string::npos);
  // The most free on a node it may use is 4 cpu, but the tainted node has 16: the shortfall is
  // against the most any in-scope node has free, a lower bound of what is missing.
  EXPECT_TRUE(e.shortfall.empty());
}

TEST(Explanation, ShortfallIsWhatNoNodeHasFree) {
  FakeCluster cluster = TwoNodes(MakeQueue("q"));
  AddJob(cluster, "q", "wide", 1, "6500m");
  cluster.RunSession();
  const PendingExplanation& e = ExplanationOf(cluster, "wide");
  EXPECT_EQ(e.shortfall.Get("cpu"), 2500);
}

TEST(Explanation, FreeRoomPerNodeClass) {
  FakeCluster cluster = TwoNodes(MakeQueue("q"));
  cluster.Add(
      MakeNode("big").Cpu("8").Label("node.kubernetes.io/instance-type", "m5.2xlarge").Build());
  cluster.Add(MakeNode("off").Cpu("64").Unschedulable().Build());  // out of scope: no class
  AddJob(cluster, "q", "busy", 1, "3");
  cluster.RunSession();
  AddJob(cluster, "q", "wide", 1, "9", 5);
  cluster.RunSession();
  const PendingExplanation& e = ExplanationOf(cluster, "wide");
  ASSERT_EQ(e.gate, "Placement");
  ASSERT_EQ(e.node_classes.size(), 2U);
  // Most nodes first: the two 4-cpu nodes, one of which has 4 free, then the 8-cpu one.
  EXPECT_EQ(e.node_classes[0].nodes, 2);
  EXPECT_EQ(e.node_classes[0].instance_type, "");
  EXPECT_EQ(e.node_classes[0].allocatable.Get("cpu"), 4000);
  EXPECT_EQ(e.node_classes[1].nodes, 1);
  EXPECT_EQ(e.node_classes[1].instance_type, "m5.2xlarge");
  EXPECT_EQ(e.node_classes[1].allocatable.Get("cpu"), 8000);
  // `busy` took 3 cpu on one of the nodes (the 8-cpu one by score or a 4-cpu one): each class's
  // most free is what its freest node has.
  const std::int64_t free4 = e.node_classes[0].most_free.Get("cpu");
  const std::int64_t free8 = e.node_classes[1].most_free.Get("cpu");
  EXPECT_TRUE((free4 == 4000 && free8 == 5000) || (free4 == 4000 && free8 == 8000))
      << free4 << " " << free8;
}

// The classes are made once per session for each set of requested resources and shared by the
// jobs that ask for the same ones: a job asking for memory too tells nodes apart by their memory,
// one asking for cpu alone does not; at most five classes are kept, most nodes first, ties in
// node order.
TEST(Explanation, NodeClassesFollowWhatEachJobAsksFor) {
  FakeCluster cluster;
  cluster.Add(MakeQueue("default"));
  cluster.Add(MakeQueue("q"));
  // Seven classes by instance type: a (3 nodes), b (2), then c, d, e, f, g (1 each).
  const std::vector<std::pair<std::string, std::string>> nodes = {
      {"a1", "a"}, {"b1", "b"}, {"a2", "a"}, {"c1", "c"}, {"d1", "d"},
      {"e1", "e"}, {"f1", "f"}, {"g1", "g"}, {"b2", "b"}, {"a3", "a"}};
  for (const auto& [name, type] : nodes) {
    cluster.Add(MakeNode(name)
                    .Cpu("4")
                    .Memory(name == "a3" ? "16Gi" : "8Gi")
                    .Label("node.kubernetes.io/instance-type", type)
                    .Build());
  }
  for (const std::string name : {"cpu-only", "cpu-again"}) {
    cluster.Add(MakePodGroup(name).MinMember(1).Queue("q").Build());
    cluster.Add(MakePod(name + "-0").Group(name).Request("cpu", "5").Build());
  }
  cluster.Add(MakePodGroup("with-memory").MinMember(1).Queue("q").Build());
  cluster.Add(MakePod("with-memory-0")
                  .Group("with-memory")
                  .Request("cpu", "5")
                  .Request("memory", "1Gi")
                  .Build());
  cluster.RunSession();
  for (const std::string name : {"cpu-only", "cpu-again"}) {
    const PendingExplanation& e = ExplanationOf(cluster, name);
    ASSERT_EQ(e.node_classes.size(), 5U) << name;
    const std::vector<std::pair<std::string, std::int32_t>> want = {
        {"a", 3}, {"b", 2}, {"c", 1}, {"d", 1}, {"e", 1}};
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(e.node_classes[i].instance_type, want[i].first) << name << " " << i;
      EXPECT_EQ(e.node_classes[i].nodes, want[i].second) << name << " " << i;
      EXPECT_EQ(e.node_classes[i].most_free.Get("cpu"), 4000) << name << " " << i;
    }
  }
  // Asking for memory too, a3 (16Gi) is a class of its own: type a has 2 nodes of 8Gi, tied
  // with b and before it, and a3's class of one node comes before c and d (nodes are in name
  // order), so e is no longer kept.
  const PendingExplanation& e = ExplanationOf(cluster, "with-memory");
  ASSERT_EQ(e.node_classes.size(), 5U);
  const std::vector<std::tuple<std::string, std::int32_t, std::int64_t>> want = {
      {"a", 2, 8LL << 30},
      {"b", 2, 8LL << 30},
      {"a", 1, 16LL << 30},
      {"c", 1, 8LL << 30},
      {"d", 1, 8LL << 30}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(e.node_classes[i].instance_type, std::get<0>(want[i])) << i;
    EXPECT_EQ(e.node_classes[i].nodes, std::get<1>(want[i])) << i;
    EXPECT_EQ(e.node_classes[i].allocatable.Get("memory"), std::get<2>(want[i])) << i;
  }
}

TEST(Explanation, PositionInTheQueueAndTheJobsAhead) {
  FakeCluster cluster = TwoNodes(MakeQueue("q"));
  AddJob(cluster, "q", "full", 2, "4");
  cluster.RunSession();
  for (int i = 0; i < 4; ++i) AddJob(cluster, "q", "w" + std::to_string(i), 1, "1", 10 + i);
  cluster.RunSession();
  EXPECT_EQ(ExplanationOf(cluster, "w0").position, 1);
  EXPECT_TRUE(ExplanationOf(cluster, "w0").ahead.empty());
  EXPECT_EQ(ExplanationOf(cluster, "w3").position, 4);
  EXPECT_EQ(ExplanationOf(cluster, "w3").ahead,
            (std::vector<std::string>{"default/w0", "default/w1", "default/w2"}));
}

TEST(Explanation, ClearedOnceTheGroupRuns) {
  FakeCluster cluster = TwoNodes(MakeQueue("q"));
  AddJob(cluster, "q", "full", 2, "4");
  cluster.RunSession();
  AddJob(cluster, "q", "next", 1, "4", 10);
  cluster.RunSession();
  ASSERT_TRUE(cluster.group("default/next").status.explanation.has_value());
  cluster.Finish("default/full-0");
  cluster.Finish("default/full-1");
  cluster.RunSession();
  EXPECT_FALSE(cluster.group("default/next").status.explanation.has_value());
}

TEST(Explanation, PendingJobsAreCountedByQueueAndGate) {
  Queue q = MakeQueue("q");
  q.spec.state = QueueState::kClosed;
  FakeCluster cluster = TwoNodes(q);
  AddJob(cluster, "q", "closed-1", 1, "1");
  AddJob(cluster, "q", "closed-2", 1, "1");
  AddJob(cluster, "default", "big", 1, "6");  // 8 cpu free in all, but no node has 6
  cluster.Add(MakePod("alone").Request("cpu", "5").Build());  // a pod of no group, too big
  AddJob(cluster, "default", "fits", 2, "1");
  const SessionResult result = cluster.RunSession();
  EXPECT_EQ(result.stats.pending_jobs,
            (std::vector<PendingJobCount>{{"default", "Placement", 2}, {"q", "Queue", 2}}));
}

}  // namespace
}  // namespace arbiter
