#include "arbiter/actions/preemption.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "arbiter/actions/allocate.h"
#include "arbiter/framework/placement.h"
#include "arbiter/framework/reservation.h"
#include "arbiter/framework/statement.h"

namespace arbiter {

namespace {

// A group still Pending may preempt too: enqueue refused it because the room is taken, which is
// what preemption changes (a committed plan admits it).
bool MayPreempt(PodGroupPhase phase) {
  return phase == PodGroupPhase::kPending || phase == PodGroupPhase::kInqueue ||
         phase == PodGroupPhase::kRunning;
}

// Whether enqueue or allocate found no room for the job's minimum this session (or its queue's
// share taken), and no earlier preemption action made room.
bool LackedRoom(const Session& session, JobIndex j) {
  const Session::RecordedJobVerdict* v = session.job_verdict(j);
  if (v == nullptr) return false;
  switch (v->verdict.reason) {
    case JobReason::kNotEnoughResources:
    case JobReason::kNotEnqueued:
    case JobReason::kPreemptionWouldNotFit:
      return true;
    default:
      return false;
  }
}

// Running or bound pods are evicted; pods another job's placement of this very session put on a
// node (kAllocated, not yet bound) are withdrawn, which costs nothing: they never started.
bool IsVictimState(TaskState state) {
  return state == TaskState::kRunning || state == TaskState::kBound ||
         state == TaskState::kAllocated;
}

bool PlacedThisSession(const Session& session, TaskIndex t) {
  return session.task_state(t) == TaskState::kAllocated;
}

// A set of pods evicted together: one surplus pod, or every placed pod of a job.
struct Unit {
  JobIndex job{0};
  bool whole = false;
  std::vector<TaskIndex> tasks;
};

// What a choice of victims costs, compared in this order (smaller is better).
struct Cost {
  std::int32_t budgeted = 0;  // victims a PodDisruptionBudget covers (within its allowance)
  std::int32_t jobs_broken = 0;
  std::int32_t top_priority = std::numeric_limits<std::int32_t>::min();
  // Victim jobs that already lost pods within the no-repeat window, to any preemptor: a job that
  // was just restarted is the youngest, and so would otherwise be the cheapest victim again.
  std::int32_t jobs_preempted_lately = 0;
  std::int64_t seconds_lost = 0;
  std::int32_t pods = 0;
  auto Key() const {
    return std::tie(budgeted, jobs_broken, top_priority, jobs_preempted_lately, seconds_lost, pods);
  }
};

// The least any choice can cost (a start time ahead of the session's clock loses negative time).
constexpr Cost kLeastCost{
    0, 0, std::numeric_limits<std::int32_t>::min(), 0, std::numeric_limits<std::int64_t>::min(), 0};

// The least a choice of victims on a node may cost (Key() order) when the pod does not fit there
// as things stand and no placement of this session can be withdrawn there: some pod must go, and
// it runs. Its unit breaks a job unless a pod there could leave as surplus; its job's priority,
// its job's lately and its running time count.
Cost FloorCostOf(const VictimIndex::Floor& floor) {
  Cost cost;
  cost.jobs_broken = floor.surplus ? 0 : 1;
  cost.top_priority = floor.priority;
  cost.jobs_preempted_lately = floor.all_lately ? 1 : 0;
  cost.seconds_lost = floor.seconds;
  cost.pods = 1;
  return cost;
}

class Planner {
 public:
  Planner(Session& session, const VictimIndex& index, JobIndex preemptor,
          const VictimFilter& allowed, const PreemptionOptions& options, const QueueGuard& guard)
      : session_(session),
        index_(index),
        preemptor_(preemptor),
        allowed_(allowed),
        options_(options),
        guard_(guard) {
    pdb_taken_.assign(session.snapshot().pdbs.size(), 0);
    evicted_by_queue_ = session.history().EvictedByQueue(session.now() - std::chrono::minutes(1));
    evicted_for_me_ = session.history().VictimJobsOf(session.job(preemptor).Key(),
                                                     session.now() - options.no_repeat_window);
    // What the preemptor allows is asked of a pod when a plan first looks at it: most plans look
    // at a few nodes only.
    allowed_now_.assign(session.snapshot().tasks.size(), 0);
    job_allowed_.assign(static_cast<std::size_t>(session.job_count()), 0);
  }

  // The pods on `node` that could be victims, in task order.
  std::span<const TaskIndex> OnNode(NodeIndex node) const { return index_.OnNode(node); }

  // Whether `victim` may be evicted now, by every rule but gang safety. What does not change
  // while the plan grows is decided once per preemptor and pod (allowed_now_).
  bool Eligible(TaskIndex victim) const {
    if (!IsVictimState(session_.task_state(victim))) return false;
    char& verdict = allowed_now_[victim.pos()];
    if (verdict == 0) verdict = Allowed(victim) ? 2 : 1;
    return verdict == 2;
  }

