// ObjectMeta and the small value types every Kubernetes object shares (labels, owner references,
// conditions), as Arbiter's model keeps them: plain values with no I/O. Decoding from the API's
// JSON lives in k8s/decode.h; these types never know where they came from.
//
// Timestamps are wall-clock instants (Clock::WallTime, nanoseconds since the Unix epoch); an
// absent timestamp is the epoch (creation) or std::nullopt (deletion, optional times).
//
// Thread safety: value types.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "arbiter/base/clock.h"
#include "arbiter/base/interned.h"

namespace arbiter {

// Labels and annotations: sorted, so iteration and printing are deterministic; one flat array of
// pairs, not a tree of nodes (a re-list builds and frees these for every pod: a node allocation
// per entry made decoding a PodList about 5% slower), looked up by string_view as well. Keys are
// interned (base/interned.h): the same few keys label every pod. An insert moves the entries
// after it: keep no reference into a map across one.
using Labels = boost::container::flat_map<InternedString, std::string, std::less<>>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ObjectMeta {
  // Empty for cluster-scoped objects. Interned: a cluster has a few namespaces and many objects
  // in each.
  InternedString namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::int64_t generation = 0;
  Labels labels;
  Labels annotations;
  Clock::WallTime creation_timestamp{};
  std::optional<Clock::WallTime> deletion_timestamp;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;

  // "namespace/name", or "name" for a cluster-scoped object: how logs and errors name it.
  std::string Key() const { return namespace_name.empty() ? name : namespace_name + "/" + name; }
  // The owner reference marked controller (a pod's ReplicaSet, Job, BatchJob...), or nullptr.
  const OwnerReference* Controller() const {
    for (const OwnerReference& ref : owner_references) {
      if (ref.controller) return &ref;
    }
    return nullptr;
  }
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

// A status condition ("Ready", "PodScheduled", "Unschedulable", ...). `status` is the API's
// string: "True", "False" or "Unknown".
struct Condition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
  std::optional<Clock::WallTime> last_transition_time;

  bool IsTrue() const { return status == "True"; }
  friend bool operator==(const Condition&, const Condition&) = default;
};

// A condition with the generation of the object's spec it was set for (BatchJob, Queue).
struct ObservedCondition {
  Condition condition;
  std::int64_t observed_generation = 0;
  friend bool operator==(const ObservedCondition&, const ObservedCondition&) = default;
};

// The condition of the given type, or nullptr. The pointer is into `conditions`.
inline const Condition* FindCondition(const std::vector<Condition>& conditions,
                                      std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace arbiter
