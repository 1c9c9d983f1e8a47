// ClusterCache: what counts on a node, which pods become tasks, assumptions and their expiry,
// snapshot reuse, grouping of pods into jobs and the snapshot's orderings (cluster_cache.h,
// snapshot.h).
#include "arbiter/cache/cluster_cache.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;
using testing::MakeQueue;
using testing::TestEpoch;

// The monotonic instant at which BindFailed is called in the expiry tests.
const Clock::MonotonicTime kT0 = Clock::MonotonicTime(std::chrono::seconds(1000));

// A cache with one 4-cpu node "n1" in scope.
class ClusterCacheTest : public ::testing::Test {
 protected:
  ClusterCacheTest() : cache_(CacheOptions()) {
    cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("8Gi").Build());
  }

  std::shared_ptr<const Snapshot> Snap() { return cache_.TakeSnapshot(TestEpoch()); }

  // The node of that name in a fresh snapshot.
  NodeInfo NodeNamed(const std::string& name) {
    auto snap = Snap();
    std::optional<NodeIndex> n = snap->FindNode(name);
    EXPECT_TRUE(n.has_value()) << name;
    return n.has_value() ? snap->nodes[(*n).pos()] : NodeInfo{};
  }

  // The only task of the snapshot whose pod has that name.
  TaskInfo TaskNamed(const Snapshot& snap, const std::string& name) {
    for (const TaskInfo& t : snap.tasks) {
      if (t.name() == name) return t;
    }
    ADD_FAILURE() << "no task " << name;
    return TaskInfo{};
  }

  ClusterCache cache_;
};

// --- What counts on a node ---

TEST_F(ClusterCacheTest, PodBoundByAnotherSchedulerCountsOnTheNode) {
  cache_.UpsertPod(MakePod("other")
                       .SchedulerName("default-scheduler")
                       .Request("cpu", "1500m")
                       .OnNode("n1")
                       .HostPort(8080)
                       .Build());
  const NodeInfo n1 = NodeNamed("n1");
  EXPECT_EQ(n1.used.Get(kCpuId), 1500);
  EXPECT_EQ(n1.used.Get(kPodsId), 1);  // the implicit pods: 1 of the effective request
  EXPECT_EQ(n1.pod_count, 1);
  EXPECT_THAT(n1.host_ports_in_use, ElementsAre(HostPort{8080, "TCP", ""}));
  EXPECT_THAT(Snap()->tasks, IsEmpty());  // not ours: not a task
}

TEST_F(ClusterCacheTest, APodGivenSharedIsKeptNotCopied) {
  // The informers hand over the reflector's own copy of each pod: the snapshot's task is it.
  auto pod = std::make_shared<const Pod>(MakePod("p").Request("cpu", "1").Build());
  cache_.UpsertPod(pod);
  EXPECT_EQ(TaskNamed(*Snap(), "p").pod.get(), pod.get());
  // A newer version replaces it, and is counted as the copying overload would count it.
  auto bound = std::make_shared<const Pod>(MakePod("p").Request("cpu", "1").OnNode("n1").Build());
  cache_.UpsertPod(bound);
  EXPECT_EQ(TaskNamed(*Snap(), "p").pod.get(), bound.get());
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
}

TEST_F(ClusterCacheTest, APodMadeAgainBeforeTheOldOnesDeletionIsTheTask) {
  // A pod deleted and created again under its name: the watch may show the new one (another uid)
  // before the old one's deletion. The newer is the task; the older still counts on its node.
  cache_.UpsertPod(MakePod("p").Uid("old").Group("g").Request("cpu", "1").OnNode("n1").Build());
  cache_.UpsertPod(MakePod("p").Uid("new").Group("g").Request("cpu", "1").Build());
  auto snap = Snap();
  ASSERT_EQ(snap->tasks.size(), 1U);
  EXPECT_EQ(snap->tasks[0].uid(), "new");
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
  // The new one goes first: the job is forgotten, and the old one, updated, is its task again
  // (before, it pointed at the forgotten job).
  cache_.DeletePod(MakePod("p").Uid("new").Group("g").Build());
  cache_.UpsertPod(MakePod("p").Uid("old").Group("g").Request("cpu", "1").OnNode("n1").Build());
  snap = Snap();
  ASSERT_EQ(snap->tasks.size(), 1U);
  EXPECT_EQ(snap->tasks[0].uid(), "old");
  ASSERT_EQ(snap->jobs.size(), 1U);
  EXPECT_EQ(snap->jobs[0].name, "g");
  cache_.DeletePod(MakePod("p").Uid("old").Group("g").Build());
  EXPECT_THAT(Snap()->tasks, IsEmpty());
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 0);
}

TEST_F(ClusterCacheTest, PodCreatedWithNodeNameCountsAndIsBound) {
  cache_.UpsertPod(
      MakePod("direct").Request("cpu", "1").OnNode("n1").Phase(PodPhase::kPending).Build());
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
  auto snap = Snap();
  const TaskInfo task = TaskNamed(*snap, "direct");
  EXPECT_EQ(task.state, TaskState::kBound);
  EXPECT_EQ(task.node, *snap->FindNode("n1"));
}

// A pod's entry remembers its node's index between snapshots; when a node is added or removed
// the indexes move (nodes are in name order), and every bound and nominated task follows.
TEST_F(ClusterCacheTest, TasksFollowTheirNodesWhenNodesComeAndGo) {
  cache_.UpsertNode(MakeNode("n3").Cpu("4").Build());
  cache_.UpsertPod(MakePod("bound").Request("cpu", "1").OnNode("n3").Build());
  Pod nominated = MakePod("nominated").Request("cpu", "1").Build();
  nominated.status.nominated_node_name = "n3";
  cache_.UpsertPod(nominated);
  const auto expect_on_n3 = [&](const char* when) {
    auto snap = Snap();
    const NodeIndex n3 = *snap->FindNode("n3");
    EXPECT_EQ(TaskNamed(*snap, "bound").node, n3) << when;
    EXPECT_EQ(TaskNamed(*snap, "nominated").nominated, n3) << when;
    return n3;
  };
  EXPECT_EQ(expect_on_n3("first").value(), 1);
  cache_.UpsertNode(MakeNode("n2").Cpu("4").Build());  // before n3 in name order
  EXPECT_EQ(expect_on_n3("n2 added").value(), 2);
  cache_.UpsertNode(MakeNode("n2").Cpu("8").Build());  // an update moves nothing
  EXPECT_EQ(expect_on_n3("n2 updated").value(), 2);
  cache_.DeleteNode("n1");
  EXPECT_EQ(expect_on_n3("n1 deleted").value(), 1);
  cache_.DeleteNode("n3");
  auto snap = Snap();
  EXPECT_EQ(TaskNamed(*snap, "bound").node, kNoNode);
  EXPECT_EQ(TaskNamed(*snap, "nominated").nominated, kNoNode);
}

