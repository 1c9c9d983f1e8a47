#include "arbiter/base/text.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(JoinSomeTest, NamesTheFirstFewThenCountsTheRest) {
  EXPECT_EQ(JoinSome({}, 3), "");
  EXPECT_EQ(JoinSome({"a", "b"}, 3), "a, b");
  EXPECT_EQ(JoinSome({"a", "b", "c"}, 3), "a, b, c");
  EXPECT_EQ(JoinSome({"a", "b", "c", "d", "e"}, 3), "a, b, c and 2 more");
}

}  // namespace
}  // namespace arbiter
