// The placement room (placement.h): classes share verdicts only when the needs are equal, not
// merely their hashes; plugins may not consult each other while being opened; a session reports
// the time of each action and plugin.
#include "arbiter/framework/placement.h"

#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/framework/config.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"
#include "arbiter/plugins/nodeorder.h"
#include "arbiter/plugins/predicates.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::TestEpoch;

TaskIndex TaskOf(const Snapshot& snapshot, const std::string& pod) {
  for (std::size_t i = 0; i < snapshot.tasks.size(); ++i) {
    if (snapshot.tasks[i].name() == pod) return TaskIndex::Of(i);
  }
  ADD_FAILURE() << "no task " << pod;
  return TaskIndex(0);
}

PluginSet PredicatesOnly() {
  PluginSet plugins;
  auto plugin = std::make_unique<PredicatesPlugin>();
  plugins.filter.push_back({plugin.get()});
  plugins.owned.push_back(std::move(plugin));
  return plugins;
}

// What PickNode's scan in node order picks: every node filtered and scored afresh, one at a
// time, the highest score, ties to the first node; `errors` says why each other node was refused.
std::optional<NodeIndex> ScanPick(Session& session, TaskIndex task, FitErrors& errors) {
  std::optional<NodeIndex> best;
  double best_score = -std::numeric_limits<double>::infinity();
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    const FilterResult r = session.placement().Filter(task, n);
    if (!r.fit()) {
      errors.Add(r);
      continue;
    }
    const double score = session.placement().Score(task, n);
    if (score > best_score) {
      best = n;
      best_score = score;
    }
  }
  return best;
}

// A class of identical pods keeps its best node incrementally, from the nodes changed since it
// last looked, and a pod alone in its class has every node filtered and scored in one batch per
// plugin. Through placements, undos, evictions and restores in random order (on nodes of a few
// sizes, so that scores tie), both pick exactly the node that filtering and scoring one node at a
// time picks, and none, with the same reasons, when it finds none. On a few nodes (one block of the
// kept best) and on more than a block of evaluation (several of the kept best, the last partial).
void CheckKeptBestAgainstScan(int nodes, int pods, int steps) {
  ClusterCache cache{CacheOptions()};
  for (int n = 0; n < nodes; ++n) {
    cache.UpsertNode(MakeNode("n" + std::to_string(100 + n))
                         .Cpu(std::to_string(1 + n % 4))
                         .Memory(std::to_string(2 + n % 3) + "Gi")
                         .Build());
  }
  for (int p = 0; p < 40; ++p) {
    cache.UpsertPod(MakePod("run" + std::to_string(p))
                        .Request("cpu", "300m")
                        .Request("memory", "256Mi")
                        .OnNode("n" + std::to_string(100 + p % nodes))
                        .Build());
  }
  for (int p = 0; p < pods; ++p) {
    // Most pods alike (one class, its verdicts cached); every third one its own (evaluated in one
    // batch per pick); some with a host port, which only one pod per node may have.
    auto pod = MakePod("p" + std::to_string(p))
                   .Request("cpu", p % 3 == 0 ? std::to_string(800 + p) + "m" : "900m")
                   .Request("memory", "300Mi");
    if (p % 5 == 0) pod.HostPort(8080);
    cache.UpsertPod(pod.Build());
  }
  const Snapshot snapshot = *cache.TakeSnapshot(TestEpoch());
  PluginSet plugins = PredicatesOnly();
  auto order = std::make_unique<NodeOrderPlugin>(NodeOrderWeights{});
  plugins.score.push_back({order.get()});
  plugins.owned.push_back(std::move(order));
  Session session(snapshot, plugins);
  Statement statement(session);

  std::vector<TaskIndex> pending;
  std::vector<TaskIndex> placed;
  std::vector<TaskIndex> running;
  std::vector<TaskIndex> evicted;
  for (std::size_t i = 0; i < snapshot.tasks.size(); ++i) {
    const TaskIndex t = TaskIndex::Of(i);
    (session.task_state(t) == TaskState::kPending ? pending : running).push_back(t);
  }
  std::mt19937 random(7);
  const auto take = [&](std::vector<TaskIndex>& from) {
    const std::size_t i = random() % from.size();
    const TaskIndex t = from[i];
    from.erase(from.begin() + static_cast<std::ptrdiff_t>(i));
    return t;
  };
  int picks = 0;
  int none = 0;
  for (int step = 0; step < steps; ++step) {
    const std::uint32_t what = random() % 10;
    if (what < 6 && !pending.empty()) {
      const TaskIndex t = pending[random() % pending.size()];
      FitErrors errors;
      const std::optional<NodeIndex> want = ScanPick(session, t, errors);
      PlacementFailure failure;
      const std::optional<NodeIndex> got = session.placement().PickNode(t, &failure);
      ASSERT_EQ(got, want) << "step " << step;
      ++picks;
      if (!got.has_value()) {
        ++none;
        errors.AddNodes(nodes);
        EXPECT_EQ(failure.errors.Message(), errors.Message()) << "step " << step;
        continue;
      }
      statement.Allocate(t, *got);
      placed.push_back(t);
      std::erase(pending, t);
    } else if (what < 8 && !placed.empty()) {
      const TaskIndex t = take(placed);
      statement.Withdraw(t);
      pending.push_back(t);
    } else if (what < 9 && !running.empty()) {
      const TaskIndex t = take(running);
      statement.Evict(t);
      evicted.push_back(t);
    } else if (!evicted.empty()) {
      const TaskIndex t = take(evicted);
      if (!statement.CanRestore(t)) {
        evicted.push_back(t);
        continue;
      }
      statement.Restore(t);
      running.push_back(t);
    }
  }
  // Both ways were walked: nodes found, and the cluster full for a while.
  EXPECT_GT(picks, 200);
  EXPECT_GT(none, 0);
  EXPECT_LT(none, picks);
}

