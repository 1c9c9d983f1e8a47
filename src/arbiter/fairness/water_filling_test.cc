// Weighted water-filling of queue shares: worked examples, one rule per test.
#include "arbiter/fairness/water_filling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter::fairness {
namespace {

using ::testing::ElementsAre;

// Two queues asking for everything, weights 1 and 3: 1000m splits 250m / 750m.
TEST(WaterFill, SplitsByWeight) {
  EXPECT_THAT(WaterFill({{1, kUnlimited, 0}, {3, kUnlimited, 0}}, 1000), ElementsAre(250, 750));
}

// A queue asking for less than its weighted part keeps only what it asks; the rest flows on:
// 900 by weight 1:1:1 is 300 each, but A caps at 100, so B and C split 800: 400 each.
TEST(WaterFill, UnusedShareFlowsToOthers) {
  EXPECT_THAT(WaterFill({{1, 100, 0}, {1, kUnlimited, 0}, {1, kUnlimited, 0}}, 900),
              ElementsAre(100, 400, 400));
}

// The guarantee is served first: A is guaranteed 600 of 1000, then 400 is split 1:1 while
// A may take up to its cap 700: A 600+100 (capped at 700), B 200 then B takes the rest, 300.
TEST(WaterFill, GuaranteeFirst) {
  EXPECT_THAT(WaterFill({{1, 700, 600}, {1, kUnlimited, 0}}, 1000), ElementsAre(700, 300));
}

// A guarantee is reserved even when the queue asks for nothing more than it (never lent).
TEST(WaterFill, GuaranteeIsNeverLent) {
  EXPECT_THAT(WaterFill({{1, 500, 500}, {1, kUnlimited, 0}}, 1000), ElementsAre(500, 500));
}

// Rounding: 10 units among weights 1,1,1 pour 3 each, and the 1 unit left goes to the first in
// name order.
TEST(WaterFill, LeftoverUnitsGoInOrder) {
  EXPECT_THAT(WaterFill({{1, kUnlimited, 0}, {1, kUnlimited, 0}, {1, kUnlimited, 0}}, 10),
              ElementsAre(4, 3, 3));
}

// Millicore precision: 1m among two queues 1:1 still goes somewhere, exactly once.
TEST(WaterFill, SingleUnit) {
  EXPECT_THAT(WaterFill({{1, kUnlimited, 0}, {1, kUnlimited, 0}}, 1), ElementsAre(1, 0));
}

// Nothing asked: nothing given (idle resources stay unclaimed).
TEST(WaterFill, NoDemandNoShare) {
  EXPECT_THAT(WaterFill({{1, 0, 0}, {5, 0, 0}}, 1000), ElementsAre(0, 0));
}

// Huge weights and amounts do not overflow: 2^62 bytes split 1:(2^31-1).
TEST(WaterFill, NoOverflow) {
  const std::int64_t total = std::int64_t{1} << 62;
  std::vector<std::int64_t> got =
      WaterFill({{1, kUnlimited, 0}, {2147483647, kUnlimited, 0}}, total);
  EXPECT_EQ(got[0] + got[1], total);
  EXPECT_LT(got[0], got[1]);
}

ResourceVector Cpu(std::int64_t millis) {
  ResourceVector v;
  v.Set(kCpuId, millis);
  return v;
}

// Queues of weights 1 and 3 asking for the whole cluster get 1:3 of it; capability caps a queue
// and the rest goes to the other.
TEST(ComputeDeserved, WeightsAndCapability) {
  std::vector<QueueDemand> queues(2);
  queues[0] = {"a", -1, 1, Cpu(8000), {}, {}};
  queues[1] = {"b", -1, 3, Cpu(8000), {}, {}};
  std::vector<QueueShare> shares = ComputeDeserved(queues, Cpu(8000), 4);
  EXPECT_EQ(shares[0].deserved.Get(kCpuId), 2000);
  EXPECT_EQ(shares[1].deserved.Get(kCpuId), 6000);

  queues[1].capability = Cpu(1000);
  shares = ComputeDeserved(queues, Cpu(8000), 4);
  EXPECT_EQ(shares[0].deserved.Get(kCpuId), 7000);
  EXPECT_EQ(shares[1].deserved.Get(kCpuId), 1000);
}

// Hierarchy: root children "eng" (weight 3) and "ops" (weight 1) split 8 CPUs 6:2; eng's children
// "train" (1) and "serve" (1) split eng's 6 CPUs 3:3.
TEST(ComputeDeserved, ChildrenSplitTheirParentsShare) {
  std::vector<QueueDemand> queues(4);
  queues[0] = {"eng", -1, 3, {}, {}, {}};
  queues[1] = {"ops", -1, 1, Cpu(8000), {}, {}};
  queues[2] = {"train", 0, 1, Cpu(8000), {}, {}};
  queues[3] = {"serve", 0, 1, Cpu(8000), {}, {}};
  std::vector<QueueShare> shares = ComputeDeserved(queues, Cpu(8000), 4);
  EXPECT_EQ(shares[0].deserved.Get(kCpuId), 6000);
  EXPECT_EQ(shares[1].deserved.Get(kCpuId), 2000);
  EXPECT_EQ(shares[2].deserved.Get(kCpuId), 3000);
  EXPECT_EQ(shares[3].deserved.Get(kCpuId), 3000);
  EXPECT_EQ(shares[0].own_deserved.Get(kCpuId), 0);  // eng's own jobs ask for nothing
}

// An unused guarantee is still held back: a queue guaranteed 12 CPUs that asks for nothing
// deserves 12 of 32, and the queue asking for 40 gets the other 20.
TEST(ComputeDeserved, UnusedGuaranteeIsNotLent) {
  std::vector<QueueDemand> queues(2);
  queues[0] = {"a", -1, 1, {}, {}, Cpu(12000)};
  queues[1] = {"b", -1, 1, Cpu(40000), {}, {}};
  std::vector<QueueShare> shares = ComputeDeserved(queues, Cpu(32000), 4);
  EXPECT_EQ(shares[0].deserved.Get(kCpuId), 12000);
  EXPECT_EQ(shares[1].deserved.Get(kCpuId), 20000);
}

// A cycle of parents is cut where it is first found: "a" (its parent "b" has parent "a")
// becomes top level and keeps "b" as its child, so a's 4 CPUs split between b and a's own jobs.
TEST(ComputeDeserved, ParentCycleIsCut) {
  std::vector<QueueDemand> queues(2);
  queues[0] = {"a", 1, 1, Cpu(4000), {}, {}};
  queues[1] = {"b", 0, 1, Cpu(4000), {}, {}};
  std::vector<QueueShare> shares = ComputeDeserved(queues, Cpu(4000), 4);
  EXPECT_EQ(shares[0].deserved.Get(kCpuId), 4000);
  EXPECT_EQ(shares[0].own_deserved.Get(kCpuId), 2000);
  EXPECT_EQ(shares[1].deserved.Get(kCpuId), 2000);
}

}  // namespace
}  // namespace arbiter::fairness
