// Queue quotas (issue 15, docs/quota.md): the ResourceQuota that arbiter-controller keeps for a
// queue in each namespace it owns, and what the Queue's status says about them.
//
// Ownership: a queue owns the namespaces its namespaceSelector selects and no other queue's
// selector does. A queue without a selector admits every namespace and owns none (otherwise
// `default` would share every namespace with every queue); a namespace two selectors pick is
// shared: no ResourceQuota there, and both queues list it in status.quota.sharedNamespaces.
//
// Hard limits ("requests.<resource>" keys, and "pods" for a pod count), by spec.quota.enforce:
//   Capability  the queue's capability, resource by resource;
//   Deserved    its entitlement: water-filling of the whole cluster's allocatable (every in-scope
//               node's, summed: never one node's) by weight, guarantees first, within its
//               parent's, capped by its capability, as if every queue asked for everything
//               (a quota that followed current demand would lock the queue out of what it has not
//               asked for yet); for cpu, memory and every resource its capability or guarantee
//               names.
// Amounts are exact (1500m stays "1500m"). Each change of a queue's hard limits is a new quota
// generation, written to status.quota.generation and to every ResourceQuota's annotation
// arbiter.dev/quota-generation.
//
// Lifecycle: the finalizer arbiter.dev/queue-quota is put on a queue that enforces a quota; when
// the queue is deleted its ResourceQuotas are set to zero (no pod can be created into them any
// more), then deleted, and then the finalizer is removed. A ResourceQuota the controller made for
// a namespace that is no longer owned, or for a queue that no longer enforces, is deleted; one
// that someone edited or deleted is written again.
//
// The condition QuotaSynced (with observedGeneration) is True when every owned namespace has its
// ResourceQuota at this generation and the API server's quota controller has taken its limits
// (status.hard equals spec.hard); the scheduler uses new room only from then on.
//
// Pure: a function of its inputs, no I/O. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/model/namespace.h"
#include "arbiter/model/node.h"
#include "arbiter/model/queue.h"
#include "arbiter/model/resource_quota.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter::controllers {

inline constexpr std::string_view kQuotaFinalizer = "arbiter.dev/queue-quota";
inline constexpr std::string_view kQuotaNamePrefix = "arbiter-queue-";
inline constexpr std::string_view kQuotaGenerationAnnotation = "arbiter.dev/quota-generation";
// The label the controller's and the scheduler's watches select ResourceQuotas by
// (kQuotaLabelSelector); the queue's name is in the annotation kQuotaQueueAnnotation.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kQuotaSyncedCondition = "QuotaSynced";

// The ResourceQuota's name for `queue`: "arbiter-queue-<queue>".
std::string QuotaName(std::string_view queue);

// The whole cluster's allocatable, as the scheduler counts it: nodes that are Ready, schedulable
// and not being deleted.
ResourceList ClusterAllocatable(const std::vector<Node>& nodes);

// The hard limits of each queue that enforces a quota, by queue name ("requests.cpu" keys).
std::map<std::string, ResourceList> QuotaHardLimits(const std::vector<Queue>& queues,
                                                    const ResourceList& cluster);

struct QuotaObservation {
  std::vector<Queue> queues;
  std::vector<Namespace> namespaces;
  ResourceList cluster;               // ClusterAllocatable
  std::vector<ResourceQuota> quotas;  // those with kManagedByLabel: arbiter-controller
  Clock::WallTime now{};
};

// Create (empty resource_version) or replace one ResourceQuota.
struct QuotaWrite {
  std::string namespace_name;
  std::string name;
  std::string resource_version;  // of the object replaced; empty: create
  std::string queue;
  std::string queue_uid;  // the owner reference
  ResourceList hard;
  std::int64_t generation = 0;
};

struct QuotaDelete {
  std::string namespace_name;
  std::string name;
  std::string uid;  // precondition
};

struct QueueQuotaUpdate {
  std::string queue;
  std::optional<QueueStatus> status;  // quota and conditions to write (the rest as observed)
  bool add_finalizer = false;
  bool remove_finalizer = false;
};

struct QuotaPlan {
  // In the order to apply: ResourceQuota writes (lowered limits before the status that reports
  // them), deletions, then the queues.
  std::vector<QuotaWrite> writes;
  std::vector<QuotaDelete> deletes;
  std::vector<QueueQuotaUpdate> queues;
};

QuotaPlan PlanQueueQuotas(const QuotaObservation& observation);

// The JSON body that creates or replaces the ResourceQuota of `write`.
std::string ResourceQuotaJson(const QuotaWrite& write);

// The JSON merge patch of a Queue's status from `before` to `after`: status.quota and
// status.conditions (resources dropped from quota.hard are set to null).
std::string QueueQuotaStatusPatch(const QueueStatus& before, const QueueStatus& after);

// The JSON merge patch that sets the Queue's finalizers to `finalizers`, conditional on
// `resource_version` (a merge patch replaces the whole list: without the precondition it could
// drop a finalizer someone added meanwhile).
std::string FinalizersPatch(const std::vector<std::string>& finalizers,
                            std::string_view resource_version);

}  // namespace arbiter::controllers
