#include "arbiter/model/resource_quota.h"

#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

constexpr std::int64_t kGi = std::int64_t{1} << 30;

TEST(QuotaCapTest, LeastOfSpecAndWhatTheApiServerTookAcrossNamespaces) {
  EXPECT_FALSE(QuotaCap({}).has_value());
  ResourceQuota a;
  a.spec_hard = ResourceList({{"requests.cpu", 8000}, {"limits.cpu", 1}, {"count/pods", 3}});
  a.status_hard = ResourceList({{"requests.cpu", 4000}});  // raised, not yet taken
  ResourceQuota b;
  b.spec_hard = ResourceList({{"requests.cpu", 6000}, {"requests.memory", kGi}});
  b.status_hard = ResourceList({{"requests.cpu", 6000}});  // memory: not taken yet
  const std::vector<const ResourceQuota*> both = {&a, &b};
  const std::optional<ResourceList> cap = QuotaCap(both);
  ASSERT_TRUE(cap.has_value());
  EXPECT_EQ(*cap, ResourceList({{"cpu", 4000}, {"memory", 0}}));
}

TEST(QuotaCapTest, TheQueueIsInItsAnnotation) {
  ResourceQuota rq;
  EXPECT_EQ(QuotaQueueOf(rq), "");
  rq.meta.annotations["arbiter.dev/queue"] = "ml";
  EXPECT_EQ(QuotaQueueOf(rq), "ml");
}

}  // namespace
}  // namespace arbiter
