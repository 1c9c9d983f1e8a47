#include "arbiter/actions/backfill.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/placement.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"

namespace arbiter {

void BackfillAction::Execute(Session& session) {
  std::vector<JobIndex> jobs;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const PodGroupPhase phase = session.job_phase(j);
    if (phase != PodGroupPhase::kInqueue && phase != PodGroupPhase::kRunning) continue;
    if (session.job(j).queue_index == kNoQueue || session.PendingTasks(j).empty()) continue;
    if (session.CheckJob(j).has_value() || !session.JobReady(j)) continue;
    jobs.push_back(j);
  }
  // Progressive filling: each next task goes to the job first in job order now (with drf: the
  // lowest share, which each placement raises), so the order is re-read after every task.
  // Per job, the tasks that found no node, with the reason: a pending task with the same needs
  // is not tried again and gets the same reason.
  std::vector<std::vector<std::pair<TaskIndex, std::string>>> failed(jobs.size());
  while (!jobs.empty()) {
    auto best = std::min_element(jobs.begin(), jobs.end(),
                                 [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
    const JobIndex j = *best;
    const QueueIndex q = session.job(j).queue_index;
    std::optional<TaskIndex> next;
    auto& job_failed = failed[static_cast<std::size_t>(best - jobs.begin())];
    for (TaskIndex t : session.PendingTasks(j)) {
      auto twin = std::find_if(job_failed.begin(), job_failed.end(), [&](const auto& f) {
        return f.first == t || session.placement().SameNeeds(f.first, t);
      });
      if (twin == job_failed.end()) {
        next = t;
        break;
      }
      if (twin->first != t) {
        session.RecordTaskUnschedulable(t, TaskReason::kSameAsFailedTwin, twin->second);
      }
    }
    std::optional<std::string> limit;
    TaskReason limit_reason = TaskReason::kQueueOverused;
    if (next.has_value()) {
      limit = session.QueueOverused(q);
      if (!limit.has_value()) {
        limit = session.ExceedsCapability(q, *next);
        limit_reason = TaskReason::kQueueCapability;
      }
    }
    if (!next.has_value() || limit.has_value()) {
      if (limit.has_value()) {
        for (TaskIndex t : session.PendingTasks(j)) {
          session.RecordTaskUnschedulable(t, limit_reason, *limit);
        }
      }
      failed.erase(failed.begin() + (best - jobs.begin()));
      jobs.erase(best);
      continue;
    }
    PlacementFailure why;
    Statement statement(session);
    statement.ReleaseHold(*next);  // held again unless the task is placed
    // A topology job's pods beyond its minimum join it in its domain (TopologyPlan: the domain
    // its placed pods are in, then for Preferred any node).
    std::optional<NodeIndex> node;
    if (std::optional<TopologyPlan> plan = session.TopologyPlanOf(j)) {
      for (const TopologyDomain& domain : plan->tries) {
        why = PlacementFailure();
        node = session.placement().PickNode(*next, &why, &domain.nodes);
        if (node.has_value()) break;
      }
    } else {
      node = session.placement().PickNode(*next, &why);
    }
    if (node.has_value()) {
      statement.Allocate(*next, *node);
      statement.Commit();
    } else {
      statement.Discard();
      std::string message = why.Message(session, *next);
      session.RecordTaskUnschedulable(*next, TaskReason::kNoNodeFits, message);
      job_failed.emplace_back(*next, std::move(message));
    }
  }
}

}  // namespace arbiter
