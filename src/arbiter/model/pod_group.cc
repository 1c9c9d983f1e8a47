#include "arbiter/model/pod_group.h"

namespace arbiter {

std::string PodGroupNameOf(const Pod& pod) {
  const Labels& labels = pod.meta.labels;
  if (auto it = labels.find(std::string(kPodGroupLabel));
      it != labels.end() && !it->second.empty()) {
    return it->second;
  }
  const Labels& annotations = pod.meta.annotations;
  if (auto it = annotations.find(std::string(kVolcanoGroupAnnotation));
      it != annotations.end() && !it->second.empty()) {
    return it->second;
  }
  if (auto it = labels.find(std::string(kSchedulerPluginsGroupLabel));
      it != labels.end() && !it->second.empty()) {
    return it->second;
  }
  return {};
}

std::string_view PodGroupPhaseName(PodGroupPhase phase) {
  switch (phase) {
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kInqueue:
      return "Inqueue";
    case PodGroupPhase::kRunning:
      return "Running";
    case PodGroupPhase::kCompleted:
      return "Completed";
    case PodGroupPhase::kFailed:
      return "Failed";
  }
  return "?";
}

StatusOr<PodGroupPhase> ParsePodGroupPhase(std::string_view text) {
  for (PodGroupPhase phase :
       {PodGroupPhase::kPending, PodGroupPhase::kInqueue, PodGroupPhase::kRunning,
        PodGroupPhase::kCompleted, PodGroupPhase::kFailed}) {
    if (PodGroupPhaseName(phase) == text) return phase;
  }
  return InvalidArgumentError("unknown phase \"" + std::string(text) +
                              "\" (want Pending, Inqueue, Running, Completed or Failed)");
}

}  // namespace arbiter
