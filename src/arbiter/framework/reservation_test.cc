// Reservations against starvation (reservation.h): which gang is elected, which nodes it gets,
// who may still use them, and when it ends.
#include "arbiter/framework/reservation.h"

#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using ::testing::ElementsAre;
using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using testing::TestEpoch;

SchedulerConfig WaitingTen(bool enabled = true) {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.reservation.enabled = enabled;
  config.reservation.wait_seconds = 10;
  return config;
}

// A pod running on `node` since the epoch for `run_for` ("100s"), of `cpu` cpu.
Pod Running(const std::string& name, const std::string& node, const std::string& cpu,
            const std::string& run_for) {
  return MakePod(name)
      .Request("cpu", cpu)
      .OnNode(node)
      .StartedAt(0)
      .Annotation("arbiter.dev/run-for", run_for)
      .Build();
}

// A pod of group `group` running on `node` since `started` seconds after the epoch, stopping at
// once when evicted (a grace period of 0).
Pod RunningMember(const std::string& name, const std::string& group, const std::string& node,
                  const std::string& cpu, std::int64_t started = 0) {
  return MakePod(name)
      .Group(group)
      .Request("cpu", cpu)
      .OnNode(node)
      .StartedAt(started)
      .GracePeriod(0)
      .Build();
}

void AddGang(FakeCluster& cluster, const std::string& name, int pods, const std::string& cpu,
             const std::string& queue = "default") {
  cluster.Add(MakePodGroup(name).MinMember(pods).Queue(queue).Build());
  for (int i = 0; i < pods; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", cpu).Build());
  }
}

std::string NodeOf(const FakeCluster& cluster, const std::string& pod) {
  for (const auto& [uid, p] : cluster.pods()) {
    if (p.meta.name == pod) return p.spec.node_name;
  }
  return "(no such pod)";
}

int Bound(const FakeCluster& cluster, const std::string& group) {
  int n = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    n += PodGroupNameOf(pod) == group && !pod.spec.node_name.empty() ? 1 : 0;
  }
  return n;
}

void RunUntil(FakeCluster& cluster, int seconds_after_epoch) {
  while (cluster.now() < TestEpoch() + std::chrono::seconds(seconds_after_epoch)) {
    cluster.RunSession();
  }
}

// Runs sessions as RunUntil does, adding the pods they evict to `evicted`.
void RunUntil(FakeCluster& cluster, int seconds_after_epoch, std::set<std::string>& evicted) {
  while (cluster.now() < TestEpoch() + std::chrono::seconds(seconds_after_epoch)) {
    for (const EvictDecision& e : cluster.RunSession().evictions) evicted.insert(e.pod_name);
  }
}

// Queues q1 and q2 (equal weights), nodes n0 and n1 of 8 cpu.
FakeCluster TwoQueuesTwoNodes() {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeQueue("q1"));
  cluster.Add(MakeQueue("q2"));
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakeNode("n1").Cpu("8").Build());
  return cluster;
}

// A pod of its own group in `queue`, running on `node` since the epoch for `run_for`.
void AddRunningIn(FakeCluster& cluster, const std::string& name, const std::string& queue,
                  const std::string& node, const std::string& cpu, const std::string& run_for) {
  cluster.Add(MakePodGroup(name).MinMember(1).Queue(queue).Build());
  cluster.Add(MakePod(name)
                  .Group(name)
                  .Request("cpu", cpu)
                  .OnNode(node)
                  .StartedAt(0)
                  .Annotation("arbiter.dev/run-for", run_for)
                  .Build());
}

// 3 nodes of 4 cpu, each full until 100 s, 50 s and 20 s after the epoch.
void AddBusyNodes(FakeCluster& cluster) {
  for (const char* n : {"n0", "n1", "n2"}) cluster.Add(MakeNode(n).Cpu("4").Build());
  cluster.Add(Running("a", "n0", "4", "100s"));
  cluster.Add(Running("b", "n1", "4", "50s"));
  cluster.Add(Running("c", "n2", "4", "20s"));
}

