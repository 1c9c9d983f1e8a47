// predicates: each rule's verdict and its kube-scheduler wording (predicates.h), on sessions
// opened over snapshots the ClusterCache builds.
#include "arbiter/plugins/predicates.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::TestEpoch;

using Code = FilterResult::Code;

NodeSelector AffinityTerm(std::string key, NodeSelectorOperator op,
                          std::vector<std::string> values) {
  NodeSelector selector;
  selector.terms.push_back(
      NodeSelectorTerm{{NodeSelectorRequirement{std::move(key), op, std::move(values)}}, {}});
  return selector;
}

// A cache, and sessions over it whose only plugin is predicates.
class PredicatesTest : public ::testing::Test {
 protected:
  PredicatesTest() : cache_(CacheOptions()) {
    auto plugin = std::make_unique<PredicatesPlugin>();
    plugins_.filter.push_back({plugin.get()});
    plugins_.owned.push_back(std::move(plugin));
  }

  // A session on the cache as it is now (closing any previous one).
  Session& Open() {
    session_.reset();
    snapshot_ = cache_.TakeSnapshot(TestEpoch());
    session_ = std::make_unique<Session>(*snapshot_, plugins_);
    return *session_;
  }

  TaskIndex TaskOf(const std::string& pod) const {
    for (std::size_t i = 0; i < snapshot_->tasks.size(); ++i) {
      if (snapshot_->tasks[i].name() == pod) return TaskIndex::Of(i);
    }
    ADD_FAILURE() << "no task " << pod;
    return TaskIndex(0);
  }
  NodeIndex NodeOf(const std::string& node) const { return *snapshot_->FindNode(node); }

  // The verdict for `pod` on `node` in the open session (opening one if none is).
  FilterResult Verdict(const std::string& pod, const std::string& node) {
    if (session_ == nullptr) Open();
    return session_->Filter(TaskOf(pod), NodeOf(node));
  }

  ClusterCache cache_;
  PluginSet plugins_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<Session> session_;
};

TEST_F(PredicatesTest, FitsOnAnEmptyNode) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("8Gi").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "4").Request("memory", "8Gi").Build());
  const FilterResult r = Verdict("p", "n1");
  EXPECT_TRUE(r.fit());
  EXPECT_EQ(r.reason, "");
}

TEST_F(PredicatesTest, OutOfScopeNodeGivesTheCachesReason) {
  cache_.UpsertNode(MakeNode("sick").Cpu("4").NotReady().Build());
  cache_.UpsertNode(MakeNode("cordoned").Cpu("4").Unschedulable().Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  FilterResult r = Verdict("p", "sick");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) were not ready");
  r = Verdict("p", "cordoned");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) were unschedulable");
}

TEST_F(PredicatesTest, NodeSelectorMustMatch) {
  cache_.UpsertNode(MakeNode("hdd").Label("disk", "hdd").Cpu("4").Build());
  cache_.UpsertNode(MakeNode("ssd").Label("disk", "ssd").Cpu("4").Build());
  cache_.UpsertPod(MakePod("p").NodeSelector("disk", "ssd").Build());
  const FilterResult r = Verdict("p", "hdd");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) didn't match Pod's node affinity/selector");
  EXPECT_EQ(r.short_resource, std::nullopt);
  EXPECT_TRUE(Verdict("p", "ssd").fit());
}

TEST_F(PredicatesTest, RequiredNodeAffinityMustMatch) {
  cache_.UpsertNode(MakeNode("a1").Label("zone", "a").Cpu("4").Build());
  cache_.UpsertNode(MakeNode("b1").Label("zone", "b").Cpu("4").Build());
  Pod pod = MakePod("p").Build();
  pod.spec.required_node_affinity = AffinityTerm("zone", NodeSelectorOperator::kIn, {"a"});
  cache_.UpsertPod(pod);
  const FilterResult r = Verdict("p", "b1");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) didn't match Pod's node affinity/selector");
  EXPECT_TRUE(Verdict("p", "a1").fit());
}

