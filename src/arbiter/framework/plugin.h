// The plugin and action interfaces: each extension point is a small interface that a plugin
// implements only if it needs it (STYLE.md: kube-scheduler's framework, not Volcano's untyped
// callback maps). Scheduler::Create instantiates plugins once at start-up and resolves, per tier,
// which extension points each implements (PluginSet); sessions then call them in tier order.
//
// How tiers combine (as in Volcano):
//   * orders (queues, jobs, tasks): the first tier in which some plugin returns non-zero decides;
//     ties fall through to the session's total tie-break (creation time, then uid);
//   * job ready / job valid / enqueue / filter: every plugin of every tier must agree;
//   * score: the sum over every plugin.
//
// Plugins are policy: they read the Session and return verdicts; they never do I/O and never
// change the session's state (only actions do, through a Statement).
//
// Per-session state: a plugin builds what it needs from the session in OnSessionOpen, and changes
// it afterwards only in the hooks that are not const (OnAllocate, OnDeallocate, OnJobAdmitted),
// which the session calls as its working state changes. Every const hook changes nothing, so
// verdicts may be asked in any order and from several threads at once. OnSessionOpen reads the
// snapshot and the working state only: it may not ask the session for other plugins' verdicts
// (the session CHECKs it), so the order in which plugins are opened cannot be observed. What
// needs every plugin (which admitted groups hold a reservation) the session computes once all
// are open.
//
// Thread safety: a plugin instance serves one session at a time; its const hooks may be called
// concurrently within that session.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/reason.h"

namespace arbiter {

class Session;

// A filter's verdict for one task on one node; a verdict is data, not an error (STYLE.md §4).
struct FilterResult {
  enum class Code : std::uint8_t {
    kFit,
    kUnschedulable,  // not now (e.g. not enough free cpu): may fit once something leaves
    kUnresolvable,   // never on this node as things stand (selector, taint, affinity)
  };
  Code code = Code::kFit;
  // Kubernetes' wording, so messages read as kube-scheduler's do: "Insufficient cpu",
  // "node(s) didn't match Pod's node affinity/selector", "node(s) had untolerated taint {k: v}".
  std::string reason;
  // For kUnschedulable on a resource: which one (lets messages say where the most is free).
  std::optional<ResourceId> short_resource;