  bool Allowed(TaskIndex victim) const {
    if (!index_.MayBeVictim(victim)) return false;
    const JobIndex j = session_.task(victim).job;
    if (j == preemptor_ || !allowed_(session_, preemptor_, victim)) return false;
    // Withdrawn, not evicted: no budget or refusal applies.
    return PlacedThisSession(session_, victim) || JobAllowed(j);
  }

  // What Allowed asks of the victim's job alone (its queue's evictions lately, its pods taken
  // for this preemptor lately), once per job: the job's key is a string built to look it up.
  bool JobAllowed(JobIndex j) const {
    char& verdict = job_allowed_[j.pos()];
    if (verdict == 0) {
      const JobInfo& job = session_.job(j);
      bool ok = true;
      if (options_.evictions_per_minute_per_queue > 0) {
        auto it = evicted_by_queue_.find(job.queue);
        ok = it == evicted_by_queue_.end() || it->second < options_.evictions_per_minute_per_queue;
      }
      ok = ok && (evicted_for_me_.empty() || !evicted_for_me_.contains(job.Key()));
      verdict = ok ? 2 : 1;
    }
    return verdict == 2;
  }

  // Every placed pod of the job, if all of them may be evicted.
  std::optional<Unit> WholeJob(JobIndex j) const {
    Unit unit{j, true, {}};
    for (TaskIndex t : session_.job(j).tasks) {
      const TaskState s = session_.task_state(t);
      if (s == TaskState::kPending || s == TaskState::kReleasing || s == TaskState::kSucceeded ||
          s == TaskState::kFailed) {
        continue;
      }
      if (!Eligible(t)) return std::nullopt;
      unit.tasks.push_back(t);
    }
    if (unit.tasks.empty()) return std::nullopt;
    return unit;
  }

  // Whether the pods of `units` (but those of `except_job`), and `extra`, may all be evicted
  // within their PodDisruptionBudgets, after the plan's earlier choices. The Eviction API would
  // refuse the rest (a pod several budgets cover, always), so a plan never counts on them.
  bool WithinBudgets(const std::vector<Unit>& units, const Unit& extra,
                     std::optional<JobIndex> except_job = std::nullopt) const {
    if (session_.snapshot().pdbs.empty()) return true;
    std::map<std::int32_t, std::int32_t> used;
    const auto fits = [&](const Unit& u) {
      for (TaskIndex t : u.tasks) {
        const std::int32_t pdb = session_.task(t).pdb;
        if (pdb == kSeveralPdbs) return false;
        if (pdb == kNoPdb) continue;
        const auto i = static_cast<std::size_t>(pdb);
        if (pdb_taken_[i] + ++used[pdb] > session_.snapshot().pdbs[i].allowed) return false;
      }
      return true;
    };
    for (const Unit& u : units) {
      if (u.job != except_job && !fits(u)) return false;
    }
    if (fits(extra)) return true;
    budget_refused_ = true;
    return false;
  }

  // Whether some victim was left out because its PodDisruptionBudget would refuse it.
  bool budget_refused() const { return budget_refused_; }

  // The victims of a chosen node count against their budgets for the plan's next choices.
  void Take(const std::vector<Unit>& units) {
    for (const Unit& u : units) {
      for (TaskIndex t : u.tasks) {
        if (const std::int32_t pdb = session_.task(t).pdb; pdb >= 0) {
          ++pdb_taken_[static_cast<std::size_t>(pdb)];
        }
      }
    }
  }

  Cost CostOf(const std::vector<Unit>& units) const {
    Cost cost;
    for (const Unit& u : units) {
      for (TaskIndex t : u.tasks) cost.budgeted += session_.task(t).pdb != kNoPdb ? 1 : 0;
    }
    for (const Unit& u : units) {
      // Withdrawn placements cost nothing: a unit of those alone breaks no running job.
      const bool runs = std::any_of(u.tasks.begin(), u.tasks.end(),
                                    [&](TaskIndex t) { return !PlacedThisSession(session_, t); });
      if (!runs) continue;
      cost.jobs_broken += u.whole ? 1 : 0;
      cost.jobs_preempted_lately += index_.PreemptedLately(u.job) ? 1 : 0;
      cost.top_priority = std::max(cost.top_priority, session_.job(u.job).priority);
      for (TaskIndex t : u.tasks) {
        if (PlacedThisSession(session_, t)) continue;
        cost.seconds_lost += std::chrono::duration_cast<std::chrono::seconds>(
                                 session_.now() - StartOf(session_.task(t)))
                                 .count();
        ++cost.pods;
      }
    }
    return cost;
  }

