#include "arbiter/base/strong_id.h"

#include <cstdint>
#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_set>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

struct NodeTag {};
struct JobTag {};
using NodeId = StrongId<NodeTag>;
using JobId = StrongId<JobTag>;
using SlotId = StrongId<NodeTag, std::uint32_t>;

TEST(StrongIdTest, DistinctTagsAreDistinctTypes) {
  static_assert(!std::is_convertible_v<NodeId, JobId>);
  static_assert(!std::is_convertible_v<std::string, NodeId>);
  SUCCEED();
}

TEST(StrongIdTest, ComparesAndOrdersLikeItsValue) {
  EXPECT_EQ(NodeId("a"), NodeId("a"));
  EXPECT_NE(NodeId("a"), NodeId("b"));
  EXPECT_LT(NodeId("a"), NodeId("b"));
  EXPECT_LT(SlotId(2), SlotId(10));
}

TEST(StrongIdTest, HashesAndPrints) {
  std::unordered_set<NodeId> nodes{NodeId("n1"), NodeId("n2"), NodeId("n1")};
  EXPECT_EQ(nodes.size(), 2U);
  std::set<JobId> jobs{JobId("j2"), JobId("j1")};
  EXPECT_EQ(jobs.begin()->value(), "j1");
  std::ostringstream os;
  os << NodeId("n7");
  EXPECT_EQ(os.str(), "n7");
}

}  // namespace
}  // namespace arbiter
