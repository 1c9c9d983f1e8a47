// The preempt action with the default plugins, on in-memory clusters: the rules of
// actions/preemption.h, one behaviour per test. Victims evicted with a grace period of 0 are gone
// by the next session (FakeCluster advances one second per session).
#include "arbiter/actions/preempt.h"

#include <set>
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

SchedulerConfig WithPreempt() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue", "allocate", "preempt", "backfill"};
  return config;
}

int RunningIn(const FakeCluster& cluster, const std::string& group) {
  int n = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    n += (PodGroupNameOf(pod) == group && !pod.spec.node_name.empty() &&
          !pod.meta.deletion_timestamp.has_value())
             ? 1
             : 0;
  }
  return n;
}

std::set<std::string> Evicted(const SessionResult& r) {
  std::set<std::string> out;
  for (const EvictDecision& e : r.evictions) out.insert(e.pod_name);
  return out;
}

// A cluster of `nodes` nodes of 4 cpu, priority classes low (10) and high (100).
FakeCluster Cluster(int nodes) {
  FakeCluster cluster(WithPreempt());
  for (int i = 0; i < nodes; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(MakePriorityClass("low", 10));
  cluster.Add(MakePriorityClass("high", 100));
  return cluster;
}

// A gang of `size` pods of `cpu` each with minMember `min`, priority class `pc`.
void AddGang(FakeCluster& cluster, const std::string& name, const std::string& pc, int size,
             int min, const std::string& cpu, std::int64_t grace = 0, std::int64_t created = 0) {
  cluster.Add(MakePodGroup(name).MinMember(min).PriorityClass(pc).Created(created).Build());
  for (int i = 0; i < size; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i))
                    .Group(name)
                    .Request("cpu", cpu)
                    .GracePeriod(grace)
                    .Created(created)
                    .Build());
  }
}

// A low-priority gang whose minimum is its size is evicted whole; the high-priority gang then
// runs whole, and the low one waits with nothing held.
TEST(Preempt, GangVictimWithMinEqualSizeIsEvictedWhole) {
  FakeCluster cluster = Cluster(2);
  AddGang(cluster, "low", "low", 4, 4, "2");
  cluster.RunSession();
  ASSERT_EQ(RunningIn(cluster, "low"), 4);

  AddGang(cluster, "high", "high", 2, 2, "2", 0, 5);
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(r.evictions.size(), 4U);  // not 2: a gang is never left below its minimum
  EXPECT_TRUE(r.binds.empty());
  EXPECT_EQ(r.nominations.size(), 2U);
  for (const EvictDecision& e : r.evictions) {
    EXPECT_EQ(e.reason, "PreemptionByScheduler");
    EXPECT_THAT(e.message, HasSubstr("default/high"));
    EXPECT_EQ(e.kind, EvictionKind::kPreempt);
  }
  // The victim counts it, and says by whom.
  EXPECT_EQ(cluster.group("default/low").status.preemption_count, 1);
  const Condition* preempted =
      FindCondition(cluster.group("default/low").status.conditions, "Preempted");
  ASSERT_NE(preempted, nullptr);
  EXPECT_EQ(preempted->status, "True");
  EXPECT_EQ(preempted->message, "4 pod(s) evicted for default/high (preempt)");
  const Condition* c =
      FindCondition(cluster.group("default/high").status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason, "WaitingForPreemption")
      << c->message << " phase " << static_cast<int>(cluster.group("default/high").status.phase);

  cluster.RunSession();  // the victims are gone (grace 0): the preemptor binds
  EXPECT_EQ(RunningIn(cluster, "high"), 2);
  EXPECT_EQ(RunningIn(cluster, "low"), 0);
  // Nothing thrashes afterwards.
  for (int s = 0; s < 3; ++s) {
    SessionResult again = cluster.RunSession();
    EXPECT_TRUE(again.evictions.empty());
    EXPECT_TRUE(again.binds.empty());
  }
  EXPECT_EQ(RunningIn(cluster, "high"), 2);
}

// A victim gang with pods above its minimum loses only those.
TEST(Preempt, SurplusPodsAreTakenBeforeWholeJobs) {
  FakeCluster cluster = Cluster(2);
  AddGang(cluster, "low", "low", 4, 2, "2");
  cluster.RunSession();
  ASSERT_EQ(RunningIn(cluster, "low"), 4);

  AddGang(cluster, "high", "high", 2, 2, "2", 0, 5);
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(r.evictions.size(), 2U);
  cluster.RunSession();
  EXPECT_EQ(RunningIn(cluster, "high"), 2);
  EXPECT_EQ(RunningIn(cluster, "low"), 2);
  EXPECT_EQ(cluster.group("default/low").status.phase, PodGroupPhase::kRunning);
}

