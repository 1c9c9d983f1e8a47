// PriorityClass (scheduling.k8s.io/v1): the priority value a class name stands for. Plain value,
// no I/O; thread safety: a value type.
#pragma once

#include <cstdint>
#include <string>

#include "arbiter/model/object_meta.h"

namespace arbiter {

struct PriorityClass {
  ObjectMeta meta;
  std::int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;  // "PreemptLowerPriority" (the API default) or "Never"
  friend bool operator==(const PriorityClass&, const PriorityClass&) = default;
};

}  // namespace arbiter
