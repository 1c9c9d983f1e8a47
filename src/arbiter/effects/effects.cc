#include "arbiter/effects/effects.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace arbiter {

void Applier::Apply(const SessionResult& result, const Snapshot& snapshot, Effects& effects,
                    Clock::MonotonicTime now) {
  for (const BindDecision& d : result.binds) cache_.Assume(d.pod_uid(), d.node_name());
  if (!result.binds.empty()) effects.Bind(result.binds);
  // Assumed before they are sent, as binds are: the next session must not count an evicted pod
  // as running (nor choose it again), whatever the watch has delivered by then.
  // Statuses too: a preemption's count and condition are recorded once, by the session that
  // evicted, and must survive a next session that runs before the watch shows the write.
  for (const PodGroupUpdate& u : result.group_updates) {
    cache_.AssumeGroupStatus(u.namespace_name, u.name, u.status, now + options_.preemption_ttl);
  }
  // One batch per preemptor, in the order the session evicted: its evictions, its pods'
  // nominations and its victims' statuses are made together or not at all.
  std::vector<PreemptionBatch> batches;
  for (const EvictDecision& e : result.evictions) {
    cache_.AssumeEvicting(e.pod_uid, now + options_.preemption_ttl);
    if (batches.empty() || batches.back().preemptor != e.preemptor) {
      batches.emplace_back().preemptor = e.preemptor;
    }
    batches.back().evictions.push_back(e);
  }
  const auto batch_of = [&](std::string_view preemptor) -> PreemptionBatch* {
    for (PreemptionBatch& b : batches) {
      if (b.preemptor == preemptor) return &b;
    }
    return nullptr;
  };
  const auto victim_batch = [&](const PodGroupUpdate& u) -> PreemptionBatch* {
    if (batches.empty()) return nullptr;
    const std::string key = u.namespace_name + "/" + u.name;
    for (PreemptionBatch& b : batches) {
      for (const EvictDecision& e : b.evictions) {
        if (e.victim_job == key) return &b;
      }
    }
    return nullptr;
  };
  for (const NominationDecision& n : result.nominations) {
    cache_.AssumeNominated(n.pod_uid, n.node_name, now + options_.preemption_ttl);
    if (PreemptionBatch* b = n.node_name.empty() ? nullptr : batch_of(n.job)) {
      b->nominations.push_back(n);
    } else {
      effects.Nominate(n);
    }
  }
  std::vector<const PodGroupUpdate*> direct_updates;
  for (const PodGroupUpdate& u : result.group_updates) {
    if (PreemptionBatch* b = victim_batch(u)) {
      b->victim_updates.push_back(u);
    } else {
      direct_updates.push_back(&u);
    }
  }
  for (const PreemptionBatch& b : batches) effects.Preempt(b);
  // Each pod as the snapshot saw it, at the task the verdict names: a dozen verdicts a session
  // need not visit thousands of tasks.
  for (const PodVerdict& v : result.unschedulable) {
    const Pod* observed = nullptr;
    if (v.task >= 0 && static_cast<std::size_t>(v.task) < snapshot.tasks.size() &&
        snapshot.tasks[static_cast<std::size_t>(v.task)].uid() == v.pod_uid) {
      observed = snapshot.tasks[static_cast<std::size_t>(v.task)].pod.get();
    } else {
      auto task = std::find_if(snapshot.tasks.begin(), snapshot.tasks.end(),
                               [&v](const TaskInfo& t) { return t.uid() == v.pod_uid; });
      if (task != snapshot.tasks.end()) observed = task->pod.get();
    }
    effects.ReportUnschedulable(v, observed);
  }
  for (const PodGroupUpdate* update : direct_updates) effects.WriteGroupStatus(*update);
  for (const QueueUpdate& update : result.queue_updates) effects.WriteQueueStatus(update);
}

void Applier::PreemptionDone(const PreemptionBatch& batch, const std::vector<std::string>& refused,
                             Clock::MonotonicTime now) {
  if (refused.empty()) return;
  for (const EvictDecision& e : batch.evictions) cache_.ForgetEvicting(e.pod_uid);
  for (const NominationDecision& n : batch.nominations) cache_.ForgetNominated(n.pod_uid);
  for (const PodGroupUpdate& u : batch.victim_updates) {
    cache_.ForgetGroupStatus(u.namespace_name, u.name);
  }
  for (const std::string& uid : refused) {
    cache_.AssumeEvictionRefused(uid, now + options_.preemption_ttl);
  }
  std::lock_guard lock(unmade_mu_);
  for (const EvictDecision& e : batch.evictions) unmade_.push_back(e.pod_uid);
}

std::vector<std::string> Applier::TakeUnmadeEvictions() {
  std::lock_guard lock(unmade_mu_);
  return std::exchange(unmade_, {});
}

void Applier::BindDone(const BindDecision& bind, BindOutcome outcome, Clock::MonotonicTime now) {
  if (outcome == BindOutcome::kFailed) {
    cache_.BindFailed(bind.pod_uid(), now, options_.failed_bind_ttl);
  } else if (outcome == BindOutcome::kRefused) {
    cache_.BindFailed(bind.pod_uid(), now, options_.refused_bind_retry);
  }
}

}  // namespace arbiter
