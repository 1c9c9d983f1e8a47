// The proportion and drf plugins through whole sessions (FakeCluster, default configuration):
// shares by weight, capability, who may use a queue, and progressive filling.
#include "arbiter/plugins/proportion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;

// Bound cpu (millicores) of the pods in a namespace.
std::int64_t BoundCpu(const FakeCluster& cluster, const std::string& ns) {
  std::int64_t total = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (pod.meta.namespace_name == ns && !pod.spec.node_name.empty()) {
      total += pod.spec.containers.front().requests.Get("cpu");
    }
  }
  return total;
}

// Adds `count` single-pod groups of 1 CPU in namespace `ns` drawing from queue `queue`.
void Flood(FakeCluster& cluster, const std::string& ns, const std::string& queue, int count) {
  for (int i = 0; i < count; ++i) {
    const std::string name = ns + "-" + std::to_string(i);
    cluster.Add(MakePodGroup(name).Namespace(ns).Queue(queue).MinMember(1).Build());
    cluster.Add(MakePod(name).Namespace(ns).Group(name).Request("cpu", "1").Build());
  }
}

// Weights 1 and 3 flooding a 16-CPU cluster: deserved 4 and 12 CPUs, and that is what they get.
TEST(Proportion, SaturatedClusterSplitsByWeight) {
  FakeCluster cluster;
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(MakeQueue("light", 1));
  cluster.Add(MakeQueue("heavy", 3));
  Flood(cluster, "a", "light", 20);
  Flood(cluster, "b", "heavy", 20);
  cluster.RunSession();
  cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 4000);
  EXPECT_EQ(BoundCpu(cluster, "b"), 12000);
}

// What one queue does not ask for goes to the other: light asks for 2 CPUs only.
TEST(Proportion, UnusedShareGoesToOthers) {
  FakeCluster cluster;
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(MakeQueue("light", 1));
  cluster.Add(MakeQueue("heavy", 1));
  Flood(cluster, "a", "light", 2);
  Flood(cluster, "b", "heavy", 20);
  cluster.RunSession();
  cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 2000);
  EXPECT_EQ(BoundCpu(cluster, "b"), 14000);
}

// Two queues of weight 1 on 16 CPUs deserve 8 each, and each asks for one job larger than that:
// a gang of 4 x 4 CPUs, and a pod of 12 CPUs that no 8-CPU node can hold. Neither job fits its
// share; were that the rule, the cluster would stay idle for ever. A queue that holds nothing
// may start a job larger than its share: the gang runs.
TEST(Proportion, AJobLargerThanItsQueuesShareStartsWhenTheQueueHoldsNothing) {
  FakeCluster cluster;
  for (int i = 0; i < 2; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("8").Build());
  cluster.Add(MakeQueue("team", 1));
  cluster.Add(MakePodGroup("gang").Namespace("a").Queue("team").MinMember(4).Build());
  for (int i = 0; i < 4; ++i) {
    cluster.Add(MakePod("gang-" + std::to_string(i))
                    .Namespace("a")
                    .Group("gang")
                    .Request("cpu", "4")
                    .Build());
  }
  cluster.Add(MakePodGroup("huge").Namespace("b").MinMember(1).Build());  // queue default
  cluster.Add(MakePod("huge-0").Namespace("b").Group("huge").Request("cpu", "12").Build());
  for (int i = 0; i < 4; ++i) cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 16000);
  EXPECT_EQ(BoundCpu(cluster, "b"), 0);
}

// A queue at its capability gets no more, even on an idle cluster; and admission counts what
// groups admitted before a group reserve, not only what the queue holds: of ten groups of 1 CPU
// under a cap of 3, three are admitted, not all ten (seven would sit Inqueue for ever).
TEST(Proportion, CapabilityIsAHardCap) {
  FakeCluster cluster;
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  Queue capped = MakeQueue("capped", 1);
  capped.spec.capability = ResourceList({{"cpu", 3000}});
  cluster.Add(capped);
  Flood(cluster, "a", "capped", 10);
  for (int s = 0; s < 3; ++s) cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 3000);
  int admitted = 0;
  for (int i = 0; i < 10; ++i) {
    const PodGroupPhase phase = cluster.group("a/a-" + std::to_string(i)).status.phase;
    admitted += phase == PodGroupPhase::kInqueue || phase == PodGroupPhase::kRunning ? 1 : 0;
  }
  EXPECT_EQ(admitted, 3);
}

