// The allocate action with the default plugins, on in-memory clusters: the gang rules of
// docs/gang.md, one behaviour per test.
#include "arbiter/actions/allocate.h"

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

int BoundIn(const FakeCluster& cluster, const std::string& group) {
  int n = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    n += (PodGroupNameOf(pod) == group && !pod.spec.node_name.empty()) ? 1 : 0;
  }
  return n;
}

// R1: 3 nodes of 80 CPU, one holding 50 CPU from another scheduler; a gang of 3 x 50 CPU with
// minMember 3 cannot place its third pod, so none is bound; once the 50-CPU pod goes, all are.
TEST(Allocate, GangIsAllOrNothing) {
  FakeCluster cluster;
  for (int i = 0; i < 3; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("80").Build());
  Pod blocker = MakePod("blocker").SchedulerName("other").Request("cpu", "50").OnNode("n0").Build();
  cluster.Add(blocker);
  cluster.Add(MakePodGroup("mpi").MinMember(3).Build());
  for (int i = 0; i < 3; ++i) {
    cluster.Add(MakePod("mpi-" + std::to_string(i)).Group("mpi").Request("cpu", "50").Build());
  }
  for (int s = 0; s < 3; ++s) {
    SessionResult r = cluster.RunSession();
    EXPECT_TRUE(r.binds.empty());
  }
  EXPECT_EQ(BoundIn(cluster, "mpi"), 0);
  const PodGroup& group = cluster.group("default/mpi");
  const Condition* unschedulable = FindCondition(group.status.conditions, "Unschedulable");
  ASSERT_NE(unschedulable, nullptr);
  EXPECT_EQ(unschedulable->status, "True");
  EXPECT_THAT(unschedulable->message, HasSubstr("2 of minMember 3 pods fit together"));
  EXPECT_THAT(unschedulable->message, HasSubstr("Insufficient cpu"));
  EXPECT_THAT(unschedulable->message,
              HasSubstr("Each pod requests 50 cpu; cpu free on the nodes: n1 80, n2 80, n0 30."));
  EXPECT_EQ(group.status.phase, PodGroupPhase::kInqueue);

  cluster.Delete(blocker);
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(r.binds.size(), 3U);
  EXPECT_EQ(BoundIn(cluster, "mpi"), 3);
  EXPECT_EQ(cluster.group("default/mpi").status.phase, PodGroupPhase::kRunning);
}

// R2: two gangs, each needing 4 of 5 whole nodes, created together: the older runs whole, the
// other holds nothing; when the first finishes the second runs whole.
TEST(Allocate, CompetingGangsNeverDeadlock) {
  FakeCluster cluster;
  for (int i = 0; i < 5; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("8").Build());
  for (std::string g : {"a", "b"}) {
    cluster.Add(MakePodGroup(g).MinMember(4).Created(g == "a" ? 0 : 1).Build());
    for (int i = 0; i < 4; ++i) {
      cluster.Add(MakePod(g + "-" + std::to_string(i)).Group(g).Request("cpu", "8").Build());
    }
  }
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "a"), 4);
  EXPECT_EQ(BoundIn(cluster, "b"), 0);
  for (int i = 0; i < 4; ++i) cluster.Finish("default/a-" + std::to_string(i));
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "b"), 4);
  EXPECT_EQ(cluster.group("default/a").status.phase, PodGroupPhase::kCompleted);
}

// R2, second part: min 4 and min 6 on 5 slots: the 4 runs, the 6 never holds anything.
TEST(Allocate, GangLargerThanClusterHoldsNothing) {
  FakeCluster cluster;
  for (int i = 0; i < 5; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("8").Build());
  cluster.Add(MakePodGroup("six").MinMember(6).Created(0).Build());
  cluster.Add(MakePodGroup("four").MinMember(4).Created(1).Build());
  for (int i = 0; i < 6; ++i) {
    cluster.Add(MakePod("six-" + std::to_string(i)).Group("six").Request("cpu", "8").Build());
  }
  for (int i = 0; i < 4; ++i) {
    cluster.Add(MakePod("four-" + std::to_string(i)).Group("four").Request("cpu", "8").Build());
  }
  cluster.RunSession();
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "six"), 0);
  EXPECT_EQ(BoundIn(cluster, "four"), 4);
}