TEST_F(ClusterCacheTest, TerminalPodsDoNotCount) {
  cache_.UpsertPod(
      MakePod("done").Request("cpu", "1").OnNode("n1").Phase(PodPhase::kSucceeded).Build());
  cache_.UpsertPod(
      MakePod("broke").Request("cpu", "1").OnNode("n1").Phase(PodPhase::kFailed).Build());
  const NodeInfo n1 = NodeNamed("n1");
  EXPECT_TRUE(n1.used.IsZero());
  EXPECT_EQ(n1.pod_count, 0);
  auto snap = Snap();
  EXPECT_EQ(TaskNamed(*snap, "done").state, TaskState::kSucceeded);
  EXPECT_EQ(TaskNamed(*snap, "done").node, kNoNode);
  EXPECT_EQ(TaskNamed(*snap, "broke").state, TaskState::kFailed);
}

TEST_F(ClusterCacheTest, PodThatFinishesStopsCounting) {
  Pod pod = MakePod("p").Request("cpu", "1").OnNode("n1").Build();
  cache_.UpsertPod(pod);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
  pod.status.phase = PodPhase::kSucceeded;
  cache_.UpsertPod(pod);
  EXPECT_TRUE(NodeNamed("n1").used.IsZero());
}

TEST_F(ClusterCacheTest, DeletingPodStillCountsAsReleasing) {
  Pod pod = MakePod("going").Request("cpu", "1").OnNode("n1").Build();
  pod.meta.deletion_timestamp = TestEpoch();
  cache_.UpsertPod(pod);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
  EXPECT_EQ(TaskNamed(*Snap(), "going").state, TaskState::kReleasing);
}

TEST_F(ClusterCacheTest, DeletedPodStopsCounting) {
  const Pod pod = MakePod("p").Request("cpu", "1").OnNode("n1").Build();
  cache_.UpsertPod(pod);
  cache_.DeletePod(pod);
  const NodeInfo n1 = NodeNamed("n1");
  EXPECT_TRUE(n1.used.IsZero());
  EXPECT_EQ(n1.pod_count, 0);
  EXPECT_THAT(Snap()->tasks, IsEmpty());
}

TEST_F(ClusterCacheTest, CountsFollowUpsertsAndDeletions) {
  const Pod single = MakePod("single").Request("cpu", "1").Build();
  const Pod member = MakePod("w-0").Group("g").Request("cpu", "1").Build();
  const PodGroup group = MakePodGroup("g").MinMember(1).Build();
  cache_.UpsertPod(single);
  cache_.UpsertPod(member);
  cache_.UpsertPodGroup(group);
  cache_.UpsertQueue(MakeQueue("q"));
  cache_.Assume("default/single", "n1");
  ClusterCache::Counts c = cache_.counts();
  EXPECT_EQ(c.nodes, 1U);
  EXPECT_EQ(c.pods, 2U);
  EXPECT_EQ(c.pod_groups, 1U);
  EXPECT_EQ(c.jobs, 2U);
  EXPECT_EQ(c.queues, 1U);
  EXPECT_EQ(c.assumed, 1U);

  cache_.DeletePod(single);
  cache_.DeletePod(member);
  cache_.DeletePodGroup(group);
  cache_.DeleteQueue("q");
  c = cache_.counts();
  EXPECT_EQ(c.pods, 0U);
  EXPECT_EQ(c.pod_groups, 0U);
  EXPECT_EQ(c.jobs, 0U);
  EXPECT_EQ(c.queues, 0U);
  EXPECT_EQ(c.assumed, 0U);
}

TEST(ClusterCacheFilters, NamespaceFilterLimitsTasksNotCounting) {
  CacheOptions options;
  options.namespaces = {"ml"};
  ClusterCache cache(options);
  cache.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache.UpsertPod(MakePod("mine").Namespace("ml").Request("cpu", "1").OnNode("n1").Build());
  cache.UpsertPod(MakePod("theirs").Namespace("web").Request("cpu", "2").OnNode("n1").Build());
  cache.UpsertPod(MakePod("pending").Namespace("web").Request("cpu", "2").Build());
  cache.UpsertPodGroup(MakePodGroup("g").Namespace("web").Build());
  auto snap = cache.TakeSnapshot(TestEpoch());
  // Both bound pods count: 1 + 2 cpu.
  EXPECT_EQ(snap->nodes[0].used.Get(kCpuId), 3000);
  ASSERT_EQ(snap->tasks.size(), 1U);
  EXPECT_EQ(snap->tasks[0].Key(), "ml/mine");
  ASSERT_EQ(snap->jobs.size(), 1U);  // no job for web/g nor web/pending
  EXPECT_EQ(snap->jobs[0].Key(), "ml/mine");
}

TEST(ClusterCacheFilters, SchedulerNameFilterLimitsTasksNotCounting) {
  CacheOptions options;
  options.scheduler_name = "arbiter-gpu";
  ClusterCache cache(options);
  cache.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache.UpsertPod(MakePod("mine").SchedulerName("arbiter-gpu").Request("cpu", "1").Build());
  cache.UpsertPod(MakePod("theirs").Request("cpu", "2").OnNode("n1").Build());  // "arbiter"
  auto snap = cache.TakeSnapshot(TestEpoch());
  EXPECT_EQ(snap->nodes[0].used.Get(kCpuId), 2000);
  ASSERT_EQ(snap->tasks.size(), 1U);
  EXPECT_EQ(snap->tasks[0].name(), "mine");
}

