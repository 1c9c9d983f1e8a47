#include "arbiter/framework/session.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "arbiter/base/check.h"
#include "arbiter/framework/outcome.h"
#include "arbiter/model/placement_rules.h"

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

// How long a job evicted for whatever reason is kept off reserved nodes (as a preemptor's
// default no-repeat window).
constexpr auto kNoRepeatAfterEviction = std::chrono::minutes(10);

}  // namespace

Session::Session(const Snapshot& snapshot, const PluginSet& plugins, Clock::WallTime now,
                 WorkerPool* pool, ReservationBook* reservations, const EvictionHistory* history)
    : snapshot_(snapshot), plugins_(plugins), now_(now), pool_(pool), history_(history) {
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
  job_verdicts_.resize(snapshot.jobs.size());
  queue_allocated_.assign(snapshot.queues.size(), ResourceVector());
  releasing_.assign(snapshot.nodes.size(), ResourceVector());
  for (const TaskInfo& t : snapshot.tasks) {
    if (t.node == kNoNode) continue;
    if (t.state == TaskState::kReleasing) {
      releasing_[t.node.pos()].Add(t.request);
    } else if (HoldsNode(t.state)) {
      if (const QueueIndex q = job(t.job).queue_index; q != kNoQueue) {
        queue_allocated_[q.pos()].Add(t.request);
      }
    }
  }
  ComputeHolds();
  SyncColumns();
  OpenPlugins();
  ComputeReservations();
  // Before the placement classes are made: which reservations a job may use is part of its class.
  if (reservations != nullptr) ApplyReservations(reservations->Update(*this));
  placement_ = std::make_unique<Placement>(*this, pool_);
}

void Session::ApplyReservations(std::vector<ActiveReservation> reservations) {
  reservations_ = std::move(reservations);
  if (reservations_.empty()) return;
  node_reservation_.assign(snapshot_.nodes.size(), -1);
  for (std::size_t i = 0; i < reservations_.size(); ++i) {
    for (NodeIndex n : reservations_[i].nodes)
      node_reservation_[n.pos()] = static_cast<std::int32_t>(i);
  }
  // A job may use a reservation's nodes when it is the gang's own, when it ends (by its run time)
  // before the gang's estimated start, when it accepts to be evicted for the gang once the gang
  // fits (AcceptsPreemption), or when its queue is another one, below its deserved share even
  // with the job's minimum (a reservation never keeps a queue below its share).
  reservation_passes_.assign(snapshot_.jobs.size(), 0);
  // A job that lost pods in the last ten minutes is not let onto reserved nodes again by
  // accepting preemption: evicted by one reservation, it would only be evicted by the next.
  std::set<std::string> recently_evicted;
  for (std::string_view key : history().VictimJobsSince(now_ - kNoRepeatAfterEviction)) {
    recently_evicted.emplace(key);
  }
  for (JobIndex j : JobIndex::Range(job_count())) {
    const std::vector<TaskIndex>& tasks = job(j).tasks;
    if (std::none_of(tasks.begin(), tasks.end(),
                     [&](TaskIndex t) { return task_state(t) == TaskState::kPending; })) {
      continue;
    }
    const QueueIndex q = job(j).queue_index;
    std::optional<std::optional<Clock::WallTime>> end;
    std::optional<bool> below_share;
    const bool accepts = AcceptsPreemption(*this, j) && !recently_evicted.contains(job(j).Key());
    for (std::size_t i = 0; i < reservations_.size(); ++i) {
      const ActiveReservation& r = reservations_[i];
      bool pass = r.job == j || accepts;
      // A preemptor nominated to one of its nodes before it was reserved: its room there is
      // being freed for it by evictions already made, which a reservation must not waste.
      pass = pass || std::any_of(tasks.begin(), tasks.end(), [&](TaskIndex t) {
               const NodeIndex n = task(t).nominated;
               return task_state(t) == TaskState::kPending && n != kNoNode &&
                      std::find(r.nodes.begin(), r.nodes.end(), n) != r.nodes.end();
             });
      if (!pass && q != kNoQueue && q != job(r.job).queue_index) {
        if (!below_share.has_value()) {
          const std::optional<ResourceVector> deserved = QueueDeserved(q);
          ResourceVector with_job = queue_allocated(q);
          with_job.Add(MinimumRequest(j));
          below_share = deserved.has_value() && with_job.FitsIn(*deserved);
        }
        pass = *below_share;
      }
      if (!pass && r.estimated_start.has_value()) {
        if (!end.has_value()) end = EstimatedEnd(*this, j);
        pass = end->has_value() && **end <= *r.estimated_start;
      }
      if (pass) reservation_passes_[j.pos()] |= std::uint64_t{1} << i;
    }
  }
}

