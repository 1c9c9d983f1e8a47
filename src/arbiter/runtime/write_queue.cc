#include "arbiter/runtime/write_queue.h"

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
  if (lane == Lane::kFirst) {
    first_.push_back(key);
  } else if (order_.size() >= capacity_) {
    ++counts_.dropped;
    return false;
  } else {
    order_.push_back(key);
  }
  waiting_.emplace(key, std::move(write));
  changed_.notify_all();
  return true;
}

void WriteQueue::Flush() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return (first_.empty() && order_.empty() && !busy_) || finished_; });
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
  return first_.size() + order_.size() + (busy_ ? 1 : 0);
}

void WriteQueue::Loop() {
  while (true) {
    Write write;
    std::string key;
    {
      std::unique_lock lock(mu_);
      busy_ = false;
      changed_.notify_all();
      changed_.wait(lock, [this] { return !first_.empty() || !order_.empty() || stopping_; });
      if (first_.empty() && order_.empty()) {  // stopping, and everything queued has run
        finished_ = true;
        changed_.notify_all();
        return;
      }
      std::deque<std::string>& lane = first_.empty() ? order_ : first_;
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
