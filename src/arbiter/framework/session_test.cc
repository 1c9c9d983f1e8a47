// Session and Statement: the working state a statement changes and restores, the binds a
// commit produces, FitErrors' wording, and the PodGroup status a session computes (session.h,
// session_result.h).
#include "arbiter/framework/session.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/statement.h"
#include "arbiter/testing/builders.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using ::testing::ElementsAre;
using testing::FakeCluster;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;
using ::testing::Property;
using testing::TestEpoch;

// --- Statement over a session with no plugins ---

// n0: 4 cpu with 1 cpu and host port 80 held by another scheduler's pod; n1: 2 cpu, empty.
// Pending singletons: a (1 cpu, port 8080), b (500m, ports 9090 and 80), c (1 cpu).
class StatementTest : public ::testing::Test {
 protected:
  StatementTest() : cache_(CacheOptions()) {
    cache_.UpsertNode(MakeNode("n0").Cpu("4").Build());
    cache_.UpsertNode(MakeNode("n1").Cpu("2").Build());
    cache_.UpsertPod(MakePod("web")
                         .SchedulerName("default-scheduler")
                         .Request("cpu", "1")
                         .HostPort(80)
                         .OnNode("n0")
                         .Build());
    cache_.UpsertPod(MakePod("a").Request("cpu", "1").HostPort(8080).Build());
    cache_.UpsertPod(MakePod("b").Request("cpu", "500m").HostPort(9090).HostPort(80).Build());
    cache_.UpsertPod(MakePod("c").Request("cpu", "1").Build());
    snapshot_ = cache_.TakeSnapshot(TestEpoch());
    session_ = std::make_unique<Session>(*snapshot_, plugins_);
  }

  TaskIndex TaskOf(const std::string& name) const {
    for (std::size_t i = 0; i < snapshot_->tasks.size(); ++i) {
      if (snapshot_->tasks[i].name() == name) return TaskIndex::Of(i);
    }
    ADD_FAILURE() << "no task " << name;
    return TaskIndex(0);
  }
  NodeIndex NodeOf(const std::string& name) const { return *snapshot_->FindNode(name); }

  std::vector<ResourceVector> AllFree() const {
    std::vector<ResourceVector> out;
    out.reserve(static_cast<std::size_t>(session_->node_count()));
    for (NodeIndex n : NodeIndex::Range(session_->node_count()))
      out.push_back(session_->node_free(n));
    return out;
  }
  std::vector<std::vector<HostPort>> AllPorts() const {
    std::vector<std::vector<HostPort>> out;
    out.reserve(static_cast<std::size_t>(session_->node_count()));
    for (NodeIndex n : NodeIndex::Range(session_->node_count()))
      out.push_back(session_->node_ports(n));
    return out;
  }

  ClusterCache cache_;
  PluginSet plugins_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<Session> session_;
};

TEST_F(StatementTest, WorkingStateStartsFromTheSnapshot) {
  // n0: 4000m - 1000m used = 3000m free, 110 - 1 = 109 pods; n1: 2000m, 110 pods.
  EXPECT_EQ(session_->node_free(NodeOf("n0")).Get(kCpuId), 3000);
  EXPECT_EQ(session_->node_free(NodeOf("n0")).Get(kPodsId), 109);
  EXPECT_EQ(session_->node_free(NodeOf("n1")).Get(kCpuId), 2000);
  EXPECT_THAT(session_->node_ports(NodeOf("n0")), ElementsAre(HostPort{80, "TCP", ""}));
  EXPECT_EQ(session_->task_state(TaskOf("a")), TaskState::kPending);
}

