// The placement room: which node a task goes on, and, when none, why not in kube-scheduler's
// words. It owns the session's verdict caches and PickNode.
//
// Filtering has two parts (FilterExtension in plugin.h):
//   * node constraints (selectors, affinity, taints, the node's own state) depend only on the
//     task's placement constraints and the node: computed once per constraint class and node for
//     the session, whatever is placed meanwhile;
//   * fit (resources, host ports) changes as the session places tasks: computed per placement
//     class and node, and again only when something was placed on or removed from the node.
//
// Classes: tasks with the same request, placement constraints and host ports (a gang's identical
// pods, a burst of identical single pods) share one placement class; tasks with the same
// constraints share one constraint class. The cache hashes each pod's needs once per pod update
// (TaskInfo::placement_hash, constraint_hash); equal hashes are confirmed by comparing the needs,
// so a collision only costs the cache, never a wrong verdict. A plugin whose verdicts depend on
// more than these needs (the job's topology domain, where its data lives) implements
// PlacementClassExtension: its key is part of both classes, so that only tasks it judges alike
// share verdicts.
//
// The fit cache is compact arrays (20 bytes per node) so that a scan of thousands of nodes stays
// in the CPU cache, with filter results interned session-wide; a class's arrays are freed once
// its last pending task is placed. Each class also keeps its best node incrementally (a
// tournament refreshed from the nodes changed since it last looked: Session::node_changes()),
// so that identical pods do not visit every node; it picks exactly what the scan would.
//
// Thread safety: used from its session's thread; with a WorkerPool it fans the filtering of one
// task's nodes out itself (plugins' const hooks run on several threads then).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/base/worker_pool.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/plugin.h"

namespace arbiter {

class Session;

// Tallies why a task fits on no node, as kube-scheduler words it:
// "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 2 Insufficient cpu."
class FitErrors {
 public:
  void Add(const FilterResult& result);
  void AddNodes(std::int32_t n) { nodes_ += n; }
  std::string Message() const;
  bool empty() const { return reasons_.empty(); }
  std::int32_t nodes() const { return nodes_; }
  // Nodes excluded, by reason.
  const std::map<std::string, std::int32_t>& reasons() const { return reasons_; }

 private:
  std::int32_t nodes_ = 0;
  std::map<std::string, std::int32_t> reasons_;
};

// Why a task found no node.
struct PlacementFailure {
  FitErrors errors;
  // The first short resource seen, and the nodes that lacked it: the message says which of them
  // has the most of it free ("where it falls short"), read from the session when the message is
  // made, so that a gang's message describes the nodes after its tentative placements were undone.
  std::optional<ResourceId> short_resource;
  std::vector<NodeIndex> short_nodes;

  // kube-scheduler's summary, then where the short resource is free. For a gang (`gang` true)
  // several pods compete for that room, so the message lists the most free nodes rather than
  // the single best one: "Each pod requests 50 cpu; cpu free on the nodes: n1 80, n2 80, n0 30."
  std::string Message(const Session& session, TaskIndex task, bool gang = false) const;
};

class Placement {
 public:
  // Assigns the classes of the session's pending tasks. With a pool, the nodes of one task are
  // filtered and scored on its threads too when there are at least kParallelNodes of them; the
  // choice is the same as on one thread.
  explicit Placement(const Session& session, WorkerPool* pool = nullptr);
  static constexpr std::int32_t kParallelNodes = 1024;
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  // The best node for the task (filtered, then scored; ties to the node first by name), or none;
  // then `failure`, if given, says why. With `within` (in node order), only those nodes are
  // considered (a topology domain).
  std::optional<NodeIndex> PickNode(TaskIndex task, PlacementFailure* failure,
                                    const std::vector<NodeIndex>* within = nullptr);
  // Filter of a task on a node: node constraints (cached per class), then fit.
  FilterResult Filter(TaskIndex task, NodeIndex node);
  double Score(TaskIndex task, NodeIndex node) const;
  // Whether two tasks ask for the same thing in the same way: after one found no node, the other
  // would find none either.
  bool SameNeeds(TaskIndex a, TaskIndex b) const;

  // The session placed or removed a task: its class has one pending task fewer or more.
  void OnPlaced(TaskIndex task);
  void OnUnplaced(TaskIndex task);

  std::int64_t nodes_filtered() const { return nodes_filtered_; }

 private:
  static constexpr std::int32_t kFit = -1;
  static constexpr std::int32_t kUnknown = -2;

