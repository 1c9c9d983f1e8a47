// allocate: places admitted jobs (phase Inqueue or Running) up to their gang minimum, all or
// nothing (R1, R2). Queues are visited in queue order (the best queue again after each job, as
// shares change), jobs in job order, tasks in task order; each job's placements go through one
// Statement: committed if the job is then ready, discarded otherwise, so a gang that cannot start
// holds nothing and cannot block another.
//
// Per job, the tasks tried are first those that each task's minTaskMember still needs, then the
// rest in task order, and only until the job is ready: the pods beyond the minimum are left for
// backfill, once every gang has had its minimum considered. A queue at its deserved share starts
// no more jobs; no task takes a queue over its capability. Once a task finds no node, the
// job's other tasks with the same needs are not tried again (they would fail the same way).
//
// A gang that holds nodes below its minimum (broken: its minMember raised, a member deleted, an
// eviction refused part-way) is completed first, past its queue's deserved share; one that could
// not be completed for PreemptionOptions::broken_gang_timeout since it broke is released: its
// pods are evicted whole (EvictionKind::kRelease) if a controller will create each again.
#pragma once

#include <vector>

#include "arbiter/actions/preemption.h"
#include "arbiter/framework/plugin.h"

namespace arbiter {

class AllocateAction final : public Action {
 public:
  static constexpr std::string_view kName = "allocate";
  explicit AllocateAction(const PreemptionOptions& options = PreemptionOptions())
      : options_(options) {}
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;

 private:
  PreemptionOptions options_;
};

}  // namespace arbiter