TEST_F(StatementTest, AllocateTakesRoomAndPorts) {
  Statement statement(*session_);
  statement.Allocate(TaskOf("a"), NodeOf("n0"));
  statement.Allocate(TaskOf("b"), NodeOf("n0"));
  EXPECT_EQ(statement.size(), 2U);
  // 3000m - 1000m - 500m = 1500m; 109 - 2 = 107 pods.
  EXPECT_EQ(session_->node_free(NodeOf("n0")).Get(kCpuId), 1500);
  EXPECT_EQ(session_->node_free(NodeOf("n0")).Get(kPodsId), 107);
  EXPECT_THAT(session_->node_ports(NodeOf("n0")),
              ElementsAre(HostPort{80, "TCP", ""}, HostPort{8080, "TCP", ""},
                          HostPort{9090, "TCP", ""}, HostPort{80, "TCP", ""}));
  EXPECT_EQ(session_->task_state(TaskOf("a")), TaskState::kAllocated);
  EXPECT_EQ(session_->task_node(TaskOf("b")), NodeOf("n0"));
  statement.Discard();
}

TEST_F(StatementTest, DiscardRestoresFreeResourcesAndPortsExactly) {
  const std::vector<ResourceVector> free_before = AllFree();
  const std::vector<std::vector<HostPort>> ports_before = AllPorts();
  Statement statement(*session_);
  statement.Allocate(TaskOf("a"), NodeOf("n0"));
  statement.Allocate(TaskOf("b"), NodeOf("n0"));
  statement.Allocate(TaskOf("c"), NodeOf("n1"));
  statement.Discard();
  EXPECT_EQ(statement.size(), 0U);
  EXPECT_EQ(AllFree(), free_before);
  EXPECT_EQ(AllPorts(), ports_before);
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_EQ(session_->task_state(TaskOf(name)), TaskState::kPending) << name;
    EXPECT_EQ(session_->task_node(TaskOf(name)), kNoNode) << name;
  }
}

TEST_F(StatementTest, DiscardBumpsNodeVersions) {
  const std::uint64_t before = session_->node_version(NodeOf("n0"));
  Statement statement(*session_);
  statement.Allocate(TaskOf("a"), NodeOf("n0"));
  EXPECT_GT(session_->node_version(NodeOf("n0")), before);
  const std::uint64_t placed = session_->node_version(NodeOf("n0"));
  statement.Discard();
  EXPECT_GT(session_->node_version(NodeOf("n0")), placed);  // versions only grow
}

TEST_F(StatementTest, DestroyedStatementDiscards) {
  const std::vector<ResourceVector> free_before = AllFree();
  const std::vector<std::vector<HostPort>> ports_before = AllPorts();
  {
    Statement statement(*session_);
    statement.Allocate(TaskOf("a"), NodeOf("n0"));
    statement.Allocate(TaskOf("c"), NodeOf("n0"));
  }
  EXPECT_EQ(AllFree(), free_before);
  EXPECT_EQ(AllPorts(), ports_before);
  EXPECT_THAT(session_->Finish().binds, IsEmpty());
}

TEST_F(StatementTest, CommitProducesBindsInCommitOrder) {
  {
    Statement first(*session_);
    first.Allocate(TaskOf("c"), NodeOf("n1"));
    first.Allocate(TaskOf("a"), NodeOf("n0"));
    first.Commit();
    EXPECT_EQ(first.size(), 0U);
  }  // destroying a committed statement undoes nothing
  {
    Statement second(*session_);
    second.Allocate(TaskOf("b"), NodeOf("n1"));
    second.Commit();
  }
  // n1: 2000m - 1000m (c) - 500m (b) = 500m left.
  EXPECT_EQ(session_->node_free(NodeOf("n1")).Get(kCpuId), 500);
  const SessionResult result = session_->Finish();
  ASSERT_EQ(result.binds.size(), 3U);
  EXPECT_EQ(result.binds[0].pod_name(), "c");
  EXPECT_EQ(result.binds[0].node_name(), "n1");
  EXPECT_EQ(result.binds[0].pod_uid(), "default/c");
  EXPECT_EQ(result.binds[0].namespace_name(), "default");
  EXPECT_EQ(result.binds[1].pod_name(), "a");
  EXPECT_EQ(result.binds[1].node_name(), "n0");
  EXPECT_EQ(result.binds[2].pod_name(), "b");
  EXPECT_EQ(result.binds[2].node_name(), "n1");
  EXPECT_EQ(result.stats.tasks_bound, 3);
}

