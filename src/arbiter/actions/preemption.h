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
#include <limits>
#include <optional>
#include <span>
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
  // Build every node's victims for every pod before choosing, instead of visiting the nodes in
  // the order of the least they may cost and stopping at a choice none of the rest can beat. The
  // same plans, slower: the reference preemption_test holds the bounded visit to.
  bool visit_every_node = false;
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

// What the preemption plans of one action's run share: the pods that may be victims, by node,
// with the rules that hold whatever the preemptor (never-victims, refused evictions) decided once,
// and per node a floor under what evicting there costs, so that a plan visits the nodes that may
// be cheapest first and stops at a choice none of the others can beat. Make one per run of an
// action, once nothing but PreemptFor changes the working state; PreemptFor keeps it current.
class VictimIndex {
 public:
  VictimIndex(const Session& session, const PreemptionOptions& options);

  // Over the pods allowed as victims when the index was made, whatever the preemptor. Plans only
  // take pods away and lower the gang counts of the jobs they evict from, so what holds of these
  // holds of every pod still eligible later (but the preemptor's own pods: Committed).
  struct Floor {
    bool any = false;           // some pod may be a victim
    bool withdrawable = false;  // some is a placement of this session (withdrawn at no cost)
    bool surplus = false;       // some may leave without breaking its job's minimum
    bool all_lately = true;     // every one's job lost pods within the no-repeat window
    std::int32_t priority = std::numeric_limits<std::int32_t>::max();  // least job priority
    // The least running time one of them loses; if some pod their jobs may lose started ahead
    // of the session's clock (skew), the sum of those negative times instead.
    std::int64_t seconds = std::numeric_limits<std::int64_t>::max();
  };
  const Floor& floor(NodeIndex node) const { return floors_[node.pos()]; }
  // The pods on `node` that were placed (bound, running, or placed this session), in task order;
  // and those of every node.
  std::span<const TaskIndex> OnNode(NodeIndex node) const {
    return std::span<const TaskIndex>(on_node_).subspan(
        node_start_[node.pos()], node_start_[node.pos() + 1] - node_start_[node.pos()]);
  }
  std::span<const TaskIndex> All() const { return on_node_; }
  // The nodes where some pod may be a victim and none is withdrawable, by their floors (what
  // breaking a job, the least priority, lately and running time say), then node order.
  std::span<const NodeIndex> order() const { return order_; }
  // Whether the pod may be a victim as far as the rules that ignore the preemptor go.
  bool MayBeVictim(TaskIndex task) const { return may_[task.pos()] != 0; }
  // Whether the job lost pods within the no-repeat window, to any preemptor.
  bool PreemptedLately(JobIndex job) const { return preempted_lately_[job.pos()] != 0; }
  // A plan for `job` committed: its pipelined pods count towards its gang, so its running pods
  // may now be spared where they could not.
  void Committed(JobIndex job);

 private:
  void ComputeFloor(std::size_t node);
  bool FloorBefore(NodeIndex a, NodeIndex b) const;
  bool Ordered(NodeIndex n) const { return floors_[n.pos()].any && !floors_[n.pos()].withdrawable; }

  const Session& session_;
  std::vector<TaskIndex> on_node_;       // by node (OnNode)
  std::vector<std::size_t> node_start_;  // per node: where its pods start in on_node_
  std::vector<char> may_;                // per task: MayBeVictim
  std::vector<char> preempted_lately_;   // per job
  std::vector<std::int64_t> ahead_;      // per job: its pods' negative running times, summed
  std::vector<char> spare_;              // per job: 1 none to spare, 2 some, 0 not asked
  std::vector<Floor> floors_;
  std::vector<NodeIndex> order_;
};

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
// `index`, if given, is the action run's (VictimIndex); else the plan makes its own.
PreemptionPlan PreemptFor(Session& session, JobIndex preemptor, EvictionKind kind,
                          const VictimFilter& allowed, const PreemptionOptions& options,
                          const QueueGuard& guard = nullptr,
                          const std::vector<NodeIndex>* within = nullptr,
                          VictimIndex* index = nullptr);

}  // namespace arbiter
