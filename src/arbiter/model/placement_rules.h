// The Kubernetes rules that decide whether a pod may go to a node, other than resources: taints
// and tolerations, nodeSelector, required node affinity, and host ports. Pure functions over model
// values, with the API's exact semantics, for the predicates plugin and for explaining a
// FailedScheduling ("node n1 has taint gpu=true:NoSchedule that the pod does not tolerate").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "arbiter/model/node.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod.h"

namespace arbiter {

// Every host port the pod's containers and init containers ask for.
std::vector<HostPort> HostPortsOf(const Pod& pod);

// A hash of the pod's static placement constraints (nodeSelector, tolerations, required node
// affinity): pods with equal constraints have equal hashes, and so get equal verdicts from the
// label and taint rules. Unequal constraints almost always hash differently; a user of the hash
// confirms equality before relying on it.
std::uint64_t PlacementConstraintHash(const PodSpec& spec);

// Mixes `value` into `seed` (boost's hash_combine, widened to 64 bits).
inline std::uint64_t HashCombine(std::uint64_t seed, std::uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

// Whether one toleration tolerates one taint: the effects match (an empty toleration effect
// matches all), and either the toleration's key is empty with operator Exists (tolerates every
// taint), or the keys are equal and the operator is Exists or the values are equal.
bool Tolerates(const Toleration& toleration, const Taint& taint);

// The first taint with effect NoSchedule or NoExecute that no toleration tolerates, or nullptr.
// PreferNoSchedule taints never forbid placement (they are a scoring matter).
const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                   const std::vector<Taint>& taints);

// spec.nodeSelector: every key present on the node with the same value. Empty matches every node.
bool MatchesNodeSelector(const Labels& selector, const Labels& node_labels);

// One requirement against labels (In, NotIn, Exists, DoesNotExist; Gt and Lt compare the label's
// value and the requirement's single value as integers, and fail when either is not one).
bool MatchesRequirement(const NodeSelectorRequirement& requirement, const Labels& labels);

// Required node affinity: the terms are ORed; within a term every expression (on labels) and every
// field requirement (only metadata.name is a field) must hold. An empty term matches no node, as
// in Kubernetes.
bool MatchesNodeAffinity(const NodeSelector& affinity, const Node& node);

// Whether any host port wanted by a pod is already taken on a node: the same protocol and port,
// and the same address or either side bound to every address (empty or 0.0.0.0).
bool HostPortsConflict(const std::vector<HostPort>& wanted, const std::vector<HostPort>& in_use);

}  // namespace arbiter