const ActiveReservation* Session::ReservationOf(JobIndex j) const {
  for (const ActiveReservation& r : reservations_) {
    if (r.job == j) return &r;
  }
  return nullptr;
}

const ActiveReservation* Session::ReservedAgainst(JobIndex j, NodeIndex n) const {
  if (reservations_.empty()) return nullptr;
  const std::int32_t i = node_reservation_[n.pos()];
  if (i < 0 || (reservation_passes_[j.pos()] & (std::uint64_t{1} << i)) != 0) return nullptr;
  return &reservations_[static_cast<std::size_t>(i)];
}

std::vector<TaskIndex> GangTryOrder(const Session& session, JobIndex j) {
  const std::vector<TaskIndex> pending = session.PendingTasks(j);
  std::vector<TaskIndex> order;
  std::set<TaskIndex> taken;
  for (const auto& [task_name, minimum] : session.job(j).min_task_member) {
    std::int32_t needed = session.TasksStillNeeded(j, task_name);
    for (TaskIndex t : pending) {
      if (needed <= 0) break;
      if (session.task(t).task_name != task_name) continue;
      order.push_back(t);
      taken.insert(t);
      --needed;
    }
  }
  for (TaskIndex t : pending) {
    if (!taken.contains(t)) order.push_back(t);
  }
  return order;
}

void Session::ComputeHolds() {
  // Per node, the room its releasing pods will free goes to the pods nominated there first (in
  // task order); what it does not cover is held out of the free room, so that nobody else takes
  // it meanwhile.
  std::vector<ResourceVector> unclaimed = releasing_;
  for (TaskIndex t : TaskIndex::Range(static_cast<std::int32_t>(snapshot_.tasks.size()))) {
    const TaskInfo& info = task(t);
    if (info.nominated == kNoNode || info.state != TaskState::kPending) continue;
    const auto n = info.nominated.pos();
    if (!snapshot_.nodes[n].in_scope) continue;
    const ResourceVector from_releasing = ResourceVector::Min(info.request, unclaimed[n]);
    unclaimed[n].Subtract(from_releasing);
    ResourceVector rest = info.request;
    rest.Subtract(from_releasing);
    const ResourceVector hold = ResourceVector::Min(rest, free_[n]);
    free_[n].Subtract(hold);
    holds_.emplace(t, hold);
  }
}

const EvictionHistory& Session::history() const {
  static const EvictionHistory kNone;
  return history_ != nullptr ? *history_ : kNone;
}

const ResourceVector* Session::held(TaskIndex t) const {
  auto it = holds_.find(t);
  return it == holds_.end() ? nullptr : &it->second;
}

std::optional<std::string> Session::WaitingForNominatedRoom(JobIndex j) const {
  std::vector<std::string> nodes;
  for (TaskIndex t : job(j).tasks) {
    const NodeIndex n = task(t).nominated;
    if (n == kNoNode || task_state(t) != TaskState::kPending) continue;
    if (node_releasing(n).IsZero()) continue;
    if (std::find(nodes.begin(), nodes.end(), node(n).name()) == nodes.end()) {
      nodes.push_back(node(n).name());
    }
  }
  if (nodes.empty()) return std::nullopt;
  std::string out = "waiting for preempted pods to leave node(s) ";
  for (std::size_t i = 0; i < nodes.size(); ++i) out += (i > 0 ? ", " : "") + nodes[i];
  return out;
}