TEST(Placement, TheKeptBestNodeIsTheScansChoice) { CheckKeptBestAgainstScan(37, 120, 600); }

TEST(Placement, TheKeptBestNodeIsTheScansChoiceOverManyBlocks) {
  CheckKeptBestAgainstScan(700, 2400, 8000);
}

// With no node at all, identical pods are looked at again and again (each finds none): the
// class, filled once with empty arrays, keeps them rather than taking another's.
TEST(Placement, AClassInAClusterWithNoNodesFindsNoneEachTime) {
  ClusterCache cache{CacheOptions()};
  for (const auto* pod : {"a", "b", "c"}) {
    cache.UpsertPod(MakePod(pod).Request("cpu", "1").Build());
  }
  const Snapshot snapshot = *cache.TakeSnapshot(TestEpoch());
  const PluginSet plugins = PredicatesOnly();
  Session session(snapshot, plugins);
  for (int round = 0; round < 2; ++round) {
    for (const auto* pod : {"a", "b", "c"}) {
      PlacementFailure failure;
      EXPECT_FALSE(session.placement().PickNode(TaskOf(snapshot, pod), &failure).has_value());
      EXPECT_EQ(failure.errors.Message(), "0/0 nodes are available.");
    }
  }
}

// A score plugin of no fixed range.
class ConstantScore final : public Plugin, public ScoreExtension {
 public:
  explicit ConstantScore(double score) : score_(score) {}
  std::string_view Name() const override { return "constant"; }
  double Score(const Session& /*session*/, TaskIndex /*task*/, NodeIndex /*node*/) const override {
    return score_;
  }

 private:
  double score_;
};

