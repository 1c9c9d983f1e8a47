#include "arbiter/sim/scenario_runner.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "arbiter/actions/builtin.h"
#include "arbiter/cache/snapshot.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/sim/invariants.h"

namespace arbiter::sim {

SimulatedCluster::SimulatedCluster(SimulatedClusterOptions options)
    : options_(std::move(options)),
      cache_(options_.cache),
      applier_(cache_, ApplierOptions{.failed_bind_ttl = options_.failed_bind_ttl,
                                      .preemption_ttl = std::chrono::seconds(30)}),
      fault_random_(options_.bind_faults.seed),
      scheduler_name_(options_.cache.scheduler_name) {}

StatusOr<std::unique_ptr<SimulatedCluster>> SimulatedCluster::Create(
    const SchedulerConfig& config, SimulatedClusterOptions options) {
  std::unique_ptr<SimulatedCluster> cluster(new SimulatedCluster(std::move(options)));
  RegisterBuiltinPlugins(cluster->registry_);
  RegisterBuiltinActions(cluster->registry_);
  ARBITER_ASSIGN_OR_RETURN(cluster->scheduler_, Scheduler::Create(config, cluster->registry_));
  Queue default_queue;
  default_queue.meta.name = std::string(kDefaultQueueName);
  default_queue.meta.uid = "queue/" + default_queue.meta.name;
  cluster->Add(default_queue);
  return cluster;
}

void SimulatedCluster::Add(const Node& node) {
  nodes_[node.meta.name] = node;
  cache_.UpsertNode(node);
}

void SimulatedCluster::Add(const Queue& queue) {
  queues_[queue.meta.name] = queue;
  cache_.UpsertQueue(queue);
}

void SimulatedCluster::Add(const PodDisruptionBudget& pdb) {
  pdbs_[pdb.meta.Key()] = pdb;
  cache_.UpsertPodDisruptionBudget(pdb);
}

void SimulatedCluster::Add(const DataSet& data_set) { cache_.UpsertDataSet(data_set); }

void SimulatedCluster::Add(const PriorityClass& priority_class) {
  cache_.UpsertPriorityClass(priority_class);
}

void SimulatedCluster::Add(const PodGroup& group) {
  groups_[group.meta.Key()] = group;
  cache_.UpsertPodGroup(group);
}

void SimulatedCluster::Add(const Pod& pod) {
  pods_[pod.meta.uid] = pod;
  cache_.UpsertPod(pod);
}

Status SimulatedCluster::DeletePod(const std::string& uid) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return NotFoundError("no pod with uid " + uid);
  cache_.DeletePod(it->second);
  pods_.erase(it);
  return Status::Ok();
}

Status SimulatedCluster::DeletePodGroup(const std::string& key) {
  auto it = groups_.find(key);
  if (it == groups_.end()) return NotFoundError("no pod group " + key);
  cache_.DeletePodGroup(it->second);
  groups_.erase(it);
  return Status::Ok();
}

Status SimulatedCluster::FinishPod(const std::string& uid, PodPhase phase,
                                   std::optional<Clock::WallTime> at) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return NotFoundError("no pod with uid " + uid);
  it->second.status.phase = phase;
  it->second.status.finished_at = at.value_or(now_);
  cache_.UpsertPod(it->second);
  return Status::Ok();
}

SessionRecord SimulatedCluster::RunSession() {
  return RunSessionAt(now_ + std::chrono::seconds(1));
}

SessionRecord SimulatedCluster::RunSessionAt(Clock::WallTime now) {
  now_ = std::max(now_, now);
  ++sessions_run_;
  SessionRecord record;
  record_ = &record;
  AdvanceTo(now_);
  record.expired_assumptions = applier_.ExpireAssumed(Monotonic());
  const auto started = std::chrono::steady_clock::now();
  // The cache hands back its last snapshot while nothing changed: the session's time is ours.
  std::shared_ptr<const Snapshot> snapshot = cache_.TakeSnapshot(now_);
  record.snapshot_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  scheduler_->ForgetEvictions(applier_.TakeUnmadeEvictions());
  record.result = scheduler_->RunSession(*snapshot, now_);
  record.scheduler_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  applier_.Apply(record.result, *snapshot, *this, Monotonic());
  record_ = nullptr;
  return record;
}

