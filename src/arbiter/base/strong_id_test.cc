#include "arbiter/base/strong_id.h"

#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using NodeIndex = StrongIndex<struct NodeTag>;
using JobIndex = StrongIndex<struct JobTag>;

TEST(StrongIndexTest, DistinctTagsAreDistinctTypes) {
  static_assert(!std::is_convertible_v<NodeIndex, JobIndex>);
  static_assert(!std::is_convertible_v<std::int32_t, NodeIndex>);
  static_assert(sizeof(NodeIndex) == sizeof(std::int32_t));
  SUCCEED();
}

TEST(StrongIndexTest, ComparesAndOrdersLikeItsValue) {
  EXPECT_EQ(NodeIndex(1), NodeIndex(1));
  EXPECT_NE(NodeIndex(1), NodeIndex(2));
  EXPECT_LT(NodeIndex(-1), NodeIndex(0));
  EXPECT_LT(NodeIndex(2), NodeIndex(10));
  NodeIndex n(3);
  EXPECT_EQ((++n).value(), 4);
  EXPECT_EQ(n.pos(), 4U);
}

TEST(StrongIndexTest, RangesOverZeroToCount) {
  std::vector<std::int32_t> seen;
  for (NodeIndex n : NodeIndex::Range(3)) seen.push_back(n.value());
  EXPECT_EQ(seen, (std::vector<std::int32_t>{0, 1, 2}));
  for (NodeIndex n : NodeIndex::Range(0)) ADD_FAILURE() << n;
}

TEST(StrongIndexTest, HashesAndPrints) {
  std::unordered_set<NodeIndex> hashed{NodeIndex(1), NodeIndex(1), NodeIndex(2)};
  EXPECT_EQ(hashed.size(), 2U);
  std::set<NodeIndex> ordered{NodeIndex(2), NodeIndex(1)};
  EXPECT_EQ(ordered.begin()->value(), 1);
  std::ostringstream os;
  os << NodeIndex(7);
  EXPECT_EQ(os.str(), "7");
}

}  // namespace
}  // namespace arbiter
