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
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/model/label_selector.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {

enum class QueueState : std::uint8_t { kOpen, kClosed };

std::string_view QueueStateName(QueueState state);
StatusOr<QueueState> ParseQueueState(std::string_view text);

// spec.quota.enforce: whether arbiter-controller keeps a ResourceQuota in the namespaces the
// queue owns, and with which hard limits (controllers/queue_quota.h).
enum class QuotaEnforce : std::uint8_t {
  kNone,        // no ResourceQuota
  kCapability,  // the queue's capability
  kDeserved,    // its entitlement: its weighted share of the whole cluster, within its capability
};

std::string_view QuotaEnforceName(QuotaEnforce enforce);
StatusOr<QuotaEnforce> ParseQuotaEnforce(std::string_view text);

struct QueueSpec {
  std::int32_t weight = 1;  // >= 1
  ResourceList capability;  // missing resource: unlimited
  ResourceList guarantee;   // missing resource: zero
  bool reclaimable = true;
  std::string parent;  // empty: the root
  QueueState state = QueueState::kOpen;
  std::optional<LabelSelector> namespace_selector;
  QuotaEnforce quota_enforce = QuotaEnforce::kNone;

  // Whether pods of namespace with these labels may submit to this queue.
  bool AdmitsNamespace(const Labels& namespace_labels) const {
    return !namespace_selector.has_value() || namespace_selector->Matches(namespace_labels);
  }
  friend bool operator==(const QueueSpec&, const QueueSpec&) = default;
};

// status.quota, written by arbiter-controller: the hard limits of the queue's ResourceQuotas as
// "requests.*" keys, the generation of the computation that gave them (also on each
// ResourceQuota, as an annotation), and which selected namespaces got one and which did not
// because another queue selects them too. lowered_at: when a generation last lowered a limit (or
// set one where there was none); the scheduler reclaims pods running beyond the quota only once
// its grace period has passed since then (docs/quota.md).
struct QueueQuotaStatus {
  std::int64_t generation = 0;
  ResourceList hard;
  std::optional<Clock::WallTime> lowered_at;
  std::vector<std::string> namespaces;
  std::vector<std::string> shared_namespaces;
  friend bool operator==(const QueueQuotaStatus&, const QueueQuotaStatus&) = default;
};

struct QueueStatus {
  ResourceList deserved;
  ResourceList allocated;
  ResourceList used;
  std::int32_t pending = 0;  // groups in each phase
  std::int32_t inqueue = 0;
  std::int32_t running = 0;
  // Written by arbiter-controller; the scheduler's status writes keep them.
  QueueQuotaStatus quota;
  std::vector<ObservedCondition> conditions;  // QuotaSynced
  friend bool operator==(const QueueStatus&, const QueueStatus&) = default;
};

struct Queue {
  ObjectMeta meta;
  QueueSpec spec;
  QueueStatus status;
  friend bool operator==(const Queue&, const Queue&) = default;
};

}  // namespace arbiter
