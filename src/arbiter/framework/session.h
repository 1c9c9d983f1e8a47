// Session: one scheduling cycle over an immutable Snapshot. It holds the working state that
// actions change through a Statement (which tasks are placed where, what is free on each node,
// each job's phase), dispatches to the plugins in tier order, and gathers what the cycle decided
// into a SessionResult (binds, pods left pending with the reason, PodGroup status changes).
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
#include <optional>
#include <string>
#include <vector>

#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/plugin.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

class Statement;

// How long a group's pods have to arrive before its pods hear that there are too few of them.
inline constexpr std::chrono::seconds kPodsArrivalGrace{10};

// Tallies why a task fits on no node, as kube-scheduler words it:
// "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 2 Insufficient cpu."
class FitErrors {
 public:
  void Add(const FilterResult& result);
  void AddNodes(std::int32_t n) { nodes_ += n; }
  std::string Message() const;
  bool empty() const { return reasons_.empty(); }

 private:
  std::int32_t nodes_ = 0;
  std::map<std::string, std::int32_t> reasons_;
};

class Session {
 public:
  // `now` is the session's wall time (conditions' transition times, ages); a snapshot may be
  // reused by several sessions when nothing changed, so it does not carry the time.
  Session(const Snapshot& snapshot, const PluginSet& plugins, Clock::WallTime now);
  Session(const Snapshot& snapshot, const PluginSet& plugins)
      : Session(snapshot, plugins, snapshot.now) {}
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Snapshot& snapshot() const { return snapshot_; }
  Clock::WallTime now() const { return now_; }
  const TaskInfo& task(TaskIndex t) const { return snapshot_.tasks[static_cast<std::size_t>(t)]; }
  const JobInfo& job(JobIndex j) const { return snapshot_.jobs[static_cast<std::size_t>(j)]; }
  const NodeInfo& node(NodeIndex n) const { return snapshot_.nodes[static_cast<std::size_t>(n)]; }
  std::int32_t node_count() const { return static_cast<std::int32_t>(snapshot_.nodes.size()); }
  std::int32_t job_count() const { return static_cast<std::int32_t>(snapshot_.jobs.size()); }

  // Working state.
  TaskState task_state(TaskIndex t) const { return task_state_[static_cast<std::size_t>(t)]; }
  NodeIndex task_node(TaskIndex t) const { return task_node_[static_cast<std::size_t>(t)]; }
  // allocatable minus what every task holding the node uses, including this session's placements.
  const ResourceVector& node_free(NodeIndex n) const { return free_[static_cast<std::size_t>(n)]; }
  const std::vector<HostPort>& node_ports(NodeIndex n) const {
    return ports_[static_cast<std::size_t>(n)];
  }
  // Incremented whenever anything is placed on or removed from the node: lets plugins cache.
  std::uint64_t node_version(NodeIndex n) const {
    return node_version_[static_cast<std::size_t>(n)];
  }
  PodGroupPhase job_phase(JobIndex j) const { return job_phase_[static_cast<std::size_t>(j)]; }
  void SetJobPhase(JobIndex j, PodGroupPhase phase);
  // Tasks of the job that count towards its gang (placed, or succeeded), in all and by task name.
  std::int32_t job_ready_tasks(JobIndex j) const;
  std::int32_t job_ready_tasks(JobIndex j, const std::string& task_name) const;
  // The job's pending tasks in task order.
  std::vector<TaskIndex> PendingTasks(JobIndex j) const;
  // What the job needs to start: its minResources, or else the requests of the pending tasks
  // (in task order) that would bring it to minMember.
  ResourceVector MinimumRequest(JobIndex j) const;
  // Whether an admitted group still holds a reservation of its MinimumRequest for admission: it
  // is Inqueue, below its minimum, able to start (not invalid; short of pods only during the
  // arrival grace), and not already found
  // unplaceable (Unschedulable True with reason NotEnoughResources). A gang that cannot start
  // holds nothing, so it never keeps later groups out.
  bool HoldsReservation(JobIndex j) const;

  // Plugin dispatch (see plugin.h for how tiers combine).
  bool QueueBefore(QueueIndex a, QueueIndex b) const;
  bool JobBefore(JobIndex a, JobIndex b) const;
  bool TaskBefore(TaskIndex a, TaskIndex b) const;
  // Why the job cannot be scheduled at all this session; `reason` gets the machine reason.
  std::optional<std::string> JobInvalid(JobIndex j, std::string* reason = nullptr) const;
  bool JobReady(JobIndex j) const;
  std::int32_t TasksStillNeeded(JobIndex j, const std::string& task_name) const;
  std::optional<std::string> JobNotEnqueueable(JobIndex j) const;
  FilterResult Filter(TaskIndex t, NodeIndex n) const;
  double Score(TaskIndex t, NodeIndex n) const;
  std::optional<std::string> QueueOverused(QueueIndex q) const;
  std::optional<std::string> ExceedsCapability(QueueIndex q, TaskIndex t) const;
  // The queue's deserved share, if a plugin computes one.
  std::optional<ResourceVector> QueueDeserved(QueueIndex q) const;

