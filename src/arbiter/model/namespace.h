// Namespace: a Kubernetes v1 Namespace as Arbiter reads it: its labels (a queue's
// namespaceSelector matches them) and its phase. Plain value, no I/O; thread safety: a value.
#pragma once

#include <string>

#include "arbiter/model/object_meta.h"

namespace arbiter {

struct Namespace {
  ObjectMeta meta;
  std::string phase;  // "Active" or "Terminating"
  friend bool operator==(const Namespace&, const Namespace&) = default;
};

}  // namespace arbiter