TEST(Reservation, NoGangIsElectedBeforeItWaitedLongEnough) {
  FakeCluster cluster(WaitingTen());
  AddBusyNodes(cluster);
  AddGang(cluster, "g", 2, "4");
  RunUntil(cluster, 9);
  EXPECT_FALSE(cluster.group("default/g").status.reservation.has_value());
}

TEST(Reservation, AGangThatWaitedGetsTheNodesThatFreeFirst) {
  FakeCluster cluster(WaitingTen());
  AddBusyNodes(cluster);
  AddGang(cluster, "g", 2, "4");
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n1", "n2"));
  // Both its pods fit once b ends, 50 s after it started.
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_EQ(*reservation->estimated_start, TestEpoch() + std::chrono::seconds(50));
  EXPECT_EQ(cluster.group("default/g").status.phase, PodGroupPhase::kInqueue);
}

// A gang that asks for one rack gets its nodes inside one rack: the one where it fits the
// soonest. Rack a (n0 free at 20 s, n1 at 100 s), rack b (n2 at 50 s, n3 at 60 s): across racks
// n0 and n2 would hold it first (50 s), but that is no use to it; rack b holds it at 60 s, rack a
// only at 100 s. It then starts there.
TEST(Reservation, AGangAskingForARackGetsNodesInTheRackWhereItFitsSoonest) {
  FakeCluster cluster(WaitingTen());
  for (const auto& [n, rack] :
       {std::pair{"n0", "a"}, std::pair{"n1", "a"}, std::pair{"n2", "b"}, std::pair{"n3", "b"}}) {
    cluster.Add(MakeNode(n).Cpu("4").Label("topology.arbiter.dev/rack", rack).Build());
  }
  cluster.Add(Running("p0", "n0", "4", "20s"));
  cluster.Add(Running("p1", "n1", "4", "100s"));
  cluster.Add(Running("p2", "n2", "4", "50s"));
  cluster.Add(Running("p3", "n3", "4", "60s"));
  cluster.Add(MakePodGroup("g").MinMember(2).Topology(TopologyMode::kRequired, "rack").Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "4").Build());
  }
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n2", "n3"));
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_EQ(*reservation->estimated_start, TestEpoch() + std::chrono::seconds(60));
  // The pods end when their run times said: n0 and n2 free by 50 s hold the gang across racks,
  // which it does not take; it starts in rack b once n3 is free too.
  RunUntil(cluster, 20);
  cluster.DeletePod("default/p0");
  RunUntil(cluster, 50);
  cluster.DeletePod("default/p2");
  RunUntil(cluster, 60);
  EXPECT_EQ(Bound(cluster, "g"), 0);
  cluster.DeletePod("default/p3");
  RunUntil(cluster, 62);
  ASSERT_EQ(Bound(cluster, "g"), 2);
  EXPECT_EQ(NodeOf(cluster, "g-0") == "n2" || NodeOf(cluster, "g-0") == "n3", true);
  EXPECT_EQ(NodeOf(cluster, "g-1") == "n2" || NodeOf(cluster, "g-1") == "n3", true);
}

// n2 and n3 have 4 cpu free at 20 s, n0 and n1 8 at 50 s: the soonest fit for each pod in turn
// spreads the gang over all four, but by its start (50 s) n0 and n1 hold it alone, and n2 and n3
// stay open to jobs that outlast that start.
TEST(Reservation, TheGangIsPackedOntoTheFewestNodesThatHoldItByItsStart) {
  FakeCluster cluster(WaitingTen());
  for (const char* n : {"n0", "n1", "n2", "n3"}) cluster.Add(MakeNode(n).Cpu("8").Build());
  cluster.Add(Running("a", "n0", "8", "50s"));
  cluster.Add(Running("b", "n1", "8", "50s"));
  cluster.Add(Running("c", "n2", "4", "20s"));
  cluster.Add(Running("d", "n2", "4", "1h"));
  cluster.Add(Running("e", "n3", "4", "20s"));
  cluster.Add(Running("f", "n3", "4", "1h"));
  AddGang(cluster, "g", 16, "1");
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n0", "n1"));
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_EQ(*reservation->estimated_start, TestEpoch() + std::chrono::seconds(50));
}

