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

// ResourceQuota keys count in the unit of the resource they limit (Kubernetes' quota keys:
// requests.<resource>, limits.<resource>, <class>.storageclass.storage.k8s.io/requests.storage,
// and object counts).
TEST(ResourceNameTest, QuotaKeysCountInTheirResourcesUnit) {
  EXPECT_EQ(UnitOf("requests.cpu"), ResourceUnit::kMilli);
  EXPECT_EQ(UnitOf("limits.cpu"), ResourceUnit::kMilli);
  for (std::string_view bytes :
       {"requests.memory", "limits.memory", "requests.storage", "requests.ephemeral-storage",
        "limits.ephemeral-storage", "requests.hugepages-2Mi", "requests.hugepages-1Gi",
        "gold.storageclass.storage.k8s.io/requests.storage", "storage"}) {
    EXPECT_EQ(UnitOf(bytes), ResourceUnit::kBytes) << bytes;
  }
  for (std::string_view count :
       {"pods", "count/pods", "count/jobs.batch", "count/requests.cpu", "requests.nvidia.com/gpu",
        "limits.nvidia.com/gpu", "services.loadbalancers", "persistentvolumeclaims",
        "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "requests.", "cpu.requests",
        "requests.cpus"}) {
    EXPECT_EQ(UnitOf(count), ResourceUnit::kCount) << count;
  }
}

TEST(ResourceNameTest, QuotaKeysConvertAsTheirResource) {
  EXPECT_EQ(*ToCanonical("requests.cpu", Q("10")), 10000);
  EXPECT_EQ(*ToCanonical("limits.cpu", Q("1500m")), 1500);
  EXPECT_EQ(*ToCanonical("limits.cpu", Q("1n")), 1);  // rounded up, as for cpu
  EXPECT_EQ(*ToCanonical("requests.memory", Q("20Gi")), 20LL * 1073741824);
  EXPECT_EQ(*ToCanonical("requests.storage", Q("1Ti")), 1099511627776);
  EXPECT_EQ(*ToCanonical("requests.nvidia.com/gpu", Q("4")), 4);
  EXPECT_EQ(*ToCanonical("count/pods", Q("50")), 50);
  EXPECT_EQ(*ToCanonical("pods", Q("1k")), 1000);
}

TEST(ResourceNameTest, QuotaKeysPrintAsTheirResource) {
  EXPECT_EQ(FromCanonical("requests.cpu", 10000).ToString(), "10");
  EXPECT_EQ(FromCanonical("limits.cpu", 1500).ToString(), "1500m");
  EXPECT_EQ(FromCanonical("requests.memory", 20LL * 1073741824).ToString(), "20Gi");
  EXPECT_EQ(FromCanonical("limits.ephemeral-storage", 1073741824).ToString(), "1Gi");
  EXPECT_EQ(FromCanonical("requests.hugepages-2Mi", 2097152).ToString(), "2Mi");
  EXPECT_EQ(FromCanonical("requests.storage", 1099511627776).ToString(), "1Ti");
  EXPECT_EQ(FromCanonical("requests.nvidia.com/gpu", 4).ToString(), "4");
  EXPECT_EQ(FromCanonical("count/pods", 1000).ToString(), "1k");
  // The round trip a quota's hard limit takes: read from the API, stored, written back.
  for (std::string_view key : {"requests.cpu", "limits.memory", "requests.storage", "pods"}) {
    Quantity q = Q("3");
    EXPECT_EQ(FromCanonical(key, *ToCanonical(key, q)), q) << key;
  }
}

}  // namespace
}  // namespace arbiter
