// Effects: what a session's result does to the world, through one interface that the scheduler
// (the API server), the simulator and the test clusters each implement, and one Applier that
// drives it, so that assume, bind failure, expiry and eviction behave the same in all three.
//
// The walk of a result (Applier::Apply):
//   1. every bind is assumed in the cache at once, so the next session counts the pod on its node
//      whatever the bind's fate;
//   2. binds, then evictions, go to the Effects, which may send them at once or later, from any
//      thread, and report each bind's outcome with Applier::BindDone: a failed bind stays assumed
//      until the watch says otherwise or the failed-bind ttl passes (the API server may have bound
//      the pod although the call failed), and ExpireAssumed before a later session forgets it;
//      evictions go one preemptor at a time (PreemptionBatch): all of them, or, if the API server
//      would refuse any (a PodDisruptionBudget), none, reported with Applier::PreemptionDone;
//   3. verdicts of pods left pending, PodGroup and Queue statuses.
//
//   Applier applier(cache, {.failed_bind_ttl = 30s});
//   applier.ExpireAssumed(clock.MonotonicNow());
//   SessionResult result = scheduler.RunSession(*snapshot, now);
//   applier.Apply(result, *snapshot, effects);
//
// Thread safety: Apply and ExpireAssumed from the session's thread; BindDone and PreemptionDone
// from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

enum class BindOutcome : std::uint8_t {
  kBound,            // the pod is bound to the node
  kAlreadyAssigned,  // someone bound it first: the watch says where
  kFailed,           // not answered, or a server error: it may or may not be bound
  kRefused,          // the API server answered that it did not bind it (429, 403, 404, 409...)
};

// One preemptor's evictions and what is written only if they are made: its pods' nominations
// and the victims' PodGroup statuses (their preemption counted). All or nothing: an Effects
// sends none of the evictions if the API server would refuse one (a dry run first), so that a
// refused plan evicts nothing and the next session plans again.
struct PreemptionBatch {
  std::string preemptor;  // namespace/name of the job
  std::vector<EvictDecision> evictions;
  std::vector<NominationDecision> nominations;
  std::vector<PodGroupUpdate> victim_updates;
};

class Effects {
 public:
  virtual ~Effects() = default;
  // Sends the binds (already assumed); reports each outcome with Applier::BindDone.
  virtual void Bind(const std::vector<BindDecision>& binds) = 0;
  // For each eviction: marks the pod DisruptionTarget, records a Preempted event and evicts it
  // (Eviction API); then writes the nominations and the victims' statuses. If the API server
  // would refuse any eviction, does none of it. Reports with Applier::PreemptionDone.
  virtual void Preempt(const PreemptionBatch& batch) = 0;
  // Sets (or clears) a preemptor's pod's status.nominatedNodeName.
  virtual void Nominate(const NominationDecision& nomination) = 0;
  // A pod stays pending: its FailedScheduling event and PodScheduled=False condition. `observed`
  // is the pod as the session's snapshot saw it (null when it was not there).
  virtual void ReportUnschedulable(const PodVerdict& verdict, const Pod* observed) = 0;
  virtual void WriteGroupStatus(const PodGroupUpdate& update) = 0;
  virtual void WriteQueueStatus(const QueueUpdate& update) = 0;
};

struct ApplierOptions {
  std::chrono::nanoseconds failed_bind_ttl = std::chrono::seconds(30);
  // How long a refused bind stays assumed: the pod is certainly not bound, so it is placed again
  // soon (not at once: a throttled API server is not asked again in the same breath).
  std::chrono::nanoseconds refused_bind_retry = std::chrono::seconds(1);
  // How long an eviction or nomination the watch has not confirmed is assumed (an eviction a
  // PodDisruptionBudget refused is not confirmed: the pod may be chosen again after this).
  std::chrono::nanoseconds preemption_ttl = std::chrono::seconds(30);
};

class Applier {
 public:
  // `cache` must outlive the applier.
  explicit Applier(ClusterCache& cache, ApplierOptions options = {})
      : cache_(cache), options_(options) {}

  // Before a session: forgets the failed binds whose ttl passed; returns how many.
  int ExpireAssumed(Clock::MonotonicTime now) { return cache_.ExpireAssumed(now); }
  // `now` starts the clocks of the evictions and nominations assumed in the cache.
  void Apply(const SessionResult& result, const Snapshot& snapshot, Effects& effects,
             Clock::MonotonicTime now);
  void BindDone(const BindDecision& bind, BindOutcome outcome, Clock::MonotonicTime now);
  // How a batch ended: `refused` names the pods (uids) whose eviction the API server refused;
  // empty, all were made. A refused batch is forgotten (its victims run on, its nominations and
  // statuses were not written) and the refused pods are not chosen again for preemption_ttl.
  void PreemptionDone(const PreemptionBatch& batch, const std::vector<std::string>& refused,
                      Clock::MonotonicTime now);
  // The pods (uids) of the batches refused since the last call: the scheduler forgets that it
  // evicted them (Scheduler::ForgetEvictions) before its next session.
  std::vector<std::string> TakeUnmadeEvictions();

 private:
  ClusterCache& cache_;
  const ApplierOptions options_;
  std::mutex unmade_mu_;
  std::vector<std::string> unmade_;  // TakeUnmadeEvictions
};

}  // namespace arbiter
