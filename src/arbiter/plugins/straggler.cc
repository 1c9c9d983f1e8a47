#include "arbiter/plugins/straggler.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

namespace {

double Seconds(Clock::WallTime::duration d) { return std::chrono::duration<double>(d).count(); }

// How long a finished task ran: from its start to its last container's end.
std::optional<double> RanFor(const Pod& pod) {
  if (!pod.status.start_time.has_value() || !pod.status.finished_at.has_value()) {
    return std::nullopt;
  }
  const double seconds = Seconds(*pod.status.finished_at - *pod.status.start_time);
  return seconds > 0 ? std::optional(seconds) : std::nullopt;
}

}  // namespace

StatusOr<std::unique_ptr<Plugin>> StragglerPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Check());
  StragglerOptions o;
  ARBITER_ASSIGN_OR_RETURN(o.weight, reader.GetDouble("weight", 5, 0, 100));
  ARBITER_ASSIGN_OR_RETURN(const double peers, reader.GetDouble("minPeers", 3, 2, 1000));
  if (peers != static_cast<double>(static_cast<std::int32_t>(peers))) {
    return InvalidArgumentError("plugin straggler: arguments.minPeers: must be a whole number");
  }
  o.min_peers = static_cast<std::int32_t>(peers);
  ARBITER_ASSIGN_OR_RETURN(o.memory_seconds, reader.GetDouble("memorySeconds", 3600, 60, 86400));
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<StragglerPlugin>(o));
}

void StragglerPlugin::Observe(const std::string& node, const std::string& task_uid, double ratio,
                              Clock::WallTime at) {
  NodeObservations& seen = observations_[node];
  seen.insert_or_assign(task_uid, Observation{ratio, at});
  while (seen.size() > kMaxObservations) {  // the oldest goes
    auto oldest = std::min_element(seen.begin(), seen.end(), [](const auto& a, const auto& b) {
      return a.second.at < b.second.at;
    });
    seen.erase(oldest);
  }
}

void StragglerPlugin::OnSessionOpen(const Session& session) {
  const Clock::WallTime now = session.now();
  std::map<std::string_view, std::vector<TaskIndex>> roles;
  std::vector<double> finished;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    if (job.tasks.size() < static_cast<std::size_t>(options_.min_peers) ||
        std::none_of(job.tasks.begin(), job.tasks.end(),
                     [&](TaskIndex t) { return session.task(t).state == TaskState::kSucceeded; })) {
      continue;  // no peer to judge by (the common case, cheap)
    }
    roles.clear();
    for (TaskIndex t : job.tasks) roles[session.task(t).task_name].push_back(t);
    for (const auto& [role, tasks] : roles) {
      finished.clear();
      for (TaskIndex t : tasks) {
        const TaskInfo& task = session.task(t);
        if (task.state != TaskState::kSucceeded) continue;
        if (std::optional<double> ran = RanFor(*task.pod)) finished.push_back(*ran);
      }
      if (finished.size() < static_cast<std::size_t>(options_.min_peers)) continue;
      const auto middle = finished.begin() + static_cast<std::ptrdiff_t>(finished.size() / 2);
      std::nth_element(finished.begin(), middle, finished.end());
      const double median = *middle;
      for (TaskIndex t : tasks) {
        const TaskInfo& task = session.task(t);
        const Pod& pod = *task.pod;
        if (pod.spec.node_name.empty()) continue;
        if (task.state == TaskState::kSucceeded) {
          if (std::optional<double> ran = RanFor(pod)) {
            Observe(pod.spec.node_name, pod.meta.uid, *ran / median, *pod.status.finished_at);
          }
        } else if (task.state == TaskState::kRunning && pod.status.start_time.has_value()) {
          const double running = Seconds(now - *pod.status.start_time);
          if (running > median) Observe(pod.spec.node_name, pod.meta.uid, running / median, now);
        }
      }
    }
  }

  // What is older than the memory fades; nodes no longer in the cluster are forgotten.
  const auto horizon = now - std::chrono::duration_cast<Clock::WallTime::duration>(
                                 std::chrono::duration<double>(options_.memory_seconds));
  std::map<std::string, NodeObservations, std::less<>> kept;
  slowness_.assign(static_cast<std::size_t>(session.node_count()), 1.0);
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    const std::string& name = session.node(n).name();
    auto it = observations_.find(name);
    if (it == observations_.end()) continue;
    NodeObservations& seen = it->second;
    std::erase_if(seen, [&](const auto& entry) { return entry.second.at < horizon; });
    if (seen.empty()) continue;
    double sum = 0;
    for (const auto& [uid, o] : seen) sum += o.ratio;
    slowness_[n.pos()] = sum / static_cast<double>(seen.size());
    kept.emplace(name, std::move(seen));
  }
  observations_ = std::move(kept);
  // The score depends on the node only: computed once here, read per node and task after.
  score_.resize(slowness_.size());
  for (std::size_t i = 0; i < slowness_.size(); ++i) score_[i] = ScoreOf(slowness_[i]);
}

double StragglerPlugin::ScoreOf(double slowness) const {
  const double slower = std::clamp(slowness - 1, 0.0, 1.0);
  return 100 * options_.weight * (1 - slower);
}

double StragglerPlugin::Slowness(NodeIndex node) const {
  return node.pos() < slowness_.size() ? slowness_[node.pos()] : 1.0;
}

double StragglerPlugin::Score(const Session& /*session*/, TaskIndex /*task*/,
                              NodeIndex node) const {
  return node.pos() < score_.size() ? score_[node.pos()] : ScoreOf(1.0);
}

void StragglerPlugin::ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                                 std::span<const std::uint8_t> in_play,
                                 std::span<double> scores) const {
  if (first.pos() + scores.size() > score_.size()) {  // not of the session opened: node by node
    ScoreExtension::ScoreRange(session, task, first, in_play, scores);
    return;
  }
  // Every node of the run, in play or not: one pass with no branch.
  const double* const score = score_.data() + first.pos();
  for (std::size_t i = 0; i < scores.size(); ++i) scores[i] += score[i];
}

}  // namespace arbiter
