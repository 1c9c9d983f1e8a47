#include "arbiter/ctl/views.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "arbiter/testing/builders.h"

namespace arbiter::ctl {
namespace {

using testing::Canonical;
using testing::MakeQueue;

const Clock::WallTime kNow = testing::TestEpoch() + std::chrono::hours(1);

PodGroup Group(std::string_view ns, std::string name, std::int32_t min, std::string queue) {
  PodGroup g;
  g.meta.namespace_name = ns;
  g.meta.name = std::move(name);
  g.meta.creation_timestamp = kNow - std::chrono::seconds(200);
  g.spec.min_member = min;
  g.spec.queue = std::move(queue);
  return g;
}

PodGroup Waiting() {
  PodGroup g = Group("ml", "train", 3, "team");
  g.status.phase = PodGroupPhase::kInqueue;
  g.status.conditions.push_back({"Unschedulable", "True", "NotEnoughResources",
                                 "pod ml/train-0: 0/3 nodes are available: 3 Insufficient cpu.",
                                 kNow});
  PendingExplanation& e = g.status.explanation.emplace();
  e.gate = "Placement";
  e.reason = "NotEnoughResources";
  e.needs.Set("cpu", Canonical("cpu", "12"));
  e.queue = "team";
  e.pod = "ml/train-0";
  e.nodes = 3;
  e.excluded = {{"Insufficient cpu", 2}, {"node(s) had untolerated taint {gpu: true}", 1}};
  e.shortfall.Set("cpu", Canonical("cpu", "1500m"));
  e.position = 2;
  e.ahead = {"ml/first"};
  return g;
}

TEST(ShortDurationTest, AsKubectlPrintsAges) {
  EXPECT_EQ(ShortDuration(std::chrono::seconds(45)), "45s");
  EXPECT_EQ(ShortDuration(std::chrono::seconds(200)), "3m20s");
  EXPECT_EQ(ShortDuration(std::chrono::minutes(125)), "2h5m");
  EXPECT_EQ(ShortDuration(std::chrono::hours(76)), "3d4h");
  EXPECT_EQ(ShortDuration(-std::chrono::seconds(5)), "0s");
}

TEST(FormatJobsTest, OneRowPerGroupWithItsReason) {
  PodGroup running = Group("ml", "a-running", 2, "team");
  running.status.phase = PodGroupPhase::kRunning;
  running.status.running = 2;
  const std::string table =
      FormatJobs({Waiting(), running}, {"BatchJob", "PodGroup"}, kNow, {.all_namespaces = true});
  EXPECT_EQ(table,
            "NAMESPACE   NAME        KIND       QUEUE   PHASE     RUNNING   WAITING   REASON\n"
            "ml          a-running   PodGroup   team    Running   2/2       -         -\n"
            "ml          train       BatchJob   team    Inqueue   0/3       3m20s     "
            "NotEnoughResources\n");
}

TEST(FormatQueuesTest, DrawsTheTreeWithSharesAndBars) {
  Queue root = MakeQueue("org", 1);
  root.status.deserved.Set("cpu", Canonical("cpu", "8"));
  root.status.allocated.Set("cpu", Canonical("cpu", "6"));
  Queue a = MakeQueue("a", 3);
  a.spec.parent = "org";
  a.spec.capability.Set("cpu", Canonical("cpu", "6"));
  a.status.deserved.Set("cpu", Canonical("cpu", "6"));
  a.status.allocated.Set("cpu", Canonical("cpu", "6"));
  a.status.running = 2;
  Queue b = MakeQueue("b", 1);
  b.spec.parent = "org";
  b.status.deserved.Set("cpu", Canonical("cpu", "2"));
  b.status.inqueue = 1;
  Queue orphan = MakeQueue("lost", 1);
  orphan.spec.parent = "gone";
  const std::string tree = FormatQueues({b, orphan, a, root}, /*wide=*/false);
  EXPECT_NE(tree.find("lost (parent gone missing)"), std::string::npos) << tree;
  const std::size_t org = tree.find("\norg ");
  const std::size_t first = tree.find("├─ a ");
  const std::size_t second = tree.find("└─ b ");
  ASSERT_NE(org, std::string::npos) << tree;
  ASSERT_NE(first, std::string::npos) << tree;
  ASSERT_NE(second, std::string::npos) << tree;
  EXPECT_LT(org, first);
  EXPECT_LT(first, second);
  EXPECT_NE(tree.find("[##########] 100%"), std::string::npos) << tree;  // a: 6 of 6
  EXPECT_NE(tree.find("[########..] 75%"), std::string::npos) << tree;   // org: 6 of 8
  EXPECT_NE(tree.find("[..........] 0%"), std::string::npos) << tree;    // b: 0 of 2
}

TEST(FormatExplanationTest, PrintsTheGateAndTheNumbersThePodGroupCarries) {
  const std::string text = FormatExplanation("BatchJob ml/train", Waiting(), kNow);
  EXPECT_EQ(text,
            "BatchJob ml/train (PodGroup ml/train): Inqueue, 0/3 running, in queue team, waiting "
            "for 3m20s\n"
            "Gate:        Placement (NotEnoughResources)\n"
            "Message:     pod ml/train-0: 0/3 nodes are available: 3 Insufficient cpu.\n"
            "Needs:       cpu 12\n"
            "Queue:       team\n"
            "Nodes:       0/3 nodes are available for pod ml/train-0\n"
            "             2 Insufficient cpu\n"
            "             1 node(s) had untolerated taint {gpu: true}\n"
            "Shortfall:   cpu 1500m (beyond the most any node has free)\n"
            "Position:    2 in queue team; ahead: ml/first\n");
}

TEST(FormatExplanationTest, TheReservationItsNodesAndWhenTheGroupFitsThere) {
  PodGroup group = Waiting();
  GangReservationStatus& r = group.status.reservation.emplace();
  r.nodes = {"n1", "n2"};
  r.since = kNow - std::chrono::seconds(90);
  r.estimated_start = kNow + std::chrono::seconds(300);
  const std::string text = FormatExplanation("BatchJob ml/train", group, kNow);
  EXPECT_NE(text.find("Reserved:    n1, n2 (for 90s)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  start:     in 5m (" + FormatRfc3339(*r.estimated_start) +
                      "), when the pods there end\n"),
            std::string::npos)
      << text;
  r.estimated_start.reset();
  EXPECT_NE(FormatExplanation("BatchJob ml/train", group, kNow)
                .find("  start:     unknown: some pods there have no known run time"),
            std::string::npos);
}

TEST(FormatExplanationTest, TheQueuesNumbersWhenTheQueueIsTheGate) {
  PodGroup g = Group("ml", "big", 2, "capped");
  PendingExplanation& e = g.status.explanation.emplace();
  e.gate = "Capability";
  e.reason = "QueueCapability";
  e.needs.Set("cpu", Canonical("cpu", "3"));
  e.queue = "capped";
  e.queue_allocated.Set("cpu", Canonical("cpu", "500m"));
  e.queue_capability.Set("cpu", Canonical("cpu", "2"));
  e.queue_room.Set("cpu", Canonical("cpu", "1500m"));
  const std::string text = FormatExplanation("PodGroup ml/big", g, kNow);
  EXPECT_EQ(text,
            "PodGroup ml/big: Pending, 0/2 running, in queue capped, waiting for 3m20s\n"
            "Gate:               Capability (QueueCapability)\n"
            "Needs:              cpu 3\n"
            "Queue:              capped\n"
            "  allocated:        cpu 500m\n"
            "  capability:       cpu 2\n"
            "  may still take:   cpu 1500m\n");
}

TEST(FormatExplanationTest, FreeRoomPerNodeClass) {
  PodGroup g = Waiting();
  NodeClassRoom& a = g.status.explanation->node_classes.emplace_back();
  a.nodes = 2;
  a.allocatable.Set("cpu", Canonical("cpu", "8"));
  a.most_free.Set("cpu", Canonical("cpu", "6"));
  NodeClassRoom& b = g.status.explanation->node_classes.emplace_back();
  b.nodes = 1;
  b.instance_type = "gpu-large";
  b.allocatable.Set("cpu", Canonical("cpu", "4"));
  b.most_free.Set("cpu", 0);
  const std::string text = FormatExplanation("PodGroup ml/train", g, kNow);
  EXPECT_NE(text.find("Free room:   2 nodes of cpu 8: at most cpu 6 free on one\n"
                      "             1 node of cpu 4 (gpu-large): at most cpu 0 free on one\n"),
            std::string::npos)
      << text;
}

TEST(FormatExplanationTest, TheEstimatedStartAndWhatItAssumes) {
  PodGroup g = Waiting();
  StartEstimate& e = g.status.explanation->estimate.emplace();
  e.start = kNow + std::chrono::minutes(12);
  e.as_of = kNow - std::chrono::seconds(20);
  e.confidence = "Medium";
  e.assumptions = "after 2 job ends (2 by activeDeadlineSeconds); its own run time: unknown";
  const std::string text = FormatExplanation("PodGroup ml/train", g, kNow);
  EXPECT_NE(text.find("Estimated start:   in 12m (" + FormatRfc3339(*e.start) +
                      "), confidence Medium\n"
                      "  assumes:         after 2 job ends (2 by activeDeadlineSeconds); its own "
                      "run time: unknown\n"
                      "  forecast:        20s ago\n"),
            std::string::npos)
      << text;
  // A start the forecast placed in the past is overdue, not "now".
  e.start = kNow - std::chrono::seconds(15);
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow)
                .find("Estimated start:   overdue by 15s (" + FormatRfc3339(*e.start) + ")"),
            std::string::npos);
  e.start = kNow;
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow).find("Estimated start:   now ("),
            std::string::npos);
  e.start.reset();
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow)
                .find("Estimated start:   not within the forecast, confidence Medium"),
            std::string::npos);
}

