// ResourceSpace and ResourceVector: interning, conversion to and from ResourceList, saturating
// arithmetic, fit checks across vectors of different lengths, and formatting.
#include "arbiter/resource/resource_vector.h"

#include <cstdint>
#include <limits>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter {
namespace {

constexpr std::int64_t kGi = std::int64_t{1} << 30;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// A vector from (id, amount) pairs, sized by the largest id.
ResourceVector Vec(std::initializer_list<std::pair<ResourceId, std::int64_t>> amounts) {
  ResourceVector v;
  for (const auto& [id, amount] : amounts) v.Set(id, amount);
  return v;
}

TEST(ResourceSpace, CommonResourcesHaveFixedIds) {
  const ResourceSpace space;
  EXPECT_EQ(space.size(), 4U);
  EXPECT_EQ(space.Find("cpu"), std::optional<ResourceId>(kCpuId));
  EXPECT_EQ(space.Find("memory"), std::optional<ResourceId>(kMemoryId));
  EXPECT_EQ(space.Find("pods"), std::optional<ResourceId>(kPodsId));
  EXPECT_EQ(space.Find("ephemeral-storage"), std::optional<ResourceId>(kEphemeralStorageId));
  EXPECT_EQ(space.Name(kCpuId), "cpu");
  EXPECT_EQ(space.Name(kEphemeralStorageId), "ephemeral-storage");
}

TEST(ResourceSpace, InternAddsNewNamesAfterTheFixedOnes) {
  ResourceSpace space;
  EXPECT_EQ(space.Find("nvidia.com/gpu"), std::nullopt);
  const ResourceId gpu = space.Intern("nvidia.com/gpu");
  EXPECT_EQ(gpu, 4);
  EXPECT_EQ(space.Intern("hugepages-2Mi"), 5);
  EXPECT_EQ(space.Intern("nvidia.com/gpu"), gpu);  // interning again changes nothing
  EXPECT_EQ(space.Intern("cpu"), kCpuId);
  EXPECT_EQ(space.size(), 6U);
  EXPECT_EQ(space.Name(gpu), "nvidia.com/gpu");
}

TEST(ResourceSpace, FromListToListRoundTrip) {
  ResourceSpace space;
  const ResourceList list{{"cpu", 1500}, {"memory", 2 * kGi}, {"nvidia.com/gpu", 2}};
  const ResourceVector v = space.FromList(list);
  EXPECT_EQ(v.Get(kCpuId), 1500);
  EXPECT_EQ(v.Get(kMemoryId), 2 * kGi);
  EXPECT_EQ(v.Get(*space.Find("nvidia.com/gpu")), 2);
  EXPECT_EQ(space.ToList(v), list);
}

TEST(ResourceSpace, ToListDropsZeroAmountsUnlessAsked) {
  ResourceSpace space;
  // cpu=0 and pods=0 are present in the vector (size 3), memory is not zero.
  const ResourceVector v = Vec({{kCpuId, 0}, {kMemoryId, kGi}, {kPodsId, 0}});
  EXPECT_EQ(space.ToList(v), (ResourceList{{"memory", kGi}}));
  EXPECT_EQ(space.ToList(v, /*keep_zero=*/true),
            (ResourceList{{"cpu", 0}, {"memory", kGi}, {"pods", 0}}));
}

TEST(ResourceVector, AbsentResourcesReadAsZero) {
  const ResourceVector v = Vec({{kCpuId, 7}});
  EXPECT_EQ(v.size(), 1U);
  EXPECT_EQ(v.Get(kMemoryId), 0);
  EXPECT_EQ(v.Get(42), 0);
  EXPECT_FALSE(v.IsZero());
  EXPECT_TRUE(ResourceVector().IsZero());
  EXPECT_TRUE(ResourceVector(5).IsZero());
}

TEST(ResourceVector, EqualityIgnoresTrailingZeros) {
  EXPECT_EQ(Vec({{kCpuId, 1}}), Vec({{kCpuId, 1}, {kEphemeralStorageId, 0}}));
  EXPECT_EQ(ResourceVector(), ResourceVector(4));
  EXPECT_FALSE(Vec({{kCpuId, 1}}) == Vec({{kCpuId, 1}, {kPodsId, 1}}));
}

TEST(ResourceVector, AddGrowsToTheLongerVector) {
  ResourceVector a = Vec({{kCpuId, 1000}});
  a.Add(Vec({{kCpuId, 500}, {kPodsId, 1}}));
  // cpu 1000 + 500; memory absent in both stays 0; pods 0 + 1.
  EXPECT_EQ(a, Vec({{kCpuId, 1500}, {kPodsId, 1}}));
  EXPECT_EQ(a.size(), 3U);
}

TEST(ResourceVector, AddSaturatesAtInt64Max) {
  ResourceVector a = Vec({{kCpuId, kMax - 1}, {kMemoryId, kMax}});
  a.Add(Vec({{kCpuId, 5}, {kMemoryId, kMax}}));
  EXPECT_EQ(a.Get(kCpuId), kMax);
  EXPECT_EQ(a.Get(kMemoryId), kMax);
  // A saturated amount fits nowhere short of another saturated amount.
  EXPECT_FALSE(a.FitsIn(Vec({{kCpuId, kMax - 1}, {kMemoryId, kMax}})));
}

TEST(ResourceVector, SubtractPerResource) {
  ResourceVector free = Vec({{kCpuId, 4000}, {kMemoryId, 8 * kGi}, {kPodsId, 110}});
  free.Subtract(Vec({{kCpuId, 1500}, {kPodsId, 1}}));
  // 4000 - 1500 = 2500 millicores; memory untouched; 110 - 1 = 109 pods.
  EXPECT_EQ(free, Vec({{kCpuId, 2500}, {kMemoryId, 8 * kGi}, {kPodsId, 109}}));
  free.Subtract(free);
  EXPECT_TRUE(free.IsZero());
}

TEST(ResourceVector, SubtractingMoreThanPresentIsABookkeepingBug) {
  ResourceVector v = Vec({{kCpuId, 100}});
  // Debug builds CHECK; release builds clamp at 0.
  EXPECT_DEBUG_DEATH(
      {
        v.Subtract(Vec({{kCpuId, 300}}));
        EXPECT_EQ(v.Get(kCpuId), 0);
      },
      "");
}

TEST(ResourceVector, FitsInComparesAgainstALongerAvailable) {
  const ResourceVector request = Vec({{kCpuId, 500}, {kMemoryId, kGi}});
  const ResourceVector available =
      Vec({{kCpuId, 500}, {kMemoryId, kGi}, {kPodsId, 1}, {4, 3}});  // id 4: a gpu
  EXPECT_TRUE(request.FitsIn(available));
  EXPECT_EQ(request.FirstShortfall(available), std::nullopt);
}

TEST(ResourceVector, FitsInTreatsResourcesMissingFromAvailableAsZero) {
  // The request wants 1 of resource 4 (a gpu); available knows only cpu and memory.
  const ResourceVector request = Vec({{kCpuId, 100}, {4, 1}});
  const ResourceVector available = Vec({{kCpuId, 1000}, {kMemoryId, kGi}});
  EXPECT_FALSE(request.FitsIn(available));
  EXPECT_EQ(request.FirstShortfall(available), std::optional<ResourceId>(4));
}

TEST(ResourceVector, ZeroAmountsBeyondAvailableStillFit) {
  const ResourceVector request = Vec({{kCpuId, 100}, {4, 0}});
  EXPECT_TRUE(request.FitsIn(Vec({{kCpuId, 100}})));
  EXPECT_TRUE(ResourceVector().FitsIn(ResourceVector()));
}

TEST(ResourceVector, FirstShortfallIsTheLowestIdThatDoesNotFit) {
  // cpu fits (1 <= 2); memory (id 1) and pods (id 2) both fall short: memory comes first.
  const ResourceVector request = Vec({{kCpuId, 1}, {kMemoryId, 5}, {kPodsId, 5}});
  const ResourceVector available = Vec({{kCpuId, 2}, {kMemoryId, 4}, {kPodsId, 4}});
  EXPECT_EQ(request.FirstShortfall(available), std::optional<ResourceId>(kMemoryId));
}

TEST(ResourceVector, MinPerResourceWithAbsentAsZero) {
  const ResourceVector a = Vec({{kCpuId, 3000}, {kMemoryId, kGi}, {kPodsId, 7}});
  const ResourceVector b = Vec({{kCpuId, 1000}, {kMemoryId, 2 * kGi}});
  // cpu min(3000, 1000) = 1000; memory min(1Gi, 2Gi) = 1Gi; pods min(7, absent 0) = 0.
  const ResourceVector expected = Vec({{kCpuId, 1000}, {kMemoryId, kGi}});
  EXPECT_EQ(ResourceVector::Min(a, b), expected);
  EXPECT_EQ(ResourceVector::Min(b, a), expected);
  EXPECT_EQ(ResourceVector::Min(a, b).Get(kPodsId), 0);
}

TEST(ResourceSpace, FormatPrintsNonZeroAmountsInKubernetesNotation) {
  ResourceSpace space;
  const ResourceVector v = space.FromList(
      ResourceList{{"cpu", 1500}, {"memory", kGi}, {"pods", 0}, {"nvidia.com/gpu", 2}});
  // Sorted by name; pods=0 left out.
  EXPECT_EQ(space.Format(v), "cpu=1500m,memory=1Gi,nvidia.com/gpu=2");
  EXPECT_EQ(space.Format(ResourceVector()), "");
}

TEST(ResourceSpace, FormatAmountUsesEachResourcesUnit) {
  ResourceSpace space;
  EXPECT_EQ(space.FormatAmount(kCpuId, 1500), "1500m");
  EXPECT_EQ(space.FormatAmount(kCpuId, 2000), "2");
  EXPECT_EQ(space.FormatAmount(kMemoryId, 2 * kGi), "2Gi");
  EXPECT_EQ(space.FormatAmount(kPodsId, 3), "3");
}

}  // namespace
}  // namespace arbiter
