// One test per refusal of the admission rules, each checking that the message names the field.
#include "arbiter/webhook/rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/builders.h"

namespace arbiter::webhook {
namespace {

using ::testing::HasSubstr;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;
using ::testing::StartsWith;

AdmissionContext Cluster() {
  AdmissionContext ctx;
  Queue ml = MakeQueue("ml");
  ml.spec.capability = ResourceList({{"cpu", 8000}});
  ml.spec.namespace_selector.emplace().match_labels["team"] = "ml";
  Queue closed = MakeQueue("closed");
  closed.spec.state = QueueState::kClosed;
  ctx.queues = {{"default", MakeQueue("default")}, {"ml", ml}, {"closed", closed}};
  ctx.namespaces = {{"ml-ns", {{"team", "ml"}}}, {"web-ns", {{"team", "web"}}}};
  return ctx;
}

PodGroup Group(const std::string& ns, const std::string& queue) {
  return MakePodGroup("g").Namespace(ns).Queue(queue).MinMember(1).Build();
}

TEST(ReviewPodGroupTest, AllowsAGroupItsQueueTakes) {
  EXPECT_EQ(ReviewPodGroup(Group("ml-ns", "ml"), nullptr, Cluster()), std::nullopt);
}

TEST(ReviewPodGroupTest, RefusesAMissingQueue) {
  const Refusal r = ReviewPodGroup(Group("ml-ns", "nope"), nullptr, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.queue: queue \"nope\" does not exist"));
}

TEST(ReviewPodGroupTest, RefusesAClosedQueue) {
  const Refusal r = ReviewPodGroup(Group("ml-ns", "closed"), nullptr, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.queue: queue \"closed\" is Closed"));
}

TEST(ReviewPodGroupTest, RefusesAQueueThatExcludesTheNamespace) {
  const Refusal r = ReviewPodGroup(Group("web-ns", "ml"), nullptr, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.queue: queue \"ml\" does not admit namespace \"web-ns\""));
}

TEST(ReviewPodGroupTest, RefusesMinResourcesBeyondTheCapability) {
  PodGroup g = Group("ml-ns", "ml");
  g.spec.min_resources = ResourceList({{"cpu", 12000}});
  const Refusal r = ReviewPodGroup(g, nullptr, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.minResources.cpu: 12 exceeds the capability of queue \"ml\""));
}

TEST(ReviewPodGroupTest, RefusesMinResourcesBeyondAnAncestorsCapability) {
  AdmissionContext ctx = Cluster();
  Queue child = MakeQueue("ml-child");
  child.spec.parent = "ml";
  ctx.queues.emplace("ml-child", child);
  PodGroup g = Group("ml-ns", "ml-child");
  g.spec.min_resources = ResourceList({{"cpu", 9000}});
  const Refusal r = ReviewPodGroup(g, nullptr, ctx);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, HasSubstr("capability of queue \"ml\""));
}

TEST(ReviewPodGroupTest, AQueueCorrectedBeforeAdmissionIsCheckedAgain) {
  const PodGroup old = Group("ml-ns", "nope");
  EXPECT_EQ(ReviewPodGroup(Group("ml-ns", "ml"), &old, Cluster()), std::nullopt);
  const Refusal r = ReviewPodGroup(Group("ml-ns", "closed"), &old, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.queue: queue \"closed\" is Closed"));
}

TEST(ReviewPodGroupTest, AQueueClosedAfterwardsDoesNotRefuseUpdates) {
  PodGroup old = Group("ml-ns", "closed");
  PodGroup now = old;
  now.spec.min_member = 2;
  EXPECT_EQ(ReviewPodGroup(now, &old, Cluster()), std::nullopt);
}

BatchJob Job(const std::string& queue, std::int32_t workers) {
  BatchJob job;
  job.meta.name = "j";
  job.meta.namespace_name = "ml-ns";
  job.spec.queue = queue;
  BatchTaskSpec& task = job.spec.tasks.emplace_back();
  task.name = "worker";
  task.replicas = workers;
  return job;
}

TEST(ReviewBatchJobTest, RefusesAMissingQueue) {
  const Refusal r = ReviewBatchJob(Job("nope", 1), nullptr, {}, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.queue: queue \"nope\" does not exist"));
}

TEST(ReviewBatchJobTest, RefusesMinimumPodsBeyondTheCapability) {
  // 3 workers of 3 CPU each must all run: 9 CPU, above ml's 8.
  const Refusal r =
      ReviewBatchJob(Job("ml", 3), nullptr, {ResourceList({{"cpu", 3000}})}, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.tasks[*].template.spec.containers[*].resources.requests.cpu: 9 "
                             "exceeds the capability of queue \"ml\""));
  EXPECT_EQ(ReviewBatchJob(Job("ml", 2), nullptr, {ResourceList({{"cpu", 3000}})}, Cluster()),
            std::nullopt);
}

