#include "arbiter/actions/allocate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/framework/outcome.h"
#include "arbiter/framework/placement.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"

namespace arbiter {

namespace {

bool Admitted(PodGroupPhase phase) {
  return phase == PodGroupPhase::kInqueue || phase == PodGroupPhase::kRunning;
}

}  // namespace

namespace {

// One attempt at the job's minimum, in `statement`, on `within` (a topology domain) or anywhere.
struct Attempt {
  std::int32_t placed = 0;  // tasks counting towards the gang once the attempt ended
  std::optional<std::pair<TaskIndex, PlacementFailure>> first_failure;
  std::optional<std::string> capped;  // one more task would take the queue over its capability
};

Attempt PlaceJob(Session& session, JobIndex j, Statement& statement,
                 const std::vector<NodeIndex>* within) {
  Attempt attempt;
  // Room held for the job's nominated pods is the job's to use now (held again on Discard).
  for (TaskIndex t : session.job(j).tasks) statement.ReleaseHold(t);
  std::vector<TaskIndex> failed;
  for (TaskIndex t : GangTryOrder(session, j)) {
    if (session.JobReady(j)) break;
    attempt.capped = session.ExceedsCapability(session.job(j).queue_index, t);
    if (attempt.capped.has_value()) break;
    if (std::any_of(failed.begin(), failed.end(),
                    [&](TaskIndex f) { return session.placement().SameNeeds(f, t); })) {
      continue;
    }
    PlacementFailure why;
    if (std::optional<NodeIndex> node = session.placement().PickNode(t, &why, within)) {
      statement.Allocate(t, *node);
      continue;
    }
    failed.push_back(t);
    if (session.job(j).min_member <= 1 && within == nullptr) {
      session.RecordTaskUnschedulable(t, TaskReason::kNoNodeFits, why.Message(session, t));
    }
    if (!attempt.first_failure.has_value()) attempt.first_failure.emplace(t, std::move(why));
  }
  attempt.placed = session.job_ready_tasks(j);
  return attempt;
}

void RecordAttemptFailure(Session& session, JobIndex j, const Attempt& attempt,
                          std::string message_head) {
  if (attempt.capped.has_value()) {
    session.RecordJobUnschedulable(j, JobReason::kQueueCapability, *attempt.capped);
    return;
  }
  std::string message = std::move(message_head);
  if (attempt.first_failure.has_value()) {
    const auto& [t, why] = *attempt.first_failure;
    message += "; pod " + session.task(t).Key() + ": " + why.Message(session, t, /*gang=*/true);
    session.RecordJobPlacement(j, t, why);
  }
  session.RecordJobUnschedulable(j, JobReason::kNotEnoughResources, std::move(message));
}

// A job with a topology plan: its domains in order, each a whole attempt; the first in which the
// minimum fits is committed.
void AllocateJobInDomains(Session& session, JobIndex j, const TopologyPlan& plan) {
  std::optional<Attempt> best;
  std::string tried;
  for (const TopologyDomain& domain : plan.tries) {
    Statement statement(session);
    Attempt attempt = PlaceJob(session, j, statement, &domain.nodes);
    if (session.JobReady(j)) {
      statement.Commit();
      ++session.stats().jobs_committed;
      return;
    }
    statement.Discard();
    if (attempt.capped.has_value()) {
      RecordAttemptFailure(session, j, attempt, "");
      ++session.stats().jobs_discarded;
      return;
    }
    if (!tried.empty()) tried += "; ";
    tried += domain.name + ": " + std::to_string(attempt.placed) + " of minMember " +
             std::to_string(session.job(j).min_member) + " pods fit";
    if (!best.has_value() || attempt.placed > best->placed) best = std::move(attempt);
  }
  ++session.stats().jobs_discarded;
  std::string head = "gang " + session.job(j).Key() + " cannot start within one " + plan.level +
                     (plan.required ? " (Required)" : " (Preferred)") + ": ";
  if (plan.tries.empty() && plan.untried.empty()) head += "no " + plan.level + " has room";
  head += tried;
  if (!tried.empty() && !plan.untried.empty()) head += "; ";
  head += plan.untried;
  RecordAttemptFailure(session, j, best.value_or(Attempt{}), std::move(head));
}

void AllocateJob(Session& session, JobIndex j) {
  ++session.stats().jobs_considered;
  if (std::optional<TopologyPlan> plan = session.TopologyPlanOf(j)) {
    AllocateJobInDomains(session, j, *plan);
    return;
  }
  Statement statement(session);
  Attempt attempt = PlaceJob(session, j, statement, nullptr);
  if (session.JobReady(j)) {
    statement.Commit();
    ++session.stats().jobs_committed;
    return;
  }
  statement.Discard();
  ++session.stats().jobs_discarded;
  const JobInfo& job = session.job(j);
  RecordAttemptFailure(session, j, attempt,
                       "gang " + job.Key() + " cannot start: " + std::to_string(attempt.placed) +
                           " of minMember " + std::to_string(job.min_member) +
                           " pods fit together");
}

// A broken gang (it holds nodes below its minimum) that allocate could not complete: once it
// has been broken (its PodGroup's Broken condition, set by outcome.cc) for the timeout, its pods
// are evicted whole, so that the room it holds uselessly goes to others and the gang, its pods
// created again by their controllers, starts again all together (Kueue's waitForPodsReady does
// the same to a workload). Pods no controller would create again are never evicted: that would
// lose them. Until then the job's verdict says what will happen, and when.
void ReleaseIfBrokenTooLong(Session& session, JobIndex j, const PreemptionOptions& options) {
  if (options.broken_gang_timeout.count() == 0) return;
  const JobInfo& job = session.job(j);
  if (job.group == nullptr) return;
  const Condition* broken = FindCondition(job.group->status.conditions, "Broken");
  // The clock starts once the condition is written: a restart does not reset it.
  if (broken == nullptr || !broken->IsTrue() || !broken->last_transition_time.has_value()) return;
  const Clock::WallTime since = *broken->last_transition_time;
  std::vector<TaskIndex> held;
  std::string kept;  // why it is not released, if it is not
  for (TaskIndex t : job.tasks) {
    const TaskInfo& task = session.task(t);
    const TaskState state = session.task_state(t);
    if (state == TaskState::kPending && !task.pod->status.nominated_node_name.empty()) {
      kept = "pod " + task.name() + " is nominated to room that evicted pods are freeing";
      break;
    }
    if (!HoldsNode(state) || state == TaskState::kReleasing) continue;
    if (state != TaskState::kRunning && state != TaskState::kBound) {
      kept = "pod " + task.name() + " is still being bound";
      break;
    }
    if (task.pod->meta.Controller() == nullptr) {
      kept = "pod " + task.name() + " has no controller to create it again, so it is kept";
      break;
    }
    if (task.eviction_refused) {
      kept = "the eviction of pod " + task.name() + " was refused lately";
      break;
    }
    held.push_back(t);
  }
  const Session::RecordedJobVerdict* verdict = session.job_verdict(j);
  const JobReason reason =
      verdict != nullptr ? verdict->verdict.reason : JobReason::kNotEnoughResources;
  std::string said = verdict != nullptr ? verdict->verdict.message + "; " : std::string();
  said += "below its minimum since " + FormatRfc3339(since);
  if (!kept.empty()) {
    session.RecordJobUnschedulable(j, reason, said + ", not released: " + kept,
                                   /*tell_pods=*/true, /*replace=*/true);
    return;
  }
  const Clock::WallTime deadline = since + options.broken_gang_timeout;
  if (session.now() < deadline || held.empty()) {
    session.RecordJobUnschedulable(j, reason,
                                   said +
                                       ": released (its pods evicted, to start again whole) at " +
                                       FormatRfc3339(deadline) + " unless completed first",
                                   /*tell_pods=*/true, /*replace=*/true);
    return;
  }
  Statement statement(session);
  for (TaskIndex t : held) statement.Evict(t);
  statement.CommitPreemption(kNoJob, EvictionKind::kRelease, options.max_grace_seconds);
  session.RecordJobUnschedulable(
      j, JobReason::kGangReleased,
      "released: held " + std::to_string(held.size()) + " node(s) below minMember " +
          std::to_string(job.min_member) + " since " + FormatRfc3339(since) + ", for longer " +
          "than the broken-gang timeout (" + std::to_string(options.broken_gang_timeout.count()) +
          " s); its pods are evicted and the gang starts again whole once they are created again",
      /*tell_pods=*/true, /*replace=*/true);
}

}  // namespace

void AllocateAction::Execute(Session& session) {
  std::map<QueueIndex, std::vector<JobIndex>> by_queue;
  std::vector<JobIndex> broken;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    // A job whose group is missing is never admitted; it is visited only to say why.
    if (!Admitted(session.job_phase(j)) && !job.group_missing) continue;
    if (session.PendingTasks(j).empty()) continue;
    if (std::optional<JobVerdict> invalid = session.CheckJob(j)) {
      // Pods of a group often arrive one by one: the group is short of them only once it had
      // time to fill (outcome.h, kPodsArrivalGrace).
      if (invalid->reason != JobReason::kNotEnoughPods || PodsSettled(session, j)) {
        session.RecordJobUnschedulable(j, invalid->reason, std::move(invalid->message));
      }
      continue;
    }
    if (job.queue_index == kNoQueue) {
      session.RecordJobUnschedulable(j, JobReason::kQueueNotFound,
                                     "queue " + job.queue + " does not exist");
      continue;
    }
    if (session.JobReady(j)) continue;  // at its minimum already: backfill adds the rest
    if (session.job_holding_tasks(j) > 0) {
      broken.push_back(j);
    } else {
      by_queue[job.queue_index].push_back(j);
    }
  }
  // A gang that already holds nodes but is below its minimum (a bind of it was refused, or a
  // member was deleted) is completed first, and its queue's deserved share does not stop it: the
  // room it holds is counted already, is wasted until it starts, and a gang left broken is what
  // gang scheduling promises never to leave. Its queue's capability still does (AllocateJob).
  std::sort(broken.begin(), broken.end(),
            [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
  for (JobIndex j : broken) {
    AllocateJob(session, j);
    if (!session.JobReady(j)) ReleaseIfBrokenTooLong(session, j, options_);
  }
  struct Cursor {
    QueueIndex queue;
    std::vector<JobIndex> jobs;
    std::size_t next = 0;
  };
  std::vector<Cursor> queues;
  for (auto& [queue, jobs] : by_queue) {
    std::sort(jobs.begin(), jobs.end(),
              [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
    queues.push_back({queue, std::move(jobs), 0});
  }
  while (true) {
    Cursor* best = nullptr;
    for (Cursor& c : queues) {
      if (c.next >= c.jobs.size()) continue;
      if (best == nullptr || session.QueueBefore(c.queue, best->queue)) best = &c;
    }
    if (best == nullptr) break;
    if (auto why = session.QueueOverused(best->queue)) {
      // The queue has its share: its remaining jobs wait, and hear why.
      for (; best->next < best->jobs.size(); ++best->next) {
        session.RecordJobUnschedulable(best->jobs[best->next], JobReason::kQueueOverused, *why);
      }
      continue;
    }
    AllocateJob(session, best->jobs[best->next++]);
  }
}

}  // namespace arbiter