  // Filter and score of a task on a node, shared by every pending task of the same placement
  // class (same request, placement constraints and host ports: a gang's identical pods, a burst of
  // identical single pods) and recomputed only when something was placed on or removed from the
  // node since. The built-in plugins' verdicts depend on nothing else; a plugin whose verdict
  // depends on more (the job, the pod's identity) must not be combined with this cache until the
  // plugin interface lets it extend the class key.
  //
  // The cache is compact arrays (20 bytes per node) so that a scan of thousands of nodes stays in
  // the CPU cache, with filter results interned session-wide; a class's arrays are freed once its
  // last pending task is placed.
  struct ClassVerdicts {
    std::vector<std::uint64_t> version;  // node_version + 1 when computed; 0: never
    std::vector<double> score;           // valid when fit
    std::vector<std::int32_t> result;    // kFitResult, or an index for InternedResult
    std::int32_t pending = 0;            // tasks of the class still pending
  };
  static constexpr std::int32_t kFitResult = -1;
  // The class verdicts of a task, sized to the nodes, or nullptr when the task has no class.
  ClassVerdicts* VerdictsFor(TaskIndex t);
  // Computes entry n of `verdicts` for task t (filter, then score when it fits).
  void Refresh(TaskIndex t, NodeIndex n, ClassVerdicts& verdicts);
  const FilterResult& InternedResult(std::int32_t id) const {
    return interned_results_[static_cast<std::size_t>(id)];
  }
  const std::vector<std::uint64_t>& node_versions() const { return node_version_; }
  // Filter and score without the cache (a task alone in its class).
  struct NodeVerdict {
    FilterResult filter;
    double score = 0;
  };
  NodeVerdict Evaluate(TaskIndex t, NodeIndex n);

  // Verdicts that actions record for the result. The first reason recorded for a task wins; a job
  // reason becomes its PodGroup's Unschedulable condition.
  void RecordTaskUnschedulable(TaskIndex t, std::string message);
  // With tell_pods false the reason goes on the PodGroup only, not on its pods' events.
  void RecordJobUnschedulable(JobIndex j, std::string reason, std::string message,
                              bool tell_pods = true);

  SessionStats& stats() { return stats_; }

  // Ends the session: binds for committed placements, verdicts for pods left pending, and the
  // PodGroup statuses that changed. Calls OnSessionClose on every plugin.
  SessionResult Finish();

 private:
  friend class Statement;
  void Place(TaskIndex t, NodeIndex n);  // pending -> allocated
  void Unplace(TaskIndex t);             // allocated -> pending, exactly undoing Place
  void MarkCommitted(TaskIndex t) { committed_.push_back(t); }

  PodGroupStatus ComputeGroupStatus(JobIndex j) const;
  void AssignPlacementClasses();

  // Placement classes of pending tasks; -1 for a task alone in its class (not worth caching).
  std::vector<std::int32_t> task_class_;
  std::vector<ClassVerdicts> class_verdicts_;
  std::vector<FilterResult> interned_results_;
  std::map<std::pair<std::string, std::int32_t>, std::int32_t> interned_ids_;

  const Snapshot& snapshot_;
  const PluginSet& plugins_;
  const Clock::WallTime now_;
  std::vector<TaskState> task_state_;
  std::vector<NodeIndex> task_node_;
  std::vector<ResourceVector> free_;
  std::vector<std::vector<HostPort>> ports_;
  std::vector<std::uint64_t> node_version_;
  std::vector<PodGroupPhase> job_phase_;
  std::vector<TaskIndex> committed_;
  std::map<TaskIndex, std::string> task_reasons_;
  struct JobReason {
    std::string reason;
    std::string message;
    bool tell_pods = true;
  };
  std::map<JobIndex, JobReason> job_reasons_;
  SessionStats stats_;
  bool finished_ = false;
};

// A per-job transaction over a session's working state: Allocate tentatively, then Commit (the
// placements become binds) or Discard (every placement undone, in reverse order, exactly). A
// statement destroyed without either discards.
class Statement {
 public:
  explicit Statement(Session& session) : session_(session) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Places a pending task on a node. CHECKs that the task is pending.
  void Allocate(TaskIndex task, NodeIndex node);
  void Commit();
  void Discard();
  std::size_t size() const { return placed_.size(); }

 private:
  Session& session_;
  std::vector<TaskIndex> placed_;
};

}  // namespace arbiter