bool Session::CanRestore(TaskIndex t) const {
  const TaskInfo& info = task(t);
  if (task_state(t) != TaskState::kReleasing || info.node == kNoNode) return false;
  const auto n = info.node.pos();
  if (!info.request.FitsIn(free_[n])) return false;
  return info.host_ports.empty() || !HostPortsConflict(info.host_ports, ports_[n]);
}

bool Session::CanReplace(TaskIndex t, NodeIndex n) const {
  if (task_state(t) != TaskState::kPending) return false;
  const TaskInfo& info = task(t);
  if (!info.request.FitsIn(free_[n.pos()])) return false;
  return info.host_ports.empty() || !HostPortsConflict(info.host_ports, ports_[n.pos()]);
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
    const ReservationHold hold = HoldsReservation(*this, j);
    if (hold == ReservationHold::kNone) continue;
    const ResourceVector need = MinimumRequest(j);
    if (hold == ReservationHold::kCluster) total_reserved_.Add(need);
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

std::int32_t Session::job_holding_tasks(JobIndex j) const {
  std::int32_t n = 0;
  for (TaskIndex t : job(j).tasks) {
    const TaskState state = task_state(t);
    n += (HoldsNode(state) && state != TaskState::kReleasing) ? 1 : 0;
  }
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
                                     bool tell_pods, bool replace) {
  std::optional<RecordedJobVerdict>& recorded = job_verdicts_[j.pos()];
  if (replace || !recorded.has_value()) {
    recorded = RecordedJobVerdict{JobVerdict{reason, std::move(message)}, tell_pods};
  }
}

const Session::NodeClassTable& Session::NodeClassesFor(const ResourceVector& request) {
  std::vector<bool> requested(request.size());
  for (std::size_t r = 0; r < request.size(); ++r) {
    requested[r] = request.Get(static_cast<ResourceId>(r)) > 0;
  }
  for (const NodeClassTable& table : node_class_tables_) {
    if (table.requested == requested) return table;
  }
  NodeClassTable& table = node_class_tables_.emplace_back();
  table.requested = std::move(requested);
  const std::size_t size = request.size();
  // Classes by (instance type, allocatable of the requested resources), in the order of their
  // first node.
  std::vector<PlacementSummary::NodeClass> classes;
  std::vector<std::int32_t> class_of(node_count(), -1);
  std::map<std::pair<std::string_view, std::vector<std::int64_t>>, std::int32_t> index;
  std::vector<std::int64_t> key(size);
  for (NodeIndex n : NodeIndex::Range(node_count())) {
    const NodeInfo& info = node(n);
    if (!info.in_scope) continue;
    for (std::size_t r = 0; r < size; ++r) {
      key[r] = table.requested[r] ? info.allocatable.Get(static_cast<ResourceId>(r)) : 0;
    }
    const auto& labels = info.node->meta.labels;
    auto type = labels.find(kInstanceTypeLabel);
    const std::string_view instance_type =
        type == labels.end() ? std::string_view() : std::string_view(type->second);
    auto [it, fresh] =
        index.try_emplace({instance_type, key}, static_cast<std::int32_t>(classes.size()));
    if (fresh) {
      PlacementSummary::NodeClass& c = classes.emplace_back();
      c.instance_type = std::string(instance_type);
      c.allocatable = ResourceVector(size);
      for (std::size_t r = 0; r < size; ++r) c.allocatable.Set(static_cast<ResourceId>(r), key[r]);
      c.most_free = ResourceVector(size);
    }
    ++classes[it->second].nodes;
    class_of[n.pos()] = it->second;
  }
  // Most nodes first (ties in the order of their first node), at most kMaxNodeClasses.
  std::vector<std::int32_t> order(classes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return classes[a].nodes > classes[b].nodes;
  });
  if (order.size() > PendingExplanation::kMaxNodeClasses) {
    order.resize(PendingExplanation::kMaxNodeClasses);
  }
  std::vector<std::int32_t> place(classes.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    place[order[i]] = static_cast<std::int32_t>(i);
    table.top.push_back(std::move(classes[order[i]]));
  }
  for (std::int32_t& c : class_of) {
    if (c >= 0) c = place[c];
  }
  table.top_class = std::move(class_of);
  return table;
}

