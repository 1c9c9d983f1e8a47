// Reclaim beyond a lowered quota, with the default plugins, on in-memory clusters: a queue whose
// ResourceQuota is lowered under its running pods keeps them through the grace period, then loses
// what runs beyond max(quota, guarantee), cheapest first, gang-safe, within its budgets.
#include "arbiter/actions/quota_reclaim.h"

#include <string>

#include <gtest/gtest.h>

#include "arbiter/model/resource_quota.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::FakeCluster;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using testing::RunningInQueue;

constexpr int kGraceSeconds = 30;

SchedulerConfig WithQuotaGrace() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue", "allocate", "preempt", "reclaim", "backfill"};
  config.preemption.quota_grace_seconds = kGraceSeconds;
  return config;
}

// Whether the pod is there, bound and not being deleted (an evicted pod with no grace period is
// gone at once).
bool Running(const FakeCluster& cluster, const std::string& uid) {
  auto it = cluster.pods().find(uid);
  return it != cluster.pods().end() && !it->second.spec.node_name.empty() &&
         !it->second.meta.deletion_timestamp.has_value();
}

// A job of `pods` one-cpu pods that needs `min` of them, in `queue`; pod i's uid is
// "default/<name>-<i>".
void AddJob(FakeCluster& cluster, const std::string& queue, const std::string& name, int pods,
            int min, std::int32_t priority, std::int64_t created) {
  cluster.Add(MakePodGroup(name).MinMember(min).Queue(queue).Created(created).Build());
  for (int i = 0; i < pods; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i))
                    .Group(name)
                    .Request("cpu", "1")
                    .Priority(priority)
                    .GracePeriod(0)
                    .Created(created)
                    .Build());
  }
}

// Four nodes of 4 cpu, and queue `a`.
FakeCluster Cluster(const Queue& a) {
  FakeCluster cluster(WithQuotaGrace());
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(a);
  return cluster;
}

// arbiter-controller's work, done by hand: queue `a`'s ResourceQuota at `cpu` (taken by the API
// server), and its status saying it was lowered now.
void LowerQuota(FakeCluster& cluster, Queue a, const std::string& cpu) {
  ResourceQuota rq;
  rq.meta.namespace_name = "default";
  rq.meta.name = "arbiter-queue-" + a.meta.name;
  rq.meta.uid = "rq/" + a.meta.name;
  rq.meta.annotations[std::string(kQuotaQueueAnnotation)] = a.meta.name;
  rq.spec_hard.Set("requests.cpu", testing::Canonical("cpu", cpu));
  rq.status_hard = rq.spec_hard;
  cluster.Add(rq);
  a.status.quota.hard = rq.spec_hard;
  a.status.quota.generation = 1;
  a.status.quota.lowered_at = cluster.now();
  cluster.Add(a);
}

// Runs sessions until the grace period has passed; none of them may evict.
void WaitOutGrace(FakeCluster& cluster) {
  for (int s = 0; s + 1 < kGraceSeconds; ++s) {
    EXPECT_TRUE(cluster.RunSession().evictions.empty()) << "evicted within the grace period";
  }
}

TEST(QuotaReclaim, PodsBeyondALoweredQuotaGoAfterTheGracePeriodAndNoMore) {
  const Queue a = MakeQueue("a");
  FakeCluster cluster = Cluster(a);
  // Eight single-pod jobs started one after the other; j0 and j1, the oldest, have the lowest
  // priority.
  for (int i = 0; i < 8; ++i) {
    AddJob(cluster, "a", "j" + std::to_string(i), 1, 1, i < 2 ? 0 : 10, i);
    cluster.RunSession();
  }
  ASSERT_EQ(RunningInQueue(cluster, "a"), 8);

  LowerQuota(cluster, a, "5");
  WaitOutGrace(cluster);
  EXPECT_EQ(RunningInQueue(cluster, "a"), 8);
  int evicted = 0;
  for (int s = 0; s < 5; ++s) {
    SessionResult r = cluster.RunSession();
    for (const EvictDecision& e : r.evictions) {
      EXPECT_EQ(e.kind, EvictionKind::kQuota);
      EXPECT_TRUE(e.preemptor.empty());
      EXPECT_NE(e.message.find("queue a runs beyond its lowered ResourceQuota"), std::string::npos)
          << e.message;
      ++evicted;
    }
  }
  EXPECT_EQ(evicted, 3);
  EXPECT_EQ(RunningInQueue(cluster, "a"), 5);
  // The cheapest: the lowest priority (j0, j1), then the youngest of the rest (j7).
  EXPECT_FALSE(Running(cluster, "default/j0-0"));
  EXPECT_FALSE(Running(cluster, "default/j1-0"));
  EXPECT_FALSE(Running(cluster, "default/j7-0"));
  EXPECT_TRUE(Running(cluster, "default/j6-0"));
  // The evicted jobs' pods, recreated by their owner, stay pending: the quota is full.
  AddJob(cluster, "a", "again", 1, 1, 10, 100);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(RunningInQueue(cluster, "a"), 5);
}