// A preemption under way beside a waiting gang: on n0 a victim (4 cpu, priority 10) that takes
// 30 s to leave; `a` (4 cpu, 50 s) on a_node and `b` (4 cpu, 20 s) on b_node, both of a priority
// nobody here preempts; gang g of 2 × 4 cpu; and `urgent` (4 cpu for an hour, priority 100),
// which evicts the victim and is nominated to n0 in its first session.
void AddPreemptionUnderWay(FakeCluster& cluster, const std::string& a_node,
                           const std::string& b_node) {
  cluster.Add(MakePod("victim")
                  .Request("cpu", "4")
                  .OnNode("n0")
                  .StartedAt(0)
                  .Priority(10)
                  .GracePeriod(30)
                  .Build());
  for (Pod pod : {Running("a", a_node, "4", "50s"), Running("b", b_node, "4", "20s")}) {
    pod.spec.priority = 1000;
    cluster.Add(pod);
  }
  AddGang(cluster, "g", 2, "4");
  cluster.Add(MakePod("urgent")
                  .Priority(100)
                  .Request("cpu", "4")
                  .Annotation("arbiter.dev/run-for", "1h")
                  .Created(1)
                  .Build());
}

// A reservation and a nomination on the same node: n0's victim is leaving (a 30-s grace period)
// for a preemptor that will hold n0 for an hour. The room being freed on n0 is the preemptor's,
// not the gang's: the gang is reserved n1 and n2 (free at 50 s and 20 s), and the preemptor is
// bound to n0 once its victim has left.
TEST(Reservation, RoomBeingFreedForANomineeIsNotTheGangs) {
  FakeCluster cluster(WaitingTen());
  for (const char* n : {"n0", "n1", "n2"}) cluster.Add(MakeNode(n).Cpu("4").Build());
  AddPreemptionUnderWay(cluster, "n1", "n2");
  RunUntil(cluster, 12);
  ASSERT_EQ(cluster.pod("default/urgent").status.nominated_node_name, "n0");
  ASSERT_TRUE(cluster.pod("default/urgent").spec.node_name.empty()) << "the victim left early";
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n1", "n2"));
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_EQ(*reservation->estimated_start, TestEpoch() + std::chrono::seconds(50));
  RunUntil(cluster, 40);
  EXPECT_EQ(NodeOf(cluster, "urgent"), "n0");
}

// n0 (8 CPU) is in the reservation for the 4 CPU that free there at 50 s; its other 4 are being
// freed (a 30-s grace period) for a preemptor that runs for an hour, long past the gang's start.
// The preemptor still gets them when its victim leaves: the evictions were made for it.
TEST(Reservation, APreemptorNominatedToAReservedNodeIsPlacedThere) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakeNode("n1").Cpu("4").Build());
  AddPreemptionUnderWay(cluster, "n0", "n1");
  RunUntil(cluster, 12);
  ASSERT_EQ(cluster.pod("default/urgent").status.nominated_node_name, "n0");
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  ASSERT_THAT(reservation->nodes, ElementsAre("n0", "n1"));
  RunUntil(cluster, 45);
  EXPECT_EQ(NodeOf(cluster, "urgent"), "n0");
  EXPECT_EQ(Bound(cluster, "g"), 0);
}

TEST(Reservation, WithoutKnownRunTimesTheStartIsUnknown) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePod("a").Request("cpu", "4").OnNode("n0").StartedAt(0).Build());
  AddGang(cluster, "g", 2, "2");
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n0"));
  EXPECT_FALSE(reservation->estimated_start.has_value());
}