// R3: when only minMember pods fit, the highest-priority pod (the parameter server) is among them.
TEST(Allocate, HigherPriorityTaskPlacedFirst) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("3").Build());
  cluster.Add(MakePodGroup("tf").MinMember(3).Build());
  for (int i = 0; i < 4; ++i) {
    cluster.Add(MakePod("worker-" + std::to_string(i))
                    .Group("tf")
                    .Task("worker")
                    .Priority(10)
                    .Request("cpu", "1")
                    .Build());
  }
  cluster.Add(MakePod("ps-0")
                  .Group("tf")
                  .Task("ps")
                  .Priority(1000)
                  .Request("cpu", "1")
                  .Created(100)
                  .Build());
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "tf"), 3);
  EXPECT_FALSE(cluster.pod("default/ps-0").spec.node_name.empty());
}

// minTaskMember: the launcher's minimum is met before workers fill the gang's minimum.
TEST(Allocate, MinTaskMemberIsPlacedFirst) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakePodGroup("mpi").MinMember(2).MinTaskMember("launcher", 1).Build());
  for (int i = 0; i < 3; ++i) {
    cluster.Add(
        MakePod("w-" + std::to_string(i)).Group("mpi").Task("worker").Request("cpu", "1").Build());
  }
  cluster.Add(MakePod("z-launcher").Group("mpi").Task("launcher").Request("cpu", "1").Build());
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "mpi"), 2);
  EXPECT_FALSE(cluster.pod("default/z-launcher").spec.node_name.empty());
}

// R6: millicores add up exactly: four 250m pods fill one CPU, a fifth does not fit.
TEST(Allocate, MillicorePrecision) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("1").Build());
  for (int i = 0; i < 5; ++i) {
    cluster.Add(MakePod("p" + std::to_string(i)).Request("cpu", "250m").Created(i).Build());
  }
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(r.binds.size(), 4U);
  EXPECT_TRUE(cluster.pod("default/p4").spec.node_name.empty());
  ASSERT_EQ(r.unschedulable.size(), 1U);
  EXPECT_EQ(r.unschedulable[0].message,
            "0/1 nodes are available: 1 Insufficient cpu. The pod requests 250m cpu; the most "
            "free on one node is 0 on n0.");
}

// Jobs go by priority class before age.
TEST(Allocate, HigherPriorityJobFirst) {
  FakeCluster cluster;
  cluster.Add(MakePriorityClass("high", 1000));
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  cluster.Add(MakePodGroup("old").MinMember(2).Created(0).Build());
  cluster.Add(MakePodGroup("urgent").MinMember(2).PriorityClass("high").Created(10).Build());
  for (std::string g : {"old", "urgent"}) {
    for (int i = 0; i < 2; ++i) {
      cluster.Add(MakePod(g + std::to_string(i)).Group(g).Request("cpu", "1").Build());
    }
  }
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "urgent"), 2);
  EXPECT_EQ(BoundIn(cluster, "old"), 0);
}

// Pods beyond the minimum wait for backfill, so they cannot take a later gang's minimum.
TEST(Allocate, ExtrasBeyondMinimumYieldToOtherGangs) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("elastic").MinMember(1).Created(0).Build());
  cluster.Add(MakePodGroup("gang").MinMember(3).Created(1).Build());
  for (int i = 0; i < 4; ++i) {
    cluster.Add(MakePod("e" + std::to_string(i)).Group("elastic").Request("cpu", "1").Build());
  }
  for (int i = 0; i < 3; ++i) {
    cluster.Add(MakePod("g" + std::to_string(i)).Group("gang").Request("cpu", "1").Build());
  }
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "gang"), 3);
  EXPECT_EQ(BoundIn(cluster, "elastic"), 1);
}

// A pod naming a group that does not exist is reported, and the others are still scheduled.
TEST(Allocate, MissingGroupIsReportedNotFatal) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePod("orphan").Group("nope").Request("cpu", "1").Build());
  cluster.Add(MakePod("single").Request("cpu", "1").Build());
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.binds.size(), 1U);
  EXPECT_EQ(r.binds[0].pod_name(), "single");
}

