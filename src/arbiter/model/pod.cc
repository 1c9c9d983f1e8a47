#include "arbiter/model/pod.h"

#include "arbiter/resource/resource_name.h"

namespace arbiter {

std::string_view NodeSelectorOperatorName(NodeSelectorOperator op) {
  switch (op) {
    case NodeSelectorOperator::kIn:
      return "In";
    case NodeSelectorOperator::kNotIn:
      return "NotIn";
    case NodeSelectorOperator::kExists:
      return "Exists";
    case NodeSelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case NodeSelectorOperator::kGt:
      return "Gt";
    case NodeSelectorOperator::kLt:
      return "Lt";
  }
  return "?";
}

StatusOr<NodeSelectorOperator> ParseNodeSelectorOperator(std::string_view text) {
  for (NodeSelectorOperator op :
       {NodeSelectorOperator::kIn, NodeSelectorOperator::kNotIn, NodeSelectorOperator::kExists,
        NodeSelectorOperator::kDoesNotExist, NodeSelectorOperator::kGt,
        NodeSelectorOperator::kLt}) {
    if (NodeSelectorOperatorName(op) == text) return op;
  }
  return InvalidArgumentError("unknown operator \"" + std::string(text) +
                              "\" (want In, NotIn, Exists, DoesNotExist, Gt or Lt)");
}

bool KeepsPodAnnotation(std::string_view key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view domain = key.substr(0, slash);
  return domain == "arbiter.dev" || domain.ends_with(".arbiter.dev") ||
         domain == "scheduling.k8s.io" || domain == "scheduling.volcano.sh" ||
         domain == "volcano.sh";
}

std::string_view PodPhaseName(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending:
      return "Pending";
    case PodPhase::kRunning:
      return "Running";
    case PodPhase::kSucceeded:
      return "Succeeded";
    case PodPhase::kFailed:
      return "Failed";
    case PodPhase::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

PodPhase ParsePodPhase(std::string_view text) {
  for (PodPhase phase :
       {PodPhase::kPending, PodPhase::kRunning, PodPhase::kSucceeded, PodPhase::kFailed}) {
    if (PodPhaseName(phase) == text) return phase;
  }
  // The API server leaves the phase empty until the kubelet (or nobody) sets it: Pending.
  return text.empty() ? PodPhase::kPending : PodPhase::kUnknown;
}

StatusOr<ResourceList> Pod::EffectiveRequest() const {
  ResourceList regular;
  for (const Container& c : spec.containers) ARBITER_RETURN_IF_ERROR(regular.Add(c.requests));

  ResourceList sidecars;  // the sidecars started so far
  ResourceList init_max;
  for (const Container& c : spec.init_containers) {
    ResourceList during = c.requests;
    if (c.IsSidecar()) {
      ARBITER_RETURN_IF_ERROR(regular.Add(c.requests));
      ARBITER_RETURN_IF_ERROR(sidecars.Add(c.requests));
      during = sidecars;
    } else {
      ARBITER_RETURN_IF_ERROR(during.Add(sidecars));
    }
    init_max = ResourceList::Max(init_max, during);
  }

  ResourceList request = ResourceList::Max(regular, init_max);
  ARBITER_RETURN_IF_ERROR(request.Add(spec.overhead));
  ARBITER_RETURN_IF_ERROR(request.Add(ResourceList{{kResourcePods, 1}}));
  return request;
}

}  // namespace arbiter
