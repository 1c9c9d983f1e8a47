// nodeorder: least-allocated, most-allocated and balanced scores and their weights
// (nodeorder.h), with the scores worked out by hand.
#include "arbiter/plugins/nodeorder.h"

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/placement.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"
#include "arbiter/plugins/predicates.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::TestEpoch;

// Three nodes of 4 cpu and 8Gi, and a pod "p" asking 1 cpu and 2Gi:
//   empty:  nothing used;                after p: cpu 1/4 = 0.25, memory 2/8 = 0.25
//   busy:   2 cpu and 4Gi used;          after p: cpu 3/4 = 0.75, memory 6/8 = 0.75
//   skewed: 0 cpu and 4Gi used;          after p: cpu 1/4 = 0.25, memory 6/8 = 0.75
// so, each score in [0, 100] and averaged over cpu and memory:
//   leastAllocated  = mean (1 - f) * 100: empty 75, busy 25, skewed (75 + 25) / 2 = 50
//   mostAllocated   = mean f * 100:       empty 25, busy 75, skewed (25 + 75) / 2 = 50
//   balanced        = (1 - |f_cpu - f_memory|) * 100: empty 100, busy 100, skewed 50
class NodeOrderTest : public ::testing::Test {
 protected:
  NodeOrderTest() : cache_(CacheOptions()) {
    for (const char* name : {"busy", "empty", "skewed"}) {
      cache_.UpsertNode(MakeNode(name).Cpu("4").Memory("8Gi").Build());
    }
    cache_.UpsertPod(MakePod("busy-load")
                         .SchedulerName("other")
                         .Request("cpu", "2")
                         .Request("memory", "4Gi")
                         .OnNode("busy")
                         .Build());
    cache_.UpsertPod(MakePod("skewed-load")
                         .SchedulerName("other")
                         .Request("memory", "4Gi")
                         .OnNode("skewed")
                         .Build());
    cache_.UpsertPod(MakePod("p").Request("cpu", "1").Request("memory", "2Gi").Build());
  }

  // Opens a session whose plugins are predicates (filter) and nodeorder with `weights` (score).
  Session& Open(NodeOrderWeights weights) {
    session_.reset();
    plugins_ = PluginSet();
    auto predicates = std::make_unique<PredicatesPlugin>();
    auto nodeorder = std::make_unique<NodeOrderPlugin>(weights);
    plugins_.filter.push_back({predicates.get()});
    plugins_.score.push_back({nodeorder.get()});
    plugins_.owned.push_back(std::move(predicates));
    plugins_.owned.push_back(std::move(nodeorder));
    snapshot_ = cache_.TakeSnapshot(TestEpoch());
    session_ = std::make_unique<Session>(*snapshot_, plugins_);
    return *session_;
  }

  double ScoreOn(const std::string& node) const {
    return session_->Score(PodP(), *snapshot_->FindNode(node));
  }
  TaskIndex PodP() const { return TaskIndex(0); }  // the only task
  std::string Picked() {
    std::optional<NodeIndex> n = session_->placement().PickNode(PodP(), nullptr);
    return n.has_value() ? session_->node(*n).name() : "";
  }

  ClusterCache cache_;
  PluginSet plugins_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<Session> session_;
};

TEST_F(NodeOrderTest, LeastAllocatedPrefersTheEmptierNode) {
  Open({.least_allocated = 1, .most_allocated = 0, .balanced = 0});
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 75);
  EXPECT_DOUBLE_EQ(ScoreOn("skewed"), 50);
  EXPECT_DOUBLE_EQ(ScoreOn("busy"), 25);
  EXPECT_EQ(Picked(), "empty");
}

TEST_F(NodeOrderTest, MostAllocatedPrefersTheFullerNode) {
  Open({.least_allocated = 0, .most_allocated = 1, .balanced = 0});
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 25);
  EXPECT_DOUBLE_EQ(ScoreOn("skewed"), 50);
  EXPECT_DOUBLE_EQ(ScoreOn("busy"), 75);
  EXPECT_EQ(Picked(), "busy");
}

TEST_F(NodeOrderTest, BalancedPrefersEqualCpuAndMemoryFractions) {
  Open({.least_allocated = 0, .most_allocated = 0, .balanced = 1});
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 100);
  EXPECT_DOUBLE_EQ(ScoreOn("busy"), 100);
  EXPECT_DOUBLE_EQ(ScoreOn("skewed"), 50);
  // empty and busy tie at 100: the first by name wins.
  EXPECT_EQ(Picked(), "busy");
}

TEST_F(NodeOrderTest, WeightsCombineAsAWeightedSum) {
  Open({.least_allocated = 2, .most_allocated = 0.5, .balanced = 1});
  // empty:  2 * 75 + 0.5 * 25 + 1 * 100 = 262.5
  // busy:   2 * 25 + 0.5 * 75 + 1 * 100 = 187.5
  // skewed: 2 * 50 + 0.5 * 50 + 1 * 50  = 175
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 262.5);
  EXPECT_DOUBLE_EQ(ScoreOn("busy"), 187.5);
  EXPECT_DOUBLE_EQ(ScoreOn("skewed"), 175);
  EXPECT_EQ(Picked(), "empty");
}