// A node that fits but scores -inf (or NaN) is never chosen, as the scan in node order never
// takes it, and it gives no reason in the message: only the nodes refused are counted.
TEST(Placement, ANodeScoringMinusInfinityIsNotChosenAndGivesNoReason) {
  for (const double score :
       {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    ClusterCache cache{CacheOptions()};
    cache.UpsertNode(MakeNode("big").Cpu("4").Build());
    cache.UpsertNode(MakeNode("small").Cpu("1").Build());
    for (const auto* pod : {"alone", "same1", "same2"}) {
      cache.UpsertPod(MakePod(pod).Request("cpu", std::string(pod) == "alone" ? "3" : "2").Build());
    }
    const Snapshot snapshot = *cache.TakeSnapshot(TestEpoch());
    PluginSet plugins = PredicatesOnly();
    auto constant = std::make_unique<ConstantScore>(score);
    plugins.score.push_back({constant.get()});
    plugins.owned.push_back(std::move(constant));
    Session session(snapshot, plugins);
    for (const auto* pod : {"alone", "same1"}) {  // alone in its class; a class of two
      PlacementFailure failure;
      EXPECT_FALSE(session.placement().PickNode(TaskOf(snapshot, pod), &failure).has_value())
          << pod << " " << score;
      EXPECT_EQ(failure.errors.Message(), "0/2 nodes are available: 1 Insufficient cpu.")
          << pod << " " << score;
    }
  }
}

// Two pods that want different zones, given the same hashes (as a collision would): each must
// still get the node of its own zone, so the second may not reuse the first one's verdicts.
TEST(Placement, AHashCollisionNeverSharesAVerdict) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("na").Cpu("4").Label("zone", "a").Build());
  cache.UpsertNode(MakeNode("nb").Cpu("4").Label("zone", "b").Build());
  for (const auto* pod : {"pa", "pa2", "pb", "pb2"}) {
    const std::string zone = std::string(pod).substr(1, 1);
    cache.UpsertPod(MakePod(pod).Request("cpu", "1").NodeSelector("zone", zone).Build());
  }
  Snapshot snapshot = *cache.TakeSnapshot(TestEpoch());
  for (TaskInfo& task : snapshot.tasks) {
    task.constraint_hash = 7;
    task.placement_hash = 7;
  }
  const PluginSet plugins = PredicatesOnly();
  Session session(snapshot, plugins);
  for (const auto* pod : {"pa", "pb", "pa2", "pb2"}) {
    std::optional<NodeIndex> node = session.placement().PickNode(TaskOf(snapshot, pod), nullptr);
    ASSERT_TRUE(node.has_value()) << pod;
    EXPECT_EQ(session.node(*node).name(), std::string("n") + pod[1]) << pod;
  }
  EXPECT_FALSE(session.placement().SameNeeds(TaskOf(snapshot, "pa"), TaskOf(snapshot, "pb")));
  EXPECT_TRUE(session.placement().SameNeeds(TaskOf(snapshot, "pa"), TaskOf(snapshot, "pa2")));
}

// Filtering one task's nodes on several threads chooses exactly what one thread chooses: the same
// binds and the same messages, for identical pods (one class) and for pods that all differ.
TEST(Placement, FilterThreadsDecideAsOneThreadDoes) {
  SchedulerConfig threaded = DefaultSchedulerConfig();
  threaded.filter_threads = 2;
  testing::FakeCluster one;
  testing::FakeCluster three(threaded);
  for (testing::FakeCluster* cluster : {&one, &three}) {
    for (int n = 0; n < 1500; ++n) {
      cluster->Add(MakeNode("n" + std::to_string(n))
                       .Cpu(n % 7 == 0 ? "2" : "1")
                       .Label("zone", n % 2 == 0 ? "a" : "b")
                       .Build());
    }
    for (int p = 0; p < 60; ++p) {
      // Some alike (one class), some each its own (memory differs), some that fit nowhere.
      cluster->Add(MakePod("p" + std::to_string(p))
                       .Request("cpu", p % 10 == 9 ? "3" : "1")
                       .Request("memory", std::to_string(1000 + (p % 3 == 0 ? p : 0)))
                       .NodeSelector("zone", p % 2 == 0 ? "a" : "b")
                       .Build());
    }
  }
  const SessionResult a = one.RunSession();
  const SessionResult b = three.RunSession();
  ASSERT_EQ(a.binds.size(), b.binds.size());
  for (std::size_t i = 0; i < a.binds.size(); ++i) {
    EXPECT_EQ(a.binds[i].pod_name(), b.binds[i].pod_name());
    EXPECT_EQ(a.binds[i].node_name(), b.binds[i].node_name()) << a.binds[i].pod_name();
  }
  ASSERT_EQ(a.unschedulable.size(), b.unschedulable.size());
  ASSERT_FALSE(a.unschedulable.empty());
  for (std::size_t i = 0; i < a.unschedulable.size(); ++i) {
    EXPECT_EQ(a.unschedulable[i].message, b.unschedulable[i].message);
  }
  EXPECT_EQ(a.stats.nodes_filtered, b.stats.nodes_filtered);
}