void Session::RecordJobPlacement(JobIndex j, TaskIndex t, const PlacementFailure& failure) {
  if (job_placements_.contains(j)) return;
  PlacementSummary summary{t, failure.errors.nodes(), failure.errors.reasons(), {}, {}};
  const ResourceVector& request = task(t).request;
  const NodeClassTable& table = NodeClassesFor(request);
  summary.classes = table.top;
  ResourceVector most(request.size());
  for (NodeIndex n : NodeIndex::Range(node_count())) {
    if (!node(n).in_scope) continue;
    const ResourceVector& free = node_free(n);
    const std::int32_t c = table.top_class[n.pos()];
    for (std::size_t r = 0; r < request.size(); ++r) {
      if (!table.requested[r]) continue;
      const auto id = static_cast<ResourceId>(r);
      const std::int64_t amount = free.Get(id);
      if (amount > most.Get(id)) most.Set(id, amount);
      if (c >= 0 && amount > summary.classes[c].most_free.Get(id)) {
        summary.classes[c].most_free.Set(id, amount);
      }
    }
  }
  summary.shortfall = ResourceVector(request.size());
  for (std::size_t r = 0; r < request.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    if (request.Get(id) > most.Get(id)) summary.shortfall.Set(id, request.Get(id) - most.Get(id));
  }
  job_placements_.emplace(j, std::move(summary));
}

const Session::PlacementSummary* Session::job_placement(JobIndex j) const {
  auto it = job_placements_.find(j);
  return it == job_placements_.end() ? nullptr : &it->second;
}

const TaskVerdict* Session::task_verdict(TaskIndex t) const {
  auto it = task_verdicts_.find(t);
  return it == task_verdicts_.end() ? nullptr : &it->second;
}

const Session::RecordedJobVerdict* Session::job_verdict(JobIndex j) const {
  const std::optional<RecordedJobVerdict>& recorded = job_verdicts_[j.pos()];
  return recorded.has_value() ? &*recorded : nullptr;
}

void Session::Place(TaskIndex t, NodeIndex n, TaskState as) {
  const auto ti = t.pos();
  const auto ni = n.pos();
  ARBITER_CHECK(task_state_[ti] == TaskState::kPending) << task(t).Key();
  ARBITER_CHECK(as == TaskState::kAllocated || as == TaskState::kPipelined);
  ARBITER_CHECK(task(t).request.FitsIn(free_[ni])) << task(t).Key() << " on " << node(n).name();
  task_state_[ti] = as;
  task_node_[ti] = n;
  free_[ni].Subtract(task(t).request);
  if (const QueueIndex q = job(task(t).job).queue_index; q != kNoQueue) {
    queue_allocated_[q.pos()].Add(task(t).request);
  }
  const std::vector<HostPort>& ports = task(t).host_ports;
  ports_[ni].insert(ports_[ni].end(), ports.begin(), ports.end());
  Touch(ni);
  placement_->OnPlaced(t);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnAllocate(*this, t);
  }
}

