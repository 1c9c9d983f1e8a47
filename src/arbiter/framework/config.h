// SchedulerConfig: the scheduler's one YAML configuration file (ARCHITECTURE.md §3):
//
//   actions: [enqueue, allocate, backfill]      # run in this order every session
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

namespace arbiter {

struct PluginConfig {
  std::string name;
  YAML::Node arguments;  // a map, or null when the config gives none
};

struct TierConfig {
  std::vector<PluginConfig> plugins;
};

struct SchedulerConfig {
  std::vector<std::string> actions;
  std::vector<TierConfig> tiers;
  // Extra threads that filter and score nodes for one task when many nodes need it; 0 (the
  // default) filters on the session's thread only. docs/benchmarks.md says what it pays.
  int filter_threads = 0;
};

// Parses the YAML text; `source` names it in errors (a file path).
StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml, std::string_view source);
StatusOr<SchedulerConfig> LoadSchedulerConfigFile(const std::string& path);

// actions enqueue, allocate, backfill; tier 1: priority, gang, drf, proportion; tier 2:
// predicates, nodeorder.
SchedulerConfig DefaultSchedulerConfig();

}  // namespace arbiter