  // The victims on `node` that make room for `task`, cheapest first, or none.
  std::optional<std::vector<Unit>> VictimsOn(TaskIndex task, NodeIndex node) const {
    const ResourceVector& request = session_.task(task).request;
    ResourceVector room = session_.node_free(node);
    std::vector<TaskIndex> candidates;
    for (TaskIndex v : OnNode(node)) {
      if (Eligible(v)) candidates.push_back(v);
    }
    ResourceVector all = room;
    for (TaskIndex v : candidates) all.Add(session_.task(v).request);
    if (!request.FitsIn(all)) return std::nullopt;  // even every victim here is not enough

    std::sort(candidates.begin(), candidates.end(),
              [&](TaskIndex a, TaskIndex b) { return CheaperVictim(session_, a, b); });
    std::vector<Unit> units;
    // What the units chosen so far take from each queue, for the guard.
    std::map<QueueIndex, ResourceVector> from_queue;
    const auto guard_allows = [&](const Unit& unit) {
      if (!guard_) return true;
      const QueueIndex q = session_.job(unit.job).queue_index;
      ResourceVector taken = from_queue[q];
      for (TaskIndex t : unit.tasks) taken.Add(session_.task(t).request);
      return guard_(session_, q, taken);
    };
    const auto charge = [&](const Unit& unit, bool add) {
      ResourceVector& taken = from_queue[session_.job(unit.job).queue_index];
      for (TaskIndex t : unit.tasks) {
        if (add) {
          taken.Add(session_.task(t).request);
        } else {
          taken.Subtract(session_.task(t).request);
        }
      }
    };
    // Surplus pods, counted against each job's surplus as they are taken.
    std::map<JobIndex, std::int32_t> taken;
    std::map<std::pair<JobIndex, std::string>, std::int32_t> taken_by_name;
    for (TaskIndex v : candidates) {
      if (request.FitsIn(room)) break;
      const TaskInfo& info = session_.task(v);
      const JobInfo& job = session_.job(info.job);
      const std::int32_t left = session_.job_ready_tasks(info.job) - taken[info.job] - 1;
      if (left < job.min_member) continue;
      if (auto it = job.min_task_member.find(info.task_name); it != job.min_task_member.end()) {
        const std::int32_t left_named = session_.job_ready_tasks(info.job, info.task_name) -
                                        taken_by_name[{info.job, info.task_name}] - 1;
        if (left_named < it->second) continue;
      }
      Unit unit{info.job, false, {v}};
      if (!guard_allows(unit) || !WithinBudgets(units, unit)) continue;
      ++taken[info.job];
      ++taken_by_name[{info.job, info.task_name}];
      charge(unit, true);
      units.push_back(std::move(unit));
      room.Add(info.request);
    }
    // Then whole jobs, in the same order (a job is placed by its cheapest pod here).
    for (TaskIndex v : candidates) {
      if (request.FitsIn(room)) break;
      const JobIndex j = session_.task(v).job;
      if (std::any_of(units.begin(), units.end(),
                      [&](const Unit& u) { return u.whole && u.job == j; })) {
        continue;
      }
      std::optional<Unit> whole = WholeJob(j);
      if (!whole.has_value() || !WithinBudgets(units, *whole, j)) continue;
      // Its surplus pods taken above become part of the whole job.
      for (const Unit& u : units) {
        if (u.job == j) charge(u, false);
      }
      if (!guard_allows(*whole)) {
        for (const Unit& u : units) {
          if (u.job == j) charge(u, true);
        }
        continue;
      }
      charge(*whole, true);
      std::erase_if(units, [&](const Unit& u) { return u.job == j; });
      room = session_.node_free(node);
      for (const Unit& u : units) {
        for (TaskIndex t : u.tasks) room.Add(session_.task(t).request);
      }
      for (TaskIndex t : whole->tasks) {
        if (session_.task_node(t) == node) room.Add(session_.task(t).request);
      }
      units.push_back(std::move(*whole));
    }
    if (!request.FitsIn(room)) return std::nullopt;
    return units;
  }

  // A pod a PodDisruptionBudget would refuse is looked for again for each of the preemptor's
  // pods: budget_refused() says why that pod found no node.
  void ResetBudgetRefused() { budget_refused_ = false; }

  // Whether any pod may be a victim at all (then planning is worth it).
  bool AnyEligible() const {
    const std::span<const TaskIndex> all = index_.All();
    return std::any_of(all.begin(), all.end(), [&](TaskIndex t) { return Eligible(t); });
  }

