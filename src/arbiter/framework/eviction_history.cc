#include "arbiter/framework/eviction_history.h"

#include <algorithm>

namespace arbiter {

void EvictionHistory::Record(const std::vector<EvictDecision>& evictions, Clock::WallTime now) {
  while (!entries_.empty() && entries_.front().time < now - keep_) entries_.pop_front();
  for (const EvictDecision& e : evictions) {
    entries_.push_back({now, e.queue, e.victim_job, e.preemptor, e.pod_uid});
  }
}

std::int32_t EvictionHistory::EvictedFromQueue(std::string_view queue,
                                               Clock::WallTime since) const {
  return static_cast<std::int32_t>(
      std::count_if(entries_.begin(), entries_.end(),
                    [&](const Entry& e) { return e.time >= since && e.queue == queue; }));
}

std::optional<Clock::WallTime> EvictionHistory::LastPlanFor(std::string_view preemptor) const {
  auto it = std::find_if(entries_.rbegin(), entries_.rend(),
                         [&](const Entry& e) { return e.preemptor == preemptor; });
  if (it == entries_.rend()) return std::nullopt;
  return it->time;
}

bool EvictionHistory::EvictedFor(std::string_view preemptor, std::string_view victim_job,
                                 Clock::WallTime since) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.time >= since && e.preemptor == preemptor && e.victim_job == victim_job;
  });
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