TEST(ClusterCacheFilters, NodeSelectorPutsOtherNodesOutOfScope) {
  CacheOptions options;
  options.node_selector = {{"pool", "batch"}};
  ClusterCache cache(options);
  cache.UpsertNode(MakeNode("batch-1").Label("pool", "batch").Cpu("4").Build());
  cache.UpsertNode(MakeNode("web-1").Label("pool", "web").Cpu("4").Build());
  cache.UpsertPod(MakePod("p").SchedulerName("x").Request("cpu", "1").OnNode("web-1").Build());
  auto snap = cache.TakeSnapshot(TestEpoch());
  const NodeInfo& batch = snap->nodes[snap->FindNode("batch-1")->pos()];
  const NodeInfo& web = snap->nodes[snap->FindNode("web-1")->pos()];
  EXPECT_TRUE(batch.in_scope);
  EXPECT_EQ(batch.out_of_scope_why, "");
  EXPECT_FALSE(web.in_scope);
  EXPECT_EQ(web.out_of_scope_why, "node(s) didn't match the scheduler's --node-selector");
  EXPECT_EQ(web.used.Get(kCpuId), 1000);  // out of scope, still counted
}

TEST_F(ClusterCacheTest, NotReadyNodeIsOutOfScope) {
  cache_.UpsertNode(MakeNode("sick").Cpu("4").NotReady().Build());
  const NodeInfo sick = NodeNamed("sick");
  EXPECT_FALSE(sick.in_scope);
  EXPECT_EQ(sick.out_of_scope_why, "node(s) were not ready");
  EXPECT_TRUE(NodeNamed("n1").in_scope);
}

TEST_F(ClusterCacheTest, NodeWithoutReadyConditionIsOutOfScope) {
  Node node = MakeNode("new").Cpu("4").Build();
  node.conditions.clear();
  cache_.UpsertNode(node);
  EXPECT_EQ(NodeNamed("new").out_of_scope_why, "node(s) were not ready");
}

TEST_F(ClusterCacheTest, UnschedulableNodeIsOutOfScope) {
  cache_.UpsertNode(MakeNode("cordoned").Cpu("4").Unschedulable().Build());
  const NodeInfo cordoned = NodeNamed("cordoned");
  EXPECT_FALSE(cordoned.in_scope);
  EXPECT_EQ(cordoned.out_of_scope_why, "node(s) were unschedulable");
}

TEST_F(ClusterCacheTest, DeletingNodeIsOutOfScope) {
  Node node = MakeNode("leaving").Cpu("4").Build();
  node.meta.deletion_timestamp = TestEpoch();
  cache_.UpsertNode(node);
  EXPECT_EQ(NodeNamed("leaving").out_of_scope_why, "node(s) were being deleted");
}

// --- Assume, bind confirmation, failure expiry, forget ---

TEST_F(ClusterCacheTest, AssumedPodCountsAsBinding) {
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  cache_.Assume("default/p", "n1");
  EXPECT_EQ(cache_.assumed_count(), 1U);
  auto snap = Snap();
  EXPECT_EQ(snap->nodes[0].used.Get(kCpuId), 1000);
  EXPECT_EQ(snap->nodes[0].pod_count, 1);
  const TaskInfo task = TaskNamed(*snap, "p");
  EXPECT_EQ(task.state, TaskState::kBinding);
  EXPECT_EQ(task.node, *snap->FindNode("n1"));
}

TEST_F(ClusterCacheTest, AssumeIgnoresUnknownAndBoundPods) {
  cache_.Assume("default/ghost", "n1");
  cache_.UpsertPod(MakePod("bound").Request("cpu", "1").OnNode("n1").Build());
  cache_.Assume("default/bound", "n1");
  EXPECT_EQ(cache_.assumed_count(), 0U);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);  // counted once
}

TEST_F(ClusterCacheTest, WatchShowingBindClearsAssumption) {
  Pod pod = MakePod("p").Request("cpu", "1").Build();
  cache_.UpsertPod(pod);
  cache_.Assume("default/p", "n1");
  pod.spec.node_name = "n1";
  cache_.UpsertPod(pod);
  EXPECT_EQ(cache_.assumed_count(), 0U);
  auto snap = Snap();
  EXPECT_EQ(snap->nodes[0].used.Get(kCpuId), 1000);  // once, not twice
  EXPECT_EQ(snap->nodes[0].pod_count, 1);
  EXPECT_EQ(TaskNamed(*snap, "p").state, TaskState::kBound);
}

TEST_F(ClusterCacheTest, WatchShowingBindElsewhereMovesTheCount) {
  cache_.UpsertNode(MakeNode("n2").Cpu("4").Build());
  Pod pod = MakePod("p").Request("cpu", "1").Build();
  cache_.UpsertPod(pod);
  cache_.Assume("default/p", "n1");
  pod.spec.node_name = "n2";
  cache_.UpsertPod(pod);
  EXPECT_TRUE(NodeNamed("n1").used.IsZero());
  EXPECT_EQ(NodeNamed("n2").used.Get(kCpuId), 1000);
}

TEST_F(ClusterCacheTest, WatchUpdateOfUnboundPodKeepsAssumption) {
  Pod pod = MakePod("p").Request("cpu", "1").Build();
  cache_.UpsertPod(pod);
  cache_.Assume("default/p", "n1");
  pod.meta.labels["touched"] = "yes";  // an unrelated update, still unbound
  cache_.UpsertPod(pod);
  EXPECT_EQ(cache_.assumed_count(), 1U);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);
}

TEST_F(ClusterCacheTest, FailedBindIsForgottenAfterTheTtlNotBefore) {
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  cache_.Assume("default/p", "n1");
  cache_.BindFailed("default/p", kT0, std::chrono::seconds(30));

  EXPECT_EQ(cache_.ExpireAssumed(kT0 + std::chrono::seconds(29)), 0);
  EXPECT_EQ(cache_.assumed_count(), 1U);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);

  EXPECT_EQ(cache_.ExpireAssumed(kT0 + std::chrono::seconds(30)), 1);
  EXPECT_EQ(cache_.assumed_count(), 0U);
  auto snap = Snap();
  EXPECT_TRUE(snap->nodes[0].used.IsZero());
  EXPECT_EQ(TaskNamed(*snap, "p").state, TaskState::kPending);
  EXPECT_EQ(TaskNamed(*snap, "p").node, kNoNode);
}

