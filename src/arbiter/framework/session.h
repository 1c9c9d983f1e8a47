// Session: one scheduling cycle over an immutable Snapshot. It holds the working state that
// actions change through a Statement (which tasks are placed where, what is free on each node,
// each job's phase), dispatches to the plugins in tier order, and records the verdicts that
// actions reach (typed reasons with their messages).
//
// Its neighbours own the rest: framework/dispatch.cc asks the plugins (the member functions
// under "Plugin dispatch" below), framework/placement.h chooses nodes (the verdict caches and
// PickNode), framework/statement.h is the per-job transaction, framework/outcome.h turns the
// final working state into the SessionResult (binds, verdicts, PodGroup and Queue status).
//
// The working state starts equal to the snapshot; nothing a session does touches the snapshot or
// the cache. Every ordering ends in a total tie-break (creation time, then uid), so the same
// snapshot and configuration always give the same decisions.
//
// Thread safety: single-threaded; plugins may only read it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/eviction_history.h"
#include "arbiter/framework/placement.h"
#include "arbiter/framework/plugin.h"
#include "arbiter/framework/reason.h"
#include "arbiter/framework/reservation.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

class Statement;
struct QuietGroups;

class Session {
 public:
  // `now` is the session's wall time (conditions' transition times, ages); a snapshot may be
  // reused by several sessions when nothing changed, so it does not carry the time.
  // `pool`, if given, filters the nodes of one task on several threads (Placement).
  // `reservations`, if given, says which gangs hold reservations (framework/reservation.h); the
  // session updates it once its plugins are open.
  Session(const Snapshot& snapshot, const PluginSet& plugins, Clock::WallTime now,
          WorkerPool* pool = nullptr, ReservationBook* reservations = nullptr,
          const EvictionHistory* history = nullptr);
  Session(const Snapshot& snapshot, const PluginSet& plugins)
      : Session(snapshot, plugins, snapshot.now) {}
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Snapshot& snapshot() const { return snapshot_; }
  Clock::WallTime now() const { return now_; }
  const TaskInfo& task(TaskIndex t) const { return snapshot_.tasks[t.pos()]; }
  const JobInfo& job(JobIndex j) const { return snapshot_.jobs[j.pos()]; }
  const NodeInfo& node(NodeIndex n) const { return snapshot_.nodes[n.pos()]; }
  std::int32_t node_count() const { return static_cast<std::int32_t>(snapshot_.nodes.size()); }
  std::int32_t job_count() const { return static_cast<std::int32_t>(snapshot_.jobs.size()); }

