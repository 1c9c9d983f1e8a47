#include "arbiter/model/batch_job.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
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

constexpr std::array<std::pair<DependencyCondition, std::string_view>, 2> kDependencies = {{
    {DependencyCondition::kReady, "Ready"},
    {DependencyCondition::kSucceeded, "Succeeded"},
}};

constexpr std::array<std::pair<BatchJobPhase, std::string_view>, 8> kPhases = {{
    {BatchJobPhase::kPending, "Pending"},
    {BatchJobPhase::kRunning, "Running"},
    {BatchJobPhase::kRestarting, "Restarting"},
    {BatchJobPhase::kCompleting, "Completing"},
    {BatchJobPhase::kCompleted, "Completed"},
    {BatchJobPhase::kFailing, "Failing"},
    {BatchJobPhase::kFailed, "Failed"},
    {BatchJobPhase::kSuspended, "Suspended"},
}};

template <typename T, std::size_t N>
std::string_view Name(const std::array<std::pair<T, std::string_view>, N>& names, T value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "?";
}

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

std::string_view JobEventName(JobEvent event) { return Name(kEvents, event); }

std::string_view JobActionName(JobAction action) { return Name(kActions, action); }

StatusOr<JobEvent> ParseJobEvent(std::string_view text) { return Parse(kEvents, text, "event"); }

StatusOr<JobAction> ParseJobAction(std::string_view text) {
  return Parse(kActions, text, "action");
}

std::string_view DependencyConditionName(DependencyCondition condition) {
  return Name(kDependencies, condition);
}

StatusOr<DependencyCondition> ParseDependencyCondition(std::string_view text) {
  return Parse(kDependencies, text, "condition");
}

std::string_view BatchJobPhaseName(BatchJobPhase phase) { return Name(kPhases, phase); }

StatusOr<BatchJobPhase> ParseBatchJobPhase(std::string_view text) {
  return Parse(kPhases, text, "phase");
}

bool IsFinished(BatchJobPhase phase) {
  return phase == BatchJobPhase::kCompleted || phase == BatchJobPhase::kFailed;
}

std::int32_t BatchJobSpec::MinAvailable() const {
  if (min_available.has_value()) return *min_available;
  std::int64_t sum = 0;
  for (const BatchTaskSpec& t : tasks) sum += t.MinAvailable();
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(sum, std::numeric_limits<std::int32_t>::max()));
}

std::int32_t BatchJobSpec::Replicas() const {
  std::int64_t sum = 0;
  for (const BatchTaskSpec& t : tasks) sum += t.replicas;
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(sum, std::numeric_limits<std::int32_t>::max()));
}

const BatchTaskSpec* BatchJobSpec::FindTask(std::string_view name) const {
  for (const BatchTaskSpec& t : tasks) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace arbiter