  bool fit() const { return code == Code::kFit; }
  static FilterResult Fit() { return {}; }
  static FilterResult Unschedulable(std::string reason,
                                    std::optional<ResourceId> resource = std::nullopt) {
    return {Code::kUnschedulable, std::move(reason), resource};
  }
  static FilterResult Unresolvable(std::string reason) {
    return {Code::kUnresolvable, std::move(reason), std::nullopt};
  }
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
  virtual void OnSessionOpen(const Session& /*session*/) {}
  virtual void OnSessionClose(const Session& /*session*/) {}
};

// < 0: a goes first; > 0: b goes first; 0: this plugin does not decide.
class QueueOrderExtension {
 public:
  virtual ~QueueOrderExtension() = default;
  virtual int CompareQueues(const Session& session, QueueIndex a, QueueIndex b) const = 0;
};

class JobOrderExtension {
 public:
  virtual ~JobOrderExtension() = default;
  virtual int CompareJobs(const Session& session, JobIndex a, JobIndex b) const = 0;
};

class TaskOrderExtension {
 public:
  virtual ~TaskOrderExtension() = default;
  virtual int CompareTasks(const Session& session, TaskIndex a, TaskIndex b) const = 0;
};

// Whether a job may be scheduled at all this session; a verdict when it may not (kNotEnoughPods,
// "only 2 of minMember 3 pods exist"). Invalid jobs are skipped by every action and their pods
// get the message.
class JobValidExtension {
 public:
  virtual ~JobValidExtension() = default;
  virtual std::optional<JobVerdict> JobInvalid(const Session& session, JobIndex job) const = 0;
};

// Whether the job's placed tasks (in the session's working state) are enough to commit it.
class JobReadyExtension {
 public:
  virtual ~JobReadyExtension() = default;
  virtual bool JobReady(const Session& session, JobIndex job) const = 0;
  // How many more of this task name the job needs before it is ready ("" counts any task);
  // lets actions place exactly the gang's minimum first.
  virtual std::int32_t TasksStillNeeded(const Session& session, JobIndex job,
                                        const std::string& task_name) const = 0;
};

// Whether a pending group may be admitted (phase Pending -> Inqueue); the verdict when not
// (kQueueCapability when a queue's capability has no room for it, kNotEnqueued when its share is
// taken). Once every plugin agreed, the session admits the group and tells each plugin
// (OnJobAdmitted), so that later groups see the room it took.
class JobEnqueueExtension {
 public:
  virtual ~JobEnqueueExtension() = default;
  virtual std::optional<JobVerdict> JobNotEnqueueable(const Session& session,
                                                      JobIndex job) const = 0;
  virtual void OnJobAdmitted(const Session& /*session*/, JobIndex /*job*/) {}
};

// Whether a task may go on a node, in two parts (framework/placement.h):
//   * NodeConstraint: what depends only on the task's placement constraints and the node
//     (selectors, affinity, taints, the node's state); the session caches it per placement class
//     and node for the whole session;
//   * Fit: what changes as the session places tasks (free resources, host ports).
// FitRange is Fit over a run of nodes in one call (a task alone in its class, a class's first
// look at every node): the nodes first, first + 1, ... (one per entry of `in_play`); for each
// whose `in_play` entry is set and that Fit would refuse, it reports through `refuse` what Fit
// would have said (the caller then takes the node out of play, so a later plugin does not look
// at it). The default calls Fit per node in play; a plugin overrides it where one pass over the
// session's columns is cheaper than a virtual call per node, and must decide exactly as Fit does.
class FilterExtension {
 public:
  using Refuse = std::function<void(NodeIndex, FilterResult)>;
  virtual ~FilterExtension() = default;
  virtual FilterResult NodeConstraint(const Session& /*session*/, TaskIndex /*task*/,
                                      NodeIndex /*node*/) const {
    return FilterResult::Fit();
  }
  virtual FilterResult Fit(const Session& session, TaskIndex task, NodeIndex node) const = 0;
  virtual void FitRange(const Session& session, TaskIndex task, NodeIndex first,
                        std::span<const std::uint8_t> in_play, const Refuse& refuse) const;
};

// A plugin whose filter or score depends on more than a task's request, placement constraints
// and host ports (the job's topology domain, where its data lives) returns a key here that
// differs between tasks it judges differently: tasks share cached verdicts only when every
// plugin's key is equal too.
class PlacementClassExtension {
 public:
  virtual ~PlacementClassExtension() = default;
  virtual std::uint64_t ClassKey(const Session& session, TaskIndex task) const = 0;
};

// Topology (plugins/topology.h): the sets of nodes within which a job's minimum is to be placed
// together, tried in order; the first in which the whole minimum fits is taken. Allocate,
// preemption and backfill place the job only within them.
struct TopologyDomain {
  std::string name;              // "rack r1"; a spread over several: "racks r1, r2"
  std::vector<NodeIndex> nodes;  // in node order
};

struct TopologyPlan {
  std::string level;  // "rack"
  bool required = true;
  std::vector<TopologyDomain> tries;
  // The domains whose free room cannot hold the job now, the closest first: where preemption
  // may make room for it (after `tries`), each on its own.
  std::vector<TopologyDomain> others;
  // Why the domains not tried could not hold the job ("rack r2 has cpu 12 free, 4 short"), and
  // for Preferred how long it still waits for one: for the job's message when none fits.
  std::string untried;
};

class TopologyExtension {
 public:
  virtual ~TopologyExtension() = default;
  // None: the job asks for no topology (it may go on any node).
  virtual std::optional<TopologyPlan> PlanTopology(const Session& session, JobIndex job) const = 0;
};

// Data locality (plugins/locality.h): how local a node is to the data of a task's job, for the
// job's status and the metrics. None: the job names no data (or the plugin is not configured).
enum class LocalityLevel : std::uint8_t { kNode, kRack, kAny };
std::string_view LocalityLevelName(LocalityLevel level);

class LocalityExtension {
 public:
  virtual ~LocalityExtension() = default;
  virtual std::optional<LocalityLevel> Locality(const Session& session, TaskIndex task,
                                                NodeIndex node) const = 0;
};

// Higher is better; each plugin applies its own configured weights. ScoreRange adds the task's
// score on each node first + i whose in_play[i] is set to scores[i], exactly as Score gives it;
// what it adds where in_play[i] is clear is never read, so a plugin may score the whole run when
// that is cheaper than skipping (it must then not fail on a node the task does not fit). The
// default calls Score per node in play; a plugin overrides it where one pass is cheaper.
class ScoreExtension {
 public:
  virtual ~ScoreExtension() = default;
  virtual double Score(const Session& session, TaskIndex task, NodeIndex node) const = 0;
  virtual void ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                          std::span<const std::uint8_t> in_play, std::span<double> scores) const;
  // ScoreRange for the first plugin of a run, onto scores that hold nothing yet: the same doubles
  // as adding to zeros (0 + s is s). The default zeroes them and adds; a plugin whose pass writes
  // every score sets them, saving the run's clearing.
  virtual void ScoreRangeFirst(const Session& session, TaskIndex task, NodeIndex first,
                               std::span<const std::uint8_t> in_play,
                               std::span<double> scores) const;
};