// A queue's ResourceQuota caps it like its capability, and a raised limit is used only once the
// API server's quota controller has taken it (status.hard), since until then the API server
// still refuses pods beyond the old one.
TEST(Proportion, QuotaCapsAQueueAndNewRoomWaitsForTheApiServer) {
  FakeCluster cluster;
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(MakeQueue("team", 1));
  ResourceQuota quota;
  quota.meta.namespace_name = "a";
  quota.meta.name = "arbiter-queue-team";
  quota.meta.annotations["arbiter.dev/queue"] = "team";
  quota.spec_hard = ResourceList({{"requests.cpu", 3000}});
  quota.status_hard = quota.spec_hard;
  cluster.cache().UpsertResourceQuota(quota);
  Flood(cluster, "a", "team", 10);
  for (int s = 0; s < 3; ++s) cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 3000);
  const std::vector<Condition>& conditions = cluster.group("a/a-9").status.conditions;
  ASSERT_FALSE(conditions.empty());
  EXPECT_THAT(conditions.back().message, HasSubstr("quota"));

  quota.spec_hard = ResourceList({{"requests.cpu", 5000}});  // raised, not yet taken
  cluster.cache().UpsertResourceQuota(quota);
  for (int s = 0; s < 2; ++s) cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 3000);

  quota.status_hard = quota.spec_hard;
  cluster.cache().UpsertResourceQuota(quota);
  for (int s = 0; s < 2; ++s) cluster.RunSession();
  EXPECT_EQ(BoundCpu(cluster, "a"), 5000);
}

// A queue's namespaceSelector decides who may use it; closed and missing queues are refused; the
// group's condition says which.
TEST(Proportion, WhoMayUseAQueue) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  Queue team = MakeQueue("team", 1);
  team.spec.namespace_selector = LabelSelector{{{"team", "a"}}, {}};
  cluster.Add(team);
  Queue closed = MakeQueue("closed", 1);
  closed.spec.state = QueueState::kClosed;
  cluster.Add(closed);
  Namespace ns;
  ns.meta.name = "outsider";
  cluster.cache().UpsertNamespace(ns);
  struct Case {
    std::string group;
    std::string queue;
    std::string reason;
  };
  for (const Case& c : {Case{"g1", "team", "QueueNotAllowed"}, Case{"g2", "closed", "QueueClosed"},
                        Case{"g3", "nowhere", "QueueNotFound"}}) {
    cluster.Add(MakePodGroup(c.group).Namespace("outsider").Queue(c.queue).Build());
    cluster.Add(MakePod(c.group).Namespace("outsider").Group(c.group).Request("cpu", "1").Build());
  }
  cluster.RunSession();
  for (const Case& c : {Case{"g1", "team", "QueueNotAllowed"}, Case{"g2", "closed", "QueueClosed"},
                        Case{"g3", "nowhere", "QueueNotFound"}}) {
    SCOPED_TRACE(c.group);
    const PodGroup& group = cluster.group("outsider/" + c.group);
    const Condition* u = FindCondition(group.status.conditions, "Unschedulable");
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->reason, c.reason);
    EXPECT_THAT(u->message, HasSubstr(c.queue));
    EXPECT_TRUE(cluster.pod("outsider/" + c.group).spec.node_name.empty());
  }
}

// Queue status: deserved, allocated and the count of running groups are reported.
TEST(Proportion, QueueStatusIsReported) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  Flood(cluster, "a", "default", 2);
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.queue_updates.size(), 1U);
  EXPECT_EQ(r.queue_updates[0].name, "default");
  EXPECT_EQ(r.queue_updates[0].status.deserved.Get("cpu"), 2000);
  EXPECT_EQ(r.queue_updates[0].status.allocated.Get("cpu"), 2000);
  EXPECT_EQ(r.queue_updates[0].status.running, 2);
}

// drf: pods beyond two jobs' minimums go one at a time to the job with the lower share, so two
// elastic jobs of 1-CPU pods on 6 free CPUs end with 3 each, not 5 and 1.
TEST(Drf, ProgressiveFillingOfExtras) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("6").Build());
  for (std::string g : {"x", "y"}) {
    cluster.Add(MakePodGroup(g).MinMember(1).Created(g == "x" ? 0 : 1).Build());
    for (int i = 0; i < 5; ++i) {
      cluster.Add(MakePod(g + std::to_string(i)).Group(g).Request("cpu", "1").Build());
    }
  }
  cluster.RunSession();
  int x = 0;
  int y = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (pod.spec.node_name.empty()) continue;
    (PodGroupNameOf(pod) == "x" ? x : y)++;
  }
  EXPECT_EQ(x, 3);
  EXPECT_EQ(y, 3);
}

}  // namespace
}  // namespace arbiter
