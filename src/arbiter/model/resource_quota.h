// ResourceQuota (v1): hard limits per namespace and what is used against them. Keys are quota
// names ("requests.cpu", "limits.memory", "pods", "count/pods"); amounts are in the canonical unit
// of the resource the key counts (millicores for requests.cpu and limits.cpu, bytes for memory
// keys, whole units otherwise). Note: ResourceList::ToString prints by the key's own unit, so a
// "requests.cpu" amount prints as a count of millicores. Plain value, no I/O; thread safety: a
// value type.
#pragma once

#include <optional>
#include <span>
#include <string_view>

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

// A queue's ResourceQuotas (controllers/queue_quota.h) carry the queue's name in this annotation,
// and are selected by the label of this selector.
inline constexpr std::string_view kQuotaQueueAnnotation = "arbiter.dev/queue";
inline constexpr std::string_view kQuotaLabelSelector =
    "app.kubernetes.io/managed-by=arbiter-controller";

// The queue `quota` belongs to, or empty.
std::string_view QuotaQueueOf(const ResourceQuota& quota);

// The limits a queue's ResourceQuotas let the scheduler use now: per resource (plain names:
// "cpu"), the least over them of spec.hard and status.hard (a limit the API server's quota
// controller has not taken yet counts as zero: a raised limit is used only once the API server
// would admit pods up to it, and a lowered one at once). Nullopt when `quotas` is empty.
std::optional<ResourceList> QuotaCap(std::span<const ResourceQuota* const> quotas);

}  // namespace arbiter