  // Working state.
  TaskState task_state(TaskIndex t) const { return task_state_[t.pos()]; }
  NodeIndex task_node(TaskIndex t) const { return task_node_[t.pos()]; }
  // allocatable minus what every task holding the node uses, including this session's placements.
  const ResourceVector& node_free(NodeIndex n) const { return free_[n.pos()]; }
  const std::vector<HostPort>& node_ports(NodeIndex n) const { return ports_[n.pos()]; }
  // The free amount of resource r (< snapshot().resources.size()) on every node, side by side:
  // node_free(n).Get(r) at [n.pos()], for loops over many nodes.
  const std::int64_t* free_column(ResourceId r) const {
    return free_columns_.data() + static_cast<std::size_t>(r) * free_.size();
  }
  // The same as doubles (static_cast<double> of each entry), for scores computed in doubles over
  // many nodes at once (the machine has no vector conversion from int64).
  const double* free_column_as_double(ResourceId r) const {
    return free_doubles_.data() + static_cast<std::size_t>(r) * free_.size();
  }
  // Incremented whenever anything is placed on or removed from the node: lets plugins cache.
  std::uint64_t node_version(NodeIndex n) const { return node_version_[n.pos()]; }
  PodGroupPhase job_phase(JobIndex j) const { return job_phase_[j.pos()]; }
  // Admits a pending group (phase Inqueue) and tells the enqueue plugins.
  void AdmitJob(JobIndex j);
  // Sum of the requests of the queue's pods that hold or will hold a node (allocated, pipelined,
  // binding, bound, running; not releasing), as the working state stands.
  const ResourceVector& queue_allocated(QueueIndex q) const { return queue_allocated_[q.pos()]; }
  // Requests of our pods being deleted on the node, still holding it (releasing).
  const ResourceVector& node_releasing(NodeIndex n) const { return releasing_[n.pos()]; }
  // Room held, out of what is free on its nominated node, for a pending pod that an earlier
  // session's preemption nominated there (TaskInfo::nominated), or null. A pod's hold covers
  // what the pods releasing there will not free; it is released when its job is tried.
  const ResourceVector* held(TaskIndex t) const;
  // Why the job waits rather than preempting again: some of its pods are nominated to nodes
  // whose room is still being freed. Empty when none is.
  std::optional<std::string> WaitingForNominatedRoom(JobIndex j) const;
  // Whether an evicted pod could be given back to its node as things stand (room, host ports).
  bool CanRestore(TaskIndex t) const;
  // The same for a pod whose placement this session was withdrawn, back onto `n`.
  bool CanReplace(TaskIndex t, NodeIndex n) const;
  // Tasks of the job that count towards its gang (placed or pipelined, or succeeded), in all and
  // by task name.
  std::int32_t job_ready_tasks(JobIndex j) const;
  std::int32_t job_ready_tasks(JobIndex j, const std::string& task_name) const;
  // Tasks of the job that hold a node (placed, binding or running), not those being released.
  std::int32_t job_holding_tasks(JobIndex j) const;
  // The job's pending tasks in task order.
  std::vector<TaskIndex> PendingTasks(JobIndex j) const;
  // What the job needs to start: its minResources, or else the requests of the pending tasks
  // (in task order) that would bring it to minMember.
  ResourceVector MinimumRequest(JobIndex j) const;
  // What admitted groups not yet at their minimum hold back for admission at the session's start
  // (outcome.h: HoldsReservation), per queue (kQueue and kCluster holds) and in all (kCluster).
  const ResourceVector& queue_reserved(QueueIndex q) const { return queue_reserved_[q.pos()]; }
  const ResourceVector& total_reserved() const { return total_reserved_; }
  // Reservations against starvation in force this session (framework/reservation.h).
  const std::vector<ActiveReservation>& reservations() const { return reservations_; }
  // The job's own reservation, or null.
  const ActiveReservation* ReservationOf(JobIndex j) const;
  // The reservation that keeps the job off the node, or null: the node is reserved for another
  // gang and the job may not backfill there.
  const ActiveReservation* ReservedAgainst(JobIndex j, NodeIndex n) const;
  // Bit i: the job may use the nodes of reservations()[i] (part of its placement class).
  std::uint64_t reservation_passes(JobIndex j) const {
    return reservations_.empty() ? 0 : reservation_passes_[j.pos()];
  }

  // Plugin dispatch (see plugin.h for how tiers combine).
  bool QueueBefore(QueueIndex a, QueueIndex b) const;
  bool JobBefore(JobIndex a, JobIndex b) const;
  bool TaskBefore(TaskIndex a, TaskIndex b) const;
  // Why the job cannot be scheduled at all this session, from the first plugin that refuses it.
  std::optional<JobVerdict> CheckJob(JobIndex j) const;
  // The same, the message only.
  std::optional<std::string> JobInvalid(JobIndex j) const;
  bool JobReady(JobIndex j) const;
  std::int32_t TasksStillNeeded(JobIndex j, const std::string& task_name) const;
  std::optional<JobVerdict> JobNotEnqueueable(JobIndex j) const;
  std::optional<std::string> QueueOverused(QueueIndex q) const;
  std::optional<std::string> ExceedsCapability(QueueIndex q, TaskIndex t) const;
  // The queue's deserved share, if a plugin computes one.
  std::optional<ResourceVector> QueueDeserved(QueueIndex q) const;
  // Where the job's minimum is to be placed together (TopologyExtension): the first plugin that
  // answers; none when the job asks for no topology.
  std::optional<TopologyPlan> TopologyPlanOf(JobIndex j) const;
  // How local node `n` is to the data of task `t`'s job (LocalityExtension): the first plugin
  // that answers; none when the job names no data.
  std::optional<LocalityLevel> LocalityOf(TaskIndex t, NodeIndex n) const;

