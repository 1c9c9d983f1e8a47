#include "arbiter/plugins/gang.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "arbiter/framework/session.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> GangPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<GangPlugin>());
}

namespace {

// Pods that exist and may still count: not failed (a failed pod is replaced, or the job fails).
bool MayCount(TaskState state) { return state != TaskState::kFailed; }

const OwnerReference* StatefulSetOwner(const Session& session, const JobInfo& job) {
  for (TaskIndex t : job.tasks) {
    for (const OwnerReference& owner : session.task(t).pod->meta.owner_references) {
      if (owner.kind == "StatefulSet" && owner.controller) return &owner;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<JobVerdict> GangPlugin::JobInvalid(const Session& session, JobIndex j) const {
  const JobInfo& job = session.job(j);
  if (job.group_missing) {
    return JobVerdict{JobReason::kPodGroupNotFound,
                      "pod group " + job.Key() +
                          " does not exist: create the PodGroup, or take its pods out of it "
                          "(label " +
                          std::string(kPodGroupLabel) + ", annotation " +
                          std::string(kVolcanoGroupAnnotation) + " or label " +
                          std::string(kSchedulerPluginsGroupLabel) + ")"};
  }
  std::int32_t existing = 0;
  for (TaskIndex t : job.tasks) existing += MayCount(session.task_state(t)) ? 1 : 0;
  if (existing < job.min_member) {
    // Formatted at once: every group still gathering its pods is told this each session.
    std::string why = fmt::format("only {} of minMember {} pods exist", existing, job.min_member);
    if (const OwnerReference* owner = StatefulSetOwner(session, job)) {
      why += "; StatefulSet " + job.namespace_name + "/" + owner->name +
             " may be creating its pods one at a time (podManagementPolicy OrderedReady, the "
             "default, waits for each pod to be Running before creating the next), so this "
             "group can never reach its minimum this way: set podManagementPolicy: Parallel";
    }
    return JobVerdict{JobReason::kNotEnoughPods, std::move(why)};
  }
  for (const auto& [task_name, minimum] : job.min_task_member) {
    std::int32_t count = 0;
    for (TaskIndex t : job.tasks) {
      count += (session.task(t).task_name == task_name && MayCount(session.task_state(t))) ? 1 : 0;
    }
    if (count < minimum) {
      return JobVerdict{JobReason::kNotEnoughPods,
                        "task " + task_name + " has " + std::to_string(count) +
                            " pods, below its minTaskMember " + std::to_string(minimum)};
    }
  }
  return std::nullopt;
}

bool GangPlugin::JobReady(const Session& session, JobIndex j) const {
  const JobInfo& job = session.job(j);
  if (session.job_ready_tasks(j) < job.min_member) return false;
  return std::all_of(job.min_task_member.begin(), job.min_task_member.end(), [&](const auto& kv) {
    return session.job_ready_tasks(j, kv.first) >= kv.second;
  });
}

std::int32_t GangPlugin::TasksStillNeeded(const Session& session, JobIndex j,
                                          const std::string& task_name) const {
  const JobInfo& job = session.job(j);
  if (task_name.empty()) return std::max(0, job.min_member - session.job_ready_tasks(j));
  auto it = job.min_task_member.find(task_name);
  if (it == job.min_task_member.end()) return 0;
  return std::max(0, it->second - session.job_ready_tasks(j, task_name));
}

}  // namespace arbiter