// R8: a StatefulSet that creates its pods one at a time never reaches minMember; the condition
// says so and how to fix it.
TEST(Allocate, TooFewPodsExplainsOrderedReady) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("web").MinMember(2).Build());
  cluster.Add(
      MakePod("web-0").Group("web").OwnedBy("StatefulSet", "web").Request("cpu", "1").Build());
  for (int s = 0; s < 10; ++s) cluster.RunSession();  // the arrival grace (outcome.h)
  const Condition* c =
      FindCondition(cluster.group("default/web").status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(c->message, HasSubstr("only 1 of minMember 2 pods exist"));
  EXPECT_THAT(c->message, HasSubstr("podManagementPolicy: Parallel"));
}

// A gang below its minimum that already holds nodes (one of its binds was refused) is completed
// although its queue is at its deserved share while another queue waits: the share does not
// leave a gang broken. A gang of the same queue that holds nothing still waits for the share.
TEST(Allocate, BrokenGangIsCompletedPastItsQueuesShare) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakeQueue("a"));
  cluster.Add(MakeQueue("b"));
  cluster.Add(
      MakePodGroup("broken").MinMember(3).Queue("a").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("broken-0").Group("broken").Request("cpu", "2").OnNode("n0").Build());
  cluster.Add(MakePod("broken-1").Group("broken").Request("cpu", "2").OnNode("n0").Build());
  cluster.Add(MakePod("broken-2").Group("broken").Request("cpu", "2").Build());
  cluster.Add(MakePodGroup("later").MinMember(1).Queue("a").Build());
  cluster.Add(MakePod("later-0").Group("later").Request("cpu", "1").Build());
  cluster.Add(MakePodGroup("other").MinMember(1).Queue("b").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("other-0").Group("other").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePod("other-1").Group("other").Request("cpu", "6").Build());  // b waits

  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "broken"), 3);
  EXPECT_EQ(BoundIn(cluster, "later"), 0);
  const Condition* waits =
      FindCondition(cluster.group("default/later").status.conditions, "Unschedulable");
  ASSERT_NE(waits, nullptr);
  EXPECT_THAT(waits->message, HasSubstr("deserved share"));
}

constexpr int kBrokenTimeout = 10;

SchedulerConfig WithBrokenGangTimeout(int seconds) {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.preemption.broken_gang_timeout_seconds = seconds;
  return config;
}

// One node of 4 CPU: gang g (minMember 4, its minimum raised after 3 of its pods were bound)
// holds 3, a single pod holds the fourth CPU, and a single pod of 2 CPU waits.
FakeCluster BrokenGang(bool controlled, int timeout = kBrokenTimeout) {
  FakeCluster cluster(WithBrokenGangTimeout(timeout));
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("g").MinMember(4).Phase(PodGroupPhase::kRunning).Build());
  for (int i = 0; i < 4; ++i) {
    auto pod = MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "1").GracePeriod(0);
    if (controlled) pod.OwnedBy("ReplicaSet", "g");
    if (i < 3) pod.OnNode("n0");
    cluster.Add(pod.Build());
  }
  cluster.Add(MakePod("filler").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePod("waiting").Request("cpu", "2").Build());
  return cluster;
}

std::string Unschedulable(const FakeCluster& cluster, const std::string& field) {
  const Condition* c = FindCondition(cluster.group("default/g").status.conditions, "Unschedulable");
  if (c == nullptr) return "";
  return field == "reason" ? c->reason : c->message;
}