 private:
  Session& session_;
  const VictimIndex& index_;
  const JobIndex preemptor_;
  const VictimFilter& allowed_;
  const PreemptionOptions& options_;
  const QueueGuard& guard_;
  mutable std::vector<char> allowed_now_;  // per task: Allowed(), 0 until asked
  mutable std::vector<char> job_allowed_;  // per job: JobAllowed(), 0 until asked
  std::map<std::string_view, std::int32_t> evicted_by_queue_;  // in the last minute
  std::set<std::string_view> evicted_for_me_;  // victim jobs of this preemptor, in the window
  std::vector<std::int32_t> pdb_taken_;        // per budget: victims the plan chose so far
  mutable bool budget_refused_ = false;
};

void EvictUnit(Statement& statement, const Session& session, const Unit& unit) {
  for (TaskIndex t : unit.tasks) {
    if (PlacedThisSession(session, t)) {
      statement.Withdraw(t);
    } else {
      statement.Evict(t);
    }
  }
}

bool CoversBudgetedPod(const Session& session, const Unit& unit) {
  return std::any_of(unit.tasks.begin(), unit.tasks.end(),
                     [&](TaskIndex t) { return session.task(t).pdb != kNoPdb; });
}

// The order in which victims are given back: units with a pod a PodDisruptionBudget covers
// first (so that an eviction the API server may refuse is in the plan only if it must be), then
// the most valuable: job priority, then the oldest.
bool MoreValuable(const Session& session, const Unit& a, const Unit& b) {
  const bool budgeted_a = CoversBudgetedPod(session, a);
  const bool budgeted_b = CoversBudgetedPod(session, b);
  if (budgeted_a != budgeted_b) return budgeted_a;
  const auto pa = session.job(a.job).priority;
  const auto pb = session.job(b.job).priority;
  if (pa != pb) return pa > pb;
  const Clock::WallTime sa = StartOf(session.task(a.tasks.front()));
  const Clock::WallTime sb = StartOf(session.task(b.tasks.front()));
  if (sa != sb) return sa < sb;  // the oldest lose the most
  return session.task(a.tasks.front()).uid() < session.task(b.tasks.front()).uid();
}

}  // namespace

Clock::WallTime StartOf(const TaskInfo& task) {
  return task.pod->status.start_time.value_or(task.pod->meta.creation_timestamp);
}

bool CheaperVictim(const Session& session, TaskIndex a, TaskIndex b) {
  const TaskInfo& ta = session.task(a);
  const TaskInfo& tb = session.task(b);
  const bool budgeted_a = ta.pdb != kNoPdb;
  const bool budgeted_b = tb.pdb != kNoPdb;
  if (budgeted_a != budgeted_b) return budgeted_b;
  const auto pa = session.job(ta.job).priority;
  const auto pb = session.job(tb.job).priority;
  if (pa != pb) return pa < pb;
  if (ta.priority != tb.priority) return ta.priority < tb.priority;
  if (StartOf(ta) != StartOf(tb)) return StartOf(ta) > StartOf(tb);
  return ta.uid() < tb.uid();
}

VictimIndex::VictimIndex(const Session& session, const PreemptionOptions& options)
    : session_(session) {
  const std::size_t task_count = session.snapshot().tasks.size();
  const auto job_count = static_cast<std::size_t>(session.job_count());
  PreemptionOptions unstarted = options;  // withdrawals: no minimum runtime applies
  unstarted.min_runtime = std::chrono::seconds(0);
  preempted_lately_.assign(job_count, 0);
  for (std::string_view key :
       session.history().VictimJobsSince(session.now() - options.no_repeat_window)) {
    const std::size_t slash = key.find('/');
    if (slash == std::string_view::npos) continue;
    if (auto j = session.snapshot().FindJob(key.substr(0, slash), key.substr(slash + 1))) {
      preempted_lately_[j->pos()] = 1;
    }
  }
  // The placed pods by node, as one array in task order (counted first, then placed): a vector
  // per node was most of a plan's cost once.
  may_.assign(task_count, 0);
  ahead_.assign(job_count, 0);
  node_start_.assign(static_cast<std::size_t>(session.node_count()) + 1, 0);
  for (std::size_t i = 0; i < task_count; ++i) {
    const auto t = TaskIndex::Of(i);
    if (session.task_node(t) == kNoNode || !IsVictimState(session.task_state(t))) continue;
    ++node_start_[session.task_node(t).pos() + 1];
    if (PlacedThisSession(session, t)) {
      may_[i] = NeverVictim(session, t, unstarted) ? 0 : 1;
      continue;
    }
    may_[i] = NeverVictim(session, t, options) || session.task(t).eviction_refused ? 0 : 1;
    if (may_[i] != 0) {
      const std::int64_t seconds =
          std::chrono::duration_cast<std::chrono::seconds>(session.now() - StartOf(session.task(t)))
              .count();
      ahead_[session.task(t).job.pos()] += std::min<std::int64_t>(seconds, 0);
    }
  }
  for (std::size_t n = 1; n < node_start_.size(); ++n) node_start_[n] += node_start_[n - 1];
  on_node_.resize(node_start_.back());
  std::vector<std::size_t> next(node_start_.begin(), node_start_.end() - 1);
  for (std::size_t i = 0; i < task_count; ++i) {
    const auto t = TaskIndex::Of(i);
    if (session.task_node(t) != kNoNode && IsVictimState(session.task_state(t))) {
      on_node_[next[session.task_node(t).pos()]++] = t;
    }
  }
  spare_.assign(job_count, 0);
  floors_.resize(static_cast<std::size_t>(session.node_count()));
  for (std::size_t n = 0; n < floors_.size(); ++n) {
    ComputeFloor(n);
    if (Ordered(NodeIndex::Of(n))) order_.push_back(NodeIndex::Of(n));
  }
  std::sort(order_.begin(), order_.end(),
            [&](NodeIndex a, NodeIndex b) { return FloorBefore(a, b); });
}

// Cheapest floor first (FloorCostOf), then node order.
bool VictimIndex::FloorBefore(NodeIndex a, NodeIndex b) const {
  const Cost ca = FloorCostOf(floors_[a.pos()]);
  const Cost cb = FloorCostOf(floors_[b.pos()]);
  if (ca.Key() != cb.Key()) return ca.Key() < cb.Key();
  return a < b;
}

void VictimIndex::ComputeFloor(std::size_t node) {
  Floor floor;
  std::int64_t negative = 0;  // what the jobs of this node's pods may lose below zero
  for (TaskIndex t : OnNode(NodeIndex::Of(node))) {
    // A pod evicted or withdrawn by a committed plan is no victim again in the action's run.
    if (may_[t.pos()] == 0 || !IsVictimState(session_.task_state(t))) continue;
    floor.any = true;
    if (PlacedThisSession(session_, t)) {
      floor.withdrawable = true;
      continue;
    }
    const TaskInfo& info = session_.task(t);
    const JobInfo& job = session_.job(info.job);
    floor.priority = std::min(floor.priority, job.priority);
    floor.all_lately = floor.all_lately && preempted_lately_[info.job.pos()] != 0;
    floor.seconds = std::min(
        floor.seconds,
        std::chrono::duration_cast<std::chrono::seconds>(session_.now() - StartOf(info)).count());
    // A job with several pods here is counted more than once: lower still, so still a floor.
    negative += ahead_[info.job.pos()];
    char& verdict = spare_[info.job.pos()];
    if (verdict == 0) verdict = session_.job_ready_tasks(info.job) - 1 >= job.min_member ? 2 : 1;
    if (verdict == 2 && !floor.surplus) {
      auto it = job.min_task_member.find(info.task_name);
      floor.surplus = it == job.min_task_member.end() ||
                      session_.job_ready_tasks(info.job, info.task_name) - 1 >= it->second;
    }
  }
  if (negative < 0) floor.seconds = negative;
  floors_[node] = floor;
}

void VictimIndex::Committed(JobIndex job) {
  spare_[job.pos()] = 0;
  for (TaskIndex t : session_.job(job).tasks) {
    const NodeIndex n = session_.task_node(t);
    if (n == kNoNode || may_[t.pos()] == 0) continue;
    // Out of the order, and back in at its new floor's place.
    const auto place = [&] {
      return std::lower_bound(order_.begin(), order_.end(), n,
                              [&](NodeIndex a, NodeIndex b) { return FloorBefore(a, b); });
    };
    if (Ordered(n)) {
      if (auto at = place(); at != order_.end() && *at == n) order_.erase(at);
    }
    ComputeFloor(n.pos());
    if (Ordered(n)) order_.insert(place(), n);
  }
}

PreemptionOptions PreemptionOptionsFrom(const PreemptionConfig& config) {
  PreemptionOptions options;
  options.min_runtime = std::chrono::seconds(config.min_runtime_seconds);
  options.max_grace_seconds = config.max_grace_period_seconds;
  options.nomination_timeout = std::chrono::seconds(config.nomination_timeout_seconds);
  options.evictions_per_minute_per_queue = config.evictions_per_minute_per_queue;
  options.quota_grace = std::chrono::seconds(config.quota_grace_seconds);
  options.broken_gang_timeout = std::chrono::seconds(config.broken_gang_timeout_seconds);
  return options;
}

std::optional<JobVerdict> WaitOrTimeout(const Session& session, JobIndex job,
                                        const PreemptionOptions& options) {
  std::optional<std::string> waiting = session.WaitingForNominatedRoom(job);
  if (!waiting.has_value()) return std::nullopt;
  const std::optional<Clock::WallTime> since =
      session.history().LastPlanFor(session.job(job).Key());
  if (since.has_value() && session.now() - *since > options.nomination_timeout) {
    return JobVerdict{JobReason::kNotEnoughResources,
                      "the room preemption was freeing is still not free after " +
                          std::to_string(options.nomination_timeout.count()) +
                          " s; the nomination is released (" + *waiting + ")"};
  }
  return JobVerdict{JobReason::kWaitingForPreemption, std::move(*waiting)};
}

bool NeverVictim(const Session& session, TaskIndex task, const PreemptionOptions& options) {
  const TaskInfo& info = session.task(task);
  const Pod& pod = *info.pod;
  if (SystemPod(pod)) return true;
  if (auto it = pod.meta.labels.find(kPreemptableLabel);
      it != pod.meta.labels.end() && it->second == "false") {
    return true;
  }
  if (const auto& group = session.job(info.job).group; group != nullptr) {
    if (auto it = group->meta.labels.find(kPreemptableLabel);
        it != group->meta.labels.end() && it->second == "false") {
      return true;
    }
  }
  // Without a minimum, a start time ahead of the session's clock (skew) excludes nothing.
  return options.min_runtime.count() > 0 && session.now() - StartOf(info) < options.min_runtime;
}

bool PreemptionNever(const Session& session, JobIndex job) {
  const std::vector<TaskIndex> pending = session.PendingTasks(job);
  return std::any_of(pending.begin(), pending.end(), [&](TaskIndex t) {
    return session.task(t).pod->spec.preemption_policy == "Never";
  });
}

std::vector<JobIndex> PreemptorCandidates(const Session& session) {
  std::vector<JobIndex> out;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    if (!MayPreempt(session.job_phase(j)) || job.queue_index == kNoQueue) continue;
    if (!LackedRoom(session, j) || session.JobReady(j)) continue;
    if (session.PendingTasks(j).empty() || session.CheckJob(j).has_value()) continue;
    out.push_back(j);
  }
  std::sort(out.begin(), out.end(), [&](JobIndex a, JobIndex b) {
    const QueueIndex qa = session.job(a).queue_index;
    const QueueIndex qb = session.job(b).queue_index;
    if (qa != qb) return qa < qb;
    return session.JobBefore(a, b);
  });
  return out;
}

