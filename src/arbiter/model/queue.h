// Queue (arbiter.dev/v1alpha1, cluster-scoped): a tenant's share of the cluster, per
// ARCHITECTURE.md §2. Plain value, no I/O; thread safety: a value type.
//
// In `capability` a missing resource means unlimited (compare with Missing::kUnlimited); in
// `guarantee` it means zero (Missing::kZero). An absent namespace_selector admits every
// namespace; a present one admits the namespaces whose labels it matches (an empty selector
// matches all). Defaults are the CRD schema's: weight 1, reclaimable, Open, parent "" (the root).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/model/label_selector.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

enum class QueueState : std::uint8_t { kOpen, kClosed };

std::string_view QueueStateName(QueueState state);
StatusOr<QueueState> ParseQueueState(std::string_view text);

struct QueueSpec {
  std::int32_t weight = 1;  // >= 1
  ResourceList capability;  // missing resource: unlimited
  ResourceList guarantee;   // missing resource: zero
  bool reclaimable = true;
  std::string parent;  // empty: the root
  QueueState state = QueueState::kOpen;
  std::optional<LabelSelector> namespace_selector;

  // Whether pods of namespace with these labels may submit to this queue.
  bool AdmitsNamespace(const Labels& namespace_labels) const {
    return !namespace_selector.has_value() || namespace_selector->Matches(namespace_labels);
  }
  friend bool operator==(const QueueSpec&, const QueueSpec&) = default;
};

struct QueueStatus {
  ResourceList deserved;
  ResourceList allocated;
  ResourceList used;
  std::int32_t pending = 0;  // groups in each phase
  std::int32_t inqueue = 0;
  std::int32_t running = 0;
  friend bool operator==(const QueueStatus&, const QueueStatus&) = default;
};

struct Queue {
  ObjectMeta meta;
  QueueSpec spec;
  QueueStatus status;
  friend bool operator==(const Queue&, const Queue&) = default;
};

}  // namespace arbiter
