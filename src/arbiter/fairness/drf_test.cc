// The dominant share (drf.h). The DRF paper's example, through whole sessions, is in
// plugins/drf_test.cc.
#include "arbiter/fairness/drf.h"

#include <gtest/gtest.h>

namespace arbiter::fairness {
namespace {

ResourceVector CpuMem(std::int64_t millicores, std::int64_t gib) {
  ResourceVector v;
  v.Set(kCpuId, millicores);
  v.Set(kMemoryId, gib << 30);
  return v;
}

// The dominant resource is the one with the largest fraction of its total; a resource the
// cluster has none of does not count.
TEST(DominantShare, TakesTheLargestFraction) {
  EXPECT_DOUBLE_EQ(DominantShare(CpuMem(1000, 9), CpuMem(10000, 18)), 0.5);
  EXPECT_DOUBLE_EQ(DominantShare(CpuMem(3000, 1), CpuMem(9000, 18)), 1.0 / 3);
  EXPECT_DOUBLE_EQ(DominantShare(CpuMem(1000, 0), CpuMem(0, 18)), 0);
}

}  // namespace
}  // namespace arbiter::fairness