TEST_F(PredicatesTest, UntoleratedTaintIsNamed) {
  cache_.UpsertNode(MakeNode("gpu").Taint("gpu", "true", "NoSchedule").Cpu("4").Build());
  cache_.UpsertNode(MakeNode("drain").Taint("maintenance", "", "NoExecute").Cpu("4").Build());
  cache_.UpsertPod(MakePod("p").Build());
  FilterResult r = Verdict("p", "gpu");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) had untolerated taint {gpu: true}");
  r = Verdict("p", "drain");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) had untolerated taint {maintenance: }");
}

TEST_F(PredicatesTest, ToleratedTaintDoesNotBlock) {
  cache_.UpsertNode(MakeNode("gpu").Taint("gpu", "true", "NoSchedule").Cpu("4").Build());
  cache_.UpsertPod(MakePod("p").Tolerate("gpu", "true", "NoSchedule").Build());
  cache_.UpsertPod(MakePod("any-effect").Tolerate("gpu", "true", "").Build());
  cache_.UpsertPod(MakePod("wrong-value").Tolerate("gpu", "false", "NoSchedule").Build());
  EXPECT_TRUE(Verdict("p", "gpu").fit());
  EXPECT_TRUE(Verdict("any-effect", "gpu").fit());
  EXPECT_EQ(Verdict("wrong-value", "gpu").reason, "node(s) had untolerated taint {gpu: true}");
}

TEST_F(PredicatesTest, PreferNoScheduleTaintDoesNotBlock) {
  cache_.UpsertNode(MakeNode("spot").Taint("spot", "true", "PreferNoSchedule").Cpu("4").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Build());
  EXPECT_TRUE(Verdict("p", "spot").fit());
}

TEST_F(PredicatesTest, InsufficientCpu) {
  // 4 cpu, 3 taken by another scheduler's pod: 1 free, the pod wants 2.
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("8Gi").Build());
  cache_.UpsertPod(MakePod("web").SchedulerName("other").Request("cpu", "3").OnNode("n1").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "2").Build());
  const FilterResult r = Verdict("p", "n1");
  EXPECT_EQ(r.code, Code::kUnschedulable);
  EXPECT_EQ(r.reason, "Insufficient cpu");
  EXPECT_EQ(r.short_resource, std::optional<ResourceId>(kCpuId));
}

TEST_F(PredicatesTest, InsufficientMemory) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Memory("1Gi").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Request("memory", "2Gi").Build());
  const FilterResult r = Verdict("p", "n1");
  EXPECT_EQ(r.reason, "Insufficient memory");
  EXPECT_EQ(r.short_resource, std::optional<ResourceId>(kMemoryId));
}

TEST_F(PredicatesTest, InsufficientExtendedResource) {
  cache_.UpsertNode(MakeNode("one-gpu").Cpu("8").Resource("nvidia.com/gpu", "1").Build());
  cache_.UpsertNode(MakeNode("no-gpu").Cpu("8").Build());
  cache_.UpsertNode(MakeNode("two-gpus").Cpu("8").Resource("nvidia.com/gpu", "2").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "1").Request("nvidia.com/gpu", "2").Build());
  Open();
  const std::optional<ResourceId> gpu = snapshot_->resources.Find("nvidia.com/gpu");
  ASSERT_TRUE(gpu.has_value());
  FilterResult r = Verdict("p", "one-gpu");
  EXPECT_EQ(r.code, Code::kUnschedulable);
  EXPECT_EQ(r.reason, "Insufficient nvidia.com/gpu");
  EXPECT_EQ(r.short_resource, gpu);
  r = Verdict("p", "no-gpu");  // absent from allocatable: zero
  EXPECT_EQ(r.reason, "Insufficient nvidia.com/gpu");
  EXPECT_TRUE(Verdict("p", "two-gpus").fit());
}

