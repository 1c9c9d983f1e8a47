#include "arbiter/model/batch_job.h"

#include <array>
#include <utility>

namespace arbiter {
namespace {

constexpr std::array<std::pair<JobEvent, std::string_view>, 6> kEvents = {{
    {JobEvent::kPodFailed, "PodFailed"},
    {JobEvent::kPodEvicted, "PodEvicted"},
    {JobEvent::kPodPreempted, "PodPreempted"},
    {JobEvent::kTaskSucceeded, "TaskSucceeded"},
    {JobEvent::kTaskFailed, "TaskFailed"},
    {JobEvent::kUnschedulable, "Unschedulable"},
}};

constexpr std::array<std::pair<JobAction, std::string_view>, 5> kActions = {{
    {JobAction::kRestartJob, "RestartJob"},
    {JobAction::kRestartTask, "RestartTask"},
    {JobAction::kFailJob, "FailJob"},
    {JobAction::kCompleteJob, "CompleteJob"},
    {JobAction::kIgnore, "Ignore"},
}};

template <typename T, std::size_t N>
StatusOr<T> Parse(const std::array<std::pair<T, std::string_view>, N>& names, std::string_view text,
                  std::string_view what) {
  std::string known;
  for (const auto& [value, name] : names) {
    if (name == text) return value;
    known.append(known.empty() ? "" : ", ").append(name);
  }
  return InvalidArgumentError("unknown " + std::string(what) + " \"" + std::string(text) +
                              "\" (known: " + known + ")");
}

}  // namespace

std::string_view JobEventName(JobEvent event) {
  for (const auto& [value, name] : kEvents) {
    if (value == event) return name;
  }
  return "?";
}

std::string_view JobActionName(JobAction action) {
  for (const auto& [value, name] : kActions) {
    if (value == action) return name;
  }
  return "?";
}

StatusOr<JobEvent> ParseJobEvent(std::string_view text) { return Parse(kEvents, text, "event"); }

StatusOr<JobAction> ParseJobAction(std::string_view text) {
  return Parse(kActions, text, "action");
}

}  // namespace arbiter
