#include "arbiter/plugins/locality.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "arbiter/framework/session.h"
#include "arbiter/plugins/topology.h"

namespace arbiter {

namespace {

std::uint64_t Mix(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

template <typename T>
bool Contains(const std::vector<T>& sorted, const T& v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

}  // namespace

StatusOr<std::unique_ptr<Plugin>> LocalityPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Check());
  LocalityOptions o;
  ARBITER_ASSIGN_OR_RETURN(o.weight, reader.GetDouble("weight", 10, 0, 100));
  ARBITER_ASSIGN_OR_RETURN(o.node_wait_seconds, reader.GetDouble("nodeWaitSeconds", 10, 0, 3600));
  ARBITER_ASSIGN_OR_RETURN(o.rack_wait_seconds, reader.GetDouble("rackWaitSeconds", 10, 0, 3600));
  ARBITER_ASSIGN_OR_RETURN(o.rack_label,
                           reader.GetString("rackLabel", std::string(kDefaultRackLabel), {}));
  if (o.rack_label.empty()) {
    return InvalidArgumentError("plugin locality: arguments.rackLabel: must not be empty");
  }
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<LocalityPlugin>(std::move(o)));
}

void LocalityPlugin::OnSessionOpen(const Session& session) {
  const auto nodes = static_cast<std::size_t>(session.node_count());
  const auto jobs = static_cast<std::size_t>(session.job_count());
  rack_of_.assign(nodes, -1);
  data_of_.assign(jobs, -1);
  data_.clear();
  {
    std::lock_guard lock(mu_);
    allowed_.assign(jobs, -1);
  }
  bool any = false;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    any = any || (job.group != nullptr && job.group->spec.locality.has_value());
  }
  if (!any) {  // the common case costs one pass over the jobs
    held_since_.clear();
    return;
  }

  std::map<std::string, std::int32_t, std::less<>> rack_index;
  std::map<std::string, NodeIndex, std::less<>> node_index;
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    const NodeInfo& node = session.node(n);
    if (!node.in_scope) continue;
    node_index.emplace(node.name(), n);
    const auto& labels = node.node->meta.labels;
    if (auto it = labels.find(options_.rack_label); it != labels.end() && !it->second.empty()) {
      auto [r, inserted] =
          rack_index.emplace(it->second, static_cast<std::int32_t>(rack_index.size()));
      rack_of_[n.pos()] = r->second;
    }
  }
  std::map<const DataSet*, std::map<NodeIndex, std::int32_t>> blocks_held;  // per DataSet
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    if (job.group == nullptr || !job.group->spec.locality.has_value()) continue;
    const LocalityRequest& hints = *job.group->spec.locality;
    // Per node of the cluster holding its data: how many of its DataSet's blocks it holds, or
    // kAll for a node the hints name.
    constexpr std::int32_t kAll = -1;
    std::map<NodeIndex, std::int32_t> held;
    if (job.data_set != nullptr) {
      // Many jobs read one data set, which may have thousands of blocks: counted once a session.
      auto [counted, first] = blocks_held.try_emplace(job.data_set.get());
      if (first) {
        for (const DataBlock& block : job.data_set->blocks) {
          std::vector<NodeIndex> replicas;
          for (const std::string& name : block.nodes) {
            if (auto it = node_index.find(name); it != node_index.end()) {
              replicas.push_back(it->second);
            }
          }
          std::sort(replicas.begin(), replicas.end());
          replicas.erase(std::unique(replicas.begin(), replicas.end()), replicas.end());
          for (NodeIndex n : replicas) ++counted->second[n];
        }
      }
      held = counted->second;
    }
    for (const std::string& name : hints.nodes) {
      if (auto it = node_index.find(name); it != node_index.end()) held[it->second] = kAll;
    }
    std::int32_t most = 0;
    for (const auto& [n, blocks] : held) most = std::max(most, blocks);
    JobData d;
    for (const auto& [n, blocks] : held) {  // in node order: nodes stays sorted
      d.nodes.push_back(n);
      d.share.push_back(blocks == kAll ? 1.0 : static_cast<double>(blocks) / most);
      if (const std::int32_t r = rack_of_[n.pos()]; r >= 0) d.racks.push_back(r);
    }
    for (const std::string& name : hints.racks) {
      if (auto it = rack_index.find(name); it != rack_index.end()) d.racks.push_back(it->second);
    }
    // A DataSet not known (yet: it may be created just before its job, and arrive on its own
    // watch) holds the job for the waits, as data on a full node would; then it goes anywhere.
    d.data_set_missing = !hints.data_set.empty() && job.data_set == nullptr;
    if (d.nodes.empty() && d.racks.empty() && !d.data_set_missing) continue;  // data is nowhere

    std::sort(d.racks.begin(), d.racks.end());
    d.racks.erase(std::unique(d.racks.begin(), d.racks.end()), d.racks.end());
    d.hash = 0x4c4f43414c495459ULL;  // tells "no data" (key 0) from any data
    if (d.data_set_missing) d.hash = Mix(d.hash, std::hash<std::string>()(hints.data_set));
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      d.hash = Mix(d.hash, static_cast<std::uint64_t>(d.nodes[i].pos()));
      d.hash = Mix(d.hash, static_cast<std::uint64_t>(d.share[i] * 1e6));
    }
    d.hash = Mix(d.hash, 0xffffffffULL);
    for (std::int32_t r : d.racks) d.hash = Mix(d.hash, static_cast<std::uint64_t>(r));
    data_of_[j.pos()] = static_cast<std::int32_t>(data_.size());
    data_.push_back(std::move(d));
  }
  // The hold clocks of jobs still waiting carry over; a job starts one when room elsewhere could
  // have taken it.
  std::map<std::string, Clock::WallTime, std::less<>> held;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const std::int32_t i = data_of_[j.pos()];
    if (i < 0) continue;
    // Not PendingTasks: it orders them by the plugins', which OnSessionOpen may not ask.
    const std::vector<TaskIndex>& tasks = session.job(j).tasks;
    auto pending = std::find_if(tasks.begin(), tasks.end(), [&](TaskIndex t) {
      return session.task_state(t) == TaskState::kPending;
    });
    if (pending == tasks.end()) continue;
    std::string key = session.job(j).Key();
    JobData& d = data_[static_cast<std::size_t>(i)];
    if (auto it = held_since_.find(key); it != held_since_.end()) {
      d.held_since = it->second;
    } else if (RoomElsewhere(session, j, session.task(*pending).request)) {
      d.held_since = session.now();
    } else {
      continue;
    }
    held.emplace(std::move(key), *d.held_since);
  }
  held_since_ = std::move(held);
}