namespace {

// fits[n] = 1 when `request` fits into what node n has free as things stand (FitsIn), for
// every node at once: a resource at a time over the session's columns of free amounts.
void FitsAsThingsStand(const Session& session, const ResourceVector& request,
                       std::vector<char>& fits) {
  const auto nodes = static_cast<std::size_t>(session.node_count());
  fits.assign(nodes, 1);
  if (request.size() > session.snapshot().resources.size()) {  // a resource no node reports
    for (std::size_t n = 0; n < nodes; ++n) {
      fits[n] = request.FitsIn(session.node_free(NodeIndex::Of(n))) ? 1 : 0;
    }
    return;
  }
  for (std::size_t r = 0; r < request.size(); ++r) {
    const std::int64_t amount = request.Get(static_cast<ResourceId>(r));
    const std::int64_t* free = session.free_column(static_cast<ResourceId>(r));
    for (std::size_t n = 0; n < nodes; ++n) {
      if (amount > free[n]) fits[n] = 0;
    }
  }
}

// Why no node has idle room for the pod (PickNode's account), as things stand.
PlacementFailure IdleFailure(Session& session, TaskIndex t, const std::vector<NodeIndex>* within) {
  PlacementFailure failure;
  (void)session.placement().PickNode(t, &failure, within);
  return failure;
}

// What a whole plan costs: its victim choices' costs added up (the highest priority, not a sum).
void AddCost(Cost& total, const Cost& more) {
  total.budgeted += more.budgeted;
  total.jobs_broken += more.jobs_broken;
  total.top_priority = std::max(total.top_priority, more.top_priority);
  total.jobs_preempted_lately += more.jobs_preempted_lately;
  total.seconds_lost += more.seconds_lost;
  total.pods += more.pods;
}

// One plan for the preemptor, its pods placed on `within` (a topology domain) or anywhere. With
// `dry_run` given, nothing is committed: *dry_run is set to the plan's cost when it would fit.
PreemptionPlan PlanWithin(Session& session, VictimIndex& index, JobIndex preemptor,
                          EvictionKind kind, const VictimFilter& allowed,
                          const PreemptionOptions& options, const QueueGuard& guard,
                          const std::vector<NodeIndex>* within,
                          std::optional<Cost>* dry_run = nullptr) {
  PreemptionPlan plan;
  Cost total;
  Planner planner(session, index, preemptor, allowed, options, guard);
  // The nodes considered: the domain's, or every node (not copied into a list: the common case).
  const std::size_t node_count =
      within != nullptr ? within->size() : static_cast<std::size_t>(session.node_count());
  const auto node_at = [&](std::size_t i) {
    return within != nullptr ? (*within)[i] : NodeIndex(static_cast<std::int32_t>(i));
  };
  // Nothing it may evict: the job's verdict stays what enqueue or allocate said.
  if (!planner.AnyEligible()) return plan;
  Statement statement(session);
  std::vector<Unit> evicted;
  std::vector<TaskIndex> failed;
  // Per pod: the nodes where it fits as things stand, and those that may cost nothing.
  std::vector<char> fits;
  std::vector<NodeIndex> least;
  std::vector<char> in_domain;  // with `within`: its nodes
  if (within != nullptr) {
    in_domain.assign(static_cast<std::size_t>(session.node_count()), 0);
    for (NodeIndex n : *within) in_domain[n.pos()] = 1;
  }
  for (TaskIndex t : GangTryOrder(session, preemptor)) {
    if (session.JobReady(preemptor)) break;
    if (std::any_of(failed.begin(), failed.end(),
                    [&](TaskIndex f) { return session.placement().SameNeeds(f, t); })) {
      continue;
    }
    // Idle room first: a node where nothing need leave. Why there is none is asked again only
    // if the pod finds no victims either (nothing has changed by then).
    if (std::optional<NodeIndex> node = session.placement().PickNode(t, nullptr, within)) {
      statement.Pipeline(t, *node);
      continue;
    }
    std::optional<std::pair<Cost, NodeIndex>> best;
    std::vector<Unit> best_units;
    planner.ResetBudgetRefused();
    // The cheapest choice (cost, then node order) whose node passes the filters (host ports and
    // the rest) once its victims are gone, tried for real. Nodes are visited in the order of the
    // least they can cost, and a choice is tried as soon as no unvisited node can beat it: the
    // same choice as building every node's victims and sorting, for a few nodes' work.
    const auto later = [](const std::pair<Cost, NodeIndex>& a,
                          const std::pair<Cost, NodeIndex>& b) {
      const auto ka = a.first.Key();
      const auto kb = b.first.Key();
      if (ka != kb) return ka > kb;
      return a.second > b.second;
    };
    // First the nodes that may cost nothing, in node order; then the index's order.
    const ResourceVector& request = session.task(t).request;
    FitsAsThingsStand(session, request, fits);
    least.clear();
    for (std::size_t i = 0; i < node_count; ++i) {
      const NodeIndex n = node_at(i);
      if (!session.node(n).in_scope) continue;
      if (options.visit_every_node || fits[n.pos()] != 0 || index.floor(n).withdrawable) {
        least.push_back(n);
      }
    }
    std::sort(least.begin(), least.end());
    std::size_t next_least = 0;
    std::size_t next_ordered = 0;
    const std::span<const NodeIndex> ordered = index.order();
    // The unvisited node that may cost the least, with that least; none when all are visited.
    const auto next_node = [&]() -> std::optional<std::pair<Cost, NodeIndex>> {
      if (next_least < least.size()) return std::pair(kLeastCost, least[next_least]);
      for (; next_ordered < ordered.size(); ++next_ordered) {
        const NodeIndex n = ordered[next_ordered];
        if (options.visit_every_node || fits[n.pos()] != 0 || !session.node(n).in_scope) {
          continue;  // visited, or never
        }
        if (within != nullptr && in_domain[n.pos()] == 0) continue;
        return std::pair(FloorCostOf(index.floor(n)), n);
      }
      return std::nullopt;
    };
    // Choices built, with their victims, and a heap of them, cheapest on top.
    std::vector<std::vector<Unit>> victims;
    std::vector<std::pair<Cost, NodeIndex>> built;
    std::vector<std::size_t> ready;
    const auto later_built = [&](std::size_t a, std::size_t b) {
      return later(built[a], built[b]);
    };
    while (true) {
      const std::optional<std::pair<Cost, NodeIndex>> unvisited = next_node();
      if (!ready.empty() && (!unvisited.has_value() || later(*unvisited, built[ready.front()]))) {
        std::pop_heap(ready.begin(), ready.end(), later_built);
        const std::size_t i = ready.back();
        ready.pop_back();
        const NodeIndex n = built[i].second;
        const Statement::Mark mark = statement.mark();
        for (const Unit& u : victims[i]) EvictUnit(statement, session, u);
        const bool fit = session.Filter(t, n).fit();
        statement.RollbackTo(mark);
        if (!fit) continue;
        best = built[i];
        best_units = std::move(victims[i]);
        break;
      }
      if (!unvisited.has_value()) break;
      const NodeIndex n = unvisited->second;
      if (next_least < least.size()) {
        ++next_least;
      } else {
        ++next_ordered;
      }
      if (session.Filter(t, n).code == FilterResult::Code::kUnresolvable) continue;
      std::optional<std::vector<Unit>> units = planner.VictimsOn(t, n);
      if (!units.has_value()) continue;
      built.emplace_back(planner.CostOf(*units), n);
      victims.push_back(std::move(*units));
      ready.push_back(built.size() - 1);
      std::push_heap(ready.begin(), ready.end(), later_built);
    }
    if (!best.has_value()) {
      failed.push_back(t);
      if (plan.why_not.empty()) {
        plan.why_not = planner.budget_refused()
                           ? "pod " + session.task(t).Key() +
                                 " fits on no node unless pods are evicted that a "
                                 "PodDisruptionBudget protects now"
                           : "pod " + session.task(t).Key() +
                                 " fits on no node even without the pods it may preempt: " +
                                 IdleFailure(session, t, within).Message(session, t, /*gang=*/true);
      }
      continue;
    }
    for (Unit& u : best_units) {
      EvictUnit(statement, session, u);
      if (u.whole) {
        // Its surplus pods evicted for earlier tasks join it: given back together or not at all,
        // so that a reprieve never leaves the job below its minimum.
        for (auto it = evicted.begin(); it != evicted.end();) {
          if (it->job != u.job) {
            ++it;
            continue;
          }
          u.tasks.insert(u.tasks.end(), it->tasks.begin(), it->tasks.end());
          it = evicted.erase(it);
        }
      }
      evicted.push_back(std::move(u));
    }
    AddCost(total, best->first);
    planner.Take(best_units);
    statement.Pipeline(t, best->second);
  }
  if (!session.JobReady(preemptor) || evicted.empty()) {
    // Nothing to evict means allocate left the job for a reason preemption does not change.
    statement.Discard();
    if (plan.why_not.empty() && !evicted.empty()) plan.why_not = "the job's minimum does not fit";
    return plan;
  }
  if (dry_run != nullptr) {
    statement.Discard();
    *dry_run = total;
    return plan;
  }
  // Reprieve: give back every victim the preemptor's placements do not need.
  std::sort(evicted.begin(), evicted.end(),
            [&](const Unit& a, const Unit& b) { return MoreValuable(session, a, b); });
  for (const Unit& u : evicted) {
    const Statement::Mark mark = statement.mark();
    bool restored = true;
    for (TaskIndex t : u.tasks) {
      if (!statement.CanRestore(t)) {
        restored = false;
        break;
      }
      statement.Restore(t);
    }
    if (!restored) statement.RollbackTo(mark);
  }
  plan.evicted = statement.evicted_count();
  plan.withdrawn = statement.withdrawn_count();
  plan.pipelined = statement.pipelined_count();
  statement.CommitPreemption(preemptor, kind, options.max_grace_seconds);
  index.Committed(preemptor);
  plan.committed = true;
  if (session.job_phase(preemptor) == PodGroupPhase::kPending) session.AdmitJob(preemptor);
  // Placements taken back before they were bound: the pods hear why, and so does a job left
  // with none of them.
  const std::string for_whom =
      session.job(preemptor).Key() + " (" + std::string(EvictionKindName(kind)) + ")";
  for (const Unit& u : evicted) {
    bool all_withdrawn = true;
    for (TaskIndex t : u.tasks) {
      if (session.task_state(t) != TaskState::kPending) {
        all_withdrawn = false;
        continue;
      }
      session.RecordTaskUnschedulable(
          t, TaskReason::kWithdrawn,
          "its placement was taken back before it was bound: the room went to " + for_whom);
    }
    if (u.whole && all_withdrawn) {
      session.RecordJobUnschedulable(
          u.job, JobReason::kPreempted,
          "its placement was taken back before it started: the room went to " + for_whom);
    }
  }
  // A job evicted whole waits to start again: its pods left pending hear why.
  for (const Unit& u : evicted) {
    if (!u.whole || session.task_state(u.tasks.front()) != TaskState::kReleasing) continue;
    session.RecordJobUnschedulable(u.job, JobReason::kPreempted,
                                   "preempted by " + session.job(preemptor).Key() + " (" +
                                       std::string(EvictionKindName(kind)) +
                                       "); its pods wait to start again");
  }
  return plan;
}

}  // namespace

