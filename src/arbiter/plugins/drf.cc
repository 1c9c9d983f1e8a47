#include "arbiter/plugins/drf.h"

#include "arbiter/fairness/drf.h"
#include "arbiter/framework/session.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> DrfPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<DrfPlugin>());
}

void DrfPlugin::OnSessionOpen(const Session& session) {
  total_ = ResourceVector();
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    if (session.node(n).in_scope) total_.Add(session.node(n).allocatable);
  }
  allocated_.assign(static_cast<std::size_t>(session.job_count()), ResourceVector());
  shares_.assign(static_cast<std::size_t>(session.job_count()), 0);
  for (std::size_t t = 0; t < session.snapshot().tasks.size(); ++t) {
    const auto task = TaskIndex::Of(t);
    if (!HoldsNode(session.task_state(task))) continue;
    allocated_[session.task(task).job.pos()].Add(session.task(task).request);
  }
  for (JobIndex j : JobIndex::Range(session.job_count())) Update(j);
}

void DrfPlugin::Update(JobIndex job) {
  const auto j = job.pos();
  shares_[j] = fairness::DominantShare(allocated_[j], total_);
}

int DrfPlugin::CompareJobs(const Session& /*session*/, JobIndex a, JobIndex b) const {
  const double sa = Share(a);
  const double sb = Share(b);
  if (sa == sb) return 0;
  return sa < sb ? -1 : 1;
}

void DrfPlugin::OnAllocate(const Session& session, TaskIndex task) {
  const JobIndex j = session.task(task).job;
  allocated_[j.pos()].Add(session.task(task).request);
  Update(j);
}

void DrfPlugin::OnDeallocate(const Session& session, TaskIndex task) {
  const JobIndex j = session.task(task).job;
  allocated_[j.pos()].Subtract(session.task(task).request);
  Update(j);
}

}  // namespace arbiter
