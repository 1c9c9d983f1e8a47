#include "arbiter/base/worker_pool.h"

#include <algorithm>

namespace arbiter {

WorkerPool::WorkerPool(int threads) {
  threads_.reserve(static_cast<std::size_t>(std::max(threads, 0)));
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkerPool::RunOne(std::unique_lock<std::mutex>& lock) {
  if (body_ == nullptr || next_ >= count_) return false;
  const std::int32_t begin = next_;
  const std::int32_t end = std::min(count_, begin + chunk_);
  next_ = end;
  ++running_;
  const auto* body = body_;
  lock.unlock();
  (*body)(begin, end);
  lock.lock();
  if (--running_ == 0 && next_ >= count_) done_.notify_all();
  return true;
}

void WorkerPool::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    work_.wait(lock, [this] { return stopping_ || (body_ != nullptr && next_ < count_); });
    if (stopping_) return;
    while (RunOne(lock)) {
    }
  }
}

void WorkerPool::ParallelFor(std::int32_t count, std::int32_t grain,
                             const std::function<void(std::int32_t, std::int32_t)>& body) {
  if (count <= 0) return;
  const auto parts = static_cast<std::int32_t>(threads_.size()) + 1;
  grain = std::max<std::int32_t>(grain, 1);
  if (threads_.empty() || count <= grain) {
    body(0, count);
    return;
  }
  std::unique_lock lock(mu_);
  body_ = &body;
  count_ = count;
  // Ranges of at least `grain`, a few per thread so that an uneven range does not hold all back.
  chunk_ = std::max(grain, (count + parts * 4 - 1) / (parts * 4));
  next_ = 0;
  running_ = 0;
  work_.notify_all();
  while (RunOne(lock)) {
  }
  done_.wait(lock, [this] { return next_ >= count_ && running_ == 0; });
  body_ = nullptr;
}

}  // namespace arbiter
