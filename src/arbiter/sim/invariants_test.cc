// The invariant checker itself (invariants.h), on sessions recorded by hand: what it counts as a
// queue's own after reclaim.
#include "arbiter/sim/invariants.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/sim/scenario_runner.h"
#include "arbiter/testing/builders.h"

namespace arbiter::sim {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using testing::TestEpoch;

// Queue a deserves 4 CPUs and holds 3 on n0 after reclaim took the pod of group `taken`; with
// `nominated`, the session also nominated a pending pod of a to n0 (room being freed for it),
// which brings a back to its share as reclaim counts it.
std::vector<Violation> ReclaimedFromA(bool nominated) {
  auto cluster = SimulatedCluster::Create(DefaultSchedulerConfig());
  EXPECT_TRUE(cluster.ok());
  SimulatedCluster& c = **cluster;
  c.Add(MakeNode("n0").Cpu("8").Build());
  Queue a = MakeQueue("a");
  a.status.deserved.Set("cpu", 4000);
  c.Add(a);
  c.Add(MakeQueue("b"));
  for (int i = 0; i < 3; ++i) {
    const std::string g = "held-" + std::to_string(i);
    c.Add(MakePodGroup(g).MinMember(1).Queue("a").Phase(PodGroupPhase::kRunning).Build());
    c.Add(MakePod(g + "-0").Uid(g + "-0").Group(g).Request("cpu", "1").OnNode("n0").Build());
  }
  c.Add(MakePodGroup("taken").MinMember(1).Queue("a").Phase(PodGroupPhase::kRunning).Build());
  Pod victim =
      MakePod("taken-0").Uid("taken-0").Group("taken").Request("cpu", "1").OnNode("n0").Build();
  victim.meta.deletion_timestamp = TestEpoch();
  c.Add(victim);
  if (nominated) {
    c.Add(MakePodGroup("urgent").MinMember(1).Queue("a").Phase(PodGroupPhase::kInqueue).Build());
    Pod urgent = MakePod("urgent-0").Uid("urgent-0").Group("urgent").Request("cpu", "1").Build();
    urgent.status.nominated_node_name = "n0";
    c.Add(urgent);
  }
  SessionRecord record;
  if (nominated) {
    record.result.nominations.push_back(
        NominationDecision{"default", "urgent-0", "urgent-0", "n0", "default/urgent"});
  }
  EvictDecision e;
  e.namespace_name = "default";
  e.pod_name = "taken-0";
  e.pod_uid = "taken-0";
  e.node_name = "n0";
  e.kind = EvictionKind::kReclaim;
  e.preemptor = "default/b-job";
  e.victim_job = "default/taken";
  e.queue = "a";
  record.evicted.push_back(e);
  std::vector<Violation> reclaim;
  for (const Violation& v : CheckSessionInvariants(c, record, {})) {
    if (v.invariant == Invariant::kReclaim) reclaim.push_back(v);
  }
  return reclaim;
}

TEST(SessionInvariants, AQueueReclaimedBelowItsShareIsReported) {
  const std::vector<Violation> found = ReclaimedFromA(/*nominated=*/false);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].message.find("queue a was reclaimed below its deserved share"),
            std::string::npos)
      << found[0].message;
}

TEST(SessionInvariants, ItsPodsNominatedToFreedRoomCountAsItsOwn) {
  EXPECT_TRUE(ReclaimedFromA(/*nominated=*/true).empty());
}

}  // namespace
}  // namespace arbiter::sim