TEST_F(ClusterCacheTest, AssumptionWithoutFailureNeverExpires) {
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  cache_.Assume("default/p", "n1");
  EXPECT_EQ(cache_.ExpireAssumed(kT0 + std::chrono::hours(24)), 0);
  EXPECT_EQ(cache_.assumed_count(), 1U);
}

TEST_F(ClusterCacheTest, ForgetDropsTheAssumptionAtOnce) {
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  cache_.Assume("default/p", "n1");
  cache_.Forget("default/p");
  EXPECT_EQ(cache_.assumed_count(), 0U);
  auto snap = Snap();
  EXPECT_TRUE(snap->nodes[0].used.IsZero());
  EXPECT_EQ(snap->nodes[0].pod_count, 0);
  EXPECT_EQ(TaskNamed(*snap, "p").state, TaskState::kPending);
}

// --- Snapshot reuse ---

// Preemption's decisions are assumed until the watch shows them, so that the next session does
// not count an evicted pod as running nor choose it again.
TEST_F(ClusterCacheTest, AssumedEvictionIsReleasingUntilTheWatchShowsTheDeletion) {
  Pod pod = MakePod("p").Request("cpu", "1").OnNode("n1").Build();
  cache_.UpsertPod(pod);
  cache_.AssumeEvicting("default/p", kT0 + std::chrono::seconds(30));
  EXPECT_EQ(TaskNamed(*Snap(), "p").state, TaskState::kReleasing);
  EXPECT_EQ(NodeNamed("n1").used.Get(kCpuId), 1000);  // it still holds the node

  pod.meta.deletion_timestamp = testing::TestEpoch();
  cache_.UpsertPod(pod);
  EXPECT_EQ(TaskNamed(*Snap(), "p").state, TaskState::kReleasing);
  cache_.ExpireAssumed(kT0 + std::chrono::hours(1));  // nothing left to expire
  EXPECT_EQ(TaskNamed(*Snap(), "p").state, TaskState::kReleasing);
}

TEST_F(ClusterCacheTest, RefusedEvictionIsForgottenAfterTheTtl) {
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").OnNode("n1").Build());
  cache_.AssumeEvicting("default/p", kT0 + std::chrono::seconds(30));
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(29));
  EXPECT_EQ(TaskNamed(*Snap(), "p").state, TaskState::kReleasing);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(30));
  EXPECT_EQ(TaskNamed(*Snap(), "p").state, TaskState::kRunning);
}

TEST_F(ClusterCacheTest, EachTaskNamesTheBudgetThatCoversIt) {
  const auto budget = [](const std::string& name, const std::string& app, std::int32_t allowed) {
    PodDisruptionBudget pdb;
    pdb.meta.namespace_name = "default";
    pdb.meta.name = name;
    pdb.selector.emplace().match_labels["app"] = app;
    pdb.disruptions_allowed = allowed;
    return pdb;
  };
  cache_.UpsertPodDisruptionBudget(budget("db", "db", 1));
  cache_.UpsertPodDisruptionBudget(budget("db-too", "db", 0));
  cache_.UpsertPodDisruptionBudget(budget("web", "web", 2));
  cache_.UpsertPod(MakePod("db").Label("app", "db").Build());
  cache_.UpsertPod(MakePod("web").Label("app", "web").Build());
  cache_.UpsertPod(MakePod("other").Build());
  auto snap = Snap();
  ASSERT_EQ(snap->pdbs.size(), 3U);  // db, db-too, web
  EXPECT_EQ(TaskNamed(*snap, "db").pdb, kSeveralPdbs);
  ASSERT_EQ(TaskNamed(*snap, "web").pdb, 2);
  EXPECT_EQ(snap->pdbs[2].allowed, 2);
  EXPECT_EQ(TaskNamed(*snap, "other").pdb, kNoPdb);
  cache_.DeletePodDisruptionBudget(budget("db-too", "db", 0));
  snap = Snap();
  EXPECT_EQ(TaskNamed(*snap, "db").pdb, 0);
  EXPECT_EQ(snap->pdbs[0].allowed, 1);
}

TEST_F(ClusterCacheTest, ARefusedPlanIsForgottenAndItsRefusedPodMarkedUntilTheTtl) {
  cache_.UpsertPod(MakePod("v").Request("cpu", "1").OnNode("n1").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  cache_.AssumeEvicting("default/v", kT0 + std::chrono::seconds(30));
  cache_.AssumeNominated("default/p", "n1", kT0 + std::chrono::seconds(30));
  cache_.ForgetEvicting("default/v");
  cache_.ForgetNominated("default/p");
  cache_.AssumeEvictionRefused("default/v", kT0 + std::chrono::seconds(30));
  EXPECT_EQ(TaskNamed(*Snap(), "v").state, TaskState::kRunning);
  EXPECT_TRUE(TaskNamed(*Snap(), "v").eviction_refused);
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, kNoNode);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(29));
  EXPECT_TRUE(TaskNamed(*Snap(), "v").eviction_refused);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(30));
  EXPECT_FALSE(TaskNamed(*Snap(), "v").eviction_refused);
}

TEST_F(ClusterCacheTest, AssumedNominationHoldsUntilTheWatchShowsIt) {
  Pod pod = MakePod("p").Request("cpu", "1").Build();
  cache_.UpsertPod(pod);
  const auto n1 = Snap()->FindNode("n1");
  ASSERT_TRUE(n1.has_value());
  cache_.AssumeNominated("default/p", "n1", kT0 + std::chrono::seconds(30));
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, *n1);
  cache_.UpsertPod(pod);  // an update from before the nomination was written changes nothing
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, *n1);
  pod.status.nominated_node_name = "n1";
  cache_.UpsertPod(pod);
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, *n1);
  // Cleared: the clearing is assumed too, then expires if the watch never shows it.
  cache_.AssumeNominated("default/p", "", kT0 + std::chrono::seconds(30));
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, kNoNode);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(31));
  EXPECT_EQ(TaskNamed(*Snap(), "p").nominated, *n1);
}