TEST(ReviewQueueTest, RefusesAGuaranteeAboveTheCapability) {
  Queue q = MakeQueue("q");
  q.spec.capability = ResourceList({{"cpu", 4000}});
  q.spec.guarantee = ResourceList({{"cpu", 6000}});
  const Refusal r = ReviewQueue(q, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "spec.guarantee.cpu: 6 exceeds spec.capability.cpu (4)");
}

TEST(ReviewQueueTest, RefusesChildrensGuaranteesAboveTheParents) {
  AdmissionContext ctx = Cluster();
  Queue parent = MakeQueue("org");
  parent.spec.guarantee = ResourceList({{"cpu", 10000}});
  Queue first = MakeQueue("org-a");
  first.spec.parent = "org";
  first.spec.guarantee = ResourceList({{"cpu", 6000}});
  ctx.queues.emplace("org", parent);
  ctx.queues.emplace("org-a", first);
  Queue second = MakeQueue("org-b");
  second.spec.parent = "org";
  second.spec.guarantee = ResourceList({{"cpu", 5000}});
  const Refusal r = ReviewQueue(second, ctx);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.guarantee.cpu: with its siblings' (org-a) the children of "
                             "\"org\" would be guaranteed 11"));
  second.spec.guarantee = ResourceList({{"cpu", 4000}});
  EXPECT_EQ(ReviewQueue(second, ctx), std::nullopt);
}

TEST(ReviewQueueTest, RefusesAMissingParent) {
  Queue q = MakeQueue("q");
  q.spec.parent = "nope";
  const Refusal r = ReviewQueue(q, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "spec.parent: queue \"nope\" does not exist");
}

TEST(ReviewQueueTest, RefusesAParentThatMakesACycle) {
  AdmissionContext ctx = Cluster();
  Queue a = MakeQueue("a");
  a.spec.parent = "b";
  ctx.queues.emplace("a", a);
  Queue b = MakeQueue("b");  // b's new parent is a, whose parent is b
  ctx.queues.emplace("b", b);
  b.spec.parent = "a";
  const Refusal r = ReviewQueue(b, ctx);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.parent: \"a\" makes a cycle"));
}

TEST(ReviewQueueDeletionTest, RefusesAnOpenQueue) {
  const Refusal r = ReviewQueueDeletion(Cluster().queues.at("ml"), Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.state: queue \"ml\" is Open: close it"));
}

TEST(ReviewQueueDeletionTest, RefusesAClosedQueueThatStillHasJobs) {
  AdmissionContext ctx = Cluster();
  ctx.jobs.push_back({"BatchJob", "ml-ns/train", "closed"});
  const Refusal r = ReviewQueueDeletion(ctx.queues.at("closed"), ctx);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("spec.state: queue \"closed\" is Closed but still has 1 job(s): "
                             "BatchJob ml-ns/train"));
  ctx.jobs.clear();
  EXPECT_EQ(ReviewQueueDeletion(ctx.queues.at("closed"), ctx), std::nullopt);
}

TEST(ReviewQueueDeletionTest, RefusesDeletingDefault) {
  const Refusal r = ReviewQueueDeletion(Cluster().queues.at("default"), Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("metadata.name: queue \"default\" cannot be deleted"));
}

TEST(ReviewPodTest, RefusesAPodWhoseGroupsQueueExcludesItsNamespace) {
  AdmissionContext ctx = Cluster();
  ctx.group_queues["web-ns/g"] = "ml";
  const Pod pod = MakePod("p").Namespace("web-ns").Group("g").Build();
  const Refusal r = ReviewPod(pod, ctx);
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("metadata.labels[arbiter.dev/pod-group]: PodGroup g: spec.queue: "
                             "queue \"ml\" does not admit namespace \"web-ns\""));
}

TEST(ReviewPodTest, RefusesAPodWhoseQueueAnnotationItMayNotUse) {
  Pod pod = MakePod("p").Namespace("web-ns").Group("g").Build();
  pod.meta.annotations["arbiter.dev/queue"] = "ml";
  const Refusal r = ReviewPod(pod, Cluster());
  ASSERT_TRUE(r.has_value());
  EXPECT_THAT(*r, StartsWith("metadata.annotations[arbiter.dev/queue]: queue \"ml\" does not "
                             "admit namespace"));
}

TEST(ReviewPodTest, LeavesOtherSchedulersPodsAlone) {
  Pod pod = MakePod("p").Namespace("web-ns").Group("g").Build();
  pod.meta.annotations["arbiter.dev/queue"] = "ml";
  pod.spec.scheduler_name = "default-scheduler";
  EXPECT_EQ(ReviewPod(pod, Cluster()), std::nullopt);
}

}  // namespace
}  // namespace arbiter::webhook
