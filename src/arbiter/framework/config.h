// SchedulerConfig: the scheduler's one YAML configuration file (ARCHITECTURE.md §3):
//
//   actions: [enqueue, allocate, preempt, reclaim, backfill]   # in this order every session
//   tiers:                                      # plugins, by tier
//     - plugins:
//         - name: priority
//         - name: gang
//     - plugins:
//         - name: predicates
//         - name: nodeorder
//           arguments: {leastAllocatedWeight: 1, mostAllocatedWeight: 0, balancedWeight: 1}
//   filterThreads: 0                            # optional: threads beside the session's own
//                                               # that filter nodes for one task (0 to 64)
//   preemption:                                 # optional, for the preempt and reclaim actions
//     maxGracePeriodSeconds: 300                # cap on a victim's own grace period (0 to 3600)
//     nominationTimeoutSeconds: 300             # a preemptor's wait for the room (1 to 3600)
//     minRuntimeSeconds: 0                      # younger pods are never victims (0 to 86400)
//     evictionsPerMinutePerQueue: 200           # 0: no budget
//     quotaGraceSeconds: 300                    # pods beyond a lowered quota are reclaimed this
//                                               # long after it was lowered (0 to 86400)
//     brokenGangTimeoutSeconds: 300             # a gang below its minimum that holds nodes is
//                                               # released after this long (0: never; to 86400)
//   reservation:                                # optional: against starvation of big gangs
//     enabled: true                             # (framework/reservation.h)
//     waitSeconds: 300                          # a gang waiting this long is elected (0 to 604800)
//     maxReservations: 2                        # at most this many at once (0 to 16)
//
// Unknown keys are errors, naming where they are; plugin arguments are checked by the plugin's
// factory when the scheduler is built (Scheduler::Create), so a typo fails at start-up, not later.
// DefaultSchedulerConfig() is what runs when no file is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "arbiter/base/status.h"
#include "arbiter/framework/reservation.h"

namespace arbiter {

struct PluginConfig {
  std::string name;
  YAML::Node arguments;  // a map, or null when the config gives none
};

struct TierConfig {
  std::vector<PluginConfig> plugins;
};

// The preemption section (docs/preemption.md): how the preempt and reclaim actions evict. Which
// of them run is the actions list.
struct PreemptionConfig {
  // A victim stops within its own terminationGracePeriodSeconds, at most this long.
  std::int64_t max_grace_period_seconds = 300;
  // How long a preemptor waits for the room its victims free before it may choose again.
  std::int64_t nomination_timeout_seconds = 300;
  // Pods that started less than this long ago are never victims.
  std::int64_t min_runtime_seconds = 0;
  // A queue that lost this many pods to preemption in the last minute loses no more until the
  // minute passes (a plan that starts below it may go over once: a gang is evicted whole).
  std::int32_t evictions_per_minute_per_queue = 200;
  // Pods running beyond a queue's lowered ResourceQuota are reclaimed (reclaim action) once this
  // long has passed since it was lowered: time for their owners to shrink first.
  std::int64_t quota_grace_seconds = 300;
  // A gang that holds nodes below its minimum (minMember raised, a member deleted, an eviction
  // refused part-way) and is not completed within this long is released: its pods are evicted
  // for their controllers to recreate, and it starts again whole. 0: never (allocate action).
  std::int64_t broken_gang_timeout_seconds = 300;
  friend bool operator==(const PreemptionConfig&, const PreemptionConfig&) = default;
};

struct SchedulerConfig {
  std::vector<std::string> actions;
  std::vector<TierConfig> tiers;
  // Extra threads that filter and score nodes for one task when many nodes need it; 0 (the
  // default) filters on the session's thread only. docs/benchmarks.md says what it pays.
  int filter_threads = 0;
  PreemptionConfig preemption;
  ReservationConfig reservation;
};

// Parses the YAML text; `source` names it in errors (a file path).
StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml, std::string_view source);
StatusOr<SchedulerConfig> LoadSchedulerConfigFile(const std::string& path);

// actions enqueue, allocate, preempt, reclaim, backfill; tier 1: priority, gang, drf, proportion;
// tier 2: predicates, nodeorder, topology.
SchedulerConfig DefaultSchedulerConfig();

}  // namespace arbiter