  struct ClassVerdicts {
    std::vector<std::uint64_t> version;  // node version + 1 when computed; 0: never
    std::vector<double> score;           // valid when fit
    std::vector<std::int32_t> result;    // kFit, or an interned result
    // The best node kept incrementally once every entry is current (filled), in two levels: per
    // block of kBestBlock nodes, the block's best (the first of its highest scores above -inf
    // among the nodes that fit; a refused node scores -inf, so only scores are scanned), and a
    // tournament over the blocks, best[1] the winner, best[blocks + b] block b's best, each inner
    // entry the better of its two below (higher score, ties to the lower index). That is the
    // node the scan in node order would pick. The blocks' bests come with the class's first
    // look; later it is kept current from Session::node_changes() from position `seen` on: a
    // changed node costs a scan of its block and a path of log(blocks), not a visit of every
    // node.
    std::vector<std::int32_t> block_best;
    std::vector<std::int32_t> best;
    std::size_t seen = 0;
    std::int32_t pending = 0;  // tasks of the class still pending
    bool filled = false;       // every entry computed once, and `best` built
  };

  std::optional<NodeIndex> PickNodeWithin(TaskIndex task, PlacementFailure* failure,
                                          const std::vector<NodeIndex>& within);
  void AssignClasses();
  // Builds verdicts.best from the blocks' bests; refreshes node n's entry if stale, its block's
  // best and its path.
  static void BuildBest(ClassVerdicts& verdicts);
  void UpdateBest(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts);
  ClassVerdicts* VerdictsFor(TaskIndex task);
  void Refresh(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts);
  void Refresh(TaskIndex task, NodeIndex node, ClassVerdicts& verdicts, std::int64_t& filtered);
  // With the pool: every entry of the class, or every node for a task alone in its class.
  void RefreshAll(TaskIndex task, ClassVerdicts& verdicts);
  // Every entry of nodes [begin, end) of the class, in one batch (EvaluateRange), made current.
  void RefreshRange(TaskIndex task, ClassVerdicts& verdicts, std::int32_t begin, std::int32_t end,
                    std::int64_t& filtered);
  std::int32_t EvaluateAll(TaskIndex task, std::int32_t* result, double* score);
  // Filters and scores the task on nodes [begin, end) in one batch (FilterExtension::FitRange,
  // ScoreExtension::ScoreRange): result[n] the node's interned refusal or kFit, and score[n] its
  // score where kFit (what is written elsewhere is never read). Returns the node the scan in node
  // order picks (the first of the highest scores above -inf among those that fit), or -1.
  // With `block_best`, also the best of each block of kBestBlock nodes (begin a multiple of it)
  // at block_best[block], -1 for none.
  std::int32_t EvaluateRange(TaskIndex task, std::int32_t begin, std::int32_t end,
                             std::int32_t* result, double* score, std::int64_t& filtered,
                             std::int32_t* block_best = nullptr);
  // `body` over ranges of whole blocks of kBestBlock nodes covering every node, on the pool.
  void ParallelOverBlocks(
      const std::function<void(std::int32_t, std::int32_t, std::int64_t&)>& body);
  // Nodes evaluated at a time in EvaluateRange, and nodes per block of a class's kept best (a
  // divisor of kBlock and of kParallelGrain).
  static constexpr std::int32_t kBlock = 512;
  static constexpr std::int32_t kBestBlock = 64;
  // Makes the task's constraint cache before threads write into it.
  void PrepareConstraints(TaskIndex task);
  static constexpr std::int32_t kParallelGrain = 256;
  // kFit, or the interned result of the first node constraint that refuses.
  std::int32_t NodeConstraint(TaskIndex task, NodeIndex node);
  FilterResult Fit(TaskIndex task, NodeIndex node) const;
  std::int32_t Intern(FilterResult result);
  void NoteFailure(const FilterResult& r, NodeIndex node, PlacementFailure* failure) const;
  bool SameConstraints(TaskIndex a, TaskIndex b) const;
  std::uint64_t RefinedKey(TaskIndex task, std::uint64_t key) const;

  const Session& session_;
  WorkerPool* const pool_;  // null: one thread
  // While the pool runs: interning takes intern_mu_ (it is rare: only verdicts that refuse).
  bool parallel_ = false;
  std::mutex intern_mu_;
  // Per task: its placement class (-1: alone in it, not worth caching) and constraint class.
  std::vector<std::int32_t> task_class_;
  std::vector<std::int32_t> task_constraint_class_;
  std::vector<ClassVerdicts> class_verdicts_;
  ClassVerdicts spare_;  // the arrays of the last class whose tasks were all placed
  // Per constraint class and node: kUnknown, kFit, or an interned result.
  std::vector<std::vector<std::int32_t>> constraint_verdicts_;
  std::vector<FilterResult> interned_;
  std::map<std::tuple<FilterResult::Code, std::string, std::int32_t>, std::int32_t> interned_ids_;
  std::int64_t nodes_filtered_ = 0;
};

}  // namespace arbiter
