#include "arbiter/framework/eviction_history.h"

#include <algorithm>

namespace arbiter {

void EvictionHistory::Record(const std::vector<EvictDecision>& evictions, Clock::WallTime now) {
  while (!entries_.empty() && entries_.front().time < now - keep_) entries_.pop_front();
  for (const EvictDecision& e : evictions) {
    entries_.push_back({now, e.queue, e.victim_job, e.preemptor, e.pod_uid});
  }
}

// Entries are oldest first: the newest, those a window asks about, are read from the back until
// the first older than the window.
std::int32_t EvictionHistory::EvictedFromQueue(std::string_view queue,
                                               Clock::WallTime since) const {
  std::int32_t n = 0;
  for (auto it = entries_.rbegin(); it != entries_.rend() && it->time >= since; ++it) {
    n += it->queue == queue ? 1 : 0;
  }
  return n;
}

std::map<std::string_view, std::int32_t> EvictionHistory::EvictedByQueue(
    Clock::WallTime since) const {
  std::map<std::string_view, std::int32_t> out;
  for (auto it = entries_.rbegin(); it != entries_.rend() && it->time >= since; ++it) {
    ++out[it->queue];
  }
  return out;
}

std::set<std::string_view> EvictionHistory::VictimJobsOf(std::string_view preemptor,
                                                         Clock::WallTime since) const {
  std::set<std::string_view> out;
  for (auto it = entries_.rbegin(); it != entries_.rend() && it->time >= since; ++it) {
    if (it->preemptor == preemptor) out.insert(it->victim_job);
  }
  return out;
}

std::optional<Clock::WallTime> EvictionHistory::LastPlanFor(std::string_view preemptor) const {
  auto it = std::find_if(entries_.rbegin(), entries_.rend(),
                         [&](const Entry& e) { return e.preemptor == preemptor; });
  if (it == entries_.rend()) return std::nullopt;
  return it->time;
}

bool EvictionHistory::EvictedFor(std::string_view preemptor, std::string_view victim_job,
                                 Clock::WallTime since) const {
  for (auto it = entries_.rbegin(); it != entries_.rend() && it->time >= since; ++it) {
    if (it->preemptor == preemptor && it->victim_job == victim_job) return true;
  }
  return false;
}

void EvictionHistory::Forget(const std::vector<std::string>& pod_uids) {
  if (pod_uids.empty()) return;
  std::erase_if(entries_, [&](const Entry& e) {
    return std::find(pod_uids.begin(), pod_uids.end(), e.pod_uid) != pod_uids.end();
  });
}

std::vector<std::string_view> EvictionHistory::VictimJobsSince(Clock::WallTime since) const {
  std::vector<std::string_view> out;
  for (auto it = entries_.rbegin(); it != entries_.rend() && it->time >= since; ++it) {
    out.push_back(it->victim_job);
  }
  return out;
}

}  // namespace arbiter
