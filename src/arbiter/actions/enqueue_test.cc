// The enqueue action: which pending groups are admitted (Pending -> Inqueue) against the free
// resources less what earlier admitted groups reserve (enqueue.h).
#include "arbiter/actions/enqueue.h"

#include <string>

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
using testing::MakePriorityClass;
using testing::MakeQueue;
using ::testing::Not;

// Only enqueue runs, with the default plugins: phases show admission alone.
SchedulerConfig EnqueueOnly() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue"};
  return config;
}

PodGroupPhase PhaseOf(const FakeCluster& cluster, const std::string& group) {
  return cluster.group("default/" + group).status.phase;
}

const Condition* UnschedulableOf(const FakeCluster& cluster, const std::string& group) {
  return FindCondition(cluster.group("default/" + group).status.conditions, "Unschedulable");
}

TEST(Enqueue, AdmitsGroupWithoutMinResources) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "1").Build());
  }
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kInqueue);
  EXPECT_EQ(UnschedulableOf(cluster, "g"), nullptr);
}

TEST(Enqueue, AdmitsGroupWhoseMinResourcesFit) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("2").Memory("4Gi").Build());
  cluster.Add(MakeNode("n1").Cpu("2").Memory("4Gi").Build());
  // 4 cpu and 8Gi free across the nodes; the group needs exactly that.
  cluster.Add(MakePodGroup("g").MinResource("cpu", "4").MinResource("memory", "8Gi").Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kInqueue);
}

TEST(Enqueue, MinResourcesBeyondFreeStaysPendingWithTheReason) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  // Another scheduler's pod holds 1 of the 4 cpu: 3 free, the group needs 8.
  cluster.Add(MakePod("web").SchedulerName("other").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePodGroup("big").MinResource("cpu", "8").Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "big"), PodGroupPhase::kPending);
  const Condition* c = UnschedulableOf(cluster, "big");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "NotEnoughResources");
  EXPECT_THAT(c->message, HasSubstr("minResources need 8 cpu but the cluster has 3 free that no "
                                    "admitted group has reserved"));
}

TEST(Enqueue, OutOfScopeNodesAreNotFree) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakeNode("cordoned").Cpu("64").Unschedulable().Build());
  cluster.Add(MakePodGroup("g").MinResource("cpu", "4").Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kPending);
  EXPECT_THAT(UnschedulableOf(cluster, "g")->message, HasSubstr("the cluster has 2 free"));
}

TEST(Enqueue, AdmittedButNotRunningGroupReservesItsMinResources) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  // Admitted earlier, nothing placed yet: reserves 3 of the 4 cpu.
  cluster.Add(MakePodGroup("first").MinResource("cpu", "3").Phase(PodGroupPhase::kInqueue).Build());
  cluster.Add(MakePodGroup("second").MinResource("cpu", "2").Created(10).Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "second"), PodGroupPhase::kPending);
  // 4 free - 3 reserved = 1.
  EXPECT_THAT(UnschedulableOf(cluster, "second")->message,
              HasSubstr("minResources need 2 cpu but the cluster has 1 free"));
}

TEST(Enqueue, RunningGroupReservesNothingMore) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  // Running with its one pod bound: the pod's 1 cpu is used, its minResources not reserved again.
  cluster.Add(MakePodGroup("first").MinResource("cpu", "3").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("first-0").Group("first").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePodGroup("second").MinResource("cpu", "3").Created(10).Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "second"), PodGroupPhase::kInqueue);  // 4 - 1 = 3 free
}

// Queue a's group a-held, admitted earlier, its one pod asking for `cpu`; the last session held it
// back for `reason` (its Unschedulable condition says so).
void AddHeldGroup(FakeCluster& cluster, const std::string& cpu, const std::string& reason) {
  PodGroup held = MakePodGroup("a-held")
                      .MinMember(1)
                      .Queue("a")
                      .Phase(PodGroupPhase::kInqueue)
                      .Created(0)
                      .Build();
  held.status.conditions.push_back(
      Condition{"Unschedulable", "True", reason, "held back by queue a", std::nullopt});
  cluster.Add(held);
  cluster.Add(MakePod("a-held-0").Group("a-held").Request("cpu", cpu).Build());
}

