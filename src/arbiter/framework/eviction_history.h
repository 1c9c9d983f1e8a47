// EvictionHistory: the evictions a scheduler issued in its recent sessions, which preemption
// needs from one session to the next: a queue's eviction budget (pods evicted from it in the
// last minute), when a preemptor last chose victims (how long it has waited for the room), and
// which victim jobs a preemptor already evicted (never the same ones again in a loop).
//
// The Scheduler records each session's evictions after it and lends the history to the next
// session; it is kept in memory only: a scheduler that restarts (or a new leader) starts with an
// empty one, which at worst lets a queue spend its budget once more and restarts a nomination's
// timeout. Evictions the API server refused are forgotten (Forget) before the next session.
//
// Thread safety: single-threaded, as the Scheduler's sessions.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

class EvictionHistory {
 public:
  // Entries older than `keep` are forgotten (the longest window anyone asks about).
  explicit EvictionHistory(std::chrono::seconds keep = std::chrono::minutes(10)) : keep_(keep) {}

  void Record(const std::vector<EvictDecision>& evictions, Clock::WallTime now);

  // Pods evicted from the queue at or after `since`.
  std::int32_t EvictedFromQueue(std::string_view queue, Clock::WallTime since) const;
  // When the preemptor (namespace/name) last had victims evicted for it.
  std::optional<Clock::WallTime> LastPlanFor(std::string_view preemptor) const;
  // Whether pods of `victim_job` (namespace/name) were evicted for `preemptor` at or after `since`.
  bool EvictedFor(std::string_view preemptor, std::string_view victim_job,
                  Clock::WallTime since) const;
  // The jobs (namespace/name) that lost pods at or after `since`, for any preemptor; a job may
  // be named more than once.
  std::vector<std::string_view> VictimJobsSince(Clock::WallTime since) const;
  // For a plan that asks of many pods at once (one pass, not one per pod): pods evicted per queue
  // at or after `since`, and the jobs that lost pods to `preemptor` at or after `since`.
  std::map<std::string_view, std::int32_t> EvictedByQueue(Clock::WallTime since) const;
  std::set<std::string_view> VictimJobsOf(std::string_view preemptor, Clock::WallTime since) const;
  // Drops the entries of these pods (uids): their evictions were never made (the API server
  // refused the plan), so they count neither against a budget nor as a preemptor's victims.
  void Forget(const std::vector<std::string>& pod_uids);

 private:
  struct Entry {
    Clock::WallTime time;
    std::string queue;
    std::string victim_job;
    std::string preemptor;
    std::string pod_uid;
  };
  const std::chrono::seconds keep_;
  std::deque<Entry> entries_;  // oldest first
};

}  // namespace arbiter