void SimulatedCluster::AdvanceTo(Clock::WallTime now) {
  while (!binds_in_flight_.empty() && binds_in_flight_.begin()->first <= now) {
    const BindDecision bind = binds_in_flight_.begin()->second;
    binds_in_flight_.erase(binds_in_flight_.begin());
    CompleteBind(bind);
  }
  while (!deletions_.empty() && deletions_.begin()->first <= now) {
    const std::string uid = deletions_.begin()->second;
    deletions_.erase(deletions_.begin());
    (void)DeletePod(uid);  // gone already: nothing to do
  }
}

void SimulatedCluster::Bind(const std::vector<BindDecision>& binds) {
  const BindFaults& faults = options_.bind_faults;
  std::uniform_real_distribution<double> draw(0.0, 1.0);
  for (const BindDecision& bind : binds) {
    const bool forced = fail_next_bind_.erase(bind.pod_uid()) > 0;
    if (forced || (faults.failure_rate > 0 && draw(fault_random_) < faults.failure_rate)) {
      if (record_ != nullptr) {
        record_->failed_binds.push_back(bind.namespace_name() + "/" + bind.pod_name());
      }
      applier_.BindDone(bind, BindOutcome::kFailed, Monotonic());
      continue;
    }
    if (faults.latency.count() > 0) {
      binds_in_flight_.emplace(now_ + faults.latency, bind);
      continue;
    }
    CompleteBind(bind);
  }
}

void SimulatedCluster::CompleteBind(const BindDecision& bind) {
  auto it = pods_.find(bind.pod_uid());
  const std::string who = "pod " + bind.namespace_name() + "/" + bind.pod_name();
  std::string refused;
  if (it == pods_.end()) {
    refused = who + ": bound to " + bind.node_name() + " but it is gone";
  } else if (!it->second.spec.node_name.empty()) {
    refused = who + ": bound twice (on " + it->second.spec.node_name + ", bound again to " +
              bind.node_name() + ")";
  } else if (!nodes_.contains(bind.node_name())) {
    refused = who + ": bound to " + bind.node_name() + ", which does not exist";
  }
  if (!refused.empty()) {
    if (record_ != nullptr) record_->refused_binds.push_back(std::move(refused));
    applier_.BindDone(bind, BindOutcome::kFailed, Monotonic());
    return;
  }
  Pod& pod = it->second;
  pod.spec.node_name = bind.node_name();
  pod.status.phase = PodPhase::kRunning;
  pod.status.start_time = now_;
  cache_.UpsertPod(pod);
  if (record_ != nullptr) record_->bound.push_back(bind);
  applier_.BindDone(bind, BindOutcome::kBound, Monotonic());
}

std::string SimulatedCluster::EvictionRefusal(const Pod& pod) const {
  if (refuse_evictions_.contains(pod.meta.uid)) return "Too many requests (429)";
  const PodDisruptionBudget* covering = nullptr;
  for (const auto& [key, pdb] : pdbs_) {
    if (pdb.meta.namespace_name != pod.meta.namespace_name || !pdb.Selects(pod.meta.labels)) {
      continue;
    }
    if (covering != nullptr) return "more than one PodDisruptionBudget covers it";
    covering = &pdb;
  }
  if (covering != nullptr && covering->Allowed() <= 0) {
    return "Cannot evict pod as it would violate the pod's disruption budget " +
           covering->meta.Key();
  }
  return "";
}

void SimulatedCluster::Preempt(const PreemptionBatch& batch) {
  std::vector<std::string> refused;
  const auto refuse = [&](const EvictDecision& e, const std::string& why) {
    refused.push_back(e.pod_uid);
    if (record_ != nullptr) {
      record_->refused_evictions.push_back("pod " + e.namespace_name + "/" + e.pod_name + ": " +
                                           why);
    }
  };
  // The dry run: nothing changes.
  for (const EvictDecision& e : batch.evictions) {
    auto it = pods_.find(e.pod_uid);
    if (it == pods_.end()) continue;
    if (std::string why = EvictionRefusal(it->second); !why.empty()) refuse(e, why);
  }
  if (refused.empty()) {
    for (const EvictDecision& e : batch.evictions) {
      auto it = pods_.find(e.pod_uid);
      if (it == pods_.end()) continue;
      if (std::string why = EvictionRefusal(it->second); !why.empty()) {
        refuse(e, why);  // an earlier eviction of the batch used up the budget
        continue;
      }
      for (auto& [key, pdb] : pdbs_) {
        if (pdb.meta.namespace_name == e.namespace_name && pdb.Selects(it->second.meta.labels)) {
          --pdb.disruptions_allowed;
          cache_.UpsertPodDisruptionBudget(pdb);
        }
      }
      Evict(e);
    }
  }
  if (refused.empty()) {
    for (const NominationDecision& n : batch.nominations) Nominate(n);
    for (const PodGroupUpdate& u : batch.victim_updates) WriteGroupStatus(u);
  }
  applier_.PreemptionDone(batch, refused, Monotonic());
}

