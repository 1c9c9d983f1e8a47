#include "arbiter/actions/quota_reclaim.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/statement.h"

namespace arbiter {

namespace {

// A set of pods evicted together: one surplus pod, or every placed pod of a job.
struct Unit {
  JobIndex job{0};
  bool whole = false;
  std::vector<TaskIndex> tasks;
  bool budgeted = false;  // some pod of it is covered by a PodDisruptionBudget
};

bool Evictable(TaskState state) {
  return state == TaskState::kRunning || state == TaskState::kBound;
}

// Placed pods that are neither finished nor already leaving: those a whole job's eviction takes.
bool Placed(TaskState state) {
  return state != TaskState::kPending && state != TaskState::kReleasing &&
         state != TaskState::kSucceeded && state != TaskState::kFailed;
}

class QueueShrink {
 public:
  QueueShrink(const Session& session, std::vector<JobIndex> jobs, ResourceVector excess,
              const PreemptionOptions& options, std::int32_t pod_budget)
      : session_(session),
        jobs_(std::move(jobs)),
        excess_(std::move(excess)),
        taken_(excess_.size()),
        options_(options),
        pod_budget_(pod_budget) {
    pdb_taken_.assign(session.snapshot().pdbs.size(), 0);
  }

  // The units to evict, cheapest first, then the unneeded ones given back.
  std::vector<Unit> Choose() {
    std::vector<TaskIndex> candidates;
    for (JobIndex j : jobs_) {
      for (TaskIndex t : session_.job(j).tasks) {
        if (Eligible(t)) candidates.push_back(t);
      }
    }
    std::sort(candidates.begin(), candidates.end(),
              [&](TaskIndex a, TaskIndex b) { return CheaperVictim(session_, a, b); });
    // Surplus pods first: each job keeps its minMember and every minTaskMember.
    std::map<JobIndex, std::int32_t> taken;
    std::map<std::pair<JobIndex, std::string>, std::int32_t> taken_by_name;
    for (TaskIndex t : candidates) {
      if (Covered()) break;
      const TaskInfo& info = session_.task(t);
      const JobInfo& job = session_.job(info.job);
      if (!Helps(session_.task(t).request)) continue;
      if (session_.job_ready_tasks(info.job) - taken[info.job] - 1 < job.min_member) continue;
      if (auto it = job.min_task_member.find(info.task_name);
          it != job.min_task_member.end() && session_.job_ready_tasks(info.job, info.task_name) -
                                                     taken_by_name[{info.job, info.task_name}] - 1 <
                                                 it->second) {
        continue;
      }
      Unit unit{info.job, false, {t}, info.pdb != kNoPdb};
      if (!Affordable(unit)) continue;
      ++taken[info.job];
      ++taken_by_name[{info.job, info.task_name}];
      Take(std::move(unit));
    }
    // Then whole jobs, in the order of their cheapest pod.
    for (TaskIndex t : candidates) {
      if (Covered()) break;
      const JobIndex j = session_.task(t).job;
      if (std::any_of(units_.begin(), units_.end(),
                      [&](const Unit& u) { return u.whole && u.job == j; })) {
        continue;
      }
      std::optional<Unit> whole = WholeJob(j);
      if (!whole.has_value()) continue;
      // Its surplus pods taken above become part of it.
      std::vector<Unit> surplus;
      for (auto it = units_.begin(); it != units_.end();) {
        if (it->job == j) {
          Give(*it);
          surplus.push_back(std::move(*it));
          it = units_.erase(it);
        } else {
          ++it;
        }
      }
      ResourceVector request(excess_.size());
      for (TaskIndex w : whole->tasks) request.Add(session_.task(w).request);
      if (!Helps(request) || !Affordable(*whole)) {
        for (Unit& u : surplus) Take(std::move(u));
        continue;
      }
      Take(std::move(*whole));
    }
    Reprieve();
    return std::move(units_);
  }

 private:
  bool Eligible(TaskIndex t) const {
    const TaskInfo& info = session_.task(t);
    return Evictable(session_.task_state(t)) && !info.eviction_refused &&
           info.pdb != kSeveralPdbs && !NeverVictim(session_, t, options_);
  }

  std::optional<Unit> WholeJob(JobIndex j) const {
    Unit unit{j, true, {}, false};
    for (TaskIndex t : session_.job(j).tasks) {
      if (!Placed(session_.task_state(t))) continue;
      if (!Eligible(t)) return std::nullopt;
      unit.tasks.push_back(t);
      unit.budgeted = unit.budgeted || session_.task(t).pdb != kNoPdb;
    }
    if (unit.tasks.empty()) return std::nullopt;
    return unit;
  }

  // Whether what is taken so far covers the overage in every resource.
  bool Covered() const {
    for (std::size_t r = 0; r < excess_.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      if (taken_.Get(id) < excess_.Get(id)) return false;
    }
    return true;
  }

  // Whether `request` lowers the overage still to cover in some resource.
  bool Helps(const ResourceVector& request) const {
    for (std::size_t r = 0; r < excess_.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      if (taken_.Get(id) < excess_.Get(id) && request.Get(id) > 0) return true;
    }
    return false;
  }

  // Within the queue's eviction budget and every PodDisruptionBudget, after what is taken.
  bool Affordable(const Unit& unit) const {
    if (pods_ + static_cast<std::int32_t>(unit.tasks.size()) > pod_budget_) return false;
    std::map<std::int32_t, std::int32_t> used;
    for (TaskIndex t : unit.tasks) {
      const std::int32_t pdb = session_.task(t).pdb;
      if (pdb == kNoPdb) continue;
      const auto i = static_cast<std::size_t>(pdb);
      if (pdb_taken_[i] + ++used[pdb] > session_.snapshot().pdbs[i].allowed) return false;
    }
    return true;
  }