// A preemptor that would not fit even with every victim gone evicts nothing, and says why.
TEST(Preempt, PreemptorThatCannotFitEvictsNothing) {
  FakeCluster cluster = Cluster(2);
  AddGang(cluster, "low", "low", 4, 4, "2");
  cluster.RunSession();

  AddGang(cluster, "high", "high", 3, 3, "4", 0, 5);  // 12 cpu on 8
  for (int s = 0; s < 3; ++s) {
    SessionResult r = cluster.RunSession();
    EXPECT_TRUE(r.evictions.empty());
  }
  EXPECT_EQ(RunningIn(cluster, "low"), 4);
  const Condition* c =
      FindCondition(cluster.group("default/high").status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason, "PreemptionWouldNotFit");
  EXPECT_THAT(c->message, HasSubstr("fits on no node even without the pods it may preempt"));
}

// A node with room counts before any eviction: a gang of two needs one eviction, not two.
TEST(Preempt, IdleRoomIsUsedBeforeEvicting) {
  FakeCluster cluster = Cluster(2);
  cluster.Add(MakePod("single").Priority(10).Request("cpu", "4").GracePeriod(0).Build());
  cluster.RunSession();
  AddGang(cluster, "high", "high", 2, 2, "4", 0, 5);
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(Evicted(r), std::set<std::string>{"single"});
  ASSERT_EQ(r.nominations.size(), 2U);
  cluster.RunSession();
  EXPECT_EQ(RunningIn(cluster, "high"), 2);
}

// Only the victims the preemptor needs are evicted, the youngest first.
TEST(Preempt, YoungestVictimFirstAndOnlyWhatIsNeeded) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakePod("old").Priority(10).Request("cpu", "2").GracePeriod(0).Created(0).Build());
  cluster.RunSession();
  cluster.Add(MakePod("young").Priority(10).Request("cpu", "2").GracePeriod(0).Created(1).Build());
  cluster.RunSession();
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "2").Created(2).Build());
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(Evicted(r), std::set<std::string>{"young"});
  cluster.RunSession();
  EXPECT_FALSE(cluster.pod("default/urgent").spec.node_name.empty());
  EXPECT_FALSE(cluster.pod("default/old").spec.node_name.empty());
}

// Among victims of different priorities, the lowest goes, and a larger plan is given back what
// it does not need (reprieve).
TEST(Preempt, LowestPriorityVictimAndReprieve) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakePod("p20").Priority(20).Request("cpu", "1").GracePeriod(0).Build());
  cluster.Add(MakePod("p10").Priority(10).Request("cpu", "1").GracePeriod(0).Build());
  cluster.Add(MakePod("p30").Priority(30).Request("cpu", "2").GracePeriod(0).Build());
  cluster.RunSession();
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "1").Created(2).Build());
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(Evicted(r), std::set<std::string>{"p10"});
}

TEST(Preempt, EqualPriorityPreemptsNothing) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakePod("a").Priority(10).Request("cpu", "4").Build());
  cluster.RunSession();
  cluster.Add(MakePod("b").Priority(10).Request("cpu", "4").Created(1).Build());
  SessionResult r = cluster.RunSession();
  EXPECT_TRUE(r.evictions.empty());
}

TEST(Preempt, PreemptionPolicyNeverEvictsNothing) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakePod("a").Priority(10).Request("cpu", "4").Build());
  cluster.RunSession();
  cluster.Add(
      MakePod("b").Priority(100).PreemptionPolicy("Never").Request("cpu", "4").Created(1).Build());
  for (int s = 0; s < 2; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
}

// Pods (or groups) labelled arbiter.dev/preemptable: "false", and kube-system pods, are never
// victims.
TEST(Preempt, NeverVictimsAreNotTaken) {
  FakeCluster cluster = Cluster(3);
  cluster.Add(MakePod("kept")
                  .Priority(10)
                  .Label("arbiter.dev/preemptable", "false")
                  .Request("cpu", "4")
                  .Build());
  cluster.Add(MakePod("system").Namespace("kube-system").Priority(10).Request("cpu", "4").Build());
  cluster.Add(MakePodGroup("g")
                  .MinMember(1)
                  .PriorityClass("low")
                  .Label("arbiter.dev/preemptable", "false")
                  .Build());
  cluster.Add(MakePod("g-0").Group("g").Request("cpu", "4").Build());
  cluster.RunSession();
  ASSERT_EQ(RunningIn(cluster, "g"), 1);
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "4").Created(1).Build());
  for (int s = 0; s < 2; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
}

// minRuntimeSeconds: a pod that started less than that long ago is not a victim; an older one is.
TEST(Preempt, YoungPodsAreNotVictimsUnderMinRuntime) {
  SchedulerConfig config = WithPreempt();
  config.preemption.min_runtime_seconds = 600;
  FakeCluster cluster(config);
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakeNode("n1").Cpu("4").Build());
  // Both run from the start; young started a minute ago, old an hour ago (FakeCluster's clock
  // starts at the test epoch).
  cluster.Add(
      MakePod("young").Priority(10).Request("cpu", "4").OnNode("n0").StartedAt(-60).Build());
  cluster.Add(
      MakePod("old").Priority(10).Request("cpu", "4").OnNode("n1").StartedAt(-3600).Build());
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "4").Build());
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(Evicted(r), std::set<std::string>{"old"});
}

