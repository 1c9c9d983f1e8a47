#include "arbiter/framework/reason.h"

#include <array>
#include <utility>

namespace arbiter {

namespace {

constexpr std::array<std::pair<JobReason, std::string_view>, 14> kJobReasons{{
    {JobReason::kInvalid, "Invalid"},
    {JobReason::kPodGroupNotFound, "PodGroupNotFound"},
    {JobReason::kNotEnoughPods, "NotEnoughPods"},
    {JobReason::kQueueNotFound, "QueueNotFound"},
    {JobReason::kQueueClosed, "QueueClosed"},
    {JobReason::kQueueNotAllowed, "QueueNotAllowed"},
    {JobReason::kQueueCapability, "QueueCapability"},
    {JobReason::kQueueOverused, "QueueOverused"},
    {JobReason::kNotEnqueued, "NotEnqueued"},
    {JobReason::kNotEnoughResources, "NotEnoughResources"},
    {JobReason::kPreemptionWouldNotFit, "PreemptionWouldNotFit"},
    {JobReason::kWaitingForPreemption, "WaitingForPreemption"},
    {JobReason::kPreempted, "Preempted"},
    {JobReason::kGangReleased, "GangReleased"},
}};

}  // namespace

std::string_view JobReasonName(JobReason reason) {
  for (const auto& [r, name] : kJobReasons) {
    if (r == reason) return name;
  }
  return "Invalid";
}

std::optional<JobReason> ParseJobReason(std::string_view name) {
  for (const auto& [r, n] : kJobReasons) {
    if (n == name) return r;
  }
  return std::nullopt;
}

std::string_view TaskReasonName(TaskReason reason) {
  switch (reason) {
    case TaskReason::kNoNodeFits:
      return "NoNodeFits";
    case TaskReason::kQueueOverused:
      return "QueueOverused";
    case TaskReason::kQueueCapability:
      return "QueueCapability";
    case TaskReason::kSameAsFailedTwin:
      return "SameAsFailedTwin";
    case TaskReason::kWithdrawn:
      return "Withdrawn";
  }
  return "NoNodeFits";
}

}  // namespace arbiter