bool LocalityPlugin::RoomElsewhere(const Session& session, JobIndex j,
                                   const ResourceVector& need) const {
  const JobData* d = DataOf(j);
  const LocalityLevel narrowest = d->nodes.empty() ? LocalityLevel::kRack : LocalityLevel::kNode;
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    if (session.node(n).in_scope && LevelOf(j, n) > narrowest &&
        need.FitsIn(session.node_free(n))) {
      return true;
    }
  }
  return false;
}

const LocalityPlugin::JobData* LocalityPlugin::DataOf(JobIndex job) const {
  if (job.pos() >= data_of_.size()) return nullptr;
  const std::int32_t i = data_of_[job.pos()];
  return i < 0 ? nullptr : &data_[static_cast<std::size_t>(i)];
}

LocalityLevel LocalityPlugin::LevelOf(JobIndex job, NodeIndex node) const {
  const JobData* d = DataOf(job);
  // No node: a pod bound to a node the snapshot does not have (deleted, or out of scope) holds
  // no place of its own, and no rack.
  if (d == nullptr || node == kNoNode) return LocalityLevel::kAny;
  if (Contains(d->nodes, node)) return LocalityLevel::kNode;
  const std::int32_t r = rack_of_[node.pos()];
  if (r >= 0 && Contains(d->racks, r)) return LocalityLevel::kRack;
  return LocalityLevel::kAny;
}

double LocalityPlugin::Waited(const Session& session, const JobData& d) {
  // Not held yet (no room elsewhere): it waits for room anyway, and its clock has not started.
  if (!d.held_since.has_value()) return 0;
  return std::chrono::duration<double>(session.now() - *d.held_since).count();
}

bool LocalityPlugin::QueueOwed(const Session& session, JobIndex j) {
  const QueueIndex q = session.job(j).queue_index;
  if (q == kNoQueue) return false;
  const std::optional<ResourceVector> deserved = session.QueueDeserved(q);
  if (!deserved.has_value()) return false;
  ResourceVector with_job = session.queue_allocated(q);
  with_job.Add(session.MinimumRequest(j));
  if (!with_job.FitsIn(*deserved)) return false;
  const auto queues = static_cast<std::int32_t>(session.snapshot().queues.size());
  for (QueueIndex other : QueueIndex::Range(queues)) {
    if (other == q) continue;
    const std::optional<ResourceVector> theirs = session.QueueDeserved(other);
    if (theirs.has_value() && !session.queue_allocated(other).FitsIn(*theirs)) return true;
  }
  return false;
}

