// The reclaim action with the default plugins, on in-memory clusters: a late queue takes back its
// deserved share from a queue that flooded the cluster, and both stop at their shares.
#include "arbiter/actions/reclaim.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::FakeCluster;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using testing::RunningInQueue;

SchedulerConfig WithReclaim() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue", "allocate", "preempt", "reclaim", "backfill"};
  return config;
}

// One pod of 1 cpu in a group of one, in `queue`.
void AddJob(FakeCluster& cluster, const std::string& queue, const std::string& name,
            std::int64_t created) {
  cluster.Add(MakePodGroup(name).MinMember(1).Queue(queue).Created(created).Build());
  cluster.Add(
      MakePod(name).Group(name).Request("cpu", "1").GracePeriod(0).Created(created).Build());
}

// Four nodes of 4 cpu; queue a (weight 1) floods them with 16 one-cpu jobs.
FakeCluster Flooded(const Queue& a, const Queue& b) {
  FakeCluster cluster(WithReclaim());
  for (int i = 0; i < 4; ++i) cluster.Add(MakeNode("n" + std::to_string(i)).Cpu("4").Build());
  cluster.Add(a);
  cluster.Add(b);
  for (int i = 0; i < 16; ++i) AddJob(cluster, "a", "a" + std::to_string(i), 0);
  cluster.RunSession();
  return cluster;
}

TEST(Reclaim, LateQueueTakesBackItsShareAndBothStopThere) {
  FakeCluster cluster = Flooded(MakeQueue("a"), MakeQueue("b"));
  ASSERT_EQ(RunningInQueue(cluster, "a"), 16);
  for (int i = 0; i < 12; ++i) AddJob(cluster, "b", "b" + std::to_string(i), 10);
  int evicted = 0;
  for (int s = 0; s < 6; ++s) {
    SessionResult r = cluster.RunSession();
    evicted += static_cast<int>(r.evictions.size());
    for (const EvictDecision& e : r.evictions) EXPECT_EQ(e.kind, EvictionKind::kReclaim);
    EXPECT_GE(RunningInQueue(cluster, "a"), 8) << "session " << s;
  }
  EXPECT_EQ(evicted, 8);
  EXPECT_EQ(RunningInQueue(cluster, "a"), 8);
  EXPECT_EQ(RunningInQueue(cluster, "b"), 8);
}

TEST(Reclaim, NonReclaimableQueueIsUntouched) {
  Queue a = MakeQueue("a");
  a.spec.reclaimable = false;
  FakeCluster cluster = Flooded(a, MakeQueue("b"));
  for (int i = 0; i < 8; ++i) AddJob(cluster, "b", "b" + std::to_string(i), 10);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(cluster.RunSession().evictions.empty());
  EXPECT_EQ(RunningInQueue(cluster, "a"), 16);
}

// Queue a's guarantee of 12 cpu comes first; the other 4 are shared by weight (a 2, b 2). Reclaim
// takes a down to its deserved 14, never into its guarantee.
TEST(Reclaim, GuaranteeIsNeverReclaimed) {
  Queue a = MakeQueue("a");
  a.spec.guarantee.Set("cpu", testing::Canonical("cpu", "12"));
  FakeCluster cluster = Flooded(a, MakeQueue("b"));
  for (int i = 0; i < 8; ++i) AddJob(cluster, "b", "b" + std::to_string(i), 10);
  for (int s = 0; s < 4; ++s) {
    cluster.RunSession();
    EXPECT_GE(RunningInQueue(cluster, "a"), 14);
  }
  EXPECT_EQ(RunningInQueue(cluster, "a"), 14);
  EXPECT_EQ(RunningInQueue(cluster, "b"), 2);
}

// A controller recreates every evicted pod of queue a (as a Deployment or a job controller
// would): the two queues still settle at their shares within a few sessions and stay there.
TEST(Reclaim, RecreatedVictimsReachASteadyState) {
  FakeCluster cluster = Flooded(MakeQueue("a"), MakeQueue("b"));
  for (int i = 0; i < 12; ++i) AddJob(cluster, "b", "b" + std::to_string(i), 10);
  int recreated = 0;
  int last_eviction = -1;
  for (int s = 0; s < 15; ++s) {
    SessionResult r = cluster.RunSession();
    if (!r.evictions.empty()) last_eviction = s;
    for (const EvictDecision& e : r.evictions) {
      EXPECT_EQ(e.namespace_name, "default");
      AddJob(cluster, "a", "a-again-" + std::to_string(recreated++), 20 + s);
    }
  }
  EXPECT_LE(last_eviction, 3) << "reclaim kept evicting: it should settle";
  EXPECT_EQ(RunningInQueue(cluster, "a"), 8);
  EXPECT_EQ(RunningInQueue(cluster, "b"), 8);
}

}  // namespace
}  // namespace arbiter
