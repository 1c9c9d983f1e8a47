#include "arbiter/model/pod_group.h"

namespace arbiter {

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