  // Filter of a task on a node (node constraints, then fit), as PickNode evaluates it.
  FilterResult Filter(TaskIndex t, NodeIndex n) { return placement_->Filter(t, n); }
  // The sum of the plugins' scores of a task on a node.
  double Score(TaskIndex t, NodeIndex n) const { return placement_->Score(t, n); }
  Placement& placement() { return *placement_; }
  // What earlier sessions of the same scheduler evicted (empty unless the Scheduler lends it).
  const EvictionHistory& history() const;
  // The start estimates of the latest forecast (runtime/forecaster.h), by job key, that the
  // explanations carry; null: none.
  const StartEstimates* estimates() const { return estimates_; }
  void set_estimates(const StartEstimates* estimates) { estimates_ = estimates; }
  // The groups earlier sessions found quiet (outcome.h), which BuildResult reads and updates.
  QuietGroups* quiet_groups() const { return quiet_groups_; }
  void set_quiet_groups(QuietGroups* quiet) { quiet_groups_ = quiet; }
  const PluginSet& plugins() const { return plugins_; }
  const std::vector<std::uint64_t>& node_versions() const { return node_version_; }
  // Every node whose version changed, in order, once per change: who cached verdicts at some
  // point of this log need only look again at the nodes logged since.
  const std::vector<NodeIndex>& node_changes() const { return node_changes_; }

  // Verdicts that actions record for the result. The first verdict recorded for a task or a job
  // wins; a job's becomes its PodGroup's Unschedulable condition.
  void RecordTaskUnschedulable(TaskIndex t, TaskReason reason, std::string message);
  // With tell_pods false the verdict goes on the PodGroup only, not on its pods' events.
  // With replace the verdict takes the place of one recorded earlier (preempt refines allocate's).
  void RecordJobUnschedulable(JobIndex j, JobReason reason, std::string message,
                              bool tell_pods = true, bool replace = false);
  struct RecordedJobVerdict {
    JobVerdict verdict;
    bool tell_pods = true;
  };
  const TaskVerdict* task_verdict(TaskIndex t) const;
  const RecordedJobVerdict* job_verdict(JobIndex j) const;
  // Why the job's first pod that found no node found none (allocate records it; the first record
  // of the session stays): for the job's explanation (PodGroupStatus::explanation).
  struct PlacementSummary {
    TaskIndex pod{0};
    std::int32_t nodes = 0;
    std::map<std::string, std::int32_t> excluded;  // nodes, by reason
    ResourceVector shortfall;  // what the pod asks beyond the most any in-scope node has free
    // In-scope nodes by class: the same instance type and the same allocatable of what the pod
    // asks for. Most nodes first, at most PendingExplanation::kMaxNodeClasses.
    struct NodeClass {
      std::string instance_type;
      ResourceVector allocatable;
      std::int32_t nodes = 0;
      ResourceVector most_free;  // the most one of them has free
    };
    std::vector<NodeClass> classes;
  };
  void RecordJobPlacement(JobIndex j, TaskIndex t, const PlacementFailure& failure);
  const PlacementSummary* job_placement(JobIndex j) const;
  // Tasks placed by committed statements, in commit order.
  const std::vector<TaskIndex>& committed() const { return committed_; }
  // Pods evicted by committed preemption plans, in commit order, and what they were evicted for.
  struct Eviction {
    TaskIndex victim;
    JobIndex preemptor;
    EvictionKind kind = EvictionKind::kPreempt;
    std::int64_t grace_period_seconds = 30;
  };
  const std::vector<Eviction>& evictions() const { return evictions_; }
  // Tasks pipelined by committed preemption plans: nominated to the room being freed.
  const std::vector<TaskIndex>& nominations() const { return nominations_; }

  SessionStats& stats() { return stats_; }
  const SessionStats& stats() const { return stats_; }

  // Ends the session: the result of its working state (outcome.h). Calls OnSessionClose on
  // every plugin.
  SessionResult Finish();