TEST_F(NodeOrderTest, DefaultWeightsAreLeastAllocatedAndBalanced) {
  StatusOr<std::unique_ptr<Plugin>> plugin = NodeOrderPlugin::Create(YAML::Node());
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  Open(NodeOrderWeights{});
  // 1 * 75 + 0 * 25 + 1 * 100 = 175 on empty.
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 175);
  const auto* created = dynamic_cast<const ScoreExtension*>(plugin->get());
  ASSERT_NE(created, nullptr);
  EXPECT_DOUBLE_EQ(created->Score(*session_, PodP(), *snapshot_->FindNode("empty")), 175);
}

TEST_F(NodeOrderTest, ScoresSeeThePlacementsOfTheSession) {
  cache_.UpsertPod(MakePod("q").Request("cpu", "2").Request("memory", "4Gi").Build());
  Session& session = Open({.least_allocated = 1, .most_allocated = 0, .balanced = 0});
  const TaskIndex q(1);  // tasks sorted by name: p, q
  ASSERT_EQ(session.task(q).name(), "q");
  Statement statement(session);
  statement.Allocate(q, *snapshot_->FindNode("empty"));
  // empty now holds q's 2 cpu and 4Gi: after p, 3/4 and 6/8: least 25, as busy.
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 25);
  statement.Discard();
  EXPECT_DOUBLE_EQ(ScoreOn("empty"), 75);
}

TEST(NodeOrder, NodeWithoutCpuOrMemoryScoresZero) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("pods-only").Build());  // only pods: 110
  cache.UpsertNode(MakeNode("cpu-only").Cpu("4").Build());
  cache.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  auto snapshot = cache.TakeSnapshot(TestEpoch());
  const NodeOrderPlugin plugin({.least_allocated = 1, .most_allocated = 0, .balanced = 1});
  PluginSet none;
  const Session session(*snapshot, none);
  EXPECT_DOUBLE_EQ(plugin.Score(session, TaskIndex(0), *snapshot->FindNode("pods-only")), 0);
  // cpu only: least (1 - 1/4) * 100 = 75; balanced needs both, so it is 100.
  EXPECT_DOUBLE_EQ(plugin.Score(session, TaskIndex(0), *snapshot->FindNode("cpu-only")), 175);
}

// ScoreRange (several nodes per instruction) gives, in play, exactly Score's doubles: on a cluster
// where every node has cpu and memory (the select-free loop) and on one where some lack one or
// both (the loop with selects), over runs whose length is not a multiple of the lanes, nodes
// overcommitted (more used than allocatable) among them.
TEST(NodeOrder, ScoreRangeGivesTheSameDoublesAsScore) {
  for (const bool some_lack : {false, true}) {
    ClusterCache cache{CacheOptions()};
    constexpr int kNodes = 23;
    for (int n = 0; n < kNodes; ++n) {
      auto node = MakeNode("n" + std::to_string(10 + n));
      if (!some_lack || n % 5 != 1) node.Cpu(std::to_string(1 + n % 7) + "500m");
      if (!some_lack || n % 5 != 2) node.Memory(std::to_string(1 + n % 3) + "Gi");
      cache.UpsertNode(node.Build());
      cache.UpsertPod(MakePod("run" + std::to_string(n))
                          .SchedulerName("other")
                          .Request("cpu", std::to_string(100 * (n % 9)) + "m")
                          .Request("memory", std::to_string(n % 4) + "Gi")
                          .OnNode("n" + std::to_string(10 + n))
                          .Build());
    }
    cache.UpsertPod(MakePod("p").Request("cpu", "333m").Request("memory", "700Mi").Build());
    auto snapshot = cache.TakeSnapshot(TestEpoch());
    const TaskIndex p = TaskIndex::Of(snapshot->tasks.size() - 1);
    ASSERT_EQ(snapshot->tasks[p.pos()].name(), "p");
    NodeOrderPlugin plugin({.least_allocated = 1.5, .most_allocated = 0.25, .balanced = 1});
    PluginSet none;
    const Session session(*snapshot, none);
    plugin.OnSessionOpen(session);
    for (int first = 0; first < 3; ++first) {
      const std::vector<std::uint8_t> in_play(static_cast<std::size_t>(kNodes - first), 1);
      std::vector<double> scores(in_play.size(), 0.5);  // added to, as ScoreRange does
      plugin.ScoreRange(session, p, NodeIndex(first), in_play, scores);
      for (std::size_t i = 0; i < scores.size(); ++i) {
        const NodeIndex n = NodeIndex::Of(static_cast<std::size_t>(first) + i);
        EXPECT_EQ(scores[i], 0.5 + plugin.Score(session, p, n))
            << session.node(n).name() << (some_lack ? ", some nodes lacking cpu or memory" : "");
      }
      // The first plugin of a run writes what it would have added to zeros (not the NaNs left).
      std::vector<double> unset(in_play.size(), std::numeric_limits<double>::quiet_NaN());
      plugin.ScoreRangeFirst(session, p, NodeIndex(first), in_play, unset);
      for (std::size_t i = 0; i < unset.size(); ++i) {
        const NodeIndex n = NodeIndex::Of(static_cast<std::size_t>(first) + i);
        EXPECT_EQ(unset[i], plugin.Score(session, p, n))
            << session.node(n).name() << (some_lack ? ", some nodes lacking cpu or memory" : "");
      }
    }
  }
}

}  // namespace
}  // namespace arbiter
