#include "arbiter/actions/backfill.h"

#include <algorithm>
#include <vector>

#include "arbiter/actions/placement.h"
#include "arbiter/framework/session.h"

namespace arbiter {

void BackfillAction::Execute(Session& session) {
  std::vector<JobIndex> jobs;
  for (JobIndex j = 0; j < session.job_count(); ++j) {
    const PodGroupPhase phase = session.job_phase(j);
    if (phase != PodGroupPhase::kInqueue && phase != PodGroupPhase::kRunning) continue;
    if (session.job(j).queue_index == kNoQueue || session.PendingTasks(j).empty()) continue;
    if (session.JobInvalid(j).has_value() || !session.JobReady(j)) continue;
    jobs.push_back(j);
  }
  std::sort(jobs.begin(), jobs.end(),
            [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
  for (JobIndex j : jobs) {
    std::vector<TaskIndex> failed;
    for (TaskIndex t : session.PendingTasks(j)) {
      if (std::any_of(failed.begin(), failed.end(),
                      [&](TaskIndex f) { return SamePlacementNeeds(session, f, t); })) {
        continue;
      }
      PlacementFailure why;
      if (std::optional<NodeIndex> node = PickNode(session, t, &why)) {
        Statement statement(session);
        statement.Allocate(t, *node);
        statement.Commit();
      } else {
        failed.push_back(t);
        session.RecordTaskUnschedulable(t, why.Message(session, t));
      }
    }
  }
}

}  // namespace arbiter
