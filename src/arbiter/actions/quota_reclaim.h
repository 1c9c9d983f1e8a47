// Reclaim beyond a lowered quota (issue 15, docs/quota.md): the first step of the reclaim action.
//
// When a queue's ResourceQuota is lowered, the scheduler stops admitting beyond it at once
// (the proportion plugin caps the queue by it), but pods already running stay. Once the grace
// period (PreemptionOptions::quota_grace) has passed since the quota was lowered (the Queue's
// status.quota.loweredAt, written by arbiter-controller), the pods the queue holds beyond
// max(quota, guarantee) are evicted, resource by resource, so that the owners of the jobs had the
// grace period to shrink them their own way first.
//
// The rules of preemption's engine (actions/preemption.h) hold, without a preemptor:
//   * never a victim: what NeverVictim says, and pods whose eviction was refused lately;
//   * gang-safe: a job keeps its minMember (and every minTaskMember) or loses all of its pods;
//     surplus pods go before whole jobs;
//   * PodDisruptionBudgets: no eviction a budget would refuse; pods a budget covers go last;
//   * cheapest first: the lowest job priority, then the lowest pod priority, then the youngest;
//   * no more than needed: once the overage is covered, every chosen victim that is not needed
//     is given back, the most valuable first;
//   * the queue's eviction budget per minute (evictionsPerMinutePerQueue) counts these too.
// Pods already being evicted no longer count as held, so a later session never evicts twice for
// the same overage. What cannot be covered now (budgets, protected pods) is left for a later
// session; nothing else waits on it.
//
// Thread safety: single-threaded, as its session.
#pragma once

#include <cstdint>

#include "arbiter/actions/preemption.h"
#include "arbiter/framework/session.h"

namespace arbiter {

// Evicts, in one committed Statement per queue, the pods running beyond each queue's lowered
// quota whose grace period has passed. Returns how many pods it evicted.
std::int32_t ReclaimBeyondQuota(Session& session, const PreemptionOptions& options);

}  // namespace arbiter