// With filter threads on a cluster large enough that each thread's share is more than one grain
// of nodes: a pod that fits only on the last node goes there, and one that fits nowhere is found
// none (each share's best starts as none, not as node 0).
TEST(Placement, FilterThreadsFindTheOnlyNodeAndNoneWhereNoneFits) {
  SchedulerConfig threaded = DefaultSchedulerConfig();
  threaded.filter_threads = 2;
  testing::FakeCluster cluster(threaded);
  constexpr int kNodes = 4000;
  for (int n = 0; n < kNodes; ++n) {
    cluster.Add(MakeNode("n" + std::to_string(10000 + n)).Cpu(n == kNodes - 1 ? "4" : "1").Build());
  }
  cluster.Add(MakePod("fits-last").Request("cpu", "3").Build());
  cluster.Add(MakePod("fits-nowhere").Request("cpu", "5").Build());
  const SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.binds.size(), 1U);
  EXPECT_EQ(r.binds[0].pod_name(), "fits-last");
  EXPECT_EQ(r.binds[0].node_name(), "n" + std::to_string(10000 + kNodes - 1));
  ASSERT_EQ(r.unschedulable.size(), 1U);
  EXPECT_THAT(r.unschedulable[0].message,
              ::testing::HasSubstr("0/4000 nodes are available: 4000 Insufficient cpu"));
}

// A plugin that asks the session for other plugins' verdicts while it is opened: what it would
// see would depend on the order in which plugins are opened, so the session refuses.
class PeekingPlugin final : public Plugin {
 public:
  std::string_view Name() const override { return "peeking"; }
  void OnSessionOpen(const Session& session) override {
    if (session.job_count() > 0) static_cast<void>(session.JobReady(JobIndex(0)));
  }
};

TEST(PlacementDeathTest, OnSessionOpenMayNotAskOtherPlugins) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("n").Cpu("4").Build());
  cache.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  std::shared_ptr<const Snapshot> snapshot = cache.TakeSnapshot(TestEpoch());
  PluginSet plugins;
  plugins.owned.push_back(std::make_unique<PeekingPlugin>());
  EXPECT_DEATH(Session(*snapshot, plugins), "OnSessionOpen asked for other plugins' verdicts");
}

TEST(SessionStats, EachActionAndPluginIsTimed) {
  testing::FakeCluster cluster;
  cluster.Add(MakeNode("n").Cpu("4").Build());
  cluster.Add(MakePod("p").Request("cpu", "1").Build());
  const SessionResult result = cluster.RunSession();
  std::vector<std::string> actions;
  actions.reserve(result.stats.action_nanos.size());
  for (const NamedDuration& d : result.stats.action_nanos) {
    actions.push_back(d.name);
    EXPECT_GE(d.nanos, 0) << d.name;
  }
  EXPECT_EQ(actions,
            (std::vector<std::string>{"enqueue", "allocate", "preempt", "reclaim", "backfill"}));
  std::vector<std::string> plugins;
  plugins.reserve(result.stats.plugin_nanos.size());
  for (const NamedDuration& d : result.stats.plugin_nanos) plugins.push_back(d.name);
  EXPECT_THAT(plugins, ::testing::ElementsAre("priority", "gang", "drf", "proportion", "predicates",
                                              "nodeorder", "topology", "locality", "straggler"));
}

}  // namespace
}  // namespace arbiter