TEST_F(PredicatesTest, TooManyPods) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Pods("1").Build());
  cache_.UpsertPod(MakePod("web").SchedulerName("other").OnNode("n1").Build());
  cache_.UpsertPod(MakePod("p").Build());
  const FilterResult r = Verdict("p", "n1");
  EXPECT_EQ(r.code, Code::kUnschedulable);
  EXPECT_EQ(r.reason, "Too many pods");
  EXPECT_EQ(r.short_resource, std::optional<ResourceId>(kPodsId));
}

TEST_F(PredicatesTest, HostPortTakenByAnotherPod) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache_.UpsertPod(MakePod("web").SchedulerName("other").HostPort(8080).OnNode("n1").Build());
  cache_.UpsertPod(MakePod("same").HostPort(8080).Build());
  cache_.UpsertPod(MakePod("other-port").HostPort(9090).Build());
  const FilterResult r = Verdict("same", "n1");
  EXPECT_EQ(r.code, Code::kUnschedulable);
  EXPECT_EQ(r.reason, "node(s) didn't have free ports for the requested pod ports");
  EXPECT_EQ(r.short_resource, std::nullopt);
  EXPECT_TRUE(Verdict("other-port", "n1").fit());
}

TEST_F(PredicatesTest, SeesThePlacementsOfTheSession) {
  cache_.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache_.UpsertPod(MakePod("a").Request("cpu", "3").HostPort(8080).Build());
  cache_.UpsertPod(MakePod("b").Request("cpu", "3").Build());
  cache_.UpsertPod(MakePod("c").Request("cpu", "1").HostPort(8080).Build());
  Session& session = Open();
  EXPECT_TRUE(Verdict("b", "n1").fit());
  Statement statement(session);
  statement.Allocate(TaskOf("a"), NodeOf("n1"));
  // 4 - 3 = 1 cpu left: b (3) no longer fits; c (1) fits by cpu but not by port.
  EXPECT_EQ(Verdict("b", "n1").reason, "Insufficient cpu");
  EXPECT_EQ(Verdict("c", "n1").reason,
            "node(s) didn't have free ports for the requested pod ports");
  statement.Discard();
  EXPECT_TRUE(Verdict("b", "n1").fit());
  EXPECT_TRUE(Verdict("c", "n1").fit());
}

TEST_F(PredicatesTest, StaticRulesComeBeforeResources) {
  // Tainted and too small: the taint is what is reported (Unresolvable beats Unschedulable).
  cache_.UpsertNode(MakeNode("n1").Taint("gpu", "true", "NoSchedule").Cpu("1").Build());
  cache_.UpsertPod(MakePod("p").Request("cpu", "2").Build());
  const FilterResult r = Verdict("p", "n1");
  EXPECT_EQ(r.code, Code::kUnresolvable);
  EXPECT_EQ(r.reason, "node(s) had untolerated taint {gpu: true}");
}

TEST_F(PredicatesTest, PodsWithTheSameConstraintsGetTheSameVerdictPerNode) {
  cache_.UpsertNode(MakeNode("hdd").Label("disk", "hdd").Cpu("4").Build());
  cache_.UpsertNode(MakeNode("ssd").Label("disk", "ssd").Cpu("4").Build());
  for (const char* name : {"w-0", "w-1"}) {
    cache_.UpsertPod(MakePod(name).NodeSelector("disk", "ssd").Build());
  }
  cache_.UpsertPod(MakePod("free").Build());
  EXPECT_FALSE(Verdict("w-0", "hdd").fit());
  EXPECT_FALSE(Verdict("w-1", "hdd").fit());
  EXPECT_TRUE(Verdict("w-1", "ssd").fit());
  EXPECT_TRUE(Verdict("w-0", "ssd").fit());
  EXPECT_TRUE(Verdict("free", "hdd").fit());  // other constraints, not the shared verdict
}

