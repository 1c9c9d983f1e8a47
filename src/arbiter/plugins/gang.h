// gang: a job is ready only when at least minMember of its pods, and minTaskMember of each named
// task, are placed together (R1, R5); a job whose pods are too few to ever get there is invalid
// this session, with a reason that says so (R8: a StatefulSet creating one pod at a time).
//
// Extension points: JobValid, JobReady. No arguments.
#pragma once

#include <memory>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class GangPlugin final : public Plugin, public JobValidExtension, public JobReadyExtension {
 public:
  static constexpr std::string_view kName = "gang";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  std::string_view Name() const override { return kName; }
  std::optional<JobVerdict> JobInvalid(const Session& session, JobIndex job) const override;
  bool JobReady(const Session& session, JobIndex job) const override;
  std::int32_t TasksStillNeeded(const Session& session, JobIndex job,
                                const std::string& task_name) const override;
};

}  // namespace arbiter
