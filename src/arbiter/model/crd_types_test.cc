// PodGroup, Queue and Node: defaults and the small helpers on the model values.
#include <gtest/gtest.h>

#include "arbiter/model/node.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"

namespace arbiter {
namespace {

TEST(PodGroupTest, DefaultsFollowTheCrdSchema) {
  PodGroup group;
  EXPECT_EQ(group.spec.min_member, 1);
  EXPECT_EQ(group.spec.queue, "default");
  EXPECT_EQ(group.status.phase, PodGroupPhase::kPending);
}

TEST(PodGroupTest, PhaseNamesRoundTrip) {
  for (PodGroupPhase phase :
       {PodGroupPhase::kPending, PodGroupPhase::kInqueue, PodGroupPhase::kRunning,
        PodGroupPhase::kCompleted, PodGroupPhase::kFailed}) {
    StatusOr<PodGroupPhase> parsed = ParsePodGroupPhase(PodGroupPhaseName(phase));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, phase);
  }
  EXPECT_EQ(ParsePodGroupPhase("Done").status().message(),
            "unknown phase \"Done\" (want Pending, Inqueue, Running, Completed or Failed)");
}

TEST(QueueTest, DefaultsFollowTheCrdSchema) {
  Queue queue;
  EXPECT_EQ(queue.spec.weight, 1);
  EXPECT_TRUE(queue.spec.reclaimable);
  EXPECT_EQ(queue.spec.state, QueueState::kOpen);
  EXPECT_FALSE(queue.spec.namespace_selector.has_value());
}

TEST(QueueTest, AbsentSelectorAdmitsEveryNamespace) {
  QueueSpec spec;
  EXPECT_TRUE(spec.AdmitsNamespace({}));
  spec.namespace_selector = LabelSelector{};
  spec.namespace_selector->match_labels = {{"team", "ml"}};
  EXPECT_TRUE(spec.AdmitsNamespace({{"team", "ml"}}));
  EXPECT_FALSE(spec.AdmitsNamespace({{"team", "hpc"}}));
}

TEST(QueueTest, StateNames) {
  EXPECT_EQ(*ParseQueueState("Closed"), QueueState::kClosed);
  EXPECT_EQ(QueueStateName(QueueState::kOpen), "Open");
  EXPECT_FALSE(ParseQueueState("open").ok());
}

TEST(NodeTest, ReadyNeedsATrueReadyCondition) {
  Node node;
  EXPECT_FALSE(node.Ready());
  node.conditions = {{"MemoryPressure", "False", "", "", std::nullopt}};
  EXPECT_FALSE(node.Ready());
  node.conditions.push_back({"Ready", "True", "KubeletReady", "", std::nullopt});
  EXPECT_TRUE(node.Ready());
  node.conditions.back().status = "Unknown";
  EXPECT_FALSE(node.Ready());
}

TEST(ObjectMetaTest, KeyIsNamespaceSlashName) {
  ObjectMeta meta;
  meta.name = "n1";
  EXPECT_EQ(meta.Key(), "n1");
  meta.namespace_name = "ns";
  EXPECT_EQ(meta.Key(), "ns/n1");
}

}  // namespace
}  // namespace arbiter
