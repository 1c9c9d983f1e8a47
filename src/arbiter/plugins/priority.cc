#include "arbiter/plugins/priority.h"

#include "arbiter/framework/session.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> PriorityPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<PriorityPlugin>());
}

namespace {

int HigherFirst(std::int32_t a, std::int32_t b) {
  if (a == b) return 0;
  return a > b ? -1 : 1;
}

}  // namespace

int PriorityPlugin::CompareJobs(const Session& session, JobIndex a, JobIndex b) const {
  return HigherFirst(session.job(a).priority, session.job(b).priority);
}

int PriorityPlugin::CompareTasks(const Session& session, TaskIndex a, TaskIndex b) const {
  return HigherFirst(session.task(a).priority, session.task(b).priority);
}

}  // namespace arbiter
