#include "arbiter/resource/resource_list.h"

#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

TEST(ResourceListTest, ParseConvertsToCanonicalUnits) {
  StatusOr<ResourceList> list =
      ResourceList::Parse({{"cpu", "1500m"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}});
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->Get("cpu"), 1500);
  EXPECT_EQ(list->Get("memory"), 2 * kGi);
  EXPECT_EQ(list->Get("nvidia.com/gpu"), 1);
  EXPECT_EQ(list->Get("pods"), 0);
  EXPECT_FALSE(list->Has("pods"));
}

TEST(ResourceListTest, ParseErrorsNameTheResource) {
  EXPECT_EQ(ResourceList::Parse({{"memory", "1K"}}).status().message().substr(0, 22),
            "resource memory: quant");
  EXPECT_EQ(ResourceList::Parse({{"cpu", "-1"}}).status().message(),
            "resource cpu: negative quantity -1");
  EXPECT_EQ(ResourceList::Parse({{"cpu", "1"}, {"cpu", "2"}}).status().message(),
            "resource cpu: listed twice");
}

TEST(ResourceListTest, EntriesAreSortedAndPrintedAsKubernetes) {
  ResourceList list{{"pods", 3}, {"memory", kGi}, {"cpu", 1500}};
  ASSERT_EQ(list.size(), 3U);
  EXPECT_EQ(list.entries()[0].name, "cpu");
  EXPECT_EQ(list.ToString(), "cpu=1500m,memory=1Gi,pods=3");
}

TEST(ResourceListTest, NamesAreKeptOncePerProcess) {
  const ResourceList node =
      *ResourceList::Parse({{"ephemeral-storage", "100Gi"}, {"hugepages-2Mi", "0"}});
  ResourceList pod;
  pod.Set("ephemeral-storage", kGi);
  ASSERT_EQ(node.entries()[0].name, "ephemeral-storage");
  EXPECT_TRUE(pod.entries()[0].name.interned());
  EXPECT_EQ(pod.entries()[0].name.data(), node.entries()[0].name.data());
  ResourceList sum = node;
  ASSERT_TRUE(sum.Add(pod).ok());
  EXPECT_EQ(sum.entries()[0].name.data(), node.entries()[0].name.data());
  EXPECT_EQ(sum.ToString(), "ephemeral-storage=101Gi,hugepages-2Mi=0");
}

TEST(ResourceListTest, SetAndErase) {
  ResourceList list;
  list.Set("cpu", 100);
  list.Set("cpu", 200);
  EXPECT_EQ(list.Get("cpu"), 200);
  list.Erase("cpu");
  EXPECT_TRUE(list.empty());
  list.Erase("absent");
  EXPECT_TRUE(list.empty());
}

TEST(ResourceListTest, ZeroIsPresentButZero) {
  ResourceList list{{"cpu", 0}};
  EXPECT_TRUE(list.Has("cpu"));
  EXPECT_TRUE(list.IsZero());
  EXPECT_NE(list, ResourceList());
}

TEST(ResourceListTest, AddMergesResources) {
  ResourceList a{{"cpu", 500}, {"memory", 100}};
  ASSERT_TRUE(a.Add(ResourceList{{"cpu", 250}, {"pods", 1}}).ok());
  EXPECT_EQ(a, (ResourceList{{"cpu", 750}, {"memory", 100}, {"pods", 1}}));
}

TEST(ResourceListTest, AddReportsOverflowAndLeavesListUnchanged) {
  ResourceList a{{"cpu", std::numeric_limits<std::int64_t>::max()}, {"memory", 1}};
  ResourceList before = a;
  Status s = a.Add(ResourceList{{"cpu", 1}, {"memory", 1}});
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("resource cpu"), std::string::npos) << s;
  EXPECT_EQ(a, before);
}

TEST(ResourceListTest, SubtractRefusesToUnderflow) {
  ResourceList a{{"cpu", 500}, {"memory", kGi}};
  ResourceList before = a;
  Status s = a.Subtract(ResourceList{{"cpu", 750}});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "resource cpu: cannot subtract 750m from 500m (short by 250m)");
  EXPECT_EQ(a, before);
  // A resource the list lacks cannot be taken away either.
  EXPECT_FALSE(a.Subtract(ResourceList{{"nvidia.com/gpu", 1}}).ok());
  EXPECT_EQ(a, before);
  // Taking zero of something absent is fine and adds nothing.
  ASSERT_TRUE(a.Subtract(ResourceList{{"pods", 0}, {"cpu", 500}}).ok());
  EXPECT_EQ(a, (ResourceList{{"cpu", 0}, {"memory", kGi}}));
}

