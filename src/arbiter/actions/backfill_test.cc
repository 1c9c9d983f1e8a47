// The backfill action: pods beyond a gang's minimum are placed after allocate, and only for
// jobs that are ready (backfill.h).
#include "arbiter/actions/backfill.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::FakeCluster;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;

SchedulerConfig WithoutBackfill() {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.actions = {"enqueue", "allocate"};
  return config;
}

int BoundIn(const FakeCluster& cluster, const std::string& group) {
  int n = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    n += (PodGroupNameOf(pod) == group && !pod.spec.node_name.empty()) ? 1 : 0;
  }
  return n;
}

// An elastic gang: minMember `min`, `pods` pods of 1 cpu each.
void AddGang(FakeCluster& cluster, const std::string& name, int min, int pods, int created = 0) {
  cluster.Add(MakePodGroup(name).MinMember(min).Created(created).Build());
  for (int i = 0; i < pods; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", "1").Build());
  }
}

TEST(Backfill, WithoutBackfillOnlyTheMinimumIsPlaced) {
  FakeCluster cluster(WithoutBackfill());
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  AddGang(cluster, "g", 2, 4);
  cluster.RunSession();
  EXPECT_EQ(BoundIn(cluster, "g"), 2);
}

TEST(Backfill, PlacesPodsBeyondTheMinimumOfAReadyJob) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  AddGang(cluster, "g", 2, 4);
  SessionResult r = cluster.RunSession();
  // allocate commits g-0 and g-1 (the minimum), backfill adds g-2 and g-3.
  EXPECT_EQ(r.binds.size(), 4U);
  EXPECT_EQ(BoundIn(cluster, "g"), 4);
}

TEST(Backfill, AddsNewPodsToARunningJob) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  AddGang(cluster, "g", 2, 2);
  cluster.RunSession();
  ASSERT_EQ(BoundIn(cluster, "g"), 2);
  cluster.Add(MakePod("g-extra").Group("g").Request("cpu", "1").Build());
  SessionResult r = cluster.RunSession();
  ASSERT_EQ(r.binds.size(), 1U);
  EXPECT_EQ(r.binds[0].pod_name(), "g-extra");
}

TEST(Backfill, NeverPlacesPodsOfAJobThatIsNotReady) {
  FakeCluster cluster;
  // 3 cpu: only one of the gang's 2-cpu pods fits, so minMember 2 is never met and even that
  // one pod must not be placed.
  cluster.Add(MakeNode("n0").Cpu("3").Build());
  cluster.Add(MakePodGroup("g").MinMember(2).Build());
  for (int i = 0; i < 3; ++i) {
    cluster.Add(MakePod("g-" + std::to_string(i)).Group("g").Request("cpu", "2").Build());
  }
  SessionResult r = cluster.RunSession();
  EXPECT_THAT(r.binds, IsEmpty());
  EXPECT_EQ(BoundIn(cluster, "g"), 0);
}

TEST(Backfill, ExtrasThatDoNotFitAreReported) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("3").Build());
  AddGang(cluster, "g", 2, 4);
  SessionResult r = cluster.RunSession();
  // 2 by allocate, 1 by backfill; g-3 finds no room.
  EXPECT_EQ(BoundIn(cluster, "g"), 3);
  ASSERT_EQ(r.unschedulable.size(), 1U);
  EXPECT_EQ(r.unschedulable[0].pod_name, "g-3");
  EXPECT_THAT(r.unschedulable[0].message,
              HasSubstr("0/1 nodes are available: 1 Insufficient cpu."));
}

TEST(Backfill, ExtrasWaitUntilEveryGangHadItsMinimum) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("4").Build());
  AddGang(cluster, "elastic", 1, 4, /*created=*/0);  // older: first in job order
  AddGang(cluster, "strict", 3, 3, /*created=*/1);
  cluster.RunSession();
  // allocate: elastic gets its 1, strict its 3; nothing is left for elastic's extras.
  EXPECT_EQ(BoundIn(cluster, "strict"), 3);
  EXPECT_EQ(BoundIn(cluster, "elastic"), 1);
}

TEST(Backfill, SkipsJobsOfAMissingQueue) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n0").Cpu("8").Build());
  // Running at its minimum in a queue that has since been deleted: no extras.
  cluster.Add(MakePodGroup("g").MinMember(1).Queue("gone").Phase(PodGroupPhase::kRunning).Build());
  cluster.Add(MakePod("g-0").Group("g").Request("cpu", "1").OnNode("n0").Build());
  cluster.Add(MakePod("g-1").Group("g").Request("cpu", "1").Build());
  SessionResult r = cluster.RunSession();
  EXPECT_THAT(r.binds, IsEmpty());
}

}  // namespace
}  // namespace arbiter