  void Take(Unit unit) {
    Count(unit, +1);
    units_.push_back(std::move(unit));
  }
  void Give(const Unit& unit) { Count(unit, -1); }
  void Count(const Unit& unit, int sign) {
    for (TaskIndex t : unit.tasks) {
      if (sign > 0) {
        taken_.Add(session_.task(t).request);
      } else {
        taken_.Subtract(session_.task(t).request);
      }
      if (const std::int32_t pdb = session_.task(t).pdb; pdb >= 0) {
        pdb_taken_[static_cast<std::size_t>(pdb)] += sign;
      }
    }
    pods_ += sign * static_cast<std::int32_t>(unit.tasks.size());
  }

  // Gives back every unit the overage does not need, the most valuable first: those a budget
  // covers, then the highest job priority, then the oldest.
  void Reprieve() {
    std::sort(units_.begin(), units_.end(), [&](const Unit& a, const Unit& b) {
      if (a.budgeted != b.budgeted) return a.budgeted;
      const auto pa = session_.job(a.job).priority;
      const auto pb = session_.job(b.job).priority;
      if (pa != pb) return pa > pb;
      const TaskInfo& ta = session_.task(a.tasks.front());
      const TaskInfo& tb = session_.task(b.tasks.front());
      if (StartOf(ta) != StartOf(tb)) return StartOf(ta) < StartOf(tb);
      return ta.uid() < tb.uid();
    });
    for (auto it = units_.begin(); it != units_.end();) {
      ResourceVector without = taken_;
      for (TaskIndex t : it->tasks) without.Subtract(session_.task(t).request);
      bool needed = false;
      for (std::size_t r = 0; r < excess_.size() && !needed; ++r) {
        const auto id = static_cast<ResourceId>(r);
        needed =
            std::min(without.Get(id), excess_.Get(id)) < std::min(taken_.Get(id), excess_.Get(id));
      }
      if (needed) {
        ++it;
        continue;
      }
      Give(*it);
      it = units_.erase(it);
    }
  }

  const Session& session_;
  const std::vector<JobIndex> jobs_;
  const ResourceVector excess_;  // what the queue holds beyond max(quota, guarantee)
  ResourceVector taken_;         // the requests of the units chosen
  const PreemptionOptions& options_;
  const std::int32_t pod_budget_;  // pods the queue may still lose this minute
  std::int32_t pods_ = 0;
  std::vector<std::int32_t> pdb_taken_;
  std::vector<Unit> units_;
};

}  // namespace

std::int32_t ReclaimBeyondQuota(Session& session, const PreemptionOptions& options) {
  const Snapshot& snapshot = session.snapshot();
  const ResourceSpace& space = snapshot.resources;
  std::vector<std::vector<JobIndex>> jobs(snapshot.queues.size());
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    if (const QueueIndex q = session.job(j).queue_index; q != kNoQueue) {
      jobs[q.pos()].push_back(j);
    }
  }
  std::int32_t evicted = 0;
  for (QueueIndex q : QueueIndex::Range(static_cast<std::int32_t>(snapshot.queues.size()))) {
    const QueueInfo& info = snapshot.queues[q.pos()];
    if (!info.quota_cap.has_value() || jobs[q.pos()].empty()) continue;
    const Queue& queue = *info.queue;
    // Without the time it was lowered there is no grace period to count: nothing is reclaimed.
    const std::optional<Clock::WallTime>& lowered = queue.status.quota.lowered_at;
    if (!lowered.has_value() || session.now() - *lowered < options.quota_grace) continue;

    // What the queue holds but what is already leaving.
    ResourceVector held = session.queue_allocated(q);
    for (JobIndex j : jobs[q.pos()]) {
      for (TaskIndex t : session.job(j).tasks) {
        if (session.task_state(t) == TaskState::kReleasing) held.Subtract(session.task(t).request);
      }
    }
    ResourceVector excess(space.size());
    bool over = false;
    for (const ResourceEntry& e : info.quota_cap->entries()) {
      const std::optional<ResourceId> id = space.Find(e.name);
      if (!id.has_value()) continue;
      const std::int64_t keep = std::max(e.amount, queue.spec.guarantee.Get(e.name));
      if (held.Get(*id) > keep) {
        excess.Set(*id, held.Get(*id) - keep);
        over = true;
      }
    }
    if (!over) continue;

    std::int32_t pod_budget = std::numeric_limits<std::int32_t>::max();
    if (options.evictions_per_minute_per_queue > 0) {
      pod_budget = options.evictions_per_minute_per_queue -
                   session.history().EvictedFromQueue(queue.meta.name,
                                                      session.now() - std::chrono::minutes(1));
      if (pod_budget <= 0) continue;
    }
    std::vector<Unit> units =
        QueueShrink(session, jobs[q.pos()], std::move(excess), options, pod_budget).Choose();
    if (units.empty()) continue;
    Statement statement(session);
    for (const Unit& u : units) {
      for (TaskIndex t : u.tasks) statement.Evict(t);
    }
    evicted += statement.evicted_count();
    statement.CommitPreemption(kNoJob, EvictionKind::kQuota, options.max_grace_seconds);
    for (const Unit& u : units) {
      if (!u.whole) continue;
      session.RecordJobUnschedulable(u.job, JobReason::kPreempted,
                                     "evicted: queue " + queue.meta.name +
                                         " runs beyond its lowered ResourceQuota; its pods wait "
                                         "for the queue's quota to have room again");
    }
  }
  return evicted;
}

}  // namespace arbiter
