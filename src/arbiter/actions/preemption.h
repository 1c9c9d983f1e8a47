// The engine that preempt (inside a queue) and reclaim (between queues) share: for one pending job
// that allocate could not place, plan in one Statement which running pods to evict so that the
// job's minimum fits, and commit only if all of it does (docs/preemption.md).
//
// The rules it keeps, whatever the action:
//   * idle room first: a task that fits where nothing need leave goes there;
//   * gang-safe victims: a victim job keeps its minMember (and every minTaskMember) or loses all
//     of its pods; its surplus pods are taken before any whole job;
//   * PodDisruptionBudgets: a plan never counts on an eviction that a budget would refuse (more
//     of its pods than its disruptionsAllowed, or a pod several budgets cover), and pods a
//     budget covers are chosen last: after every other pod on a node, and on the node that
//     needs the fewest of them;
//   * the cheapest node per task: fewest pods a budget covers, then fewest jobs broken, then the
//     lowest victim priority, then the least running time lost (youngest first), then the
//     fewest pods;
//   * simulate, then commit: evictions are issued only if the job's whole minimum is placed
//     (pipelined onto the room being freed); otherwise the Statement is discarded;
//   * reprieve: once the job fits, every victim that is not needed is given back, those a
//     PodDisruptionBudget covers first, then the most valuable (as kube-scheduler's reprieve and
//     Kueue's minimisation do);
//   * never a victim: pods in kube-system, of the system-node-critical and
//     system-cluster-critical priority classes, labelled (pod or PodGroup)
//     arbiter.dev/preemptable: "false", younger than PreemptionOptions::min_runtime, not running,
//     of the preemptor's own job, or whose eviction the API server refused lately. A preemptor with
//     a pod whose preemptionPolicy is Never evicts nothing.
//
// Victims are running or bound pods, which are evicted, and pods that another job's placement
// of this same session put on a node (not bound yet), which are withdrawn at no cost: so that a
// lower-priority job placed in room a higher-priority one could not use alone is not started
// only to be evicted in the next session.
//
// The preemptor's tasks are pipelined (kPipelined), not bound: they are nominated to the nodes
// whose room is being freed, and allocate binds them in a later session once the victims are
// gone. Nodes touched by a committed plan take no other placement in the same session.
//
// Thread safety: single-threaded, as its session.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/framework/config.h"
#include "arbiter/framework/session.h"

namespace arbiter {

struct PreemptionOptions {
  // Pods that started less than this long ago are never victims (Slurm's PreemptExemptTime).
  std::chrono::seconds min_runtime{0};
  // A victim stops within its own terminationGracePeriodSeconds, at most this.
  std::int64_t max_grace_seconds = 300;
  // How long a preemptor waits for the room its victims free before it may choose again.
  std::chrono::seconds nomination_timeout{300};
  // Pods of a queue that lost this many to preemption in the last minute are not victims until
  // the minute passes; 0: no budget.
  std::int32_t evictions_per_minute_per_queue = 200;
  // A preemptor never evicts pods of a job it already evicted within this window.
  std::chrono::seconds no_repeat_window{600};
  // How long after a queue's quota was lowered the pods running beyond it are reclaimed.
  std::chrono::seconds quota_grace{300};
  // How long a gang may hold nodes below its minimum before it is released; 0: never.
  std::chrono::seconds broken_gang_timeout{300};
};

PreemptionOptions PreemptionOptionsFrom(const PreemptionConfig& config);

// Whether the job should wait rather than plan: some of its pods are nominated to room that is
// still being freed (the verdict says where), unless its nomination timed out (the verdict says
// so, and the job neither waits nor plans this session: its nominations are cleared, and it may
// plan again in the next one). Nullopt: plan.
std::optional<JobVerdict> WaitOrTimeout(const Session& session, JobIndex job,
                                        const PreemptionOptions& options);

// Whether the action allows `victim` to be evicted for `preemptor` (same queue and lower
// priority for preempt; an over-served reclaimable queue for reclaim). Asked after the rules
// above, against the session's working state as the plan grows.
using VictimFilter = std::function<bool(const Session&, JobIndex preemptor, TaskIndex victim)>;

// Whether `taken` (the requests of every pod the plan would evict from the queue, this one
// included) may leave the queue: reclaim keeps a queue at its deserved share and guarantee.
// Null: no limit (preempt).
using QueueGuard =
    std::function<bool(const Session&, QueueIndex queue, const ResourceVector& taken)>;

// When the pod started running (status.startTime), else when it was created: the running time a
// victim loses, and which of two victims is the younger.
Clock::WallTime StartOf(const TaskInfo& task);

// The order victims are taken in, cheapest first: pods no PodDisruptionBudget covers, then the
// lowest job priority, the lowest pod priority, the youngest, and by uid.
bool CheaperVictim(const Session& session, TaskIndex a, TaskIndex b);

// Whether the pod may never be a victim, whatever the action (the list in the header comment).
bool NeverVictim(const Session& session, TaskIndex task, const PreemptionOptions& options);

// Whether any pending pod of the job asks not to preempt (spec.preemptionPolicy: Never).
bool PreemptionNever(const Session& session, JobIndex job);

// The jobs that may preempt this session: valid, short of their minimum, and refused room by
// enqueue or allocate (NotEnoughResources, NotEnqueued; or PreemptionWouldNotFit from an earlier
// preemption action), admitted or still Pending (a committed plan admits it); by queue, then in
// job order.
std::vector<JobIndex> PreemptorCandidates(const Session& session);

struct PreemptionPlan {
  bool committed = false;
  std::int32_t evicted = 0;    // pods evicted by the committed plan
  std::int32_t withdrawn = 0;  // pods placed earlier in this session whose placement it took back
  std::int32_t pipelined = 0;  // the preemptor's pods nominated
  // When not committed although some pods were eligible victims: what did not fit. Empty when no
  // pod may be evicted for the job at all (its verdict then stays enqueue's or allocate's).
  std::string why_not;
};

// Plans and, if the whole minimum fits, commits the preemption for `preemptor`. `kind` names the
// action in the evicted pods' DisruptionTarget message ("preempt" or "reclaim"). With `within`,
// the preemptor's pods go on those nodes only (and victims are chosen there, but for the rest of
// a job evicted whole), instead of anywhere or inside its topology's domains.
PreemptionPlan PreemptFor(Session& session, JobIndex preemptor, EvictionKind kind,
                          const VictimFilter& allowed, const PreemptionOptions& options,
                          const QueueGuard& guard = nullptr,
                          const std::vector<NodeIndex>* within = nullptr);

}  // namespace arbiter