std::optional<LocalityLevel> LocalityPlugin::Allowed(const Session& session, JobIndex j) const {
  constexpr std::int8_t kNotComputed = -1;
  constexpr std::int8_t kNowhere = -2;
  const JobData* d = DataOf(j);
  if (d == nullptr) return LocalityLevel::kAny;
  {
    std::lock_guard lock(mu_);
    const std::int8_t known = allowed_[j.pos()];
    if (known == kNowhere) return std::nullopt;
    if (known != kNotComputed) return static_cast<LocalityLevel>(known);
  }
  std::optional<LocalityLevel> level = LocalityLevel::kAny;
  const double waited = Waited(session, *d);
  if (!QueueOwed(session, j)) {
    if (!d->nodes.empty() && waited < options_.node_wait_seconds) {
      level = LocalityLevel::kNode;
    } else if (!d->racks.empty() &&
               waited < options_.node_wait_seconds + options_.rack_wait_seconds) {
      level = LocalityLevel::kRack;
    } else if (d->data_set_missing && d->nodes.empty() && d->racks.empty() &&
               waited < options_.node_wait_seconds + options_.rack_wait_seconds) {
      level = std::nullopt;  // its DataSet is not known yet, and nothing else says where
    }
  }
  std::lock_guard lock(mu_);
  allowed_[j.pos()] = level.has_value() ? static_cast<std::int8_t>(*level) : kNowhere;
  return level;
}

double LocalityPlugin::Score(const Session& session, TaskIndex task, NodeIndex node) const {
  const JobIndex j = session.task(task).job;
  switch (LevelOf(j, node)) {
    case LocalityLevel::kNode: {
      // A node holding more of the data reads less of it over the network.
      const JobData& d = *DataOf(j);
      const auto at = std::lower_bound(d.nodes.begin(), d.nodes.end(), node) - d.nodes.begin();
      return (50 + 50 * d.share[static_cast<std::size_t>(at)]) * options_.weight;
    }
    case LocalityLevel::kRack:
      return 50 * options_.weight;
    case LocalityLevel::kAny:
      return 0;
  }
  return 0;
}

void LocalityPlugin::ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                                std::span<const std::uint8_t> in_play,
                                std::span<double> scores) const {
  // A job naming no data scores 0 everywhere: nothing to add.
  if (DataOf(session.task(task).job) == nullptr) return;
  ScoreExtension::ScoreRange(session, task, first, in_play, scores);
}

FilterResult LocalityPlugin::NodeConstraint(const Session& session, TaskIndex task,
                                            NodeIndex node) const {
  const JobIndex j = session.task(task).job;
  const std::optional<LocalityLevel> allowed = Allowed(session, j);
  if (allowed == LocalityLevel::kAny || (allowed.has_value() && LevelOf(j, node) <= *allowed)) {
    return FilterResult::Fit();
  }
  const double waited = Waited(session, *DataOf(j));
  const double until = allowed == LocalityLevel::kNode
                           ? options_.node_wait_seconds
                           : options_.node_wait_seconds + options_.rack_wait_seconds;
  const std::string left =
      std::to_string(static_cast<std::int64_t>(std::max(0.0, until - waited) + 0.999));
  if (!allowed.has_value()) {
    const JobInfo& job = session.job(j);
    return FilterResult::Unresolvable(
        "DataSet " + job.namespace_name + "/" + job.group->spec.locality->data_set +
        " not found (delay scheduling: it waits " + left + "s more for it)");
  }
  return FilterResult::Unresolvable(
      std::string(allowed == LocalityLevel::kNode ? "node(s) not holding the job's data"
                                                  : "node(s) outside the racks of the job's data") +
      " (delay scheduling: it waits " + left + "s more for " +
      (allowed == LocalityLevel::kNode ? "a node holding its data" : "a node in their racks") +
      ")");
}

std::optional<LocalityLevel> LocalityPlugin::Locality(const Session& session, TaskIndex task,
                                                      NodeIndex node) const {
  const JobIndex j = session.task(task).job;
  const JobInfo& job = session.job(j);
  if (job.group == nullptr || !job.group->spec.locality.has_value()) return std::nullopt;
  return LevelOf(j, node);  // data on no node of the cluster: elsewhere, wherever it runs
}

std::uint64_t LocalityPlugin::ClassKey(const Session& session, TaskIndex task) const {
  const JobIndex j = session.task(task).job;
  const JobData* d = DataOf(j);
  if (d == nullptr) return 0;
  const std::optional<LocalityLevel> allowed = Allowed(session, j);
  return Mix(d->hash, allowed.has_value() ? static_cast<std::uint64_t>(*allowed) : 0xffU);
}

}  // namespace arbiter
