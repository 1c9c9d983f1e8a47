// priority: jobs in order of their priority (the PodGroup's priorityClassName, or the pod's own
// priority for a group of one), tasks inside a job in order of the pod's spec.priority, highest
// first (R3: the parameter server or MPI launcher before the workers).
//
// Extension points: JobOrder, TaskOrder. No arguments.
#pragma once

#include <memory>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class PriorityPlugin final : public Plugin, public JobOrderExtension, public TaskOrderExtension {
 public:
  static constexpr std::string_view kName = "priority";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  std::string_view Name() const override { return kName; }
  int CompareJobs(const Session& session, JobIndex a, JobIndex b) const override;
  int CompareTasks(const Session& session, TaskIndex a, TaskIndex b) const override;
};

}  // namespace arbiter
