// proportion: queues share the cluster by weight (ARCHITECTURE.md §2, issue "queues and fair
// share"). At session open it computes every queue's deserved share by weighted water-filling
// over the whole cluster's allocatable (fairness/water_filling.h: demand-capped, guarantees
// first, capability as a hard cap, hierarchy by spec.parent), then keeps each queue's allocation
// up to date as the session places tasks.
//
//   queue order   the queue furthest below its deserved share first: share = max over resources
//                 of allocated / deserved (own jobs' part of the queue's share);
//   overused      a queue whose share is >= 1 starts no more jobs this session while another
//                 queue still waits for some of what it asks (deserved already includes the room
//                 no other queue asks for; with nobody else waiting, the nodes decide);
//   capability    no task may take a queue, or any of its ancestors, over its capability, nor
//                 over its quota: the hard limits of its ResourceQuotas (issue 15), taken as
//                 the least of their spec and of what the API server's quota controller took;
//   job valid     the queue must exist (QueueNotFound), be Open (QueueClosed) and admit the job's
//                 namespace by its namespaceSelector (QueueNotAllowed);
//   enqueue       a group is admitted when what it needs to start (minResources, or else the
//                 requests of its first minMember pods in task order) fits into its queue's
//                 deserved share x overcommitFactor, less what the queue has allocated and what
//                 groups admitted before it reserved, and within its capability; or else into
//                 room that no queue's deserved share claims.
//
// Arguments: overcommitFactor (>= 1, default 1.0).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/fairness/water_filling.h"
#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

class ProportionPlugin final : public Plugin,
                               public QueueOrderExtension,
                               public JobValidExtension,
                               public JobEnqueueExtension,
                               public QueueLimitExtension,
                               public QueueShareExtension,
                               public AllocationEventExtension {
 public:
  static constexpr std::string_view kName = "proportion";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  explicit ProportionPlugin(double overcommit_factor) : overcommit_factor_(overcommit_factor) {}
  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;

  int CompareQueues(const Session& session, QueueIndex a, QueueIndex b) const override;
  std::optional<JobVerdict> JobInvalid(const Session& session, JobIndex job) const override;
  std::optional<JobVerdict> JobNotEnqueueable(const Session& session, JobIndex job) const override;
  void OnJobAdmitted(const Session& session, JobIndex job) override;
  std::optional<std::string> QueueOverused(const Session& session, QueueIndex queue) const override;
  std::optional<std::string> ExceedsCapability(const Session& session, QueueIndex queue,
                                               TaskIndex task) const override;
  ResourceVector Deserved(const Session& session, QueueIndex queue) const override;
  void OnAllocate(const Session& session, TaskIndex task) override;
  void OnDeallocate(const Session& session, TaskIndex task) override;

  // The queue's share: max over resources of allocated / deserved (own jobs), +inf when it holds
  // something it deserves none of.
  double Share(QueueIndex queue) const;

 private:
  struct QueueBook {
    std::int32_t parent = -1;
    ResourceVector capability;      // the least of spec.capability and the quota; kUnlimited
    ResourceVector own_capability;  // spec.capability alone
    fairness::QueueShare share;
    ResourceVector request;            // own jobs: allocated + pending
    ResourceVector allocated;          // own jobs
    ResourceVector subtree_allocated;  // own jobs and every descendant's
  };
  void Charge(QueueIndex queue, const ResourceVector& amount, bool add);
  static std::string CapName(const QueueBook& book, ResourceId id);
  // Whether `need` fits the queue's deserved share x overcommitFactor, less what it has
  // allocated and reserved and what groups admitted this session took; else the first resource
  // short.
  // What the queue's subtree has reserved for admitted groups not yet placed: in earlier
  // sessions (Session::queue_reserved) and in this one.
  ResourceVector SubtreeReserved(const Session& session, std::size_t queue) const;
  std::optional<ResourceId> ShareShortfall(const Session& session, QueueIndex queue,
                                           const ResourceVector& need) const;
  bool Waiting(std::size_t queue) const;

  double overcommit_factor_;
  std::vector<QueueBook> queues_;
  ResourceVector unclaimed_;  // cluster room no queue's deserved share claims
  // Admissions during this session (OnJobAdmitted), so later groups see earlier reservations:
  // per queue within its share, and what was admitted into unclaimed room.
  std::vector<ResourceVector> admitted_;
  // What groups admitted this session reserve, by queue and each of its ancestors, whichever
  // room they were admitted into: the capability counts it.
  std::vector<ResourceVector> admitted_subtree_;
  // Session::queue_reserved summed over each queue's subtree: reservations are computed after
  // the plugins open, so this is filled at the first admission test of a session.
  mutable std::vector<ResourceVector> reserved_subtree_;
  mutable bool reserved_subtree_ready_ = false;
  ResourceVector unclaimed_used_;
};

}  // namespace arbiter
