#include "arbiter/framework/session.h"

#include <algorithm>
#include <utility>

#include "arbiter/base/check.h"

namespace arbiter {

namespace {

template <typename T, typename Fn>
int FirstDecidingTier(const PluginSet::Tiers<T>& tiers, Fn&& compare) {
  for (const auto& tier : tiers) {
    for (const T* plugin : tier) {
      if (int c = compare(*plugin); c != 0) return c;
    }
  }
  return 0;
}

// Sets a condition; its transition time changes only when its status does.
void SetCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, std::string reason, std::string message,
                  Clock::WallTime now) {
  for (Condition& c : conditions) {
    if (c.type != type) continue;
    if (c.status != status) c.last_transition_time = now;
    c.status = status;
    c.reason = std::move(reason);
    c.message = std::move(message);
    return;
  }
  conditions.push_back(Condition{type, status, std::move(reason), std::move(message), now});
}

bool IsTerminal(TaskState state) {
  return state == TaskState::kSucceeded || state == TaskState::kFailed;
}

}  // namespace

void FitErrors::Add(const FilterResult& result) { ++reasons_[result.reason]; }

std::string FitErrors::Message() const {
  std::string out = "0/" + std::to_string(nodes_) + " nodes are available";
  if (reasons_.empty()) return out + ".";
  // As kube-scheduler does: "<count> <reason>" strings sorted as text, for stable messages.
  std::vector<std::string> parts;
  parts.reserve(reasons_.size());
  for (const auto& [reason, count] : reasons_)
    parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  out += ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out + ".";
}

Session::Session(const Snapshot& snapshot, const PluginSet& plugins, Clock::WallTime now)
    : snapshot_(snapshot), plugins_(plugins), now_(now) {
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
  AssignPlacementClasses();
  for (const auto& plugin : plugins_.owned) plugin->OnSessionOpen(*this);
}

namespace {

std::string PlacementClassKey(const TaskInfo& task) {
  std::string key;
  for (std::int64_t amount : task.request.amounts()) key.append(std::to_string(amount)).append(",");
  key.append("|").append(PlacementConstraintKey(*task.pod)).append("|");
  for (const HostPort& port : HostPortsOf(*task.pod)) {
    key.append(std::to_string(port.port)).append(port.protocol).append(port.host_ip).append(";");
  }
  return key;
}

}  // namespace

void Session::AssignPlacementClasses() {
  task_class_.assign(snapshot_.tasks.size(), -1);
  std::map<std::string, std::vector<TaskIndex>> by_key;
  for (std::size_t i = 0; i < snapshot_.tasks.size(); ++i) {
    if (task_state_[i] != TaskState::kPending) continue;
    by_key[PlacementClassKey(snapshot_.tasks[i])].push_back(static_cast<TaskIndex>(i));
  }
  for (const auto& [key, tasks] : by_key) {
    if (tasks.size() < 2) continue;
    const auto id = static_cast<std::int32_t>(class_verdicts_.size());
    class_verdicts_.emplace_back();
    class_verdicts_.back().pending = static_cast<std::int32_t>(tasks.size());
    for (TaskIndex t : tasks) task_class_[static_cast<std::size_t>(t)] = id;
  }
}

Session::ClassVerdicts* Session::VerdictsFor(TaskIndex t) {
  const std::int32_t cls = task_class_[static_cast<std::size_t>(t)];
  if (cls < 0) return nullptr;
  ClassVerdicts& verdicts = class_verdicts_[static_cast<std::size_t>(cls)];
  if (verdicts.version.empty()) {
    verdicts.version.assign(snapshot_.nodes.size(), 0);
    verdicts.score.assign(snapshot_.nodes.size(), 0);
    verdicts.result.assign(snapshot_.nodes.size(), kFitResult);
  }
  return &verdicts;
}