void SimulatedCluster::Evict(const EvictDecision& eviction) {
  auto it = pods_.find(eviction.pod_uid);
  if (it == pods_.end() || it->second.meta.deletion_timestamp.has_value()) return;
  if (record_ != nullptr) record_->evicted.push_back(eviction);
  it->second.meta.deletion_timestamp = now_;
  // As the scheduler marks it (runtime/binder.cc) before the Eviction API deletes it.
  it->second.status.conditions.push_back(
      Condition{"DisruptionTarget", "True", eviction.reason, eviction.message, now_});
  cache_.UpsertPod(it->second);
  deletions_.emplace(now_ + std::chrono::seconds(eviction.grace_period_seconds), eviction.pod_uid);
}

void SimulatedCluster::Nominate(const NominationDecision& nomination) {
  auto it = pods_.find(nomination.pod_uid);
  if (it == pods_.end()) return;
  it->second.status.nominated_node_name = nomination.node_name;
  cache_.UpsertPod(it->second);
}

void SimulatedCluster::ReportUnschedulable(const PodVerdict& /*verdict*/, const Pod* /*observed*/) {
  // The verdicts are in the session's record; nothing else in the simulated world reads them.
}

void SimulatedCluster::WriteGroupStatus(const PodGroupUpdate& update) {
  auto it = groups_.find(update.namespace_name + "/" + update.name);
  if (it == groups_.end()) return;  // deleted meanwhile: the API server says NotFound
  it->second.status = update.status;
  cache_.UpsertPodGroup(it->second);
}

void SimulatedCluster::WriteQueueStatus(const QueueUpdate& update) {
  auto it = queues_.find(update.name);
  if (it == queues_.end()) return;
  it->second.status = update.status;
  cache_.UpsertQueue(it->second);
}

namespace {

std::string GroupKeyOf(const Pod& pod) {
  const std::string group = PodGroupNameOf(pod);
  return group.empty() ? "" : pod.meta.namespace_name + "/" + group;
}

std::string Join(const std::set<std::string>& names) {
  std::string out = "[";
  for (const std::string& n : names) out += (out.size() > 1 ? ", " : "") + n;
  return out + "]";
}

std::string JoinNodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (const std::string& n : nodes) out += (out.empty() ? "" : " or ") + n;
  return out;
}

// Checks one session's expectations against the cluster after it; appends failures.
class ExpectationChecker {
 public:
  ExpectationChecker(const SimulatedCluster& cluster, const SessionRecord& record,
                     std::vector<std::string>& failures)
      : cluster_(cluster), record_(record), failures_(failures) {}