TEST_F(StatementTest, DiscardAfterCommitUndoesOnlyLaterPlacements) {
  Statement statement(*session_);
  statement.Allocate(TaskOf("a"), NodeOf("n0"));
  statement.Commit();
  statement.Allocate(TaskOf("c"), NodeOf("n0"));
  statement.Discard();
  // a stays: 3000m - 1000m = 2000m.
  EXPECT_EQ(session_->node_free(NodeOf("n0")).Get(kCpuId), 2000);
  EXPECT_THAT(session_->Finish().binds, ElementsAre(Property(&BindDecision::pod_name, "a")));
}

TEST_F(StatementTest, UnschedulableVerdictsForPendingTasksOnly) {
  session_->RecordTaskUnschedulable(TaskOf("a"), TaskReason::kNoNodeFits, "first reason");
  session_->RecordTaskUnschedulable(TaskOf("a"), TaskReason::kNoNodeFits,
                                    "second reason");  // the first one wins
  session_->RecordTaskUnschedulable(TaskOf("c"), TaskReason::kNoNodeFits, "c does not fit");
  Statement statement(*session_);
  statement.Allocate(TaskOf("c"), NodeOf("n1"));
  statement.Commit();
  const SessionResult result = session_->Finish();
  ASSERT_EQ(result.unschedulable.size(), 1U);  // c was placed after all
  EXPECT_EQ(result.unschedulable[0].pod_name, "a");
  EXPECT_EQ(result.unschedulable[0].reason, "FailedScheduling");
  EXPECT_EQ(result.unschedulable[0].message, "first reason");
}

// --- FitErrors ---

TEST(FitErrors, CountsReasonsSortedByText) {
  FitErrors errors;
  errors.Add(FilterResult::Unschedulable("Y"));
  errors.Add(FilterResult::Unresolvable("X"));
  errors.Add(FilterResult::Unschedulable("Y"));
  errors.AddNodes(3);
  EXPECT_FALSE(errors.empty());
  EXPECT_EQ(errors.Message(), "0/3 nodes are available: 1 X, 2 Y.");
}

// kube-scheduler sorts the "<count> <reason>" strings (FitError.Error()), and session.h's own
// example shows that order: "1 node(s) had untolerated taint {gpu: true}, 2 Insufficient cpu."
TEST(FitErrors, KubeSchedulerWording) {
  FitErrors errors;
  errors.Add(FilterResult::Unresolvable("node(s) had untolerated taint {gpu: true}"));
  errors.Add(FilterResult::Unschedulable("Insufficient cpu", kCpuId));
  errors.Add(FilterResult::Unschedulable("Insufficient cpu", kCpuId));
  errors.AddNodes(3);
  EXPECT_EQ(errors.Message(),
            "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 2 Insufficient "
            "cpu.");
}

TEST(FitErrors, NoReasons) {
  FitErrors errors;
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(errors.Message(), "0/0 nodes are available.");
}

// --- PodGroup status through the whole core ---

const Condition* Unschedulable(const PodGroup& group) {
  return FindCondition(group.status.conditions, "Unschedulable");
}

// The status update of `group` in `result`, or nullptr.
const PodGroupUpdate* UpdateOf(const SessionResult& result, const std::string& group) {
  for (const PodGroupUpdate& u : result.group_updates) {
    if (u.name == group) return &u;
  }
  return nullptr;
}

// A gang of 2 x 1 cpu, minMember 2.
void AddGang(FakeCluster& cluster, const std::string& name, int pods = 2) {
  cluster.Add(MakePodGroup(name).MinMember(2).Build());
  for (int i = 0; i < pods; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", "1").Build());
  }
}