// A gang left below its minimum with no room to complete it is released once the broken-gang
// timeout has passed since it broke (its Broken condition): its pods are evicted whole, the
// room goes to the pod that waited, and until then its PodGroup says when it will be released.
TEST(Allocate, ABrokenGangOfControlledPodsIsReleasedAfterTheTimeout) {
  FakeCluster cluster = BrokenGang(/*controlled=*/true);
  cluster.RunSession();
  const Condition* broken = FindCondition(cluster.group("default/g").status.conditions, "Broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_TRUE(broken->IsTrue());
  EXPECT_EQ(broken->reason, "BelowMinMember");
  EXPECT_THAT(broken->message, HasSubstr("3 pod(s) hold nodes, below minMember 4"));
  const Clock::WallTime since = broken->last_transition_time.value();
  std::vector<EvictDecision> evicted;
  int sessions = 0;
  while (evicted.empty() && sessions < 3 * kBrokenTimeout) {
    SessionResult r = cluster.RunSession();
    ++sessions;
    if (r.evictions.empty()) {
      EXPECT_LT(cluster.now() - since, std::chrono::seconds(kBrokenTimeout));
      EXPECT_THAT(Unschedulable(cluster, "message"),
                  HasSubstr("below its minimum since " + FormatRfc3339(since) +
                            ": released (its pods evicted, to start again whole) at " +
                            FormatRfc3339(since + std::chrono::seconds(kBrokenTimeout))));
    }
    evicted = r.evictions;
  }
  EXPECT_GE(cluster.now() - since, std::chrono::seconds(kBrokenTimeout));
  ASSERT_EQ(evicted.size(), 3U);
  for (const EvictDecision& e : evicted) {
    EXPECT_EQ(e.kind, EvictionKind::kRelease);
    EXPECT_TRUE(e.preemptor.empty());
    EXPECT_EQ(e.victim_job, "default/g");
    EXPECT_THAT(e.message,
                HasSubstr("release: pod group default/g held nodes below its minMember"));
  }
  EXPECT_EQ(Unschedulable(cluster, "reason"), "GangReleased");
  EXPECT_THAT(Unschedulable(cluster, "message"), HasSubstr("released: held 3 node(s)"));
  // The gang's pods gone, the room is the waiting pod's; the gang holds nothing.
  for (int s = 0; s < 3 && cluster.pod("default/waiting").spec.node_name.empty(); ++s) {
    cluster.RunSession();
  }
  EXPECT_EQ(cluster.pod("default/waiting").spec.node_name, "n0");
  EXPECT_EQ(BoundIn(cluster, "g"), 0);
  const Condition* after = FindCondition(cluster.group("default/g").status.conditions, "Broken");
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->status, "False");
  EXPECT_EQ(after->reason, "Released");
}

// Pods that no controller would create again are never released: evicting them would lose them.
// The PodGroup says so.
TEST(Allocate, ABrokenGangOfBarePodsIsKept) {
  FakeCluster cluster = BrokenGang(/*controlled=*/false);
  for (int s = 0; s < 3 * kBrokenTimeout; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(BoundIn(cluster, "g"), 3);
  EXPECT_THAT(Unschedulable(cluster, "message"),
              HasSubstr("not released: pod g-0 has no controller to create it again"));
}

// Completed before the timeout (room came): nothing is evicted, and the condition says so.
TEST(Allocate, ABrokenGangCompletedInTimeIsNotReleased) {
  FakeCluster cluster = BrokenGang(/*controlled=*/true);
  for (int s = 0; s < kBrokenTimeout / 2; ++s) cluster.RunSession();
  cluster.DeletePod("default/filler");
  for (int s = 0; s < 3 * kBrokenTimeout; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(BoundIn(cluster, "g"), 4);
  const Condition* broken = FindCondition(cluster.group("default/g").status.conditions, "Broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_EQ(broken->status, "False");
  EXPECT_EQ(broken->reason, "Completed");
}

// Its pods deleted by someone else (or finished) before the timeout: not broken any more, and
// not said to be released, which the scheduler did not do.
TEST(Allocate, ABrokenGangWhosePodsAreDeletedHoldsNothing) {
  FakeCluster cluster = BrokenGang(/*controlled=*/true);
  cluster.RunSession();
  for (int i = 0; i < 4; ++i) cluster.DeletePod("default/g-" + std::to_string(i));
  for (int s = 0; s < 3 * kBrokenTimeout; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  const Condition* broken = FindCondition(cluster.group("default/g").status.conditions, "Broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_EQ(broken->status, "False");
  EXPECT_EQ(broken->reason, "NoPodsHeld");
}

// A timeout of 0: never released.
TEST(Allocate, ABrokenGangIsNeverReleasedWithTimeoutZero) {
  FakeCluster cluster = BrokenGang(/*controlled=*/true, /*timeout=*/0);
  for (int s = 0; s < 30; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(BoundIn(cluster, "g"), 3);
}

}  // namespace
}  // namespace arbiter
