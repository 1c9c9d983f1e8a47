// ResourceQuota (v1): hard limits per namespace and what is used against them. Keys are quota
// names ("requests.cpu", "limits.memory", "pods", "count/pods"); amounts are in the canonical unit
// of the resource the key counts (millicores for requests.cpu and limits.cpu, bytes for memory
// keys, whole units otherwise). Note: ResourceList::ToString prints by the key's own unit, so a
// "requests.cpu" amount prints as a count of millicores. Plain value, no I/O; thread safety: a
// value type.
#pragma once

#include "arbiter/model/object_meta.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

struct ResourceQuota {
  ObjectMeta meta;
  ResourceList spec_hard;
  ResourceList status_hard;
  ResourceList status_used;
  friend bool operator==(const ResourceQuota&, const ResourceQuota&) = default;
};

}  // namespace arbiter