TEST(FormatExplanationTest, WithoutAnExplanationSaysWhatTheConditionSays) {
  PodGroup g = Waiting();
  g.status.explanation.reset();
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow).find("Reason:     NotEnoughResources"),
            std::string::npos);
  g.status.conditions.clear();
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow).find("Nothing holds it"),
            std::string::npos);
}

// A group seconds old, not admitted and with no reason: its pods may still be arriving.
TEST(FormatExplanationTest, AYoungPendingGroupWithoutAReasonIsStillGatheringItsPods) {
  PodGroup g = Group("ml", "train", 3, "team");
  g.meta.creation_timestamp = kNow - std::chrono::seconds(4);
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow)
                .find("No reason recorded yet: a group is given 10 s for its pods to arrive"),
            std::string::npos);
  g.meta.creation_timestamp = kNow - std::chrono::seconds(11);
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow).find("Nothing holds it"),
            std::string::npos);
  // An older group whose pods are still arriving: the grace runs from its newest pod.
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow, kNow - std::chrono::seconds(2))
                .find("No reason recorded yet"),
            std::string::npos);
  EXPECT_NE(FormatExplanation("PodGroup ml/train", g, kNow, kNow - std::chrono::seconds(12))
                .find("Nothing holds it"),
            std::string::npos);
}

}  // namespace
}  // namespace arbiter::ctl
