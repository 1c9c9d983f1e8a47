#include "arbiter/actions/preempt.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

namespace {

bool OnNodes(const Session& session, TaskIndex t, const ActiveReservation& r) {
  const NodeIndex n = session.task_node(t);
  return n != kNoNode && std::binary_search(r.nodes.begin(), r.nodes.end(), n);
}

}  // namespace

void PreemptAction::Execute(Session& session) {
  const VictimFilter same_queue_lower = [](const Session& s, JobIndex preemptor, TaskIndex v) {
    const JobInfo& victim = s.job(s.task(v).job);
    const JobInfo& job = s.job(preemptor);
    return victim.queue_index == job.queue_index && victim.priority < job.priority;
  };
  // For a gang holding a reservation: the jobs that accept preemption and have pods on its nodes
  // (all their pods, so that one whose minimum would break can be evicted whole).
  std::vector<std::int8_t> accepts(static_cast<std::size_t>(session.job_count()), -1);
  const auto accepting = [&](JobIndex j) {
    std::int8_t& known = accepts[j.pos()];
    if (known < 0) known = AcceptsPreemption(session, j) ? 1 : 0;
    return known == 1;
  };
  std::vector<char> on_reserved(static_cast<std::size_t>(session.job_count()));
  const VictimFilter on_reserved_nodes = [&](const Session& s, JobIndex, TaskIndex v) {
    return on_reserved[s.task(v).job.pos()] != 0;
  };
  std::optional<VictimIndex> index;  // made when the first job plans
  for (JobIndex j : PreemptorCandidates(session)) {
    if (PreemptionNever(session, j)) continue;
    if (!index.has_value()) index.emplace(session, options_);
    if (std::optional<JobVerdict> wait = WaitOrTimeout(session, j, options_)) {
      session.RecordJobUnschedulable(j, wait->reason, std::move(wait->message),
                                     /*tell_pods=*/true, /*replace=*/true);
      continue;
    }
    // A reserved gang first takes back its nodes from the jobs that accepted preemption there,
    // which it may as soon as it fits without them; before any job that did not accept it.
    if (const ActiveReservation* r = session.ReservationOf(j); r != nullptr) {
      std::fill(on_reserved.begin(), on_reserved.end(), 0);
      bool any = false;
      for (TaskIndex t :
           TaskIndex::Range(static_cast<std::int32_t>(session.snapshot().tasks.size()))) {
        const TaskState state = session.task_state(t);
        const JobIndex owner = session.task(t).job;
        if (HoldsNode(state) && state != TaskState::kReleasing && owner != j &&
            session.job(owner).queue_index != kNoQueue && OnNodes(session, t, *r) &&
            accepting(owner)) {
          on_reserved[owner.pos()] = 1;
          any = true;
        }
      }
      if (any) {
        const QueueIndex own = session.job(j).queue_index;
        // A reservation never pushes another queue below its guarantee or deserved share.
        const QueueGuard guard = [&](const Session& s, QueueIndex q, const ResourceVector& taken) {
          return q == own || KeepsShareWithout(s, q, taken);
        };
        // Victims on its reserved nodes only (elsewhere, only the rest of a job that would fall
        // below its minimum): the gang is planned on its reserved nodes and on the others where
        // no pod of those jobs runs, whose idle room it may still take.
        std::vector<char> off_limits(static_cast<std::size_t>(session.node_count()));
        for (TaskIndex t :
             TaskIndex::Range(static_cast<std::int32_t>(session.snapshot().tasks.size()))) {
          const NodeIndex n = session.task_node(t);
          if (n != kNoNode && HoldsNode(session.task_state(t)) &&
              on_reserved[session.task(t).job.pos()] != 0 && !OnNodes(session, t, *r)) {
            off_limits[n.pos()] = 1;
          }
        }
        std::vector<NodeIndex> within;
        for (NodeIndex n : NodeIndex::Range(session.node_count())) {
          if (off_limits[n.pos()] == 0) within.push_back(n);
        }
        PreemptionPlan plan = PreemptFor(session, j, EvictionKind::kReservation, on_reserved_nodes,
                                         options_, guard, &within, &*index);
        if (plan.committed) {
          session.RecordJobUnschedulable(
              j, JobReason::kWaitingForPreemption,
              "evicting " + std::to_string(plan.evicted) +
                  " pod(s) that accept preemption from the nodes reserved for it; " +
                  std::to_string(plan.pipelined) + " pod(s) nominated to the room they free",
              /*tell_pods=*/true, /*replace=*/true);
          continue;
        }
      }
    }
    PreemptionPlan plan = PreemptFor(session, j, EvictionKind::kPreempt, same_queue_lower, options_,
                                     /*guard=*/nullptr, /*within=*/nullptr, &*index);
    if (plan.committed) {
      session.RecordJobUnschedulable(
          j, JobReason::kWaitingForPreemption,
          "preempting " + std::to_string(plan.evicted) +
              " pod(s) of lower-priority jobs in queue " + session.job(j).queue + "; " +
              (plan.withdrawn > 0 ? "taking back " + std::to_string(plan.withdrawn) +
                                        " placement(s) not yet bound; "
                                  : std::string()) +
              std::to_string(plan.pipelined) + " pod(s) nominated to the room they free",
          /*tell_pods=*/true, /*replace=*/true);
    } else if (!plan.why_not.empty()) {
      session.RecordJobUnschedulable(j, JobReason::kPreemptionWouldNotFit,
                                     "preemption would not make room: " + plan.why_not,
                                     /*tell_pods=*/true, /*replace=*/true);
    }
  }
}

}  // namespace arbiter
