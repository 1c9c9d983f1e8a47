// Node: the parts of a Kubernetes v1 Node that scheduling reads, as a plain value (no I/O).
// allocatable and capacity are in canonical units; a resource absent from allocatable is zero.
//
// Thread safety: a value type.
#pragma once

#include <string>
#include <vector>

#include "arbiter/model/object_meta.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute (pod.h constants)
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct Node {
  ObjectMeta meta;  // meta.labels are the node's labels, as selectors see them
  bool unschedulable = false;
  std::vector<Taint> taints;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;

  // True when the node reports the Ready condition as True (a node without it is not ready).
  bool Ready() const {
    const Condition* ready = FindCondition(conditions, "Ready");
    return ready != nullptr && ready->IsTrue();
  }
  friend bool operator==(const Node&, const Node&) = default;
};

}  // namespace arbiter
