#include "arbiter/resource/resource_name.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

Quantity Q(std::string_view text) { return *Quantity::Parse(text); }

TEST(ResourceNameTest, CanonicalUnits) {
  EXPECT_EQ(UnitOf("cpu"), ResourceUnit::kMilli);
  EXPECT_EQ(UnitOf("memory"), ResourceUnit::kBytes);
  EXPECT_EQ(UnitOf("ephemeral-storage"), ResourceUnit::kBytes);
  EXPECT_EQ(UnitOf("hugepages-2Mi"), ResourceUnit::kBytes);
  EXPECT_EQ(UnitOf("pods"), ResourceUnit::kCount);
  EXPECT_EQ(UnitOf("nvidia.com/gpu"), ResourceUnit::kCount);
}

TEST(ResourceNameTest, CpuIsMillicoresRoundedUp) {
  EXPECT_EQ(*ToCanonical("cpu", Q("250m")), 250);
  EXPECT_EQ(*ToCanonical("cpu", Q("1.5")), 1500);
  EXPECT_EQ(*ToCanonical("cpu", Q("1n")), 1);  // as the kubelet counts it
  EXPECT_EQ(*ToCanonical("cpu", Q("100u")), 1);
}

TEST(ResourceNameTest, MemoryIsBytesRoundedUp) {
  EXPECT_EQ(*ToCanonical("memory", Q("1Gi")), 1073741824);
  EXPECT_EQ(*ToCanonical("memory", Q("1G")), 1000000000);
  EXPECT_EQ(*ToCanonical("memory", Q("1500m")), 2);
  EXPECT_EQ(*ToCanonical("nvidia.com/gpu", Q("2")), 2);
}

TEST(ResourceNameTest, RejectsNegativeAndOverflowNamingTheResource) {
  EXPECT_EQ(ToCanonical("cpu", Q("-1")).status().message(), "resource cpu: negative quantity -1");
  StatusOr<std::int64_t> big = ToCanonical("cpu", Q("9223372036854775807"));
  EXPECT_EQ(big.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(big.status().message().find("resource cpu"), std::string::npos);
}

TEST(ResourceNameTest, FromCanonicalPrintsAsKubernetes) {
  EXPECT_EQ(FromCanonical("cpu", 1500).ToString(), "1500m");
  EXPECT_EQ(FromCanonical("cpu", 2000).ToString(), "2");
  EXPECT_EQ(FromCanonical("memory", 1073741824).ToString(), "1Gi");
  EXPECT_EQ(FromCanonical("memory", 1000).ToString(), "1k");
  EXPECT_EQ(FromCanonical("pods", 110).ToString(), "110");
}

}  // namespace
}  // namespace arbiter
