// topology: a gang placed inside one domain of a topology level (a zone, a rack), as a distributed
// training job runs faster within one rack (issue 21; docs/placement.md "Topology").
//
// Levels are read from node labels, configured widest first; "node" (each node a domain of its
// own) is always there as the narrowest:
//   - name: topology
//     arguments:
//       levels:                                     # default: these two
//         - {name: zone, label: topology.kubernetes.io/zone}
//         - {name: rack, label: topology.arbiter.dev/rack}
// A PodGroup asks with spec.topology {mode: Required|Preferred, level, maxWaitSeconds}. Nodes
// without the level's label are in no domain of it.
//
// The plan for a job (TopologyExtension), which allocate, preemption and backfill follow:
//   * pods of the job that already hold nodes, or are nominated to nodes by preemption, fix its
//     domain: the domain(s) of those nodes only (Required), or those first and then any node
//     (Preferred);
//   * otherwise every domain whose free room could hold the job's minimum (MinimumRequest), best
//     fit first: the domain the minimum would fill the most (its largest fraction of a free
//     resource), so that the large domains stay whole for the large gangs; ties by name;
//   * Required: those only. Preferred: those, and once the group has waited maxWaitSeconds since
//     its creation, spreads over the fewest domains (the most free first, two, then three...),
//     then any node.
// Admission (JobEnqueueExtension): a group whose plan has no domain to try (none has the free room
// for its minimum) is not admitted, so that it reserves no idle room it could not use (the
// cluster's room adds up, but no domain's does); preemption may still make room for it.
// A level that is not configured makes the job invalid (JobValidExtension), with the levels
// there are.
//
// Thread safety: as every plugin (plugin.h); the domains are built in OnSessionOpen.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

struct TopologyLevel {
  std::string name;   // what spec.topology.level names, e.g. "rack"
  std::string label;  // the node label whose value names the domain; empty: the node itself
};

inline constexpr std::string_view kDefaultRackLabel = "topology.arbiter.dev/rack";
inline constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";

class TopologyPlugin final : public Plugin,
                             public TopologyExtension,
                             public JobValidExtension,
                             public JobEnqueueExtension {
 public:
  static constexpr std::string_view kName = "topology";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  explicit TopologyPlugin(std::vector<TopologyLevel> levels);
  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  std::optional<TopologyPlan> PlanTopology(const Session& session, JobIndex job) const override;
  std::optional<JobVerdict> JobInvalid(const Session& session, JobIndex job) const override;
  std::optional<JobVerdict> JobNotEnqueueable(const Session& session, JobIndex job) const override;

  const std::vector<TopologyLevel>& levels() const { return levels_; }

 private:
  struct Domains {
    std::vector<std::string> names;             // sorted
    std::vector<std::vector<NodeIndex>> nodes;  // per domain, in node order (in scope only)
    std::vector<std::int32_t> of_node;          // per node: its domain, or -1
  };
  const TopologyLevel* FindLevel(const std::string& name) const;

  std::vector<TopologyLevel> levels_;                    // configured, then "node"
  std::map<std::string, Domains, std::less<>> domains_;  // by level name, this session
};

}  // namespace arbiter