// A group admitted earlier that its queue now holds back (at its deserved share while another
// queue waits) cannot use room, so it keeps none in the cluster: the queue below its share starts
// its group in the room that is free. (Reserving kept a queue above its share holding a CPU that
// the queue below its share waited for until the first queue's pods ended.)
TEST(Enqueue, AGroupItsQueueHoldsBackKeepsNoClusterRoom) {
  FakeCluster cluster;  // the default actions
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakeQueue("a"));
  cluster.Add(MakeQueue("b"));
  // a asks for 3 and b for 2: each deserves 2. a holds 2, b holds 1, and 1 CPU is free.
  for (const std::string g : {"a0", "a1"}) {
    cluster.Add(MakePodGroup(g).MinMember(1).Queue("a").Phase(PodGroupPhase::kRunning).Build());
    cluster.Add(MakePod(g + "-0").Group(g).Request("cpu", "1").OnNode("n0").Build());
  }
  AddHeldGroup(cluster, "1", "QueueOverused");
  cluster.Add(MakePodGroup("b0").MinMember(1).Queue("b").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("b0-0").Group("b0").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePodGroup("b-next").MinMember(1).Queue("b").Created(10).Build());
  cluster.Add(MakePod("b-next-0").Group("b-next").Request("cpu", "1").Build());

  const SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.binds.size(), 1U);
  EXPECT_EQ(r.binds[0].pod_name(), "b-next-0");
  EXPECT_EQ(PhaseOf(cluster, "b-next"), PodGroupPhase::kRunning);
  // b no longer waits once its group runs: a's group waits for room now.
  const Condition* c = UnschedulableOf(cluster, "a-held");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->IsTrue());
  EXPECT_EQ(c->reason, "NotEnoughResources");
}

// A group admitted earlier that would take its queue past its capability keeps its place in the
// queue (a later, smaller group of the queue does not pass it) but no room in the cluster: another
// queue's group is admitted into the room that is free.
TEST(Enqueue, AGroupHeldAtItsCapabilityKeepsItsQueuesPlaceButNoClusterRoom) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  Queue a = MakeQueue("a");
  a.spec.capability.Set("cpu", 3000);
  cluster.Add(a);
  cluster.Add(MakeQueue("b"));
  cluster.Add(MakePodGroup("a0").MinMember(1).Queue("a").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("a0-0").Group("a0").Request("cpu", "2").OnNode("n0").Build());
  AddHeldGroup(cluster, "2", "QueueCapability");
  cluster.Add(MakePodGroup("a-small").MinMember(1).Queue("a").Created(10).Build());
  cluster.Add(MakePod("a-small-0").Group("a-small").Request("cpu", "1").Build());
  // 6 CPUs free: with a-held's 2 kept from the cluster, b's 5 would not fit.
  cluster.Add(MakePodGroup("b-big").MinMember(1).Queue("b").Created(20).Build());
  cluster.Add(MakePod("b-big-0").Group("b-big").Request("cpu", "5").Build());

  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "b-big"), PodGroupPhase::kInqueue);
  EXPECT_EQ(PhaseOf(cluster, "a-small"), PodGroupPhase::kPending);
  const Condition* c = UnschedulableOf(cluster, "a-small");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason, "QueueCapability");
}

TEST(Enqueue, FirstInJobOrderReservesFirst) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakePriorityClass("high", 1000));
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("older").MinResource("cpu", "3").Created(0).Build());
  cluster.Add(MakePodGroup("newer").MinResource("cpu", "3").Created(10).Build());
  cluster.Add(
      MakePodGroup("urgent").MinResource("cpu", "1").PriorityClass("high").Created(20).Build());
  cluster.RunSession();
  // urgent (priority 1000) takes 1, older (created first) 3; newer finds 0 left.
  EXPECT_EQ(PhaseOf(cluster, "urgent"), PodGroupPhase::kInqueue);
  EXPECT_EQ(PhaseOf(cluster, "older"), PodGroupPhase::kInqueue);
  EXPECT_EQ(PhaseOf(cluster, "newer"), PodGroupPhase::kPending);
  EXPECT_THAT(UnschedulableOf(cluster, "newer")->message, HasSubstr("the cluster has 0 free"));
}