TEST_F(ClusterCacheTest, SnapshotIsReusedUntilSomethingChanges) {
  auto first = cache_.TakeSnapshot(TestEpoch());
  const std::uint64_t generation = cache_.generation();
  EXPECT_EQ(cache_.TakeSnapshot(TestEpoch() + std::chrono::seconds(1)), first);
  EXPECT_EQ(cache_.generation(), generation);

  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  EXPECT_GT(cache_.generation(), generation);
  auto second = cache_.TakeSnapshot(TestEpoch() + std::chrono::seconds(2));
  EXPECT_NE(second, first);
  EXPECT_EQ(second->tasks.size(), 1U);
  EXPECT_EQ(second->now, TestEpoch() + std::chrono::seconds(2));
  EXPECT_THAT(first->tasks, IsEmpty());  // the old snapshot is immutable
}

// A snapshot nobody holds lends its arrays to the next; one still held keeps its contents.
TEST_F(ClusterCacheTest, ArraysOfAHeldSnapshotAreNotReused) {
  cache_.UpsertPod(MakePod("a").Request("cpu", "1").Build());
  cache_.UpsertPod(MakePod("b").Request("cpu", "1").Build());
  auto held = cache_.TakeSnapshot(TestEpoch());
  cache_.DeletePod(MakePod("a").Build());
  cache_.TakeSnapshot(TestEpoch() + std::chrono::seconds(1));  // dropped at once
  cache_.UpsertPod(MakePod("c").Request("cpu", "2").Build());
  auto third = cache_.TakeSnapshot(TestEpoch() + std::chrono::seconds(2));
  cache_.UpsertPod(MakePod("d").Request("cpu", "3").Build());
  auto fourth = cache_.TakeSnapshot(TestEpoch() + std::chrono::seconds(3));
  ASSERT_EQ(held->tasks.size(), 2U);
  EXPECT_EQ(held->tasks[0].pod->meta.name, "a");
  EXPECT_EQ(held->tasks[1].pod->meta.name, "b");
  EXPECT_EQ(held->jobs.size(), 2U);
  ASSERT_EQ(third->tasks.size(), 2U);
  EXPECT_EQ(third->tasks[1].pod->meta.name, "c");
  ASSERT_EQ(fourth->tasks.size(), 3U);
  EXPECT_EQ(fourth->tasks[2].pod->meta.name, "d");
  EXPECT_EQ(fourth->jobs.size(), 3U);
}

TEST_F(ClusterCacheTest, FailedExpiryThatForgetsNothingKeepsTheSnapshot) {
  auto first = Snap();
  EXPECT_EQ(cache_.ExpireAssumed(kT0), 0);
  EXPECT_EQ(Snap(), first);
}

// --- Grouping pods into jobs ---

TEST(PodGroupNameOf, LabelThenVolcanoAnnotationThenSchedulerPluginsLabel) {
  EXPECT_EQ(PodGroupNameOf(MakePod("p")
                               .Label("arbiter.dev/pod-group", "a")
                               .Annotation("scheduling.k8s.io/group-name", "b")
                               .Label("scheduling.x-k8s.io/pod-group", "c")
                               .Build()),
            "a");
  EXPECT_EQ(PodGroupNameOf(MakePod("p")
                               .Annotation("scheduling.k8s.io/group-name", "b")
                               .Label("scheduling.x-k8s.io/pod-group", "c")
                               .Build()),
            "b");
  EXPECT_EQ(PodGroupNameOf(MakePod("p").Label("scheduling.x-k8s.io/pod-group", "c").Build()), "c");
  EXPECT_EQ(PodGroupNameOf(MakePod("p").Build()), "");
}

TEST(PodGroupNameOf, EmptyValueFallsThrough) {
  EXPECT_EQ(PodGroupNameOf(MakePod("p")
                               .Label("arbiter.dev/pod-group", "")
                               .Annotation("scheduling.k8s.io/group-name", "b")
                               .Build()),
            "b");
}

// --- Placement constraint hashes ---

TEST(PlacementConstraintHash, EqualConstraintsEqualHashes) {
  const Pod a =
      MakePod("a").NodeSelector("disk", "ssd").Tolerate("gpu", "true", "NoSchedule").Build();
  const Pod b =
      MakePod("b").NodeSelector("disk", "ssd").Tolerate("gpu", "true", "NoSchedule").Build();
  EXPECT_EQ(PlacementConstraintHash(a.spec), PlacementConstraintHash(b.spec));
  EXPECT_NE(PlacementConstraintHash(a.spec), PlacementConstraintHash(MakePod("c").Build().spec));
}

// "zoneNot In [x]" and "zone NotIn [x]" are different rules (on a node labelled zone=y the first
// fails, the second holds): they should not share a hash (a shared hash would only cost the
// verdict cache a comparison, never a wrong verdict).
TEST(PlacementConstraintHash, KeyAndOperatorDoNotRunTogether) {
  auto with_affinity = [](std::string key, NodeSelectorOperator op) {
    Pod pod = MakePod("p").Build();
    NodeSelector selector;
    selector.terms.push_back(
        NodeSelectorTerm{{NodeSelectorRequirement{std::move(key), op, {"x"}}}, {}});
    pod.spec.required_node_affinity = selector;
    return pod;
  };
  EXPECT_NE(PlacementConstraintHash(with_affinity("zoneNot", NodeSelectorOperator::kIn).spec),
            PlacementConstraintHash(with_affinity("zone", NodeSelectorOperator::kNotIn).spec));
}

TEST_F(ClusterCacheTest, PodsJoinTheirGroupByEachConvention) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(3).Queue("research").Build());
  cache_.UpsertPod(MakePod("a").Label("arbiter.dev/pod-group", "g").Build());
  cache_.UpsertPod(MakePod("b").Annotation("scheduling.k8s.io/group-name", "g").Build());
  cache_.UpsertPod(MakePod("c").Label("scheduling.x-k8s.io/pod-group", "g").Build());
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 1U);
  const JobInfo& job = snap->jobs[0];
  EXPECT_EQ(job.Key(), "default/g");
  EXPECT_EQ(job.uid, "pg/default/g");
  EXPECT_FALSE(job.IsSingleton());
  EXPECT_EQ(job.min_member, 3);
  EXPECT_EQ(job.queue, "research");
  EXPECT_EQ(job.queue_index, kNoQueue);  // queue "research" does not exist
  ASSERT_EQ(job.tasks.size(), 3U);
  for (TaskIndex t : job.tasks) EXPECT_EQ(snap->tasks[t.pos()].job, JobIndex(0));
}

