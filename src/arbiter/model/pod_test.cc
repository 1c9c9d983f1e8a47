#include "arbiter/model/pod.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

constexpr std::int64_t kMi = 1024LL * 1024;

Container MakeContainer(std::int64_t cpu_milli, std::int64_t memory, std::string restart = "") {
  Container c;
  c.requests = ResourceList{{"cpu", cpu_milli}, {"memory", memory}};
  c.restart_policy = std::move(restart);
  return c;
}

ResourceList RequestOf(const Pod& pod) {
  StatusOr<ResourceList> r = pod.EffectiveRequest();
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ResourceList();
}

TEST(PodEffectiveRequestTest, EmptyPodCountsOnePod) {
  EXPECT_EQ(RequestOf(Pod()), (ResourceList{{"pods", 1}}));
}

TEST(PodEffectiveRequestTest, SumsContainers) {
  Pod pod;
  pod.spec.containers = {MakeContainer(100, 64 * kMi), MakeContainer(250, 128 * kMi)};
  EXPECT_EQ(RequestOf(pod), (ResourceList{{"cpu", 350}, {"memory", 192 * kMi}, {"pods", 1}}));
}

TEST(PodEffectiveRequestTest, InitContainersTakeTheMaxPerResource) {
  Pod pod;
  pod.spec.containers = {MakeContainer(100, 64 * kMi), MakeContainer(100, 64 * kMi)};
  // cpu: max(200, 500) = 500; memory: max(128Mi, 32Mi) = 128Mi.
  pod.spec.init_containers = {MakeContainer(500, 32 * kMi), MakeContainer(50, 16 * kMi)};
  EXPECT_EQ(RequestOf(pod), (ResourceList{{"cpu", 500}, {"memory", 128 * kMi}, {"pods", 1}}));
}

TEST(PodEffectiveRequestTest, OverheadIsAddedAfterTheMax) {
  Pod pod;
  pod.spec.containers = {MakeContainer(100, 64 * kMi)};
  pod.spec.init_containers = {MakeContainer(300, 0)};
  pod.spec.overhead = ResourceList{{"cpu", 10}, {"memory", kMi}};
  EXPECT_EQ(RequestOf(pod), (ResourceList{{"cpu", 310}, {"memory", 65 * kMi}, {"pods", 1}}));
}

TEST(PodEffectiveRequestTest, SidecarsRunBesideContainersAndLaterInitContainers) {
  Pod pod;
  pod.spec.containers = {MakeContainer(100, 100 * kMi)};
  // sidecar 50m, then a plain init container of 400m that runs beside the sidecar (450m).
  pod.spec.init_containers = {MakeContainer(50, 10 * kMi, "Always"), MakeContainer(400, kMi)};
  // regular = 100 + 50 = 150m, 110Mi; init max = max(50m/10Mi, 450m/11Mi) = 450m/11Mi.
  EXPECT_EQ(RequestOf(pod), (ResourceList{{"cpu", 450}, {"memory", 110 * kMi}, {"pods", 1}}));
}

TEST(PodEffectiveRequestTest, ExtendedResourcesAreCarried) {
  Pod pod;
  Container c;
  c.requests = ResourceList{{"nvidia.com/gpu", 2}};
  pod.spec.containers = {c, c};
  EXPECT_EQ(RequestOf(pod), (ResourceList{{"nvidia.com/gpu", 4}, {"pods", 1}}));
}

TEST(PodEffectiveRequestTest, OverflowIsAnError) {
  Pod pod;
  Container c;
  c.requests = ResourceList{{"memory", std::numeric_limits<std::int64_t>::max()}};
  pod.spec.containers = {c, c};
  EXPECT_FALSE(pod.EffectiveRequest().ok());
}

TEST(PodPhaseTest, ParsesKnownAndTreatsOthersAsUnknown) {
  EXPECT_EQ(ParsePodPhase("Running"), PodPhase::kRunning);
  EXPECT_EQ(ParsePodPhase("Succeeded"), PodPhase::kSucceeded);
  EXPECT_EQ(ParsePodPhase(""), PodPhase::kPending);
  EXPECT_EQ(ParsePodPhase("Hibernating"), PodPhase::kUnknown);
  EXPECT_EQ(PodPhaseName(PodPhase::kFailed), "Failed");
}

TEST(NodeSelectorOperatorTest, NamesRoundTrip) {
  for (NodeSelectorOperator op :
       {NodeSelectorOperator::kIn, NodeSelectorOperator::kNotIn, NodeSelectorOperator::kExists,
        NodeSelectorOperator::kDoesNotExist, NodeSelectorOperator::kGt,
        NodeSelectorOperator::kLt}) {
    StatusOr<NodeSelectorOperator> parsed = ParseNodeSelectorOperator(NodeSelectorOperatorName(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_FALSE(ParseNodeSelectorOperator("Equal").ok());
}

}  // namespace
}  // namespace arbiter
