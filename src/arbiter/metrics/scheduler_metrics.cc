#include "arbiter/metrics/scheduler_metrics.h"

#include <utility>
#include <vector>

#include "arbiter/resource/resource_name.h"

namespace arbiter::metrics {
namespace {

double Seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

// As kube-state-metrics labels resources: cpu in cores, memory in bytes, the rest in units.
std::pair<double, const char*> InBaseUnit(std::string_view resource, std::int64_t amount) {
  switch (UnitOf(resource)) {
    case ResourceUnit::kMilli:
      return {static_cast<double>(amount) / 1000.0, "core"};
    case ResourceUnit::kBytes:
      return {static_cast<double>(amount), "byte"};
    case ResourceUnit::kCount:
      break;
  }
  return {static_cast<double>(amount), "integer"};
}

void AddResources(prometheus::MetricFamily& family, const std::string& queue,
                  const ResourceList& list) {
  for (const ResourceEntry& e : list.entries()) {
    const auto [value, unit] = InBaseUnit(e.name, e.amount);
    AddSample(family, {{"queue", queue}, {"resource", e.name.str()}, {"unit", unit}}, value);
  }
}

}  // namespace

SchedulerMetrics::SchedulerMetrics(Metrics& metrics)
    : phases_(prometheus::BuildHistogram()
                  .Name("arbiter_session_duration_seconds")
                  .Help("Scheduling sessions' duration by phase: snapshot, decide (the actions), "
                        "apply (handing decisions to the writers), and total")
                  .Register(metrics.registry())),
      snapshot_(phases_.Add({{"phase", "snapshot"}}, DurationBuckets())),
      decide_(phases_.Add({{"phase", "decide"}}, DurationBuckets())),
      apply_(phases_.Add({{"phase", "apply"}}, DurationBuckets())),
      total_(phases_.Add({{"phase", "total"}}, DurationBuckets())),
      actions_(prometheus::BuildHistogram()
                   .Name("arbiter_action_duration_seconds")
                   .Help("Time of each action in a session, by action")
                   .Register(metrics.registry())),
      plugins_(prometheus::BuildHistogram()
                   .Name("arbiter_plugin_duration_seconds")
                   .Help("Time of each plugin's session open and close hooks, by plugin")
                   .Register(metrics.registry())),
      sessions_(prometheus::BuildCounter()
                    .Name("arbiter_sessions_total")
                    .Help("Scheduling sessions run")
                    .Register(metrics.registry())
                    .Add({})),
      decisions_(prometheus::BuildCounter()
                     .Name("arbiter_decisions_total")
                     .Help("Decisions of the sessions, by kind: bind, evict, nominate, "
                           "unschedulable (a pod left pending with its reason)")
                     .Register(metrics.registry())),
      binds_(decisions_.Add({{"decision", "bind"}})),
      evictions_(decisions_.Add({{"decision", "evict"}})),
      nominations_(decisions_.Add({{"decision", "nominate"}})),
      unschedulable_(decisions_.Add({{"decision", "unschedulable"}})),
      evictions_by_kind_(
          prometheus::BuildCounter()
              .Name("arbiter_evictions_decided_total")
              .Help("Evictions the sessions decided, by kind: preempt (for a job of "
                    "higher priority in the queue), reclaim (for a queue below its "
                    "share), quota (beyond a lowered ResourceQuota), release (a gang "
                    "below its minimum for too long, evicted whole to start again)")
              .Register(metrics.registry())),
      locality_binds_(prometheus::BuildCounter()
                          .Name("arbiter_locality_binds_total")
                          .Help("Pods the sessions bound whose job names where its data lives "
                                "(spec.locality), by where: node (a node holding the data), rack "
                                "(a rack holding it), any (elsewhere)")
                          .Register(metrics.registry())) {
  for (LocalityLevel level : {LocalityLevel::kNode, LocalityLevel::kRack, LocalityLevel::kAny}) {
    locality_children_[static_cast<std::size_t>(level)] =
        &locality_binds_.Add({{"level", std::string(LocalityLevelName(level))}});
  }
  for (EvictionKind kind : {EvictionKind::kPreempt, EvictionKind::kReclaim, EvictionKind::kQuota,
                            EvictionKind::kRelease, EvictionKind::kReservation}) {
    kind_children_[kind] = &evictions_by_kind_.Add({{"kind", std::string(EvictionKindName(kind))}});
  }
  metrics.AddCollector([this](Families& out) {
    std::lock_guard lock(mu_);
    out.insert(out.end(), state_.begin(), state_.end());
  });
}

prometheus::Histogram& SchedulerMetrics::Child(
    prometheus::Family<prometheus::Histogram>& family,
    std::map<std::string, prometheus::Histogram*, std::less<>>& cache, const std::string& label,
    const std::string& value) {
  auto it = cache.find(value);
  if (it == cache.end()) {
    it = cache.emplace(value, &family.Add({{label, value}}, DurationBuckets())).first;
  }
  return *it->second;
}

void SchedulerMetrics::ObserveSession(const Snapshot& snapshot, const SessionResult& result,
                                      const SessionTimes& times) {
  snapshot_.Observe(Seconds(times.snapshot));
  decide_.Observe(Seconds(times.decide));
  apply_.Observe(Seconds(times.apply));
  total_.Observe(Seconds(times.snapshot + times.decide + times.apply));
  for (const NamedDuration& d : result.stats.action_nanos) {
    Child(actions_, action_children_, "action", d.name)
        .Observe(Seconds(std::chrono::nanoseconds(d.nanos)));
  }
  for (const NamedDuration& d : result.stats.plugin_nanos) {
    Child(plugins_, plugin_children_, "plugin", d.name)
        .Observe(Seconds(std::chrono::nanoseconds(d.nanos)));
  }
  sessions_.Increment();
  binds_.Increment(static_cast<double>(result.binds.size()));
  evictions_.Increment(static_cast<double>(result.evictions.size()));
  nominations_.Increment(static_cast<double>(result.nominations.size()));
  unschedulable_.Increment(static_cast<double>(result.unschedulable.size()));
  for (const EvictDecision& e : result.evictions) kind_children_[e.kind]->Increment();
  for (std::size_t level = 0; level < locality_children_.size(); ++level) {
    locality_children_[level]->Increment(static_cast<double>(result.stats.locality_binds[level]));
  }

  // The gauges: pending jobs as the session left them; each queue's status as it computed it (an
  // update where it changed one, else the status it read).
  Families state;
  prometheus::MetricFamily& pending =
      AddFamily(state, "arbiter_pending_jobs",
                "Jobs waiting after the last session, by queue and by the gate that holds them "
                "(the gates of arbiterctl explain)",
                kGauge);
  for (const PendingJobCount& p : result.stats.pending_jobs) {
    AddSample(pending, {{"queue", p.queue}, {"gate", p.gate}}, static_cast<double>(p.jobs));
  }
  std::map<std::string_view, const QueueStatus*> statuses;
  for (const QueueInfo& q : snapshot.queues) statuses[q.name()] = &q.queue->status;
  for (const QueueUpdate& u : result.queue_updates) statuses[u.name] = &u.status;
  prometheus::MetricFamily& deserved = AddFamily(
      state, "arbiter_queue_deserved",
      "What each queue deserves (its share of the cluster by weight, within its capability)",
      kGauge);
  prometheus::MetricFamily& allocated = AddFamily(
      state, "arbiter_queue_allocated",
      "Requests of each queue's pods that hold a node (running, bound or being bound)", kGauge);
  prometheus::MetricFamily& used =
      AddFamily(state, "arbiter_queue_used", "Requests of each queue's running pods", kGauge);
  prometheus::MetricFamily& capability =
      AddFamily(state, "arbiter_queue_capability",
                "Each queue's capability, for the resources it limits", kGauge);
  for (const QueueInfo& q : snapshot.queues) {
    const std::string& name = q.name();
    const QueueStatus& status = *statuses[name];
    AddResources(deserved, name, status.deserved);
    AddResources(allocated, name, status.allocated);
    AddResources(used, name, status.used);
    AddResources(capability, name, q.queue->spec.capability);
  }
  std::lock_guard lock(mu_);
  state_ = std::move(state);
}

}  // namespace arbiter::metrics