TEST(QuotaReclaim, NeverBelowTheGuarantee) {
  Queue a = MakeQueue("a");
  a.spec.guarantee.Set("cpu", testing::Canonical("cpu", "6"));
  FakeCluster cluster = Cluster(a);
  for (int i = 0; i < 8; ++i) AddJob(cluster, "a", "j" + std::to_string(i), 1, 1, 0, i);
  cluster.RunSession();
  LowerQuota(cluster, a, "4");
  WaitOutGrace(cluster);
  for (int s = 0; s < 5; ++s) cluster.RunSession();
  EXPECT_EQ(RunningInQueue(cluster, "a"), 6);
}

// Surplus pods first; a gang that must lose more than its surplus is evicted whole, never left
// between 1 and minMember - 1.
TEST(QuotaReclaim, GangsKeepTheirMinimumOrGoWhole) {
  const Queue a = MakeQueue("a");
  FakeCluster cluster = Cluster(a);
  AddJob(cluster, "a", "big", 8, 8, 0, 0);  // no surplus
  cluster.RunSession();
  AddJob(cluster, "a", "small", 4, 3, 0, 1);  // one pod of surplus; started later: the younger
  cluster.RunSession();
  ASSERT_EQ(RunningInQueue(cluster, "a"), 12);

  LowerQuota(cluster, a, "11");
  WaitOutGrace(cluster);
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.evictions.size(), 1U);  // small's surplus pod is enough
  EXPECT_EQ(r.evictions[0].victim_job, "default/small");
  EXPECT_EQ(RunningInQueue(cluster, "a"), 11);

  LowerQuota(cluster, a, "9");
  WaitOutGrace(cluster);
  r = cluster.RunSession();
  // Two more: small cannot lose another pod without going below 3, so it goes whole (3 pods).
  EXPECT_EQ(r.evictions.size(), 3U);
  for (const EvictDecision& e : r.evictions) EXPECT_EQ(e.victim_job, "default/small");
  EXPECT_EQ(RunningInQueue(cluster, "a"), 8);
  bool said = false;
  for (const Condition& c : cluster.group("default/small").status.conditions) {
    said = said || (c.type == "Preempted" && c.message.find("(quota)") != std::string::npos);
  }
  EXPECT_TRUE(said) << "the group's Preempted condition should say why";
}

TEST(QuotaReclaim, NothingWithoutTheTimeTheQuotaWasLowered) {
  Queue a = MakeQueue("a");
  FakeCluster cluster = Cluster(a);
  for (int i = 0; i < 8; ++i) AddJob(cluster, "a", "j" + std::to_string(i), 1, 1, 0, i);
  cluster.RunSession();
  LowerQuota(cluster, a, "5");
  a.status.quota.hard.Set("requests.cpu", testing::Canonical("cpu", "5"));
  a.status.quota.lowered_at.reset();  // a controller that does not say when
  cluster.Add(a);
  for (int s = 0; s < kGraceSeconds + 5; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(RunningInQueue(cluster, "a"), 8);
}

TEST(QuotaReclaim, PodsABudgetProtectsStay) {
  const Queue a = MakeQueue("a");
  FakeCluster cluster = Cluster(a);
  for (int i = 0; i < 8; ++i) {
    cluster.Add(MakePodGroup("j" + std::to_string(i)).MinMember(1).Queue("a").Created(i).Build());
    cluster.Add(MakePod("j" + std::to_string(i) + "-0")
                    .Group("j" + std::to_string(i))
                    .Request("cpu", "1")
                    .Label("app", i < 6 ? "db" : "web")
                    .GracePeriod(0)
                    .Created(i)
                    .Build());
  }
  PodDisruptionBudget pdb;
  pdb.meta.namespace_name = "default";
  pdb.meta.name = "db";
  pdb.selector.emplace().match_labels["app"] = "db";
  pdb.disruptions_allowed = 0;
  cluster.Add(pdb);
  cluster.RunSession();
  LowerQuota(cluster, a, "3");
  WaitOutGrace(cluster);
  int evicted = 0;
  for (int s = 0; s < 5; ++s) {
    for (const EvictDecision& e : cluster.RunSession().evictions) {
      EXPECT_TRUE(e.pod_name == "j6-0" || e.pod_name == "j7-0") << e.pod_name;
      ++evicted;
    }
  }
  // Only the two pods no budget protects could go; the rest waits for the budget.
  EXPECT_EQ(evicted, 2);
  EXPECT_EQ(RunningInQueue(cluster, "a"), 6);
}

}  // namespace
}  // namespace arbiter