  void Check(const Expectation& e) {
    for (const BindExpectation& b : e.binds) CheckBind(b);
    if (e.bind_count.has_value() &&
        static_cast<std::int64_t>(record_.result.binds.size()) != *e.bind_count) {
      Fail("expected " + std::to_string(*e.bind_count) + " binds, got " +
           std::to_string(record_.result.binds.size()) + BindList());
    }
    for (const auto& [group, expected] : e.bound_count) {
      std::int32_t n = 0;
      for (const auto& [uid, pod] : cluster_.pods()) {
        n += (GroupKeyOf(pod) == group && !pod.spec.node_name.empty() && !pod.Finished()) ? 1 : 0;
      }
      if (n != expected) {
        Fail("expected " + std::to_string(expected) + " pods of " + group + " on nodes, got " +
             std::to_string(n));
      }
    }
    for (const std::string& pod : e.bound) {
      const Pod* p = FindPod(pod);
      if (p == nullptr || p->spec.node_name.empty()) {
        Fail("expected " + pod + " on a node, but it is on none" + VerdictOf(pod));
      }
    }
    for (const std::string& pod : e.unbound) {
      const Pod* p = FindPod(pod);
      if (p != nullptr && !p->spec.node_name.empty()) {
        Fail("expected " + pod + " on no node, but it is on " + p->spec.node_name);
      }
    }
    for (const auto& [group, phase] : e.phases) CheckPhase(group, phase);
    for (const ConditionExpectation& c : e.conditions) CheckCondition(c);
    for (const auto& [pod, text] : e.failed_scheduling) CheckVerdict(pod, text);
    if (e.evicted.has_value()) {
      std::set<std::string> got;
      for (const EvictDecision& d : record_.evicted)
        got.insert(d.namespace_name + "/" + d.pod_name);
      if (got != *e.evicted) Fail("expected evicted " + Join(*e.evicted) + ", got " + Join(got));
    }
    if (e.refused_evictions.has_value()) {
      std::set<std::string> got;
      for (const std::string& r : record_.refused_evictions) {
        got.insert(r.substr(4, r.find(':') - 4));  // "pod ns/name: why"
      }
      if (got != *e.refused_evictions) {
        Fail("expected evictions refused of " + Join(*e.refused_evictions) + ", got " + Join(got));
      }
    }
    for (const auto& [pod, node] : e.nominated) {
      const Pod* p = FindPod(pod);
      const std::string got = p == nullptr ? "" : p->status.nominated_node_name;
      if (got != node) {
        Fail("expected " + pod + " nominated to " + (node.empty() ? "no node" : node) + ", got " +
             (got.empty() ? "none" : got));
      }
    }
  }

 private:
  void Fail(const std::string& what) { failures_.push_back(what); }

  const Pod* FindPod(const std::string& uid) const {
    auto it = cluster_.pods().find(uid);
    return it == cluster_.pods().end() ? nullptr : &it->second;
  }

  const PodVerdict* FindVerdict(const std::string& uid) const {
    for (const PodVerdict& v : record_.result.unschedulable) {
      if (v.pod_uid == uid) return &v;
    }
    return nullptr;
  }

  std::string VerdictOf(const std::string& uid) const {
    const PodVerdict* v = FindVerdict(uid);
    return v == nullptr ? " (and no verdict)" : " (verdict: " + v->message + ")";
  }

  std::string BindList() const {
    std::string out;
    for (const BindDecision& b : record_.result.binds) {
      out += (out.empty() ? ": " : ", ") + b.namespace_name() + "/" + b.pod_name() + "->" +
             b.node_name();
    }
    return out;
  }

  void CheckBind(const BindExpectation& b) {
    for (const BindDecision& d : record_.result.binds) {
      if (d.pod_uid() != b.pod) continue;
      if (std::find(b.nodes.begin(), b.nodes.end(), d.node_name()) == b.nodes.end()) {
        Fail("expected " + b.pod + " bound to " + JoinNodes(b.nodes) + ", but it was bound to " +
             d.node_name());
      }
      return;
    }
    Fail("expected " + b.pod + " bound to " + JoinNodes(b.nodes) + " by this session, but it " +
         "was not" + VerdictOf(b.pod));
  }

  void CheckPhase(const std::string& group, PodGroupPhase phase) {
    auto it = cluster_.groups().find(group);
    if (it == cluster_.groups().end()) {
      Fail("expected pod group " + group + " in phase " + std::string(PodGroupPhaseName(phase)) +
           ", but there is no such PodGroup");
      return;
    }
    if (it->second.status.phase != phase) {
      Fail("expected pod group " + group + " in phase " + std::string(PodGroupPhaseName(phase)) +
           ", got " + std::string(PodGroupPhaseName(it->second.status.phase)));
    }
  }

