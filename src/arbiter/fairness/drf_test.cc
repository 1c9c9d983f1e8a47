// DRF ordering: the paper's example and the sorter's incremental bookkeeping.
#include "arbiter/fairness/drf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter::fairness {
namespace {

using ::testing::ElementsAre;

ResourceVector CpuMem(std::int64_t millicores, std::int64_t gib) {
  ResourceVector v;
  v.Set(kCpuId, millicores);
  v.Set(kMemoryId, gib << 30);
  return v;
}

// Ghodsi et al. §4: 9 CPUs and 18 GB; user A runs tasks of <1 CPU, 4 GB>, user B <3 CPUs, 1 GB>.
// Progressive filling gives each next task to the user with the lowest dominant share until no
// task fits: A gets 3 tasks (3 CPU, 12 GB: share 12/18 = 2/3), B gets 2 (6 CPU, 2 GB: 6/9 = 2/3).
TEST(DrfSorter, PaperExample) {
  const ResourceVector total = CpuMem(9000, 18);
  DrfSorter sorter(total);
  const ClientId a = sorter.Add("a");
  const ClientId b = sorter.Add("b");
  const ResourceVector task_a = CpuMem(1000, 4);
  const ResourceVector task_b = CpuMem(3000, 1);
  ResourceVector free = total;
  int tasks_a = 0;
  int tasks_b = 0;
  while (std::optional<ClientId> next = sorter.First()) {
    const ResourceVector& want = *next == a ? task_a : task_b;
    if (!want.FitsIn(free)) {
      sorter.Deactivate(*next);  // this user's next task fits nowhere: it is done
      continue;
    }
    free.Subtract(want);
    sorter.Allocate(*next, want);
    (*next == a ? tasks_a : tasks_b)++;
  }
  EXPECT_EQ(tasks_a, 3);
  EXPECT_EQ(tasks_b, 2);
  EXPECT_DOUBLE_EQ(sorter.Share(a), 2.0 / 3);
  EXPECT_DOUBLE_EQ(sorter.Share(b), 2.0 / 3);
}

// Equal shares fall back to the name; weights divide the share.
TEST(DrfSorter, TieBreakAndWeights) {
  DrfSorter sorter(CpuMem(10000, 10));
  const ClientId z = sorter.Add("z");
  const ClientId y = sorter.Add("y", 2);
  EXPECT_THAT(sorter.Sorted(), ElementsAre(y, z));  // both 0: by name
  sorter.Allocate(y, CpuMem(4000, 0));              // 0.4 / weight 2 = 0.2
  sorter.Allocate(z, CpuMem(3000, 0));              // 0.3
  EXPECT_THAT(sorter.Sorted(), ElementsAre(y, z));
  sorter.Unallocate(z, CpuMem(2000, 0));  // 0.1
  EXPECT_THAT(sorter.Sorted(), ElementsAre(z, y));
}

// The dominant resource is the one with the largest fraction of its total.
TEST(DrfSorter, DominantShareTakesLargestFraction) {
  EXPECT_DOUBLE_EQ(DrfSorter::DominantShare(CpuMem(1000, 9), CpuMem(10000, 18)), 0.5);
  EXPECT_DOUBLE_EQ(DrfSorter::DominantShare(CpuMem(1000, 0), CpuMem(0, 18)), 0);
}

// Many clients stay ordered as they change, with no full re-sort.
TEST(DrfSorter, ManyClientsStayOrdered) {
  DrfSorter sorter(CpuMem(1'000'000, 1000));
  std::vector<ClientId> ids;
  ids.reserve(1000);
  for (int i = 0; i < 1000; ++i) ids.push_back(sorter.Add("c" + std::to_string(1000 + i)));
  for (int i = 0; i < 1000; ++i) sorter.Allocate(ids[i], CpuMem((i * 7919) % 1000 + 1, 0));
  std::vector<ClientId> sorted = sorter.Sorted();
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_LE(sorter.Share(sorted[i - 1]), sorter.Share(sorted[i]));
  }
}

}  // namespace
}  // namespace arbiter::fairness