TEST(ResourceListTest, FitsInTreatsMissingAvailableAsZero) {
  ResourceList node{{"cpu", 4000}, {"memory", 8 * kGi}, {"pods", 110}};
  EXPECT_TRUE((ResourceList{{"cpu", 4000}, {"memory", kGi}}).FitsIn(node));
  EXPECT_FALSE((ResourceList{{"cpu", 4001}}).FitsIn(node));
  EXPECT_FALSE((ResourceList{{"nvidia.com/gpu", 1}}).FitsIn(node));
  EXPECT_TRUE((ResourceList{{"nvidia.com/gpu", 0}}).FitsIn(node));
  EXPECT_TRUE(ResourceList().FitsIn(node));
  EXPECT_EQ((ResourceList{{"cpu", 5000}, {"memory", kGi}, {"nvidia.com/gpu", 1}}).Shortfalls(node),
            (std::vector<std::string>{"cpu", "nvidia.com/gpu"}));
}

TEST(ResourceListTest, LessEqualSpellsOutMissingDimensions) {
  ResourceList capability{{"cpu", 10000}};  // memory absent: unlimited in a capability
  ResourceList usage{{"cpu", 8000}, {"memory", 64 * kGi}};
  EXPECT_TRUE(usage.LessEqual(capability, Missing::kUnlimited));
  EXPECT_FALSE(usage.LessEqual(capability, Missing::kZero));
  EXPECT_FALSE((ResourceList{{"cpu", 10001}}).LessEqual(capability, Missing::kUnlimited));
  // Absent from the left counts as zero.
  EXPECT_TRUE(ResourceList().LessEqual(ResourceList{{"cpu", 0}}, Missing::kZero));
}

TEST(ResourceListTest, MaxAndMin) {
  ResourceList a{{"cpu", 1000}, {"memory", 5}};
  ResourceList b{{"cpu", 2000}, {"pods", 3}};
  EXPECT_EQ(ResourceList::Max(a, b), (ResourceList{{"cpu", 2000}, {"memory", 5}, {"pods", 3}}));
  EXPECT_EQ(ResourceList::Min(a, b, Missing::kZero), (ResourceList{{"cpu", 1000}}));
  EXPECT_EQ(ResourceList::Min(a, b, Missing::kUnlimited),
            (ResourceList{{"cpu", 1000}, {"memory", 5}, {"pods", 3}}));
}

TEST(ResourceListTest, DominantShareIsTheLargestFraction) {
  // The DRF paper's example: 9 CPUs and 18 GB; user A's task <1 CPU, 4 GB> is memory-dominant
  // (4/18 > 1/9), user B's <3 CPUs, 1 GB> is CPU-dominant (3/9 > 1/18).
  ResourceList total{{"cpu", 9000}, {"memory", 18 * kGi}};
  DominantShare a = ResourceList{{"cpu", 1000}, {"memory", 4 * kGi}}.Dominant(total);
  EXPECT_EQ(a.resource, "memory");
  EXPECT_DOUBLE_EQ(a.share, 4.0 / 18.0);
  DominantShare b = ResourceList{{"cpu", 3000}, {"memory", kGi}}.Dominant(total);
  EXPECT_EQ(b.resource, "cpu");
  EXPECT_DOUBLE_EQ(b.share, 3.0 / 9.0);
}

TEST(ResourceListTest, DominantShareOfAResourceTheTotalLacksIsOne) {
  ResourceList total{{"cpu", 9000}};
  DominantShare s = ResourceList{{"cpu", 900}, {"nvidia.com/gpu", 1}}.Dominant(total);
  EXPECT_EQ(s.resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(s.share, 1.0);
  EXPECT_EQ((ResourceList{{"cpu", 0}}).Dominant(total).resource, "");
}

TEST(ResourceListPropertyTest, SubtractUndoesAdd) {
  std::mt19937_64 rng(3);
  const char* names[] = {"cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage"};
  for (int i = 0; i < 2000; ++i) {
    ResourceList a;
    ResourceList b;
    for (const char* name : names) {
      if (rng() % 2) a.Set(name, static_cast<std::int64_t>(rng() >> 3));
      if (rng() % 2) b.Set(name, static_cast<std::int64_t>(rng() >> 3));
    }
    ResourceList sum = a;
    ASSERT_TRUE(sum.Add(b).ok());
    EXPECT_TRUE(a.LessEqual(sum, Missing::kZero));
    EXPECT_TRUE(b.FitsIn(sum));
    ResourceList back = sum;
    ASSERT_TRUE(back.Subtract(b).ok());
    // Equal amounts; b's resources that a lacked are present with zero.
    for (const ResourceEntry& e : back.entries()) EXPECT_EQ(e.amount, a.Get(e.name)) << e.name;
    for (const ResourceEntry& e : a.entries()) EXPECT_EQ(back.Get(e.name), e.amount) << e.name;
  }
}

}  // namespace
}  // namespace arbiter
