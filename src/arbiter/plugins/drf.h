// drf: jobs in a queue in order of their dominant resource share (DRF): the job holding the
// smallest fraction of the cluster in its dominant resource goes first. Shares are kept
// incrementally: each placement or undo in the session updates one job's share in O(resources),
// so backfill's one-task-at-a-time progressive filling (every next task to the job with the
// lowest share) costs no re-sort. Priority comes before share when the priority plugin sits
// before this one in the configuration; creation time and uid break the remaining ties.
//
// Extension points: JobOrder, AllocationEvents. No arguments.
#pragma once

#include <memory>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class DrfPlugin final : public Plugin, public JobOrderExtension, public AllocationEventExtension {
 public:
  static constexpr std::string_view kName = "drf";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  int CompareJobs(const Session& session, JobIndex a, JobIndex b) const override;
  void OnAllocate(const Session& session, TaskIndex task) override;
  void OnDeallocate(const Session& session, TaskIndex task) override;

  double Share(JobIndex job) const { return shares_[job.pos()]; }

 private:
  void Update(JobIndex job);

  ResourceVector total_;
  std::vector<ResourceVector> allocated_;
  std::vector<double> shares_;
};

}  // namespace arbiter
