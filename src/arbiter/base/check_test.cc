#include "arbiter/base/check.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(CheckTest, PassingChecksDoNothing) {
  int evaluated = 0;
  ARBITER_CHECK(++evaluated == 1) << "never printed";
  ARBITER_CHECK_EQ(1, 1);
  ARBITER_CHECK_LE(1, 2);
  EXPECT_EQ(evaluated, 1);
}

TEST(CheckDeathTest, FailingCheckAbortsWithConditionAndContext) {
  EXPECT_DEATH({ ARBITER_CHECK(1 + 1 == 3) << "node n1"; }, "check failed: 1 \\+ 1 == 3 node n1");
}

TEST(CheckDeathTest, FailingComparisonPrintsOperands) {
  int used = 5;
  int allocatable = 4;
  EXPECT_DEATH({ ARBITER_CHECK_LE(used, allocatable); }, "\\(5 vs 4\\)");
}

}  // namespace
}  // namespace arbiter
