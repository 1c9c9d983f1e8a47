// WorkerPool: a fixed set of threads that run one loop body over index ranges, for fanning out
// work whose items are independent (filtering many nodes for one task). The caller's thread takes
// a share too, so a pool of N runs N + 1 ranges at once; a pool of 0 threads runs everything on
// the caller's thread.
//
//   WorkerPool pool(1);
//   pool.ParallelFor(nodes, 1024, [&](std::int32_t begin, std::int32_t end) { ... });
//
// Thread safety: ParallelFor from one thread at a time; the body must be safe to run on disjoint
// ranges at once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const { return static_cast<int>(threads_.size()); }

  // Runs body(begin, end) over [0, count) in ranges of at least `grain` items, spread over the
  // pool and the caller's thread; returns once every range has run.
  void ParallelFor(std::int32_t count, std::int32_t grain,
                   const std::function<void(std::int32_t, std::int32_t)>& body);

 private:
  void Work();
  // Takes the next range of the current job; false when none is left.
  bool RunOne(std::unique_lock<std::mutex>& lock);

  std::mutex mu_;
  std::condition_variable work_;
  std::condition_variable done_;
  const std::function<void(std::int32_t, std::int32_t)>* body_ = nullptr;
  std::int32_t count_ = 0;
  std::int32_t chunk_ = 0;
  std::int32_t next_ = 0;
  std::int32_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace arbiter