TEST_F(ClusterCacheTest, LabelWinsOverAnnotationWhenTheyDisagree) {
  cache_.UpsertPodGroup(MakePodGroup("by-label").Build());
  cache_.UpsertPodGroup(MakePodGroup("by-annotation").Build());
  cache_.UpsertPod(MakePod("p")
                       .Label("arbiter.dev/pod-group", "by-label")
                       .Annotation("scheduling.k8s.io/group-name", "by-annotation")
                       .Build());
  auto snap = Snap();
  const JobIndex j = *snap->FindJob("default", "by-label");
  EXPECT_EQ(snap->jobs[j.pos()].tasks.size(), 1U);
  EXPECT_THAT(snap->jobs[snap->FindJob("default", "by-annotation")->pos()].tasks, IsEmpty());
}

TEST_F(ClusterCacheTest, PodWithoutGroupIsASingletonJob) {
  cache_.UpsertQueue(MakeQueue("default"));
  cache_.UpsertPod(MakePod("solo").Priority(7).Created(5).Build());
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 1U);
  const JobInfo& job = snap->jobs[0];
  EXPECT_TRUE(job.IsSingleton());
  EXPECT_EQ(job.name, "solo");
  EXPECT_EQ(job.uid, "default/solo");
  EXPECT_EQ(job.min_member, 1);
  EXPECT_EQ(job.queue, "default");
  EXPECT_EQ(job.queue_index, QueueIndex(0));
  EXPECT_EQ(job.priority, 7);
  EXPECT_EQ(job.creation, TestEpoch() + std::chrono::seconds(5));
  EXPECT_EQ(job.phase, PodGroupPhase::kInqueue);  // a group of one needs no admission
}

TEST_F(ClusterCacheTest, PodNamingAMissingGroupIsFlagged) {
  cache_.UpsertPod(MakePod("orphan").Group("nope").Build());
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 1U);
  const JobInfo& job = snap->jobs[0];
  EXPECT_EQ(job.Key(), "default/nope");
  EXPECT_TRUE(job.group_missing);
  EXPECT_EQ(job.group, nullptr);
  EXPECT_FALSE(job.IsSingleton());
  EXPECT_EQ(job.tasks.size(), 1U);
}

TEST_F(ClusterCacheTest, PodWithoutGroupNamedLikeAGroupStaysSeparate) {
  cache_.UpsertPodGroup(MakePodGroup("train").MinMember(2).Build());
  cache_.UpsertPod(MakePod("train-0").Group("train").Build());
  cache_.UpsertPod(MakePod("train").Build());  // no group, same name as the group
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 2U);
  int singletons = 0;
  for (const JobInfo& job : snap->jobs) {
    EXPECT_EQ(job.Key(), "default/train");
    ASSERT_EQ(job.tasks.size(), 1U);
    const TaskInfo& task = snap->tasks[(job.tasks[0]).pos()];
    if (job.IsSingleton()) {
      ++singletons;
      EXPECT_EQ(task.name(), "train");
    } else {
      EXPECT_EQ(task.name(), "train-0");
      EXPECT_EQ(job.min_member, 2);
    }
  }
  EXPECT_EQ(singletons, 1);
}

TEST_F(ClusterCacheTest, GroupWithoutPodsStillHasAJob) {
  cache_.UpsertPodGroup(MakePodGroup("empty").Phase(PodGroupPhase::kInqueue).Build());
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 1U);
  EXPECT_EQ(snap->jobs[0].phase, PodGroupPhase::kInqueue);
  EXPECT_THAT(snap->jobs[0].tasks, IsEmpty());
}

TEST_F(ClusterCacheTest, GroupMinResourcesAndTaskNames) {
  cache_.UpsertPodGroup(
      MakePodGroup("g").MinResource("cpu", "3").MinResource("nvidia.com/gpu", "2").Build());
  cache_.UpsertPod(MakePod("ps").Group("g").Task("ps").Build());
  auto snap = Snap();
  const JobInfo& job = snap->jobs[0];
  EXPECT_EQ(job.min_resources.Get(kCpuId), 3000);
  EXPECT_EQ(job.min_resources.Get(*snap->resources.Find("nvidia.com/gpu")), 2);
  EXPECT_EQ(snap->tasks[0].task_name, "ps");
}

// A group naming a DataSet of its namespace gets it in the snapshot while it exists; one of
// another namespace with that name is not its.
TEST_F(ClusterCacheTest, AGroupGetsTheDataSetItNamesInItsNamespace) {
  cache_.UpsertPodGroup(MakePodGroup("g").DataSetName("clicks").Build());
  EXPECT_EQ(Snap()->jobs[0].data_set, nullptr);
  DataSet elsewhere;
  elsewhere.meta.namespace_name = "other";
  elsewhere.meta.name = "clicks";
  cache_.UpsertDataSet(elsewhere);
  EXPECT_EQ(Snap()->jobs[0].data_set, nullptr);
  DataSet clicks = elsewhere;
  clicks.meta.namespace_name = "default";
  clicks.blocks = {DataBlock{"b0", {"n1"}}};
  cache_.UpsertDataSet(clicks);
  auto snap = Snap();
  ASSERT_NE(snap->jobs[0].data_set, nullptr);
  EXPECT_EQ(*snap->jobs[0].data_set, clicks);
  cache_.DeleteDataSet(clicks);
  EXPECT_EQ(Snap()->jobs[0].data_set, nullptr);
}

// --- PodGroups of other APIs ---

TEST_F(ClusterCacheTest, PodsJoinAGroupOfAnyApiByItsName) {
  cache_.UpsertPodGroup(
      MakePodGroup("tf").MinMember(2).Queue("ml").Dialect(PodGroupDialect::kVolcano).Build());
  Pod ps = MakePod("ps").Build();
  ps.meta.annotations[std::string(kVolcanoGroupAnnotation)] = "tf";
  cache_.UpsertPod(ps);
  Pod worker = MakePod("worker").Build();
  worker.spec.scheduling_group = "tf";  // another convention, the same name: the same job
  cache_.UpsertPod(worker);
  auto snap = Snap();
  ASSERT_EQ(snap->jobs.size(), 1U);
  EXPECT_EQ(snap->jobs[0].tasks.size(), 2U);
  EXPECT_EQ(snap->jobs[0].min_member, 2);
  EXPECT_EQ(snap->jobs[0].queue, "ml");
  ASSERT_NE(snap->jobs[0].group, nullptr);
  EXPECT_EQ(snap->jobs[0].group->dialect, PodGroupDialect::kVolcano);
}