 private:
  friend class Statement;
  // pending -> allocated (or pipelined)
  void Place(TaskIndex t, NodeIndex n, TaskState as = TaskState::kAllocated);
  void Unplace(TaskIndex t);  // allocated or pipelined -> pending, exactly undoing Place
  void Evict(TaskIndex t);    // bound or running -> releasing: its room is free in the plan
  void Restore(TaskIndex t, TaskState state);  // exactly undoes Evict
  // Gives the task's held room back to its node's free room, and takes it again.
  ResourceVector ReleaseHold(TaskIndex t);
  void RetakeHold(TaskIndex t, const ResourceVector& amount);
  // Nothing more is placed on the node this session: the room its evictions free is for the
  // pipelined preemptor only until the victims are gone.
  void CloseNode(NodeIndex n);
  void MarkCommitted(TaskIndex t) { committed_.push_back(t); }
  // A committed placement taken back by a later plan of the same session: no bind for it.
  void UnmarkCommitted(TaskIndex t) { std::erase(committed_, t); }
  void MarkEvicted(const Eviction& eviction) { evictions_.push_back(eviction); }
  void MarkNominated(TaskIndex t) { nominations_.push_back(t); }
  void ComputeHolds();
  void OpenPlugins();
  void ComputeReservations();
  void ApplyReservations(std::vector<ActiveReservation> reservations);
  // Something was placed on or removed from the node: its version moves on, and it is logged.
  void Touch(std::size_t node) {
    ++node_version_[node];
    node_changes_.push_back(NodeIndex::Of(node));
    SyncColumns(node);
  }
  // free_columns_ and free_doubles_ from free_, for one node or for all.
  void SyncColumns(std::size_t node);
  void SyncColumns();
  // CHECKs that no plugin asks for verdicts while plugins are being opened.
  void CheckOpen() const;

  const Snapshot& snapshot_;
  const PluginSet& plugins_;
  const Clock::WallTime now_;
  std::vector<TaskState> task_state_;
  std::vector<NodeIndex> task_node_;
  std::vector<ResourceVector> free_;
  std::vector<std::vector<HostPort>> ports_;
  std::vector<std::uint64_t> node_version_;
  std::vector<NodeIndex> node_changes_;
  std::vector<std::int64_t> free_columns_;  // resource-major: [r * nodes + n]
  std::vector<double> free_doubles_;        // free_columns_ as doubles
  std::vector<PodGroupPhase> job_phase_;
  std::vector<ResourceVector> queue_reserved_;
  ResourceVector total_reserved_;
  std::vector<ActiveReservation> reservations_;
  std::vector<std::int32_t> node_reservation_;     // per node: index in reservations_, or -1
  std::vector<std::uint64_t> reservation_passes_;  // per job
  std::vector<ResourceVector> queue_allocated_;
  std::vector<ResourceVector> releasing_;
  std::map<TaskIndex, ResourceVector> holds_;
  std::vector<TaskIndex> committed_;
  std::vector<Eviction> evictions_;
  std::vector<TaskIndex> nominations_;
  std::map<TaskIndex, TaskVerdict> task_verdicts_;
  // By job: every waiting group gets one each session, and a map's node each was a third of
  // enqueue's time with a thousand groups gathering their pods.
  std::vector<std::optional<RecordedJobVerdict>> job_verdicts_;
  std::map<JobIndex, PlacementSummary> job_placements_;
  // The in-scope nodes by class for RecordJobPlacement, made once per session for each pattern
  // of requested resources: every job that finds no node records one summary per session, and
  // walking each node's labels and building a class key per node and job was a quarter of the
  // `tensorflow` simulation's time.
  struct NodeClassTable {
    std::vector<bool> requested;                   // per resource of the request: asked for
    std::vector<std::int32_t> top_class;           // per node: its class's place in `top`, or -1
    std::vector<PlacementSummary::NodeClass> top;  // most nodes first, capped; most_free zero
  };
  const NodeClassTable& NodeClassesFor(const ResourceVector& request);
  std::vector<NodeClassTable> node_class_tables_;
  SessionStats stats_;
  WorkerPool* const pool_;
  const EvictionHistory* history_ = nullptr;
  const StartEstimates* estimates_ = nullptr;
  QuietGroups* quiet_groups_ = nullptr;
  std::unique_ptr<Placement> placement_;  // made once the working state is
  bool opening_ = false;
  bool finished_ = false;
};

// The order in which to try a job's pending tasks: what minTaskMember still needs, then the
// rest, each part in task order (allocate, preemption plans and reservations alike).
std::vector<TaskIndex> GangTryOrder(const Session& session, JobIndex j);

}  // namespace arbiter