PreemptionPlan PreemptFor(Session& session, JobIndex preemptor, EvictionKind kind,
                          const VictimFilter& allowed, const PreemptionOptions& options,
                          const QueueGuard& guard, const std::vector<NodeIndex>* within,
                          VictimIndex* index) {
  std::optional<VictimIndex> own;
  if (index == nullptr) index = &own.emplace(session, options);
  if (within != nullptr) {
    return PlanWithin(session, *index, preemptor, kind, allowed, options, guard, within);
  }
  std::optional<TopologyPlan> topology = session.TopologyPlanOf(preemptor);
  if (!topology.has_value()) {
    return PlanWithin(session, *index, preemptor, kind, allowed, options, guard, nullptr);
  }
  // A topology gang's victims are all inside the one domain it is to start in: each domain of
  // the plan is planned without committing, and the cheapest plan (then the first in the plan's
  // order: the tightest fit) is made for real.
  PreemptionPlan first_refusal;
  const TopologyDomain* cheapest = nullptr;
  std::optional<Cost> cheapest_cost;
  for (const std::vector<TopologyDomain>* domains : {&topology->tries, &topology->others}) {
    for (const TopologyDomain& domain : *domains) {
      std::optional<Cost> cost;
      PreemptionPlan plan = PlanWithin(session, *index, preemptor, kind, allowed, options, guard,
                                       &domain.nodes, &cost);
      if (cost.has_value()) {
        if (!cheapest_cost.has_value() || cost->Key() < cheapest_cost->Key()) {
          cheapest = &domain;
          cheapest_cost = cost;
        }
      } else if (first_refusal.why_not.empty() && !plan.why_not.empty()) {
        first_refusal = std::move(plan);
        first_refusal.why_not = "in " + domain.name + ": " + first_refusal.why_not;
      }
    }
  }
  if (cheapest != nullptr) {
    return PlanWithin(session, *index, preemptor, kind, allowed, options, guard, &cheapest->nodes);
  }
  return first_refusal;
}

}  // namespace arbiter
