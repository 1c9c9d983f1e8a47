#include "arbiter/runtime/write_queue.h"

#include <algorithm>
#include <utility>

#include "arbiter/base/log.h"

namespace arbiter::runtime {

WriteQueue::WriteQueue(std::string name, std::size_t capacity)
    : name_(std::move(name)), capacity_(capacity), thread_([this] { Loop(); }) {}

WriteQueue::~WriteQueue() { Stop(); }

bool WriteQueue::Enqueue(const std::string& key, Write write, Lane lane) {
  std::lock_guard lock(mu_);
  if (stopping_) {
    ++counts_.dropped;
    return false;
  }
  auto it = waiting_.find(key);
  if (it != waiting_.end()) {
    it->second = std::move(write);
    ++counts_.replaced;
    return true;
  }
  if (lane != Lane::kFirst && Waiting(Lane::kSoon) + Waiting(Lane::kNormal) >= capacity_) {
    ++counts_.dropped;
    return false;
  }
  lanes_[static_cast<std::size_t>(lane)].push_back(key);
  waiting_.emplace(key, std::move(write));
  changed_.notify_all();
  return true;
}

void WriteQueue::Flush() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return (Waiting() == 0 && !busy_) || finished_; });
}

void WriteQueue::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }
  std::lock_guard join_lock(join_mu_);
  if (thread_.joinable()) thread_.join();
}

WriteQueue::Counts WriteQueue::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::size_t WriteQueue::pending() const {
  std::lock_guard lock(mu_);
  return Waiting() + (busy_ ? 1 : 0);
}

std::size_t WriteQueue::Waiting() const {
  std::size_t n = 0;
  for (const std::deque<std::string>& lane : lanes_) n += lane.size();
  return n;
}

std::size_t WriteQueue::Waiting(Lane lane) const {
  return lanes_[static_cast<std::size_t>(lane)].size();
}

void WriteQueue::Loop() {
  while (true) {
    Write write;
    std::string key;
    {
      std::unique_lock lock(mu_);
      busy_ = false;
      changed_.notify_all();
      changed_.wait(lock, [this] { return Waiting() > 0 || stopping_; });
      if (Waiting() == 0) {  // stopping, and everything queued has run
        finished_ = true;
        changed_.notify_all();
        return;
      }
      // Waiting() > 0: some lane has a key.
      std::deque<std::string>& lane =
          *std::find_if(lanes_.begin(), lanes_.end(),
                        [](const std::deque<std::string>& l) { return !l.empty(); });
      key = std::move(lane.front());
      lane.pop_front();
      auto it = waiting_.find(key);
      write = std::move(it->second);
      waiting_.erase(it);
      busy_ = true;
    }
    Status status = write();
    std::lock_guard lock(mu_);
    if (status.ok()) {
      ++counts_.succeeded;
    } else {
      ++counts_.failed;
      ARBITER_VLOG(4) << "write failed queue=" << name_ << " key=" << key << " error=" << status;
    }
  }
}

}  // namespace arbiter::runtime