TEST(Enqueue, PendingGroupIsAdmittedOnceRoomAppears) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakePodGroup("g").MinResource("cpu", "4").Build());
  cluster.RunSession();
  ASSERT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kPending);
  cluster.Add(MakeNode("n1").Cpu("2").Build());
  cluster.RunSession();
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kInqueue);
}

// The status writer holds a group's status a moment, but not the one that admits it: the CRD's
// rule that spec.queue cannot change once admitted reads status.phase.
const PodGroupUpdate* UpdateOf(const SessionResult& r, const std::string& group) {
  for (const PodGroupUpdate& u : r.group_updates) {
    if (u.name == group) return &u;
  }
  return nullptr;
}

TEST(Enqueue, OnlyTheStatusThatAdmitsTheGroupSaysItAdmits) {
  FakeCluster cluster;  // the default actions: admitted and placed in one session
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).MinResource("cpu", "4").Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "1").Build());
  }
  SessionResult pending = cluster.RunSession();
  ASSERT_NE(UpdateOf(pending, "g"), nullptr);
  EXPECT_EQ(UpdateOf(pending, "g")->status.phase, PodGroupPhase::kPending);
  EXPECT_FALSE(UpdateOf(pending, "g")->admits);
  cluster.Add(MakeNode("n1").Cpu("2").Build());
  SessionResult admitted = cluster.RunSession();
  ASSERT_NE(UpdateOf(admitted, "g"), nullptr);
  EXPECT_NE(UpdateOf(admitted, "g")->status.phase, PodGroupPhase::kPending);
  EXPECT_TRUE(UpdateOf(admitted, "g")->admits);
  // One more pod placed: a new status, past admission.
  cluster.Add(MakePod("g-2").Group("g").Request("cpu", "1").Build());
  SessionResult later = cluster.RunSession();
  ASSERT_EQ(later.binds.size(), 1U);
  ASSERT_NE(UpdateOf(later, "g"), nullptr);
  EXPECT_FALSE(UpdateOf(later, "g")->admits);
}

// Once admitted, the group's Unschedulable condition must stop saying that its minResources do
// not fit. Here the group has no pods yet (created ahead of them), so allocate records no newer
// reason that would replace enqueue's.
TEST(Enqueue, AdmissionClearsTheNotEnqueuedCondition) {
  FakeCluster cluster(EnqueueOnly());
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).MinResource("cpu", "4").Build());
  cluster.RunSession();
  ASSERT_EQ(UnschedulableOf(cluster, "g")->status, "True");
  cluster.Add(MakeNode("n1").Cpu("2").Build());
  cluster.RunSession();
  ASSERT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kInqueue);
  // Removed, or no longer True with enqueue's message.
  if (const Condition* c = UnschedulableOf(cluster, "g"); c != nullptr) {
    EXPECT_NE(c->status, "True");
    EXPECT_THAT(c->message, Not(HasSubstr("minResources need")));
  }
}

TEST(Enqueue, WithAllocateAnAdmittedGangRunsInTheSameSession) {
  FakeCluster cluster;  // the default actions
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).MinResource("cpu", "2").Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "1").Build());
  }
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(r.binds.size(), 2U);
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kRunning);
}

TEST(Enqueue, NotAdmittedGangIsNotPlaced) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  // minResources claims more than the cluster has, even though the pods would fit.
  cluster.Add(MakePodGroup("g").MinMember(1).MinResource("cpu", "5").Build());
  cluster.Add(MakePod("g-0").Group("g").Request("cpu", "1").Build());
  SessionResult r = cluster.RunSession();
  EXPECT_TRUE(r.binds.empty());
  EXPECT_EQ(PhaseOf(cluster, "g"), PodGroupPhase::kPending);
  // The group's pods are told why.
  ASSERT_EQ(r.unschedulable.size(), 1U);
  EXPECT_THAT(r.unschedulable[0].message, HasSubstr("minResources need 5 cpu"));
}

}  // namespace
}  // namespace arbiter