// n0 frees at 100 s and holds the whole gang (2 × 4 cpu); n1 stays busy for an hour. Both have 2
// cpu free meanwhile.
class ReservedNode : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.Add(MakeNode("n0").Cpu("8").Build());
    cluster_.Add(MakeNode("n1").Cpu("8").Build());
    cluster_.Add(Running("a", "n0", "6", "100s"));
    cluster_.Add(Running("b", "n1", "6", "1h"));
    AddGang(cluster_, "g", 2, "4");
    RunUntil(cluster_, 12);
    const auto& reservation = cluster_.group("default/g").status.reservation;
    ASSERT_TRUE(reservation.has_value());
    ASSERT_THAT(reservation->nodes, ElementsAre("n0"));
  }
  FakeCluster cluster_{WaitingTen()};
};

TEST_F(ReservedNode, JobsThatWouldOutlastTheStartGoElsewhereOrWait) {
  cluster_.Add(
      MakePod("long-0").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.Add(
      MakePod("long-1").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  const SessionResult r = cluster_.RunSession();
  std::multiset<std::string> nodes = {NodeOf(cluster_, "long-0"), NodeOf(cluster_, "long-1")};
  EXPECT_EQ(nodes, (std::multiset<std::string>{"", "n1"}));
  const std::string waiting = NodeOf(cluster_, "long-0").empty() ? "long-0" : "long-1";
  std::string message;
  for (const PodVerdict& v : r.unschedulable) {
    if (v.pod_name == waiting) message = v.message;
  }
  EXPECT_THAT(message, HasSubstr("1 node(s) reserved for gang default/g"));
}

TEST_F(ReservedNode, JobsWithoutARunTimeWait) {
  cluster_.Add(MakePod("unknown-0").Request("cpu", "2").Build());
  cluster_.Add(MakePod("unknown-1").Request("cpu", "2").Build());
  cluster_.RunSession();
  cluster_.RunSession();
  std::multiset<std::string> nodes = {NodeOf(cluster_, "unknown-0"), NodeOf(cluster_, "unknown-1")};
  EXPECT_EQ(nodes, (std::multiset<std::string>{"", "n1"}));
}

TEST_F(ReservedNode, JobsThatEndBeforeTheStartBackfill) {
  // n1's room taken first, so that the short job can only go on the reserved node.
  cluster_.Add(MakePod("long").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  ASSERT_EQ(NodeOf(cluster_, "long"), "n1");
  cluster_.Add(
      MakePod("short").Request("cpu", "2").Annotation("arbiter.dev/run-for", "30s").Build());
  cluster_.RunSession();
  EXPECT_EQ(NodeOf(cluster_, "short"), "n0");
}

TEST_F(ReservedNode, ABackfilledJobThatWouldEndAfterTheStartIsNotPlaced) {
  cluster_.Add(MakePod("long").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  ASSERT_EQ(NodeOf(cluster_, "long"), "n1");
  // Now about 14 s after the epoch: 90 s from now is after the start at 100 s.
  cluster_.Add(
      MakePod("medium").Request("cpu", "2").Annotation("arbiter.dev/run-for", "90s").Build());
  cluster_.RunSession();
  EXPECT_EQ(NodeOf(cluster_, "medium"), "");
}

TEST_F(ReservedNode, TheGangStartsOnItsNodesAndTheReservationEnds) {
  RunUntil(cluster_, 100);
  cluster_.Finish("default/a");
  cluster_.RunSession();
  EXPECT_EQ(Bound(cluster_, "g"), 2);
  EXPECT_EQ(NodeOf(cluster_, "g-0"), "n0");
  EXPECT_EQ(NodeOf(cluster_, "g-1"), "n0");
  cluster_.RunSession();
  EXPECT_FALSE(cluster_.group("default/g").status.reservation.has_value());
}

TEST_F(ReservedNode, ADeletedGangLeavesItsNodesFree) {
  for (int i = 0; i < 2; ++i) cluster_.DeletePod("default/g-" + std::to_string(i));
  cluster_.Add(MakePod("long").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.Add(
      MakePod("long-2").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  cluster_.RunSession();
  EXPECT_NE(NodeOf(cluster_, "long"), "");
  EXPECT_NE(NodeOf(cluster_, "long-2"), "");
}

// A job that accepts preemption (arbiter.dev/preemptable: "true") runs on the reserved node with
// no run time, and is left alone while the gang could not start anyway.
TEST_F(ReservedNode, AJobThatAcceptsPreemptionRunsThereWithoutARunTime) {
  cluster_.Add(MakePod("long").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  ASSERT_EQ(NodeOf(cluster_, "long"), "n1");
  cluster_.Add(MakePod("p").Request("cpu", "2").Label("arbiter.dev/preemptable", "true").Build());
  cluster_.Add(MakePod("q").Request("cpu", "2").Label("arbiter.dev/preemptable", "false").Build());
  cluster_.RunSession();
  EXPECT_EQ(NodeOf(cluster_, "p"), "n0");
  EXPECT_EQ(NodeOf(cluster_, "q"), "");
  while (cluster_.now() < TestEpoch() + std::chrono::seconds(99)) {
    EXPECT_THAT(cluster_.RunSession().evictions, ::testing::IsEmpty());
  }
  EXPECT_EQ(NodeOf(cluster_, "p"), "n0");
  EXPECT_EQ(Bound(cluster_, "g"), 0);
}

// Once the pod that does not accept preemption ends, the gang fits without the one that does:
// that one is evicted for it (kind reservation), and the gang starts on its node.
TEST_F(ReservedNode, TheGangEvictsItOnceItFitsWithoutIt) {
  cluster_.Add(MakePod("long").Request("cpu", "2").Annotation("arbiter.dev/run-for", "1h").Build());
  cluster_.RunSession();
  cluster_.Add(MakePod("p")
                   .Request("cpu", "2")
                   .Label("arbiter.dev/preemptable", "true")
                   .GracePeriod(0)
                   .Build());
  cluster_.RunSession();
  ASSERT_EQ(NodeOf(cluster_, "p"), "n0");
  RunUntil(cluster_, 100);
  cluster_.Finish("default/a");
  const SessionResult r = cluster_.RunSession();
  ASSERT_EQ(r.evictions.size(), 1U);
  EXPECT_EQ(r.evictions[0].pod_name, "p");
  EXPECT_EQ(r.evictions[0].kind, EvictionKind::kReservation);
  EXPECT_EQ(r.evictions[0].preemptor, "default/g");
  EXPECT_THAT(r.evictions[0].message, HasSubstr("arbiter.dev/preemptable=true"));
  RunUntil(cluster_, 104);
  EXPECT_EQ(Bound(cluster_, "g"), 2);
  EXPECT_EQ(NodeOf(cluster_, "g-0"), "n0");
  EXPECT_EQ(NodeOf(cluster_, "g-1"), "n0");
}

// The room of pods that accept preemption counts as free in choosing the nodes and the start:
// n0 is held an hour by such a pod, n1 by one that is not; the gang is given n0, to start now,
// and evicts the pod there at once.
TEST(Reservation, RoomOfJobsThatAcceptPreemptionIsFreeForTheStart) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakeNode("n1").Cpu("8").Build());
  cluster.Add(MakePod("p")
                  .Request("cpu", "6")
                  .OnNode("n0")
                  .StartedAt(0)
                  .Annotation("arbiter.dev/run-for", "1h")
                  .Label("arbiter.dev/preemptable", "true")
                  .GracePeriod(0)
                  .Build());
  cluster.Add(Running("b", "n1", "6", "1h"));
  AddGang(cluster, "g", 2, "4");
  std::set<std::string> evicted;
  RunUntil(cluster, 9, evicted);
  EXPECT_THAT(evicted, ::testing::IsEmpty());  // not before the gang is elected
  while (!cluster.group("default/g").status.reservation.has_value() &&
         cluster.now() < TestEpoch() + std::chrono::seconds(12)) {
    for (const EvictDecision& e : cluster.RunSession().evictions) evicted.insert(e.pod_name);
  }
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  EXPECT_THAT(reservation->nodes, ElementsAre("n0"));
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_LE(*reservation->estimated_start, cluster.now());
  RunUntil(cluster, 16, evicted);
  EXPECT_EQ(evicted, (std::set<std::string>{"p"}));
  EXPECT_EQ(Bound(cluster, "g"), 2);
  EXPECT_EQ(NodeOf(cluster, "b"), "n1");
}

// A gang that accepts preemption is evicted gang-safely: one of its pods on the reserved node,
// the other elsewhere; taking the first would leave it below its minimum, so both go.
TEST(Reservation, AGangThatAcceptsPreemptionIsEvictedWhole) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakeNode("n1").Cpu("8").Build());
  cluster.Add(Running("a", "n0", "4", "100s"));
  cluster.Add(Running("b", "n1", "6", "1h"));
  cluster.Add(MakePodGroup("v").MinMember(2).Label("arbiter.dev/preemptable", "true").Build());
  for (const auto& [pod, node] : {std::pair{"v-0", "n0"}, std::pair{"v-1", "n1"}}) {
    cluster.Add(RunningMember(pod, "v", node, "2"));
  }
  AddGang(cluster, "g", 2, "4");
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  ASSERT_THAT(reservation->nodes, ElementsAre("n0"));
  ASSERT_TRUE(reservation->estimated_start.has_value());
  EXPECT_EQ(*reservation->estimated_start, TestEpoch() + std::chrono::seconds(100));
  RunUntil(cluster, 100);
  cluster.Finish("default/a");
  const SessionResult r = cluster.RunSession();
  std::set<std::string> evicted;
  for (const EvictDecision& e : r.evictions) evicted.insert(e.pod_name);
  EXPECT_EQ(evicted, (std::set<std::string>{"v-0", "v-1"}));
  RunUntil(cluster, 104);
  EXPECT_EQ(Bound(cluster, "g"), 2);
}

// The gang takes its room on its reserved nodes only. n0 holds the gang now if v-0 leaves, so it
// is the reservation (one node, packed); a plan free to go anywhere would rather evict v-1 on n1,
// the younger pod of the same accepting job, which the gang does not need.
TEST(Reservation, TheGangEvictsOnItsReservedNodesOnly) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("16").Build());
  cluster.Add(MakeNode("n1").Cpu("8").Build());
  cluster.Add(Running("a", "n0", "8", "1h"));
  cluster.Add(Running("b", "n1", "4", "1h"));
  cluster.Add(MakePodGroup("v").MinMember(1).Label("arbiter.dev/preemptable", "true").Build());
  cluster.Add(RunningMember("v-0", "v", "n0", "2"));
  cluster.Add(RunningMember("v-1", "v", "n1", "4", /*started=*/5));
  AddGang(cluster, "g", 2, "4");
  std::set<std::string> evicted;
  RunUntil(cluster, 9, evicted);
  ASSERT_THAT(evicted, ::testing::IsEmpty());
  RunUntil(cluster, 10, evicted);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  ASSERT_THAT(reservation->nodes, ElementsAre("n0"));
  RunUntil(cluster, 14, evicted);
  EXPECT_EQ(evicted, (std::set<std::string>{"v-0"}));
  EXPECT_EQ(NodeOf(cluster, "g-0"), "n0");
  EXPECT_EQ(NodeOf(cluster, "g-1"), "n0");
  EXPECT_EQ(NodeOf(cluster, "v-1"), "n1");
}

// A job that accepts preemption but whose queue does not exist (deleted with the admission
// webhook off) is never a victim, and its room is not counted as free: nothing is evicted, and
// the scheduler goes on.
TEST(Reservation, AnAcceptingJobOfAMissingQueueIsNoVictim) {
  FakeCluster cluster(WaitingTen());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(Running("a", "n0", "4", "100s"));
  cluster.Add(MakePodGroup("orphan")
                  .MinMember(1)
                  .Queue("gone")
                  .Label("arbiter.dev/preemptable", "true")
                  .Build());
  cluster.Add(RunningMember("orphan", "orphan", "n0", "2"));
  AddGang(cluster, "g", 2, "4");
  RunUntil(cluster, 12);
  const auto& reservation = cluster.group("default/g").status.reservation;
  ASSERT_TRUE(reservation.has_value());
  ASSERT_THAT(reservation->nodes, ElementsAre("n0"));
  EXPECT_FALSE(reservation->estimated_start.has_value()) << "the orphan's room never frees";
  RunUntil(cluster, 100);
  cluster.Finish("default/a");
  std::set<std::string> evicted;
  RunUntil(cluster, 110, evicted);
  EXPECT_THAT(evicted, ::testing::IsEmpty());
  EXPECT_EQ(NodeOf(cluster, "orphan"), "n0");
  EXPECT_EQ(Bound(cluster, "g"), 0);
}

// A reservation takes nothing from another queue that would leave it below its deserved share:
// q2 asks for no more than its accepting pod on the reserved node, and deserves all of that, so
// the gang of q1 waits for it to end rather than evict it.
TEST(Reservation, TheEvictionNeverPushesAnotherQueueBelowItsShare) {
  FakeCluster cluster = TwoQueuesTwoNodes();
  AddRunningIn(cluster, "b", "q1", "n1", "8", "1h");
  cluster.Add(
      MakePodGroup("p").MinMember(1).Queue("q2").Label("arbiter.dev/preemptable", "true").Build());
  cluster.Add(RunningMember("p", "p", "n0", "2"));
  AddGang(cluster, "g", 2, "4", "q1");
  std::set<std::string> evicted;
  RunUntil(cluster, 30, evicted);
  ASSERT_TRUE(cluster.group("default/g").status.reservation.has_value());
  EXPECT_THAT(evicted, ::testing::IsEmpty());
  EXPECT_EQ(NodeOf(cluster, "p"), "n0");
  EXPECT_EQ(Bound(cluster, "g"), 0);
}

TEST(Reservation, AQueueBelowItsShareIsNotKeptOffReservedNodes) {
  FakeCluster cluster = TwoQueuesTwoNodes();
  AddRunningIn(cluster, "a", "q1", "n0", "6", "100s");
  AddRunningIn(cluster, "b", "q1", "n1", "8", "1h");
  AddGang(cluster, "g", 2, "4", "q1");
  RunUntil(cluster, 12);
  ASSERT_TRUE(cluster.group("default/g").status.reservation.has_value());
  // q2 holds nothing and deserves half: a job of its own that runs an hour takes the room on n0
  // all the same; one of q1 does not.
  cluster.Add(MakePodGroup("other").MinMember(1).Queue("q2").Build());
  cluster.Add(MakePod("other")
                  .Group("other")
                  .Request("cpu", "2")
                  .Annotation("arbiter.dev/run-for", "1h")
                  .Build());
  cluster.Add(MakePodGroup("same").MinMember(1).Queue("q1").Build());
  cluster.Add(MakePod("same")
                  .Group("same")
                  .Request("cpu", "2")
                  .Annotation("arbiter.dev/run-for", "1h")
                  .Build());
  cluster.RunSession();
  cluster.RunSession();
  EXPECT_EQ(NodeOf(cluster, "other"), "n0");
  EXPECT_EQ(NodeOf(cluster, "same"), "");
}

TEST(Reservation, AtMostMaxReservationsAtOnceOldestFirst) {
  SchedulerConfig config = WaitingTen();
  config.reservation.max_reservations = 1;
  FakeCluster cluster(config);
  for (const char* n : {"n0", "n1"}) cluster.Add(MakeNode(n).Cpu("4").Build());
  cluster.Add(Running("a", "n0", "4", "100s"));
  cluster.Add(Running("b", "n1", "4", "100s"));
  cluster.Add(MakePodGroup("young").MinMember(2).Created(5).Build());
  cluster.Add(MakePodGroup("old").MinMember(2).Created(1).Build());
  for (const char* g : {"young", "old"}) {
    for (int i = 0; i < 2; ++i) {
      cluster.Add(
          MakePod(std::string(g) + "-" + std::to_string(i)).Group(g).Request("cpu", "2").Build());
    }
  }
  RunUntil(cluster, 20);
  EXPECT_TRUE(cluster.group("default/old").status.reservation.has_value());
  EXPECT_FALSE(cluster.group("default/young").status.reservation.has_value());
}

TEST(Reservation, DisabledElectsNothing) {
  FakeCluster cluster(WaitingTen(/*enabled=*/false));
  AddBusyNodes(cluster);
  AddGang(cluster, "g", 2, "4");
  RunUntil(cluster, 30);
  EXPECT_FALSE(cluster.group("default/g").status.reservation.has_value());
}

// The starvation the reservation is for: 4 nodes of 8 cpu, 3 pods of 1 cpu arriving every second
// and running 8 s each (about 24 cpu busy); a gang of 24 × 1 cpu cannot find 24 cpu free at once.
// Returns the seconds the gang waited (or -1 when it did not start within `limit` s), and how many
// stream pods were bound while it waited.
struct StreamRun {
  int waited = -1;
  int stream_bound_meanwhile = 0;
};
StreamRun RunStream(const SchedulerConfig& config, int limit) {
  FakeCluster cluster(config);
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("8").Build());
  std::vector<std::pair<std::string, Clock::WallTime>> stream;  // uid, when bound
  int next = 0;
  const auto add_stream = [&] {
    for (int k = 0; k < 3; ++k, ++next) {
      cluster.Add(MakePod("s-" + std::to_string(next))
                      .Request("cpu", "1")
                      .Annotation("arbiter.dev/run-for", "8s")
                      .Created(static_cast<std::int64_t>((cluster.now() - TestEpoch()) /
                                                         std::chrono::seconds(1)))
                      .Build());
    }
  };
  const auto finish_stream = [&] {
    for (const auto& [uid, pod] : cluster.pods()) {
      if (!uid.starts_with("default/s-") || pod.spec.node_name.empty()) continue;
      if (pod.status.phase != PodPhase::kRunning || !pod.status.start_time) continue;
      if (cluster.now() - *pod.status.start_time >= std::chrono::seconds(8)) {
        stream.emplace_back(uid, *pod.status.start_time);
      }
    }
    for (const auto& [uid, when] : stream) {
      if (cluster.pods().contains(uid)) cluster.DeletePod(uid);
    }
    stream.clear();
  };
  for (int s = 0; s < 20; ++s) {
    add_stream();
    finish_stream();
    cluster.RunSession();
  }
  const Clock::WallTime submitted = cluster.now();
  cluster.Add(MakePodGroup("big")
                  .MinMember(24)
                  .Created((submitted - TestEpoch()) / std::chrono::seconds(1))
                  .Build());
  for (int i = 0; i < 24; ++i) {
    cluster.Add(MakePod("big-" + std::to_string(i)).Group("big").Request("cpu", "1").Build());
  }
  StreamRun run;
  for (int s = 0; s < limit; ++s) {
    add_stream();
    finish_stream();
    const SessionResult r = cluster.RunSession();
    for (const BindDecision& b : r.binds)
      run.stream_bound_meanwhile += b.pod_name().starts_with("s-");
    if (Bound(cluster, "big") == 24) {
      run.waited = static_cast<int>((cluster.now() - submitted) / std::chrono::seconds(1));
      break;
    }
  }
  return run;
}

TEST(Reservation, ABigGangUnderAStreamStartsWithinTheWaitAndTheLongestRunTime) {
  const StreamRun with = RunStream(WaitingTen(), 120);
  // Elected after 10 s; its nodes' pods end within 8 s; a session or two to place it.
  EXPECT_GE(with.waited, 10);
  EXPECT_LE(with.waited, 10 + 8 + 3);
  EXPECT_GT(with.stream_bound_meanwhile, 0);
  const StreamRun without = RunStream(WaitingTen(/*enabled=*/false), 120);
  EXPECT_EQ(without.waited, -1) << "the stream did not starve the gang: the test shows nothing";
}

}  // namespace
}  // namespace arbiter
