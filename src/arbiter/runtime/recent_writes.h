// RecentWrites<V>: a short memory of what was last written (or recorded) per object, so that the
// scheduler does not write the same PodGroup status, pod condition or event every session while
// the watch has not caught up with its own write yet.
//
//   RecentWrites<std::string> conditions(std::chrono::seconds(30));
//   if (conditions.Claim(pod_uid, message, clock.MonotonicNow())) Write(...);
//   ... on failure: conditions.Forget(pod_uid, message);   // the next session tries again
//
// A claim holds for `ttl`: after that the same value may be written again (if the scheduler still
// wants it then, the write did not stick: the object was replaced, or someone else changed it).
// Entries older than the ttl are dropped as claims go on, so memory stays bounded by what was
// written within one ttl.
//
// Thread safety: all methods may be called from any thread (one mutex).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "arbiter/base/clock.h"

namespace arbiter::runtime {

template <typename V>
class RecentWrites {
 public:
  explicit RecentWrites(std::chrono::nanoseconds ttl) : ttl_(ttl) {}

  // True when `value` was not claimed for `key` within the ttl before `now`; then it is claimed.
  bool Claim(const std::string& key, const V& value, Clock::MonotonicTime now) {
    std::lock_guard lock(mu_);
    PruneLocked(now);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.value == value && now - it->second.at < ttl_) {
      return false;
    }
    entries_.insert_or_assign(key, Entry{value, now});
    return true;
  }

  // Releases the claim on `key` if it is still for `value` (a later claim stays).
  void Forget(const std::string& key, const V& value) {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.value == value) entries_.erase(it);
  }

  std::size_t size() const {
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  struct Entry {
    V value;
    Clock::MonotonicTime at;
  };

  // At most once per ttl, drops the entries older than the ttl: amortised O(1) per claim.
  void PruneLocked(Clock::MonotonicTime now) {
    if (now - last_prune_ < ttl_) return;
    last_prune_ = now;
    std::erase_if(entries_, [&](const auto& entry) { return now - entry.second.at >= ttl_; });
  }

  const std::chrono::nanoseconds ttl_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  Clock::MonotonicTime last_prune_{};
};

}  // namespace arbiter::runtime
