#include "arbiter/model/pod_group.h"

namespace arbiter {

std::string PodGroupNameOf(const Pod& pod) {
  const Labels& labels = pod.meta.labels;
  if (auto it = labels.find(kPodGroupLabel); it != labels.end() && !it->second.empty()) {
    return it->second;
  }
  if (!pod.spec.scheduling_group.empty()) return pod.spec.scheduling_group;
  const Labels& annotations = pod.meta.annotations;
  if (auto it = annotations.find(kVolcanoGroupAnnotation);
      it != annotations.end() && !it->second.empty()) {
    return it->second;
  }
  if (auto it = labels.find(kSchedulerPluginsGroupLabel);
      it != labels.end() && !it->second.empty()) {
    return it->second;
  }
  return {};
}

std::string_view PodGroupApiVersion(PodGroupDialect dialect) {
  switch (dialect) {
    case PodGroupDialect::kArbiter:
      return "arbiter.dev/v1alpha1";
    case PodGroupDialect::kKubernetes:
      return "scheduling.k8s.io/v1alpha2";
    case PodGroupDialect::kVolcano:
      return "scheduling.volcano.sh/v1beta1";
    case PodGroupDialect::kSchedulerPlugins:
      return "scheduling.x-k8s.io/v1alpha1";
  }
  return "?";
}

std::string PodGroupCollectionPath(PodGroupDialect dialect) {
  return "/apis/" + std::string(PodGroupApiVersion(dialect)) + "/podgroups";
}

std::string PodGroupObjectPath(PodGroupDialect dialect, std::string_view namespace_name,
                               std::string_view name) {
  return "/apis/" + std::string(PodGroupApiVersion(dialect)) + "/namespaces/" +
         std::string(namespace_name) + "/podgroups/" + std::string(name);
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

std::string_view TopologyModeName(TopologyMode mode) {
  return mode == TopologyMode::kRequired ? "Required" : "Preferred";
}

StatusOr<TopologyMode> ParseTopologyMode(std::string_view text) {
  if (text == "Required") return TopologyMode::kRequired;
  if (text == "Preferred") return TopologyMode::kPreferred;
  return InvalidArgumentError("unknown mode \"" + std::string(text) +
                              "\" (want Required or Preferred)");
}

}  // namespace arbiter