TEST(PodGroupStatus, PlacedGangIsRunningWithCounts) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  AddGang(cluster, "g", 3);
  // Session 1: enqueue admits, allocate places minMember = 2 pods, backfill the third. All are
  // Allocated in the session (scheduled), none Running yet.
  SessionResult first = cluster.RunSession();
  const PodGroupUpdate* update = UpdateOf(first, "g");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->status.phase, PodGroupPhase::kRunning);
  EXPECT_EQ(update->status.scheduled, 3);
  EXPECT_EQ(update->status.running, 0);
  const Condition* scheduled = FindCondition(update->status.conditions, "Scheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "True");
  EXPECT_EQ(scheduled->message, "minMember 2 reached");
  EXPECT_EQ(FindCondition(update->status.conditions, "Unschedulable"), nullptr);
  // Session 2: the binds were applied (kwok makes the pods Running).
  SessionResult second = cluster.RunSession();
  update = UpdateOf(second, "g");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->status.scheduled, 3);
  EXPECT_EQ(update->status.running, 3);
}

TEST(PodGroupStatus, NoUpdateOnceStable) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  AddGang(cluster, "g");
  cluster.RunSession();  // placed
  cluster.RunSession();  // running
  SessionResult third = cluster.RunSession();
  EXPECT_THAT(third.group_updates, IsEmpty());
  EXPECT_THAT(third.binds, IsEmpty());
  EXPECT_THAT(third.unschedulable, IsEmpty());
}

// The cluster has 2 CPUs free in all, enough to admit the gang of 2 x 1 CPU, but split so that
// only one pod fits: admitted (Inqueue), and unschedulable with the gang's message.
TEST(PodGroupStatus, AdmittedButUnplacedGangIsInqueueAndUnschedulable) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("1500m").Build());
  cluster.Add(MakeNode("n1").Cpu("500m").Build());
  AddGang(cluster, "g");
  SessionResult r = cluster.RunSession();
  const PodGroupUpdate* update = UpdateOf(r, "g");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->status.phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(update->status.scheduled, 0);
  const Condition* c = FindCondition(update->status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "NotEnoughResources");
  EXPECT_THAT(c->message, HasSubstr("1 of minMember 2 pods fit together"));
  EXPECT_EQ(c->last_transition_time, TestEpoch() + std::chrono::seconds(1));
  // The group's pods get the gang's message.
  ASSERT_EQ(r.unschedulable.size(), 2U);
  EXPECT_EQ(r.unschedulable[0].message, c->message);
}

TEST(PodGroupStatus, UnschedulableTurnsFalseWhenScheduled) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("1").Build());
  AddGang(cluster, "g");
  cluster.RunSession();  // t = epoch + 1s: Unschedulable True
  cluster.Add(MakeNode("n1").Cpu("1").Build());
  cluster.RunSession();  // t = epoch + 2s: both pods placed
  const PodGroup& group = cluster.group("default/g");
  EXPECT_EQ(group.status.phase, PodGroupPhase::kRunning);
  const Condition* c = Unschedulable(group);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Scheduled");
  EXPECT_EQ(c->last_transition_time, TestEpoch() + std::chrono::seconds(2));
}

TEST(PodGroupStatus, TransitionTimeKeptWhileStatusUnchanged) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("1500m").Build());
  cluster.Add(MakeNode("n1").Cpu("500m").Build());
  AddGang(cluster, "g");
  cluster.RunSession();  // t = epoch + 1s: admitted, Unschedulable True, 1 of 2 fit
  // Another scheduler takes the node: still unschedulable, now with a different message.
  cluster.Add(MakePod("squatter").SchedulerName("other").Request("cpu", "1").OnNode("n0").Build());
  SessionResult r = cluster.RunSession();  // t = epoch + 2s
  const PodGroupUpdate* update = UpdateOf(r, "g");
  ASSERT_NE(update, nullptr);  // the message changed
  const Condition* c = FindCondition(update->status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_THAT(c->message, HasSubstr("0 of minMember 2 pods fit together"));
  EXPECT_EQ(c->last_transition_time, TestEpoch() + std::chrono::seconds(1));
}