// Queue limits (the proportion plugin): whether a queue may start another job this session, and
// whether one more task would take it over its hard cap. A reason when not.
class QueueLimitExtension {
 public:
  virtual ~QueueLimitExtension() = default;
  virtual std::optional<std::string> QueueOverused(const Session& session,
                                                   QueueIndex queue) const = 0;
  virtual std::optional<std::string> ExceedsCapability(const Session& session, QueueIndex queue,
                                                       TaskIndex task) const = 0;
};

// A queue's deserved share (for the Queue's status); the first plugin implementing it answers.
class QueueShareExtension {
 public:
  virtual ~QueueShareExtension() = default;
  virtual ResourceVector Deserved(const Session& session, QueueIndex queue) const = 0;
};

// Told of every placement and undo in the session's working state, so that a plugin can keep
// shares incrementally. The only plugin hook allowed to change the plugin's own state after
// OnSessionOpen.
class AllocationEventExtension {
 public:
  virtual ~AllocationEventExtension() = default;
  virtual void OnAllocate(const Session& session, TaskIndex task) = 0;
  virtual void OnDeallocate(const Session& session, TaskIndex task) = 0;
};

// An action: one algorithm skeleton run every session, in the configured order.
class Action {
 public:
  virtual ~Action() = default;
  virtual std::string_view Name() const = 0;
  virtual void Execute(Session& session) = 0;
};

// The plugins of a scheduler, instantiated once, with each extension point resolved per tier.
struct PluginSet {
  template <typename T>
  using Tiers = std::vector<std::vector<const T*>>;

  std::vector<std::unique_ptr<Plugin>> owned;
  Tiers<QueueOrderExtension> queue_order;
  Tiers<JobOrderExtension> job_order;
  Tiers<TaskOrderExtension> task_order;
  Tiers<JobValidExtension> job_valid;
  Tiers<JobReadyExtension> job_ready;
  Tiers<JobEnqueueExtension> job_enqueue;
  Tiers<FilterExtension> filter;
  Tiers<PlacementClassExtension> placement_class;
  Tiers<QueueLimitExtension> queue_limit;
  Tiers<QueueShareExtension> queue_share;
  std::vector<std::vector<AllocationEventExtension*>> allocation_events;
  std::vector<std::vector<JobEnqueueExtension*>> job_admitted;
  Tiers<ScoreExtension> score;
  Tiers<TopologyExtension> topology;
  Tiers<LocalityExtension> locality;
};

}  // namespace arbiter