void Session::Unplace(TaskIndex t) {
  const auto ti = t.pos();
  ARBITER_CHECK(task_state_[ti] == TaskState::kAllocated ||
                task_state_[ti] == TaskState::kPipelined)
      << task(t).Key();
  const auto ni = task_node_[ti].pos();
  free_[ni].Add(task(t).request);
  if (const QueueIndex q = job(task(t).job).queue_index; q != kNoQueue) {
    queue_allocated_[q.pos()].Subtract(task(t).request);
  }
  for (const HostPort& port : task(t).host_ports) {
    auto& ports = ports_[ni];
    auto it = std::find(ports.rbegin(), ports.rend(), port);
    ARBITER_CHECK(it != ports.rend());
    ports.erase(std::next(it).base());
  }
  task_state_[ti] = TaskState::kPending;
  task_node_[ti] = kNoNode;
  Touch(ni);
  placement_->OnUnplaced(t);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnDeallocate(*this, t);
  }
}

void Session::Evict(TaskIndex t) {
  const auto ti = t.pos();
  const TaskState state = task_state_[ti];
  ARBITER_CHECK(state == TaskState::kRunning || state == TaskState::kBound) << task(t).Key();
  const auto ni = task_node_[ti].pos();
  const TaskInfo& info = task(t);
  free_[ni].Add(info.request);
  releasing_[ni].Add(info.request);
  for (const HostPort& port : info.host_ports) {
    auto& ports = ports_[ni];
    auto it = std::find(ports.rbegin(), ports.rend(), port);
    ARBITER_CHECK(it != ports.rend());
    ports.erase(std::next(it).base());
  }
  if (const QueueIndex q = job(info.job).queue_index; q != kNoQueue) {
    queue_allocated_[q.pos()].Subtract(info.request);
  }
  task_state_[ti] = TaskState::kReleasing;
  Touch(ni);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnDeallocate(*this, t);
  }
}

void Session::Restore(TaskIndex t, TaskState state) {
  const auto ti = t.pos();
  ARBITER_CHECK(task_state_[ti] == TaskState::kReleasing) << task(t).Key();
  const auto ni = task_node_[ti].pos();
  const TaskInfo& info = task(t);
  ARBITER_CHECK(info.request.FitsIn(free_[ni])) << info.Key() << " on " << node(info.node).name();
  free_[ni].Subtract(info.request);
  releasing_[ni].Subtract(info.request);
  ports_[ni].insert(ports_[ni].end(), info.host_ports.begin(), info.host_ports.end());
  if (const QueueIndex q = job(info.job).queue_index; q != kNoQueue) {
    queue_allocated_[q.pos()].Add(info.request);
  }
  task_state_[ti] = state;
  Touch(ni);
  for (const auto& tier : plugins_.allocation_events) {
    for (AllocationEventExtension* p : tier) p->OnAllocate(*this, t);
  }
}

ResourceVector Session::ReleaseHold(TaskIndex t) {
  auto it = holds_.find(t);
  if (it == holds_.end()) return {};
  ResourceVector amount = std::move(it->second);
  holds_.erase(it);
  const auto ni = task(t).nominated.pos();
  free_[ni].Add(amount);
  Touch(ni);
  return amount;
}

void Session::RetakeHold(TaskIndex t, const ResourceVector& amount) {
  const auto ni = task(t).nominated.pos();
  ARBITER_CHECK(amount.FitsIn(free_[ni])) << task(t).Key();
  free_[ni].Subtract(amount);
  Touch(ni);
  holds_.insert_or_assign(t, amount);
}

void Session::SyncColumns() {
  free_columns_.assign(snapshot_.resources.size() * free_.size(), 0);
  free_doubles_.assign(free_columns_.size(), 0.0);
  for (std::size_t n = 0; n < free_.size(); ++n) SyncColumns(n);
}

void Session::SyncColumns(std::size_t node) {
  const std::size_t nodes = free_.size();
  const std::span<const std::int64_t> amounts = free_[node].amounts();
  const std::size_t known = snapshot_.resources.size();
  for (std::size_t r = 0; r < known; ++r) {
    const std::int64_t free = r < amounts.size() ? amounts[r] : 0;
    free_columns_[r * nodes + node] = free;
    free_doubles_[r * nodes + node] = static_cast<double>(free);
  }
}

void Session::CloseNode(NodeIndex n) {
  free_[n.pos()] = ResourceVector();
  Touch(n.pos());
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