TEST(PodGroupStatus, UnchangedUnschedulableGangEmitsNoUpdate) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("1").Build());
  AddGang(cluster, "g");
  cluster.RunSession();
  cluster.Add(MakePriorityClass("unrelated", 5));  // a change, but not one that matters
  SessionResult r = cluster.RunSession();
  EXPECT_EQ(UpdateOf(r, "g"), nullptr);
}

TEST(PodGroupStatus, AllSucceededIsCompleted) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  AddGang(cluster, "g");
  cluster.RunSession();
  cluster.Finish("default/g-0");
  cluster.Finish("default/g-1");
  cluster.RunSession();
  const PodGroupStatus& status = cluster.group("default/g").status;
  EXPECT_EQ(status.phase, PodGroupPhase::kCompleted);
  EXPECT_EQ(status.succeeded, 2);
  EXPECT_EQ(status.scheduled, 0);
  EXPECT_EQ(status.running, 0);
}

TEST(PodGroupStatus, AllFinishedWithFailuresBelowMinimumIsFailed) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  AddGang(cluster, "g");
  cluster.RunSession();
  cluster.Finish("default/g-0", PodPhase::kSucceeded);
  cluster.Finish("default/g-1", PodPhase::kFailed);
  cluster.RunSession();
  const PodGroupStatus& status = cluster.group("default/g").status;
  // 1 succeeded < minMember 2, and one failed.
  EXPECT_EQ(status.phase, PodGroupPhase::kFailed);
  EXPECT_EQ(status.succeeded, 1);
  EXPECT_EQ(status.failed, 1);
}

TEST(PodGroupStatus, RunningGangLosingAPodGoesBackToInqueue) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("2").Build());
  AddGang(cluster, "g");
  cluster.RunSession();
  cluster.RunSession();
  cluster.DeletePod("default/g-1");
  cluster.RunSession();
  const PodGroupStatus& status = cluster.group("default/g").status;
  EXPECT_EQ(status.phase, PodGroupPhase::kInqueue);
  const Condition* scheduled = FindCondition(status.conditions, "Scheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "False");
  EXPECT_EQ(scheduled->reason, "NotEnoughPods");
}

// A group's pods hear that there are too few of them only after a grace period (allocate.cc:
// pods often arrive one by one). The grace is measured with the snapshot's `now`, so it must pass
// even when nothing in the cluster changes, as here once the group's status has settled.
TEST(PodGroupStatus, PodsOfAGroupWithTooFewPodsAreToldOnceTheGraceHasPassed) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).Build());
  cluster.Add(MakePod("g-0").Group("g").Request("cpu", "1").Build());
  SessionResult r;
  for (int s = 0; s < 30; ++s) r = cluster.RunSession();  // 30 s of sessions, one a second
  ASSERT_EQ(r.unschedulable.size(), 1U);
  EXPECT_EQ(r.unschedulable[0].pod_name, "g-0");
  EXPECT_THAT(r.unschedulable[0].message, HasSubstr("only 1 of minMember 2 pods exist"));
}

// A group seen before its pods is not found short of them during the arrival grace: a group
// created in one go never shows (nor has written, and then taken back) an Unschedulable
// condition; one whose pods do not come says NotEnoughPods once the grace has passed.
TEST(PodGroupStatus, AGroupShortOfPodsSaysSoOnlyOnceTheGraceHasPassed) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("whole").MinMember(2).Build());
  cluster.Add(MakePodGroup("short").MinMember(2).Build());
  cluster.Add(MakePod("short-0").Group("short").Request("cpu", "1").Build());
  cluster.RunSession();
  cluster.Add(MakePod("whole-0").Group("whole").Request("cpu", "1").Build());
  SessionResult r = cluster.RunSession();
  EXPECT_TRUE(r.unschedulable.empty());
  for (const char* g : {"default/whole", "default/short"}) {
    EXPECT_EQ(FindCondition(cluster.group(g).status.conditions, "Unschedulable"), nullptr) << g;
  }
  cluster.Add(MakePod("whole-1").Group("whole").Request("cpu", "1").Build());
  r = cluster.RunSession();
  EXPECT_EQ(r.binds.size(), 2U);
  EXPECT_EQ(FindCondition(cluster.group("default/whole").status.conditions, "Unschedulable"),
            nullptr);
  EXPECT_EQ(FindCondition(cluster.group("default/short").status.conditions, "Unschedulable"),
            nullptr);
  for (int s = 0; s < 10; ++s) cluster.RunSession();  // past the 10 s grace
  const Condition* c =
      FindCondition(cluster.group("default/short").status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "NotEnoughPods");
  EXPECT_EQ(FindCondition(cluster.group("default/whole").status.conditions, "Unschedulable"),
            nullptr);
}