void Session::Refresh(TaskIndex t, NodeIndex n, ClassVerdicts& verdicts) {
  const auto ni = static_cast<std::size_t>(n);
  FilterResult r = Filter(t, n);
  ++stats_.nodes_filtered;
  verdicts.version[ni] = node_version_[ni] + 1;
  if (r.fit()) {
    verdicts.result[ni] = kFitResult;
    verdicts.score[ni] = Score(t, n);
    return;
  }
  const std::int32_t short_id = r.short_resource.has_value() ? *r.short_resource : -1;
  auto [it, inserted] = interned_ids_.try_emplace(
      std::make_pair(r.reason, short_id), static_cast<std::int32_t>(interned_results_.size()));
  if (inserted) interned_results_.push_back(std::move(r));
  verdicts.result[ni] = it->second;
}

Session::NodeVerdict Session::Evaluate(TaskIndex t, NodeIndex n) {
  NodeVerdict verdict;
  verdict.filter = Filter(t, n);
  ++stats_.nodes_filtered;
  if (verdict.filter.fit()) verdict.score = Score(t, n);
  return verdict;
}

Session::~Session() {
  if (!finished_) {
    for (const auto& plugin : plugins_.owned) plugin->OnSessionClose(*this);
  }
}

void Session::SetJobPhase(JobIndex j, PodGroupPhase phase) {
  job_phase_[static_cast<std::size_t>(j)] = phase;
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

bool Session::HoldsReservation(JobIndex j) const {
  const JobInfo& info = job(j);
  if (info.group == nullptr || job_phase(j) != PodGroupPhase::kInqueue || JobReady(j)) return false;
  // Short of pods: they may still be arriving during the grace, and after it they likely never
  // will; only a group with the reason to wait keeps its room.
  std::string reason;
  if (JobInvalid(j, &reason).has_value() &&
      (reason != "NotEnoughPods" || now_ - info.creation >= kPodsArrivalGrace)) {
    return false;
  }
  const Condition* c = FindCondition(info.group->status.conditions, "Unschedulable");
  return c == nullptr || !c->IsTrue() || c->reason != "NotEnoughResources";
}

bool Session::QueueBefore(QueueIndex a, QueueIndex b) const {
  if (a == b) return false;
  const int c = FirstDecidingTier(plugins_.queue_order, [&](const QueueOrderExtension& p) {
    return p.CompareQueues(*this, a, b);
  });
  if (c != 0) return c < 0;
  // Queues are sorted by name in the snapshot; kNoQueue (a missing queue) goes last.
  if (a == kNoQueue || b == kNoQueue) return b == kNoQueue;
  return a < b;
}

bool Session::JobBefore(JobIndex a, JobIndex b) const {
  if (a == b) return false;
  const int c = FirstDecidingTier(
      plugins_.job_order, [&](const JobOrderExtension& p) { return p.CompareJobs(*this, a, b); });
  if (c != 0) return c < 0;
  const JobInfo& ja = job(a);
  const JobInfo& jb = job(b);
  if (ja.creation != jb.creation) return ja.creation < jb.creation;
  if (ja.uid != jb.uid) return ja.uid < jb.uid;
  return a < b;
}

bool Session::TaskBefore(TaskIndex a, TaskIndex b) const {
  if (a == b) return false;
  const int c = FirstDecidingTier(plugins_.task_order, [&](const TaskOrderExtension& p) {
    return p.CompareTasks(*this, a, b);
  });
  if (c != 0) return c < 0;
  const Pod& pa = *task(a).pod;
  const Pod& pb = *task(b).pod;
  if (pa.meta.creation_timestamp != pb.meta.creation_timestamp) {
    return pa.meta.creation_timestamp < pb.meta.creation_timestamp;
  }
  if (pa.meta.name != pb.meta.name) return pa.meta.name < pb.meta.name;
  return pa.meta.uid < pb.meta.uid;
}

std::optional<std::string> Session::JobInvalid(JobIndex j, std::string* reason) const {
  for (const auto& tier : plugins_.job_valid) {
    for (const JobValidExtension* p : tier) {
      if (auto why = p->JobInvalid(*this, j)) {
        if (reason != nullptr) *reason = p->InvalidReason(*this, j);
        return why;
      }
    }
  }
  return std::nullopt;
}

bool Session::JobReady(JobIndex j) const {
  for (const auto& tier : plugins_.job_ready) {
    for (const JobReadyExtension* p : tier) {
      if (!p->JobReady(*this, j)) return false;
    }
  }
  return true;
}

std::int32_t Session::TasksStillNeeded(JobIndex j, const std::string& task_name) const {
  std::int32_t needed = 0;
  for (const auto& tier : plugins_.job_ready) {
    for (const JobReadyExtension* p : tier) {
      needed = std::max(needed, p->TasksStillNeeded(*this, j, task_name));
    }
  }
  return needed;
}

std::optional<std::string> Session::JobNotEnqueueable(JobIndex j) const {
  for (const auto& tier : plugins_.job_enqueue) {
    for (const JobEnqueueExtension* p : tier) {
      if (auto why = p->JobNotEnqueueable(*this, j)) return why;
    }
  }
  return std::nullopt;
}

FilterResult Session::Filter(TaskIndex t, NodeIndex n) const {
  for (const auto& tier : plugins_.filter) {
    for (const FilterExtension* p : tier) {
      FilterResult r = p->Filter(*this, t, n);
      if (!r.fit()) return r;
    }
  }
  return FilterResult::Fit();
}

double Session::Score(TaskIndex t, NodeIndex n) const {
  double total = 0;
  for (const auto& tier : plugins_.score) {
    for (const ScoreExtension* p : tier) total += p->Score(*this, t, n);
  }
  return total;
}

std::optional<std::string> Session::QueueOverused(QueueIndex q) const {
  for (const auto& tier : plugins_.queue_limit) {
    for (const QueueLimitExtension* p : tier) {
      if (auto why = p->QueueOverused(*this, q)) return why;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Session::ExceedsCapability(QueueIndex q, TaskIndex t) const {
  for (const auto& tier : plugins_.queue_limit) {
    for (const QueueLimitExtension* p : tier) {
      if (auto why = p->ExceedsCapability(*this, q, t)) return why;
    }
  }
  return std::nullopt;
}

std::optional<ResourceVector> Session::QueueDeserved(QueueIndex q) const {
  for (const auto& tier : plugins_.queue_share) {
    for (const QueueShareExtension* p : tier) return p->Deserved(*this, q);
  }
  return std::nullopt;
}

void Session::RecordTaskUnschedulable(TaskIndex t, std::string message) {
  if (!task_reasons_.contains(t)) task_reasons_.emplace(t, std::move(message));
}

void Session::RecordJobUnschedulable(JobIndex j, std::string reason, std::string message,
                                     bool tell_pods) {
  if (!job_reasons_.contains(j)) {
    job_reasons_.emplace(j, JobReason{std::move(reason), std::move(message), tell_pods});
  }
}

void Session::Place(TaskIndex t, NodeIndex n) {
  const auto ti = static_cast<std::size_t>(t);
  const auto ni = static_cast<std::size_t>(n);
  ARBITER_CHECK(task_state_[ti] == TaskState::kPending) << task(t).Key();
  ARBITER_CHECK(task(t).request.FitsIn(free_[ni])) << task(t).Key() << " on " << node(n).name();
  task_state_[ti] = TaskState::kAllocated;
  task_node_[ti] = n;
  free_[ni].Subtract(task(t).request);
  for (const HostPort& port : HostPortsOf(*task(t).pod)) ports_[ni].push_back(port);
  ++node_version_[ni];
  if (const std::int32_t cls = task_class_[ti]; cls >= 0) {
    ClassVerdicts& verdicts = class_verdicts_[static_cast<std::size_t>(cls)];
    if (--verdicts.pending == 0) verdicts = ClassVerdicts();  // nobody left to ask: free it
  }
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnAllocate(*this, t);
  }
}

void Session::Unplace(TaskIndex t) {
  const auto ti = static_cast<std::size_t>(t);
  ARBITER_CHECK(task_state_[ti] == TaskState::kAllocated) << task(t).Key();
  const auto ni = static_cast<std::size_t>(task_node_[ti]);
  free_[ni].Add(task(t).request);
  for (const HostPort& port : HostPortsOf(*task(t).pod)) {
    auto& ports = ports_[ni];
    auto it = std::find(ports.rbegin(), ports.rend(), port);
    ARBITER_CHECK(it != ports.rend());
    ports.erase(std::next(it).base());
  }
  task_state_[ti] = TaskState::kPending;
  task_node_[ti] = kNoNode;
  ++node_version_[ni];
  if (const std::int32_t cls = task_class_[ti]; cls >= 0) {
    ++class_verdicts_[static_cast<std::size_t>(cls)].pending;
  }
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnDeallocate(*this, t);
  }
}

PodGroupStatus Session::ComputeGroupStatus(JobIndex j) const {
  const JobInfo& info = job(j);
  PodGroupStatus status = info.group->status;
  status.scheduled = status.running = status.succeeded = status.failed = 0;
  bool all_terminal = !info.tasks.empty();
  for (TaskIndex t : info.tasks) {
    const TaskState s = task_state(t);
    status.scheduled += HoldsNode(s) ? 1 : 0;
    status.running += s == TaskState::kRunning ? 1 : 0;
    status.succeeded += s == TaskState::kSucceeded ? 1 : 0;
    status.failed += s == TaskState::kFailed ? 1 : 0;
    all_terminal = all_terminal && IsTerminal(s);
  }
  const PodGroupPhase old_phase = job_phase(j);
  const std::int32_t ready = job_ready_tasks(j);
  PodGroupPhase phase = old_phase;
  const bool finished =
      old_phase == PodGroupPhase::kCompleted || old_phase == PodGroupPhase::kFailed;
  const bool all_gone_or_done = std::all_of(info.tasks.begin(), info.tasks.end(),
                                            [&](TaskIndex t) { return IsTerminal(task_state(t)); });
  if (finished && all_gone_or_done) {
    // Finished stays finished when its pods are cleaned up.
  } else if (all_terminal && status.succeeded >= info.min_member) {
    phase = PodGroupPhase::kCompleted;
  } else if (all_terminal && status.failed > 0) {
    phase = PodGroupPhase::kFailed;
  } else if (ready >= info.min_member) {
    phase = PodGroupPhase::kRunning;
  } else if (old_phase == PodGroupPhase::kRunning || old_phase == PodGroupPhase::kCompleted ||
             old_phase == PodGroupPhase::kFailed) {
    phase = PodGroupPhase::kInqueue;  // admitted once; now below its minimum again
  }
  status.phase = phase;

  const Clock::WallTime now = now_;
  if (auto it = job_reasons_.find(j); it != job_reasons_.end()) {
    SetCondition(status.conditions, "Unschedulable", "True", it->second.reason, it->second.message,
                 now);
  } else if (const Condition* c = FindCondition(status.conditions, "Unschedulable");
             c != nullptr && c->IsTrue()) {
    // Nothing stood in the group's way this session: the old reason no longer holds.
    SetCondition(status.conditions, "Unschedulable", "False",
                 ready >= info.min_member ? "Scheduled" : "Admitted", "", now);
  }
  if (ready >= info.min_member) {
    SetCondition(status.conditions, "Scheduled", "True", "Scheduled",
                 "minMember " + std::to_string(info.min_member) + " reached", now);
  } else if (FindCondition(status.conditions, "Scheduled") != nullptr) {
    SetCondition(status.conditions, "Scheduled", "False", "NotEnoughPods",
                 "fewer than minMember " + std::to_string(info.min_member) + " pods placed", now);
  }
  return status;
}

SessionResult Session::Finish() {
  ARBITER_CHECK(!finished_);
  finished_ = true;
  SessionResult result;
  result.binds.reserve(committed_.size());
  for (TaskIndex t : committed_) {
    const TaskInfo& info = task(t);
    result.binds.push_back(
        {info.namespace_name(), info.name(), info.uid(), node(task_node(t)).name()});
  }
  for (std::size_t i = 0; i < snapshot_.tasks.size(); ++i) {
    const auto t = static_cast<TaskIndex>(i);
    if (task_state(t) != TaskState::kPending) continue;
    std::string message;
    if (auto it = task_reasons_.find(t); it != task_reasons_.end()) {
      message = it->second;
    } else if (auto jt = job_reasons_.find(task(t).job);
               jt != job_reasons_.end() && jt->second.tell_pods) {
      message = jt->second.message;
    } else {
      continue;
    }
    const TaskInfo& info = task(t);
    result.unschedulable.push_back(
        {info.namespace_name(), info.name(), info.uid(), "FailedScheduling", std::move(message)});
  }
  const std::size_t queue_count = snapshot_.queues.size();
  std::vector<QueueStatus> queues(queue_count);
  std::vector<ResourceVector> allocated(queue_count);
  std::vector<ResourceVector> used(queue_count);
  for (std::size_t i = 0; i < snapshot_.jobs.size(); ++i) {
    const auto j = static_cast<JobIndex>(i);
    const JobInfo& info = job(j);
    const auto q = static_cast<std::size_t>(info.queue_index);
    if (info.queue_index != kNoQueue) {
      for (TaskIndex t : info.tasks) {
        if (HoldsNode(task_state(t))) allocated[q].Add(task(t).request);
        if (task_state(t) == TaskState::kRunning) used[q].Add(task(t).request);
      }
    }
    if (info.group == nullptr) continue;
    PodGroupStatus status = ComputeGroupStatus(j);
    if (info.queue_index != kNoQueue) {
      queues[q].pending += status.phase == PodGroupPhase::kPending ? 1 : 0;
      queues[q].inqueue += status.phase == PodGroupPhase::kInqueue ? 1 : 0;
      queues[q].running += status.phase == PodGroupPhase::kRunning ? 1 : 0;
    }
    if (status != info.group->status) {
      result.group_updates.push_back({info.namespace_name, info.name, std::move(status)});
    }
  }
  for (std::size_t q = 0; q < queue_count; ++q) {
    const Queue& queue = *snapshot_.queues[q].queue;
    QueueStatus& status = queues[q];
    const auto index = static_cast<QueueIndex>(q);
    if (std::optional<ResourceVector> deserved = QueueDeserved(index)) {
      status.deserved = snapshot_.resources.ToList(*deserved);
    } else {
      status.deserved = queue.status.deserved;
    }
    status.allocated = snapshot_.resources.ToList(allocated[q]);
    status.used = snapshot_.resources.ToList(used[q]);
    if (status != queue.status)
      result.queue_updates.push_back({queue.meta.name, std::move(status)});
  }
  result.stats = stats_;
  result.stats.tasks_bound = static_cast<std::int64_t>(result.binds.size());
  for (const auto& plugin : plugins_.owned) plugin->OnSessionClose(*this);
  return result;
}

Statement::~Statement() {
  if (!placed_.empty()) Discard();
}

void Statement::Allocate(TaskIndex task, NodeIndex node) {
  session_.Place(task, node);
  placed_.push_back(task);
}

void Statement::Commit() {
  for (TaskIndex t : placed_) session_.MarkCommitted(t);
  placed_.clear();
}

void Statement::Discard() {
  // Reverse order restores the host-port lists exactly.
  for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {  // NOLINT(modernize-loop-convert)
    session_.Unplace(*it);
  }
  placed_.clear();
}

}  // namespace arbiter
