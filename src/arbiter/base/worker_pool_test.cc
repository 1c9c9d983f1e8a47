#include "arbiter/base/worker_pool.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

// Every index runs exactly once, whatever the pool's size, the count and the grain, and many
// loops in a row reuse the same threads.
TEST(WorkerPool, RunsEveryIndexOnce) {
  for (int threads : {0, 1, 3}) {
    WorkerPool pool(threads);
    for (std::int32_t count : {0, 1, 255, 256, 257, 10'000}) {
      std::vector<std::atomic<int>> seen(static_cast<std::size_t>(count));
      pool.ParallelFor(count, 256, [&](std::int32_t begin, std::int32_t end) {
        ASSERT_LE(0, begin);
        ASSERT_LE(begin, end);
        ASSERT_LE(end, count);
        for (std::int32_t i = begin; i < end; ++i) ++seen[static_cast<std::size_t>(i)];
      });
      for (std::int32_t i = 0; i < count; ++i) {
        ASSERT_EQ(seen[static_cast<std::size_t>(i)].load(), 1)
            << "threads " << threads << " count " << count << " index " << i;
      }
    }
  }
}

TEST(WorkerPool, ManyLoopsInARow) {
  WorkerPool pool(2);
  std::atomic<std::int64_t> sum{0};
  for (int round = 0; round < 200; ++round) {
    pool.ParallelFor(1000, 10, [&](std::int32_t begin, std::int32_t end) {
      std::int64_t local = 0;
      for (std::int32_t i = begin; i < end; ++i) local += i;
      sum += local;
    });
  }
  EXPECT_EQ(sum.load(), 200LL * (999 * 1000 / 2));
}

}  // namespace
}  // namespace arbiter