TEST_F(ClusterCacheTest, OfGroupsSharingANameArbitersIsTheGroupThenKubernetesThenVolcano) {
  cache_.UpsertPodGroup(
      MakePodGroup("g").MinMember(4).Dialect(PodGroupDialect::kSchedulerPlugins).Build());
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(3).Dialect(PodGroupDialect::kVolcano).Build());
  EXPECT_EQ(Snap()->jobs[0].min_member, 3);
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(1).Build());
  EXPECT_EQ(Snap()->jobs[0].min_member, 1);
  cache_.UpsertPodGroup(
      MakePodGroup("g").MinMember(2).Dialect(PodGroupDialect::kKubernetes).Build());
  EXPECT_EQ(Snap()->jobs[0].min_member, 1);
  cache_.DeletePodGroup(MakePodGroup("g").Build());
  EXPECT_EQ(Snap()->jobs[0].min_member, 2);
  cache_.DeletePodGroup(MakePodGroup("g").Dialect(PodGroupDialect::kKubernetes).Build());
  cache_.DeletePodGroup(MakePodGroup("g").Dialect(PodGroupDialect::kVolcano).Build());
  EXPECT_EQ(Snap()->jobs[0].min_member, 4);
  cache_.DeletePodGroup(MakePodGroup("g").Dialect(PodGroupDialect::kSchedulerPlugins).Build());
  EXPECT_THAT(Snap()->jobs, IsEmpty());
}

TEST_F(ClusterCacheTest, KubernetesGroupsResolvedPriorityCountsWithoutTheClass) {
  PodGroup group =
      MakePodGroup("g").PriorityClass("urgent").Dialect(PodGroupDialect::kKubernetes).Build();
  group.spec.priority = 700;
  cache_.UpsertPodGroup(group);
  EXPECT_EQ(Snap()->jobs[0].priority, 700);
  cache_.UpsertPriorityClass(MakePriorityClass("urgent", 900));
  EXPECT_EQ(Snap()->jobs[0].priority, 900);
}

// Another API's status cannot hold all of Arbiter's (Kubernetes' has no phase): what the
// scheduler wrote stays until it writes another, whatever the watch shows, and goes with the
// object.
TEST_F(ClusterCacheTest, AnotherApisGroupKeepsTheStatusTheSchedulerWrote) {
  PodGroup group = MakePodGroup("g").MinMember(2).Dialect(PodGroupDialect::kKubernetes).Build();
  cache_.UpsertPodGroup(group);
  PodGroupStatus admitted;
  admitted.phase = PodGroupPhase::kInqueue;
  admitted.preemption_count = 1;
  cache_.AssumeGroupStatus("default", "g", admitted, kT0);
  EXPECT_EQ(cache_.ExpireAssumed(kT0 + std::chrono::hours(1)), 0);
  group.meta.resource_version = "2";  // the write, as the watch shows it: no phase
  group.spec.min_member = 3;          // and a new spec
  cache_.UpsertPodGroup(group);
  auto snap = Snap();
  EXPECT_EQ(snap->jobs[0].phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(snap->jobs[0].group->status.preemption_count, 1);
  EXPECT_EQ(snap->jobs[0].min_member, 3);
  // A new object of the same name starts from what its own status says.
  group.meta.uid = "another";
  cache_.UpsertPodGroup(group);
  EXPECT_EQ(Snap()->jobs[0].phase, PodGroupPhase::kPending);
}

TEST_F(ClusterCacheTest, ArbitersGroupDropsTheAssumedStatusOnceTheWatchShowsIt) {
  PodGroup group = MakePodGroup("g").MinMember(2).Build();
  cache_.UpsertPodGroup(group);
  PodGroupStatus admitted;
  admitted.phase = PodGroupPhase::kInqueue;
  cache_.AssumeGroupStatus("default", "g", admitted, kT0);
  group.spec.min_member = 3;  // a spec change before the write shows: the spec is the new one
  cache_.UpsertPodGroup(group);
  EXPECT_EQ(Snap()->jobs[0].phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(Snap()->jobs[0].min_member, 3);
  group.status = admitted;
  cache_.UpsertPodGroup(group);
  EXPECT_EQ(Snap()->jobs[0].phase, PodGroupPhase::kInqueue);
  group.status.phase = PodGroupPhase::kPending;  // another writer: the watch is the truth now
  cache_.UpsertPodGroup(group);
  EXPECT_EQ(Snap()->jobs[0].phase, PodGroupPhase::kPending);
}

// The watch never shows the write (lost, or another writer's won): the assumed status goes at
// its expiry, and an assumption made again since lasts until its own.
TEST_F(ClusterCacheTest, ArbitersGroupAssumedStatusExpiresAtTheLatestAssumptionsTime) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(2).Build());
  cache_.UpsertPodGroup(MakePodGroup("h").MinMember(2).Build());
  PodGroupStatus admitted;
  admitted.phase = PodGroupPhase::kInqueue;
  PodGroupStatus running;
  running.phase = PodGroupPhase::kRunning;
  cache_.AssumeGroupStatus("default", "g", admitted, kT0 + std::chrono::seconds(10));
  cache_.AssumeGroupStatus("default", "h", admitted, kT0 + std::chrono::seconds(10));
  cache_.AssumeGroupStatus("default", "g", running, kT0 + std::chrono::seconds(20));
  const auto phase_of = [&](const std::string& name) {
    auto snap = Snap();
    auto job = std::find_if(snap->jobs.begin(), snap->jobs.end(),
                            [&](const JobInfo& j) { return j.name == name; });
    EXPECT_NE(job, snap->jobs.end()) << name;
    return job == snap->jobs.end() ? PodGroupPhase::kFailed : job->phase;
  };
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(9));
  EXPECT_EQ(phase_of("g"), PodGroupPhase::kRunning);
  EXPECT_EQ(phase_of("h"), PodGroupPhase::kInqueue);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(10));
  EXPECT_EQ(phase_of("g"), PodGroupPhase::kRunning);
  EXPECT_EQ(phase_of("h"), PodGroupPhase::kPending);
  cache_.ExpireAssumed(kT0 + std::chrono::seconds(20));
  EXPECT_EQ(phase_of("g"), PodGroupPhase::kPending);
}