// The plan visits nodes in the order of the least they can cost and stops at the first choice no
// other node can beat: across many nodes it still takes the globally cheapest victim, here the
// lowest priority (an old pod) before the youngest of the others.
TEST(Preempt, CheapestVictimAmongManyNodes) {
  FakeCluster cluster = Cluster(12);
  for (int i = 0; i < 12; ++i) {
    cluster.Add(MakePod("p" + std::to_string(i))
                    .Priority(i == 7 ? 5 : 10)
                    .Request("cpu", "4")
                    .OnNode("n" + std::to_string(i))
                    .StartedAt(i == 7 ? -7200 : -60 * (i + 1))
                    .Build());
  }
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "4").Build());
  EXPECT_EQ(Evicted(cluster.RunSession()), std::set<std::string>{"p7"});
}

// A pod a gang can spare is taken before a job is broken, however young the job: the node where
// it costs less is found even though the other node's victim loses less running time.
TEST(Preempt, SurplusElsewhereBeatsBreakingAYoungerJob) {
  FakeCluster cluster = Cluster(2);
  cluster.Add(
      MakePod("young").Priority(10).Request("cpu", "4").OnNode("n0").StartedAt(-10).Build());
  cluster.Add(MakePodGroup("spare").MinMember(1).PriorityClass("low").Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("spare-" + std::to_string(i))
                    .Group("spare")
                    .Request("cpu", "2")
                    .OnNode("n1")
                    .StartedAt(-3600)
                    .Build());
  }
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "2").Build());
  const std::set<std::string> evicted = Evicted(cluster.RunSession());
  ASSERT_EQ(evicted.size(), 1U);
  EXPECT_TRUE(evicted.begin()->starts_with("spare-")) << *evicted.begin();
}

// The cheapest node is tried for real: when its filters still fail with its victims gone (a host
// port that a pod which may not be evicted holds), the next cheapest is taken.
TEST(Preempt, CheapestNodeThatStillFailsIsPassedOver) {
  FakeCluster cluster = Cluster(2);
  cluster.Add(
      MakePod("young").Priority(10).Request("cpu", "2").OnNode("n0").StartedAt(-10).Build());
  cluster.Add(MakePod("porter")
                  .Priority(1000)
                  .Request("cpu", "2")
                  .HostPort(8080)
                  .OnNode("n0")
                  .StartedAt(-3600)
                  .Build());
  cluster.Add(
      MakePod("old").Priority(10).Request("cpu", "4").OnNode("n1").StartedAt(-3600).Build());
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "2").HostPort(8080).Build());
  EXPECT_EQ(Evicted(cluster.RunSession()), std::set<std::string>{"old"});
}

// preempt stays inside a queue: a job of another queue is never its victim.
TEST(Preempt, OtherQueuesAreNotVictims) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakeQueue("a"));
  cluster.Add(MakeQueue("b"));
  cluster.Add(MakePodGroup("low").MinMember(1).PriorityClass("low").Queue("a").Build());
  cluster.Add(MakePod("low-0").Group("low").Request("cpu", "4").Build());
  cluster.RunSession();
  cluster.Add(
      MakePodGroup("high").MinMember(1).PriorityClass("high").Queue("b").Created(1).Build());
  cluster.Add(MakePod("high-0").Group("high").Request("cpu", "4").Created(1).Build());
  for (int s = 0; s < 2; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
}

// While the victims take their grace period, the room they free is the preemptor's: a later job
// of even higher priority that does not preempt is not placed there, and the preemptor chooses no
// more victims.
TEST(Preempt, NominatedRoomIsHeldWhileVictimsLeave) {
  FakeCluster cluster = Cluster(1);
  cluster.Add(MakePod("victim").Priority(10).Request("cpu", "4").GracePeriod(5).Build());
  cluster.RunSession();
  cluster.Add(MakePod("urgent").Priority(100).Request("cpu", "4").Created(1).Build());
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(Evicted(r), std::set<std::string>{"victim"});
  ASSERT_EQ(r.nominations.size(), 1U);
  EXPECT_EQ(cluster.pod("default/urgent").status.nominated_node_name, "n0");

  cluster.Add(MakePod("thief")
                  .Priority(1000)
                  .PreemptionPolicy("Never")
                  .Request("cpu", "4")
                  .Created(2)
                  .Build());
  bool bound = false;
  for (int s = 0; s < 8 && !bound; ++s) {
    SessionResult next = cluster.RunSession();
    EXPECT_TRUE(next.evictions.empty()) << "session " << s;
    bound = !cluster.pod("default/urgent").spec.node_name.empty();
    EXPECT_TRUE(cluster.pod("default/thief").spec.node_name.empty()) << "session " << s;
  }
  EXPECT_TRUE(bound);
}

}  // namespace
}  // namespace arbiter
