#include "arbiter/runtime/write_queue.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "arbiter/base/check.h"
#include "arbiter/base/log.h"

namespace arbiter::runtime {

WriteQueue::WriteQueue(std::string name, std::size_t capacity, Batching batching)
    : name_(std::move(name)),
      capacity_(capacity),
      batching_(std::move(batching)),
      thread_([this] { Loop(); }) {}

WriteQueue::WriteQueue(std::string name, std::size_t capacity)
    : WriteQueue(std::move(name), capacity, Batching{}) {}

WriteQueue::~WriteQueue() { Stop(); }

bool WriteQueue::Enqueue(const std::string& key, Write write, Lane lane) {
  return Add(key, std::move(write), lane, false);
}

bool WriteQueue::EnqueueRequest(const std::string& key, RequestWrite write, Lane lane, bool hold) {
  ARBITER_CHECK(batching_.send_all != nullptr) << "write queue " << name_ << " has no SendAll";
  return Add(key, std::move(write), lane, hold && lane != Lane::kFirst);
}

bool WriteQueue::Add(const std::string& key, Entry write, Lane lane, bool hold) {
  std::lock_guard lock(mu_);
  if (stopping_) {
    ++counts_.dropped;
    return false;
  }
  auto it = waiting_.find(key);
  if (it != waiting_.end()) {
    it->second.write = std::move(write);
    ++counts_.replaced;
    // A write that may not wait takes the held one it replaces along, to its lane at once.
    if (!hold && it->second.held) {
      auto held = std::find_if(holding_.begin(), holding_.end(),
                               [&key](const Held& h) { return h.key == key; });
      lanes_[static_cast<std::size_t>(held->lane)].push_back(std::move(held->key));
      holding_.erase(held);
      it->second.held = false;
      changed_.notify_all();
    }
    return true;
  }
  if (lane != Lane::kFirst &&
      Waiting(Lane::kSoon) + Waiting(Lane::kNormal) + holding_.size() >= capacity_) {
    ++counts_.dropped;
    return false;
  }
  const bool held = hold && batching_.hold > std::chrono::nanoseconds::zero() && flushing_ == 0;
  if (held) {
    holding_.push_back({std::chrono::steady_clock::now() + batching_.hold, lane, key});
  } else {
    lanes_[static_cast<std::size_t>(lane)].push_back(key);
  }
  waiting_.emplace(key, Queued{std::move(write), held});
  changed_.notify_all();
  return true;
}

void WriteQueue::Flush() {
  std::unique_lock lock(mu_);
  // No hold while a flush waits, for what is held now or comes meanwhile: a stream of held
  // writes would otherwise keep it waiting.
  ++flushing_;
  changed_.notify_all();
  changed_.wait(lock, [this] { return (Waiting() == 0 && running_ == 0) || finished_; });
  --flushing_;
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
  return Waiting() + running_;
}

std::size_t WriteQueue::Waiting() const {
  std::size_t n = holding_.size();
  for (const std::deque<std::string>& lane : lanes_) n += lane.size();
  return n;
}

std::size_t WriteQueue::Waiting(Lane lane) const {
  return lanes_[static_cast<std::size_t>(lane)].size();
}

void WriteQueue::ReleaseLocked(bool all) {
  // What comes due within a tenth of the hold goes with what is due, so that writes held a few
  // milliseconds apart still make one batch rather than one wake-up each.
  const Time due = std::chrono::steady_clock::now() + batching_.hold / 10;
  while (!holding_.empty() && (all || holding_.front().until <= due)) {
    Held& held = holding_.front();
    waiting_.find(held.key)->second.held = false;
    lanes_[static_cast<std::size_t>(held.lane)].push_back(std::move(held.key));
    holding_.pop_front();
  }
}

void WriteQueue::TakeLocked(std::vector<Taken>& taken) {
  for (std::deque<std::string>& lane : lanes_) {
    while (!lane.empty()) {
      auto it = waiting_.find(lane.front());
      const bool request = std::holds_alternative<RequestWrite>(it->second.write);
      // A plain write runs alone; request writes go together until one that is not.
      if (!taken.empty() && (!request || taken.size() >= batching_.size)) return;
      taken.push_back({std::move(lane.front()), std::move(it->second.write)});
      waiting_.erase(it);
      lane.pop_front();
      if (!request) return;
    }
  }
}

std::vector<Status> WriteQueue::Run(std::vector<Taken>& taken) {
  if (auto* write = std::get_if<Write>(&taken.front().write)) return {(*write)()};
  std::vector<k8s::HttpRequest> requests;
  requests.reserve(taken.size());
  for (Taken& t : taken) requests.push_back(std::get<RequestWrite>(t.write).request());
  std::vector<std::optional<StatusOr<std::string>>> results(taken.size());
  batching_.send_all(requests, [&results](std::size_t i, StatusOr<std::string> result) {
    results[i] = std::move(result);
  });
  std::vector<Status> statuses;
  statuses.reserve(taken.size());
  for (std::size_t i = 0; i < taken.size(); ++i) {
    StatusOr<std::string> result = results[i].has_value()
                                       ? std::move(*results[i])
                                       : StatusOr<std::string>(InternalError("no answer reported"));
    statuses.push_back(std::get<RequestWrite>(taken[i].write).then(std::move(result)));
  }
  return statuses;
}

void WriteQueue::Loop() {
  std::vector<Taken> taken;
  while (true) {
    taken.clear();
    {
      std::unique_lock lock(mu_);
      running_ = 0;
      changed_.notify_all();
      while (true) {
        ReleaseLocked(stopping_ || flushing_ > 0);
        if (Waiting() > holding_.size()) break;  // a lane has a key
        if (stopping_) {                         // and everything queued has run
          finished_ = true;
          changed_.notify_all();
          return;
        }
        if (holding_.empty()) {
          changed_.wait(lock);
        } else {
          // A copy: wait_until reads its deadline again on waking, and a Flush meanwhile may
          // have emptied holding_.
          const Time until = holding_.front().until;
          changed_.wait_until(lock, until);
        }
      }
      TakeLocked(taken);
      running_ = taken.size();
    }
    const std::vector<Status> statuses = Run(taken);
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i].ok()) {
        ++counts_.succeeded;
      } else {
        ++counts_.failed;
        ARBITER_VLOG(4) << "write failed queue=" << name_ << " key=" << taken[i].key
                        << " error=" << statuses[i];
      }
    }
  }
}

}  // namespace arbiter::runtime