// The grace runs from the group's newest pod too: a group made long before its pods (by a
// controller that creates the group first, or a benchmark) says it has none, but is not found
// short of them while they are arriving, one every few seconds; once they stop coming short, it
// says so again, and its pods hear it.
TEST(PodGroupStatus, AGroupWhosePodsStillArriveIsNotFoundShortOfThem) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  cluster.Add(MakePodGroup("g").MinMember(4).Build());
  for (int s = 0; s < 20; ++s) cluster.RunSession();  // 20 s: the group alone, short of all
  const Condition* alone =
      FindCondition(cluster.group("default/g").status.conditions, "Unschedulable");
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->status, "True");
  EXPECT_EQ(alone->reason, "NotEnoughPods");
  SessionResult r;
  for (int i = 0; i < 3; ++i) {
    cluster.Add(
        MakePod("g-" + std::to_string(i))
            .Group("g")
            .Request("cpu", "1")
            .Created(std::chrono::duration_cast<std::chrono::seconds>(cluster.now() - TestEpoch())
                         .count())
            .Build());
    for (int s = 0; s < 5; ++s) {
      r = cluster.RunSession();
      EXPECT_TRUE(r.unschedulable.empty()) << "pod " << i << ", second " << s;
    }
  }
  const Condition* arriving =
      FindCondition(cluster.group("default/g").status.conditions, "Unschedulable");
  ASSERT_NE(arriving, nullptr);
  EXPECT_EQ(arriving->status, "False");                  // its pods are coming
  for (int s = 0; s < 6; ++s) r = cluster.RunSession();  // 11 s after the third pod
  const Condition* c = FindCondition(cluster.group("default/g").status.conditions, "Unschedulable");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "NotEnoughPods");
  EXPECT_EQ(r.unschedulable.size(), 3U);
}

// A finished gang stays finished when its pods are cleaned up afterwards (a Job's
// ttlSecondsAfterFinished, `kubectl delete pod`): Completed is a final phase. Were it to go back
// to Inqueue, enqueue would reserve its minResources for ever (enqueue.h: groups admitted but not
// running reserve) and block every group that needs them.
TEST(PodGroupStatus, CompletedStaysCompletedWhenItsPodsAreDeleted) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  cluster.Add(MakePodGroup("done").MinMember(2).MinResource("cpu", "2").Build());
  for (int i = 0; i < 2; ++i) {
    cluster.Add(MakePod("done-" + std::to_string(i)).Group("done").Request("cpu", "1").Build());
  }
  cluster.RunSession();
  cluster.Finish("default/done-0");
  cluster.Finish("default/done-1");
  cluster.RunSession();
  ASSERT_EQ(cluster.group("default/done").status.phase, PodGroupPhase::kCompleted);
  cluster.DeletePod("default/done-0");
  cluster.DeletePod("default/done-1");
  cluster.RunSession();
  EXPECT_EQ(cluster.group("default/done").status.phase, PodGroupPhase::kCompleted);

  // Consequence if not: a new group needing 3 of the 4 free cpu is refused.
  cluster.Add(MakePodGroup("next").MinMember(1).MinResource("cpu", "3").Build());
  cluster.Add(MakePod("next-0").Group("next").Request("cpu", "3").Build());
  cluster.RunSession();
  EXPECT_FALSE(cluster.pod("default/next-0").spec.node_name.empty());
}

}  // namespace
}  // namespace arbiter