  void CheckCondition(const ConditionExpectation& c) {
    auto it = cluster_.groups().find(c.group);
    const Condition* found = it == cluster_.groups().end()
                                 ? nullptr
                                 : FindCondition(it->second.status.conditions, c.type);
    const std::string what = "pod group " + c.group + " condition " + c.type;
    if (found == nullptr) {
      Fail("expected " + what + ", but it has none");
      return;
    }
    if (c.status.has_value() && found->status != *c.status) {
      Fail("expected " + what + " status " + *c.status + ", got " + found->status);
    }
    if (c.reason.has_value() && found->reason != *c.reason) {
      Fail("expected " + what + " reason " + *c.reason + ", got " + found->reason);
    }
    if (found->message.find(c.message) == std::string::npos) {
      Fail("expected " + what + " message to contain \"" + c.message + "\", got \"" +
           found->message + "\"");
    }
  }

  void CheckVerdict(const std::string& pod, const std::string& text) {
    const PodVerdict* v = FindVerdict(pod);
    if (v == nullptr) {
      Fail("expected a FailedScheduling verdict for " + pod + ", but this session gave none");
    } else if (v->message.find(text) == std::string::npos) {
      Fail("expected the FailedScheduling verdict for " + pod + " to contain \"" + text +
           "\", got \"" + v->message + "\"");
    }
  }

  const SimulatedCluster& cluster_;
  const SessionRecord& record_;
  std::vector<std::string>& failures_;
};

Status ApplyEvents(const ScenarioStep& step, SimulatedCluster& cluster,
                   std::set<std::string>& disturbed) {
  auto disturb = [&](const std::string& uid) {
    auto it = cluster.pods().find(uid);
    if (it != cluster.pods().end()) {
      if (std::string key = GroupKeyOf(it->second); !key.empty()) disturbed.insert(key);
    }
  };
  for (const std::string& uid : step.delete_pods) {
    disturb(uid);
    ARBITER_RETURN_IF_ERROR(cluster.DeletePod(uid));
  }
  for (const std::string& uid : step.succeed_pods) {
    ARBITER_RETURN_IF_ERROR(cluster.FinishPod(uid, PodPhase::kSucceeded));
  }
  for (const std::string& uid : step.fail_pods) {
    disturb(uid);
    ARBITER_RETURN_IF_ERROR(cluster.FinishPod(uid, PodPhase::kFailed));
  }
  for (const std::string& uid : step.fail_binds) cluster.FailNextBind(uid);
  for (const std::string& uid : step.refuse_evictions) cluster.RefuseEvictions(uid);
  for (const Node& node : step.add_nodes) cluster.Add(node);
  for (const PodGroup& group : step.add_groups) cluster.Add(group);
  for (const Pod& pod : step.add_pods) {
    if (!pod.spec.node_name.empty()) disturbed.insert(GroupKeyOf(pod));
    cluster.Add(pod);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ScenarioOutcome> RunScenario(const Scenario& scenario) {
  ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<SimulatedCluster> cluster,
                           SimulatedCluster::Create(scenario.config));
  std::set<std::string> disturbed;
  for (const Node& node : scenario.nodes) cluster->Add(node);
  for (const PriorityClass& pc : scenario.priority_classes) cluster->Add(pc);
  for (const Queue& queue : scenario.queues) cluster->Add(queue);
  for (const PodDisruptionBudget& pdb : scenario.pdbs) cluster->Add(pdb);
  for (const PodGroup& group : scenario.groups) cluster->Add(group);
  for (const Pod& pod : scenario.pods) {
    if (!pod.spec.node_name.empty()) disturbed.insert(GroupKeyOf(pod));
    cluster->Add(pod);
  }
  ScenarioOutcome outcome;
  for (const ScenarioStep& step : scenario.steps) {
    if (Status s = ApplyEvents(step, *cluster, disturbed); !s.ok()) {
      outcome.failures.push_back(scenario.source + ": " + step.name + ": " + s.message());
      return outcome;
    }
    for (std::int32_t r = 0; r < step.repeat; ++r) {
      const SessionRecord record = cluster->RunSession();
      std::vector<std::string> failures;
      for (const Violation& v : CheckSessionInvariants(*cluster, record, disturbed)) {
        failures.push_back("invariant " + ToString(v));
      }
      ExpectationChecker(*cluster, record, failures).Check(step.expect);
      const std::string where = scenario.source + ": " + step.name + ", session " +
                                std::to_string(cluster->sessions_run()) + ": ";
      for (const std::string& f : failures) outcome.failures.push_back(where + f);
    }
  }
  outcome.sessions = cluster->sessions_run();
  return outcome;
}

}  // namespace arbiter::sim
