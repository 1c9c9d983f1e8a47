#include "arbiter/framework/scheduler.h"

#include <chrono>
#include <set>
#include <string>
#include <utility>

#include "arbiter/framework/session.h"

namespace arbiter {

namespace {

// Resolves one extension point of one plugin into the tier's list, if the plugin implements it.
template <typename T>
void Resolve(Plugin* plugin, PluginSet::Tiers<T>& tiers) {
  if (const T* ext = dynamic_cast<const T*>(plugin)) tiers.back().push_back(ext);
}

template <typename Tiers>
void OpenTier(Tiers& tiers) {
  tiers.emplace_back();
}

}  // namespace

StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(const SchedulerConfig& config,
                                                       const Registry& registry) {
  std::unique_ptr<Scheduler> scheduler(new Scheduler());
  if (config.actions.empty()) return InvalidArgumentError("scheduler config: no actions");
  for (const std::string& name : config.actions) {
    ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<Action> action, registry.MakeAction(name, config));
    scheduler->actions_.push_back(std::move(action));
  }
  scheduler->reservations_ = ReservationBook(config.reservation);
  if (config.filter_threads > 0) {
    scheduler->filter_pool_ = std::make_unique<WorkerPool>(config.filter_threads);
  }
  PluginSet& set = scheduler->plugins_;
  std::set<std::string> seen;
  for (const TierConfig& tier : config.tiers) {
    OpenTier(set.queue_order);
    OpenTier(set.job_order);
    OpenTier(set.task_order);
    OpenTier(set.job_valid);
    OpenTier(set.job_ready);
    OpenTier(set.job_enqueue);
    OpenTier(set.filter);
    OpenTier(set.placement_class);
    OpenTier(set.job_admitted);
    OpenTier(set.queue_limit);
    OpenTier(set.queue_share);
    OpenTier(set.allocation_events);
    OpenTier(set.score);
    OpenTier(set.topology);
    OpenTier(set.locality);
    for (const PluginConfig& pc : tier.plugins) {
      if (!seen.insert(pc.name).second) {
        return InvalidArgumentError("scheduler config: plugin \"" + pc.name + "\" listed twice");
      }
      ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<Plugin> plugin,
                               registry.MakePlugin(pc.name, pc.arguments));
      Plugin* raw = plugin.get();
      Resolve(raw, set.queue_order);
      Resolve(raw, set.job_order);
      Resolve(raw, set.task_order);
      Resolve(raw, set.job_valid);
      Resolve(raw, set.job_ready);
      Resolve(raw, set.job_enqueue);
      Resolve(raw, set.filter);
      Resolve(raw, set.placement_class);
      if (auto* enqueue = dynamic_cast<JobEnqueueExtension*>(raw)) {
        set.job_admitted.back().push_back(enqueue);
      }
      Resolve(raw, set.queue_limit);
      Resolve(raw, set.queue_share);
      if (auto* events = dynamic_cast<AllocationEventExtension*>(raw)) {
        set.allocation_events.back().push_back(events);
      }
      Resolve(raw, set.score);
      Resolve(raw, set.topology);
      Resolve(raw, set.locality);
      set.owned.push_back(std::move(plugin));
    }
  }
  return scheduler;
}

SessionResult Scheduler::RunSession(const Snapshot& snapshot, Clock::WallTime now) {
  Session session(snapshot, plugins_, now, filter_pool_.get(), &reservations_, &history_);
  session.set_estimates(estimates_.get());
  session.set_quiet_groups(&quiet_groups_);
  std::vector<NamedDuration> action_nanos;
  action_nanos.reserve(actions_.size());
  for (const auto& action : actions_) {
    // Measured, never decided on: the figures a metrics endpoint and the simulator report.
    const auto start = std::chrono::steady_clock::now();
    action->Execute(session);
    action_nanos.push_back(
        {std::string(action->Name()), std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count()});
  }
  SessionResult result = session.Finish();
  quiet_groups_.last = std::move(quiet_groups_.next);
  quiet_groups_.next.clear();
  result.stats.action_nanos = std::move(action_nanos);
  history_.Record(result.evictions, now);
  return result;
}

}  // namespace arbiter
