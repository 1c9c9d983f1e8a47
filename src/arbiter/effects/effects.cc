#include "arbiter/effects/effects.h"

#include <string_view>
#include <unordered_map>

namespace arbiter {

void Applier::Apply(const SessionResult& result, const Snapshot& snapshot, Effects& effects,
                    Clock::MonotonicTime now) {
  for (const BindDecision& d : result.binds) cache_.Assume(d.pod_uid, d.node_name);
  if (!result.binds.empty()) effects.Bind(result.binds);
  // Assumed before they are sent, as binds are: the next session must not count an evicted pod
  // as running (nor choose it again), whatever the watch has delivered by then.
  // Statuses too: a preemption's count and condition are recorded once, by the session that
  // evicted, and must survive a next session that runs before the watch shows the write.
  for (const PodGroupUpdate& u : result.group_updates) {
    cache_.AssumeGroupStatus(u.namespace_name, u.name, u.status, now + options_.preemption_ttl);
  }
  for (const EvictDecision& e : result.evictions) {
    cache_.AssumeEvicting(e.pod_uid, now + options_.preemption_ttl);
    effects.Evict(e);
  }
  for (const NominationDecision& n : result.nominations) {
    cache_.AssumeNominated(n.pod_uid, n.node_name, now + options_.preemption_ttl);
    effects.Nominate(n);
  }
  if (!result.unschedulable.empty()) {
    // The pods as the snapshot saw them: one pass over the tasks, looked up by uid.
    std::unordered_map<std::string_view, const Pod*> observed;
    observed.reserve(result.unschedulable.size());
    for (const PodVerdict& v : result.unschedulable) observed.emplace(v.pod_uid, nullptr);
    for (const TaskInfo& task : snapshot.tasks) {
      auto it = observed.find(task.uid());
      if (it != observed.end()) it->second = task.pod.get();
    }
    for (const PodVerdict& v : result.unschedulable) {
      effects.ReportUnschedulable(v, observed[v.pod_uid]);
    }
  }
  for (const PodGroupUpdate& update : result.group_updates) effects.WriteGroupStatus(update);
  for (const QueueUpdate& update : result.queue_updates) effects.WriteQueueStatus(update);
}

void Applier::BindDone(const BindDecision& bind, BindOutcome outcome, Clock::MonotonicTime now) {
  if (outcome == BindOutcome::kFailed)
    cache_.BindFailed(bind.pod_uid, now, options_.failed_bind_ttl);
}

}  // namespace arbiter