// --- Priorities ---

TEST_F(ClusterCacheTest, JobPriorityComesFromTheGroupsPriorityClass) {
  cache_.UpsertPriorityClass(MakePriorityClass("high", 1000));
  cache_.UpsertPodGroup(MakePodGroup("g").PriorityClass("high").Build());
  cache_.UpsertPod(MakePod("p").Group("g").Priority(5).Build());
  auto snap = Snap();
  EXPECT_EQ(snap->jobs[0].priority, 1000);
  EXPECT_EQ(snap->jobs[0].priority_class_name, "high");
  EXPECT_EQ(snap->tasks[0].priority, 5);  // the task's own spec.priority
}

TEST_F(ClusterCacheTest, GroupWithoutClassTakesTheGlobalDefault) {
  PriorityClass fallback = MakePriorityClass("normal", 50);
  fallback.global_default = true;
  cache_.UpsertPriorityClass(fallback);
  cache_.UpsertPriorityClass(MakePriorityClass("high", 1000));
  cache_.UpsertPodGroup(MakePodGroup("plain").Build());
  cache_.UpsertPodGroup(MakePodGroup("typo").PriorityClass("hihg").Build());
  auto snap = Snap();
  EXPECT_EQ(snap->jobs[snap->FindJob("default", "plain")->pos()].priority, 50);
  EXPECT_EQ(snap->jobs[snap->FindJob("default", "typo")->pos()].priority, 50);
}

TEST_F(ClusterCacheTest, WithoutAnyClassPriorityIsZero) {
  cache_.UpsertPodGroup(MakePodGroup("g").Build());
  cache_.UpsertPod(MakePod("p").Group("g").Build());
  auto snap = Snap();
  EXPECT_EQ(snap->jobs[0].priority, 0);
  EXPECT_EQ(snap->tasks[0].priority, 0);
}

// --- Orderings and lookups ---

TEST(ClusterCacheSnapshot, EveryVectorIsSorted) {
  ClusterCache cache{CacheOptions()};
  for (const char* name : {"n3", "n1", "n2"}) {
    cache.UpsertNode(MakeNode(name).Cpu("1").Build());
  }
  for (const char* name : {"zeta", "alpha", "mid"}) cache.UpsertQueue(MakeQueue(name));
  cache.UpsertPodGroup(MakePodGroup("g").Namespace("b").Build());
  for (const char* name : {"g-2", "g-0", "g-1"}) {
    cache.UpsertPod(
        MakePod(name).Namespace("b").Group("g").Uid(std::string("uid-") + name).Build());
  }
  cache.UpsertPod(MakePod("solo").Namespace("a").Uid("uid-zzz").Build());
  cache.UpsertPod(MakePod("later").Namespace("c").Uid("uid-aaa").Build());
  auto snap = cache.TakeSnapshot(TestEpoch());

  std::vector<std::string> nodes;
  for (const NodeInfo& n : snap->nodes) nodes.push_back(n.name());
  EXPECT_THAT(nodes, ElementsAre("n1", "n2", "n3"));
  std::vector<std::string> queues;
  for (const QueueInfo& q : snap->queues) queues.push_back(q.name());
  EXPECT_THAT(queues, ElementsAre("alpha", "mid", "zeta"));
  std::vector<std::string> jobs;
  for (const JobInfo& j : snap->jobs) jobs.push_back(j.Key());
  EXPECT_THAT(jobs, ElementsAre("a/solo", "b/g", "c/later"));
  // Tasks by job, then by name (not by uid nor by insertion).
  std::vector<std::string> tasks;
  for (const TaskInfo& t : snap->tasks) tasks.push_back(t.Key());
  EXPECT_THAT(tasks, ElementsAre("a/solo", "b/g-0", "b/g-1", "b/g-2", "c/later"));
  const JobInfo& g = snap->jobs[1];
  EXPECT_THAT(g.tasks, ElementsAre(TaskIndex(1), TaskIndex(2), TaskIndex(3)));
}

TEST(ClusterCacheSnapshot, FindNodeJobQueue) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("n1").Build());
  cache.UpsertNode(MakeNode("n2").Build());
  cache.UpsertQueue(MakeQueue("default"));
  cache.UpsertQueue(MakeQueue("research"));
  cache.UpsertPodGroup(MakePodGroup("g").Namespace("ml").Queue("research").Build());
  cache.UpsertPod(MakePod("solo").Namespace("ml").Build());
  auto snap = cache.TakeSnapshot(TestEpoch());

  EXPECT_EQ(snap->FindNode("n2"), std::optional<NodeIndex>(1));
  EXPECT_EQ(snap->FindNode("n0"), std::nullopt);
  EXPECT_EQ(snap->FindNode("n3"), std::nullopt);
  EXPECT_EQ(snap->FindQueue("research"), std::optional<QueueIndex>(1));
  EXPECT_EQ(snap->FindQueue("nope"), std::nullopt);
  EXPECT_EQ(snap->FindJob("ml", "g"), std::optional<JobIndex>(0));
  EXPECT_EQ(snap->FindJob("ml", "solo"), std::optional<JobIndex>(1));
  EXPECT_EQ(snap->FindJob("default", "g"), std::nullopt);
  EXPECT_EQ(snap->FindJob("ml", "h"), std::nullopt);
  EXPECT_EQ(snap->jobs[0].queue_index, QueueIndex(1));  // "research"
}

TEST(ClusterCacheSnapshot, NamespaceLabelsAreCopied) {
  ClusterCache cache{CacheOptions()};
  Namespace ns;
  ns.meta.name = "ml";
  ns.meta.labels = {{"team", "vision"}};
  cache.UpsertNamespace(ns);
  auto snap = cache.TakeSnapshot(TestEpoch());
  ASSERT_TRUE(snap->namespace_labels.contains("ml"));
  EXPECT_EQ(snap->namespace_labels.at("ml").at("team"), "vision");
}

}  // namespace
}  // namespace arbiter
