#include "arbiter/framework/session.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "arbiter/base/check.h"
#include "arbiter/framework/outcome.h"

namespace arbiter {

namespace {

// Times a plugin's hook into the session's per-plugin figures (what a metrics endpoint exports).
template <typename Fn>
void Timed(SessionStats& stats, std::size_t plugin, std::string_view name, Fn&& hook) {
  const auto start = std::chrono::steady_clock::now();
  hook();
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  if (stats.plugin_nanos.size() <= plugin) stats.plugin_nanos.resize(plugin + 1);
  stats.plugin_nanos[plugin].name = name;
  stats.plugin_nanos[plugin].nanos += nanos;
}

}  // namespace

Session::Session(const Snapshot& snapshot, const PluginSet& plugins, Clock::WallTime now,
                 WorkerPool* pool)
    : snapshot_(snapshot), plugins_(plugins), now_(now), pool_(pool) {
  task_state_.reserve(snapshot.tasks.size());
  task_node_.reserve(snapshot.tasks.size());
  for (const TaskInfo& t : snapshot.tasks) {
    task_state_.push_back(t.state);
    task_node_.push_back(t.node);
  }
  free_.reserve(snapshot.nodes.size());
  ports_.reserve(snapshot.nodes.size());
  for (const NodeInfo& n : snapshot.nodes) {
    ResourceVector free = n.allocatable;
    // A node may be overcommitted by pods other schedulers placed: free is then 0, not negative.
    ResourceVector used_within(free.size());
    for (std::size_t r = 0; r < free.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      used_within.Set(id, std::min(free.Get(id), n.used.Get(id)));
    }
    free.Subtract(used_within);
    free_.push_back(std::move(free));
    ports_.push_back(n.host_ports_in_use);
  }
  node_version_.assign(snapshot.nodes.size(), 0);
  job_phase_.reserve(snapshot.jobs.size());
  for (const JobInfo& j : snapshot.jobs) job_phase_.push_back(j.phase);
  OpenPlugins();
  placement_ = std::make_unique<Placement>(*this, pool_);
  ComputeReservations();
}

void Session::OpenPlugins() {
  opening_ = true;
  for (std::size_t i = 0; i < plugins_.owned.size(); ++i) {
    Plugin& plugin = *plugins_.owned[i];
    Timed(stats_, i, plugin.Name(), [&] { plugin.OnSessionOpen(*this); });
  }
  opening_ = false;
}

void Session::ComputeReservations() {
  queue_reserved_.assign(snapshot_.queues.size(), ResourceVector());
  for (JobIndex j : JobIndex::Range(job_count())) {
    if (!HoldsReservation(*this, j)) continue;
    const ResourceVector need = MinimumRequest(j);
    total_reserved_.Add(need);
    if (const QueueIndex q = job(j).queue_index; q != kNoQueue) queue_reserved_[q.pos()].Add(need);
  }
}

Session::~Session() {
  if (!finished_) {
    for (const auto& plugin : plugins_.owned) plugin->OnSessionClose(*this);
  }
}

void Session::AdmitJob(JobIndex j) {
  job_phase_[j.pos()] = PodGroupPhase::kInqueue;
  for (const auto& tier : plugins_.job_admitted) {
    for (JobEnqueueExtension* p : tier) p->OnJobAdmitted(*this, j);
  }
}

std::int32_t Session::job_ready_tasks(JobIndex j) const {
  std::int32_t n = 0;
  for (TaskIndex t : job(j).tasks) n += CountsTowardGang(task_state(t)) ? 1 : 0;
  return n;
}

std::int32_t Session::job_ready_tasks(JobIndex j, const std::string& task_name) const {
  std::int32_t n = 0;
  for (TaskIndex t : job(j).tasks) {
    n += (task(t).task_name == task_name && CountsTowardGang(task_state(t))) ? 1 : 0;
  }
  return n;
}

std::vector<TaskIndex> Session::PendingTasks(JobIndex j) const {
  std::vector<TaskIndex> out;
  for (TaskIndex t : job(j).tasks) {
    if (task_state(t) == TaskState::kPending &&
        task(t).pod->meta.deletion_timestamp == std::nullopt) {
      out.push_back(t);
    }
  }
  std::sort(out.begin(), out.end(), [this](TaskIndex a, TaskIndex b) { return TaskBefore(a, b); });
  return out;
}

ResourceVector Session::MinimumRequest(JobIndex j) const {
  const JobInfo& info = job(j);
  if (!info.min_resources.IsZero()) return info.min_resources;
  ResourceVector need;
  // What is placed already counts: only the rest of the minimum is still needed.
  std::int32_t counted = job_ready_tasks(j);
  for (TaskIndex t : PendingTasks(j)) {
    if (counted++ >= info.min_member) break;
    need.Add(task(t).request);
  }
  return need;
}

void Session::RecordTaskUnschedulable(TaskIndex t, TaskReason reason, std::string message) {
  task_verdicts_.try_emplace(t, TaskVerdict{reason, std::move(message)});
}

void Session::RecordJobUnschedulable(JobIndex j, JobReason reason, std::string message,
                                     bool tell_pods) {
  job_verdicts_.try_emplace(j,
                            RecordedJobVerdict{JobVerdict{reason, std::move(message)}, tell_pods});
}

const TaskVerdict* Session::task_verdict(TaskIndex t) const {
  auto it = task_verdicts_.find(t);
  return it == task_verdicts_.end() ? nullptr : &it->second;
}

const Session::RecordedJobVerdict* Session::job_verdict(JobIndex j) const {
  auto it = job_verdicts_.find(j);
  return it == job_verdicts_.end() ? nullptr : &it->second;
}

void Session::Place(TaskIndex t, NodeIndex n) {
  const auto ti = t.pos();
  const auto ni = n.pos();
  ARBITER_CHECK(task_state_[ti] == TaskState::kPending) << task(t).Key();
  ARBITER_CHECK(task(t).request.FitsIn(free_[ni])) << task(t).Key() << " on " << node(n).name();
  task_state_[ti] = TaskState::kAllocated;
  task_node_[ti] = n;
  free_[ni].Subtract(task(t).request);
  const std::vector<HostPort>& ports = task(t).host_ports;
  ports_[ni].insert(ports_[ni].end(), ports.begin(), ports.end());
  ++node_version_[ni];
  placement_->OnPlaced(t);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnAllocate(*this, t);
  }
}

void Session::Unplace(TaskIndex t) {
  const auto ti = t.pos();
  ARBITER_CHECK(task_state_[ti] == TaskState::kAllocated) << task(t).Key();
  const auto ni = task_node_[ti].pos();
  free_[ni].Add(task(t).request);
  for (const HostPort& port : task(t).host_ports) {
    auto& ports = ports_[ni];
    auto it = std::find(ports.rbegin(), ports.rend(), port);
    ARBITER_CHECK(it != ports.rend());
    ports.erase(std::next(it).base());
  }
  task_state_[ti] = TaskState::kPending;
  task_node_[ti] = kNoNode;
  ++node_version_[ni];
  placement_->OnUnplaced(t);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnDeallocate(*this, t);
  }
}

SessionResult Session::Finish() {
  ARBITER_CHECK(!finished_);
  finished_ = true;
  stats_.nodes_filtered = placement_->nodes_filtered();
  SessionResult result = BuildResult(*this);
  for (std::size_t i = 0; i < plugins_.owned.size(); ++i) {
    Plugin& plugin = *plugins_.owned[i];
    Timed(result.stats, i, plugin.Name(), [&] { plugin.OnSessionClose(*this); });
  }
  return result;
}

}  // namespace arbiter