// Two different affinities must never share a cached verdict. "zoneNot In [x]" and "zone NotIn
// [x]" are different rules: on a node labelled zone=y the first fails (no label zoneNot), the
// second holds (y is not x).
TEST_F(PredicatesTest, DifferentAffinitiesDoNotShareAVerdict) {
  cache_.UpsertNode(MakeNode("n1").Label("zone", "y").Cpu("4").Build());
  Pod in = MakePod("in").Build();
  in.spec.required_node_affinity = AffinityTerm("zoneNot", NodeSelectorOperator::kIn, {"x"});
  Pod not_in = MakePod("not-in").Build();
  not_in.spec.required_node_affinity = AffinityTerm("zone", NodeSelectorOperator::kNotIn, {"x"});
  cache_.UpsertPod(in);
  cache_.UpsertPod(not_in);
  // Whichever is asked first, each gets its own verdict.
  Open();
  EXPECT_FALSE(Verdict("in", "n1").fit());
  EXPECT_TRUE(Verdict("not-in", "n1").fit());
  Open();
  EXPECT_TRUE(Verdict("not-in", "n1").fit());
  EXPECT_FALSE(Verdict("in", "n1").fit());
}

TEST_F(PredicatesTest, TheVerdictCacheIsPerSession) {
  cache_.UpsertNode(MakeNode("n1").Label("disk", "hdd").Cpu("4").Build());
  cache_.UpsertPod(MakePod("p").NodeSelector("disk", "ssd").Build());
  EXPECT_FALSE(Verdict("p", "n1").fit());
  cache_.UpsertNode(MakeNode("n1").Label("disk", "ssd").Cpu("4").Build());  // relabelled
  Open();
  EXPECT_TRUE(Verdict("p", "n1").fit());
}

// The same collision end to end: the session shares verdicts between pods of one placement class
// (same request, constraints and ports), so the pod asked second inherits the first's verdict and
// is never placed although the node suits it.
TEST(PredicatesThroughScheduler, DifferentAffinitiesAreScheduledOnTheirOwnMerits) {
  testing::FakeCluster cluster;
  cluster.Add(MakeNode("n1").Label("zone", "y").Cpu("4").Build());
  Pod in = MakePod("in").Request("cpu", "1").Created(0).Build();
  in.spec.required_node_affinity = AffinityTerm("zoneNot", NodeSelectorOperator::kIn, {"x"});
  Pod not_in = MakePod("not-in").Request("cpu", "1").Created(1).Build();
  not_in.spec.required_node_affinity = AffinityTerm("zone", NodeSelectorOperator::kNotIn, {"x"});
  cluster.Add(in);
  cluster.Add(not_in);
  cluster.RunSession();
  EXPECT_EQ(cluster.pod("default/in").spec.node_name, "");
  EXPECT_EQ(cluster.pod("default/not-in").spec.node_name, "n1");
}

// The same rules through the default configuration's plugins, as the scheduler runs them.
TEST(PredicatesThroughScheduler, DefaultPluginsReportTheSameReasons) {
  Registry registry;
  RegisterBuiltinPlugins(registry);
  RegisterBuiltinActions(registry);
  StatusOr<std::unique_ptr<Scheduler>> scheduler =
      Scheduler::Create(DefaultSchedulerConfig(), registry);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("n1").Cpu("1").Build());
  cache.UpsertNode(MakeNode("n2").Taint("gpu", "true", "NoSchedule").Cpu("8").Build());
  cache.UpsertPod(MakePod("p").Request("cpu", "2").Build());
  auto snapshot = cache.TakeSnapshot(TestEpoch());
  Session session(*snapshot, (*scheduler)->plugins());
  FitErrors errors;
  for (NodeIndex n : NodeIndex::Range(session.node_count()))
    errors.Add(session.Filter(TaskIndex(0), n));
  errors.AddNodes(session.node_count());
  EXPECT_EQ(errors.Message(),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
            "{gpu: true}.");
}

}  // namespace
}  // namespace arbiter
