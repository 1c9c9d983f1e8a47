#include "arbiter/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <sys/resource.h>

#include "arbiter/cache/snapshot.h"
#include "arbiter/controllers/backup_copies.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/plugins/topology.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/sim/forecast.h"
#include "arbiter/sim/invariants.h"
#include "arbiter/sim/run_time.h"
#include "arbiter/sim/scenario.h"
#include "arbiter/sim/scenario_runner.h"

namespace arbiter::sim {

Summary Summarize(std::vector<double> values) {
  Summary s;
  s.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    // Nearest rank: the smallest value with at least p of the values at or below it.
    const auto n = static_cast<double>(values.size());
    const auto index = static_cast<std::size_t>(std::max(0.0, std::ceil(p * n) - 1));
    return values[std::min(index, values.size() - 1)];
  };
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p99 = rank(0.99);
  s.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

namespace {

constexpr int kIdleSessionsBeforeGivingUp = 3;

struct JobState {
  const JobSpec* spec = nullptr;
  std::vector<std::string> pod_uids;
  std::int32_t placed = 0;
  std::int32_t finished = 0;  // of the placed, those that finished before the job (slower peers)
  std::int64_t placed_cpu = 0;
  std::int64_t placed_memory = 0;
  bool arrived = false;
  bool partial_counted = false;
  std::int64_t start_ms = -1;
  std::int64_t finish_ms = -1;
  std::int64_t finish_at = -1;   // the finish event that counts (-1: not running); others stale
  std::int64_t preemptions = 0;  // sessions in which it lost pods
  std::int64_t estimated_start_ms = -1;  // as JobOutcome's
  // Backup copies (idempotent jobs): pod_uids[0, originals) are the job's own pods, its copies
  // follow; a pod created again after an eviction keeps its place (Recreate), so positions
  // stay the task indexes. `ends`: when each pod running since the start, or copy since placed,
  // ends (erased once it has), and `runs_since`: when that run began (a job that stopped and
  // starts again runs its pods anew); `partner`: an original and its copy, both ways.
  std::size_t originals = 0;
  std::unordered_map<std::string, std::int64_t> ends;
  std::unordered_map<std::string, std::int64_t> runs_since;
  std::map<std::string, std::string> partner;
  std::map<std::string, std::int32_t> copy_index;  // copy -> its original's position
};

// A step function sampled at event times, integrated and downsampled for the report.
class StepSeries {
 public:
  void Record(std::int64_t t, std::vector<double> values) {
    if (!points_.empty() && points_.back().first == t) {
      points_.back().second = std::move(values);
    } else {
      points_.emplace_back(t, std::move(values));
    }
  }
  // Time-weighted mean of value `i` over [from, to].
  double Mean(std::size_t i, std::int64_t from, std::int64_t to) const {
    if (to <= from || points_.empty()) return points_.empty() ? 0 : points_.back().second[i];
    double area = 0;
    for (std::size_t k = 0; k < points_.size(); ++k) {
      const std::int64_t a = std::max(points_[k].first, from);
      const std::int64_t b = std::min(k + 1 < points_.size() ? points_[k + 1].first : to, to);
      if (b > a) area += points_[k].second[i] * static_cast<double>(b - a);
    }
    return area / static_cast<double>(to - from);
  }
  // At most `max_points` samples: the value in force at evenly spaced instants over [from, to].
  std::vector<std::pair<std::int64_t, std::vector<double>>> Downsample(
      std::int64_t from, std::int64_t to, std::size_t max_points) const {
    std::vector<std::pair<std::int64_t, std::vector<double>>> out;
    if (points_.empty()) return out;
    if (points_.size() <= max_points) return points_;
    std::size_t k = 0;
    for (std::size_t i = 0; i < max_points; ++i) {
      const std::int64_t t = from + (to - from) * static_cast<std::int64_t>(i) /
                                        static_cast<std::int64_t>(max_points - 1);
      while (k + 1 < points_.size() && points_[k + 1].first <= t) ++k;
      out.emplace_back(t, points_[k].second);
    }
    return out;
  }

 private:
  std::vector<std::pair<std::int64_t, std::vector<double>>> points_;
};

class Simulation {
 public:
  Simulation(const ClusterSpec& cluster, const Workload& workload, const SimulationOptions& options)
      : cluster_spec_(cluster), workload_(workload), options_(options) {}

  StatusOr<SimulationReport> Run() {
    const auto wall_start = std::chrono::steady_clock::now();
    ARBITER_RETURN_IF_ERROR(Validate());
    SimulatedClusterOptions cluster_options;
    cluster_options.bind_faults = options_.bind_faults;
    ARBITER_ASSIGN_OR_RETURN(cluster_, SimulatedCluster::Create(options_.config, cluster_options));
    report_.bind_faults = options_.bind_faults;
    for (const auto& [node, speed] : workload_.node_speeds) {
      if (speed < 1) ++report_.stragglers.slow_nodes;
    }
    for (const PriorityClass& pc : cluster_spec_.priority_classes) cluster_->Add(pc);
    for (const Queue& q : cluster_spec_.queues) cluster_->Add(q);
    for (const DataSet& d : cluster_spec_.data_sets) {
      cluster_->Add(d);
      std::vector<std::string>& holders = data_set_nodes_[d.meta.Key()];
      for (const DataBlock& block : d.blocks) {
        holders.insert(holders.end(), block.nodes.begin(), block.nodes.end());
      }
    }
    for (const Node& n : cluster_spec_.nodes) {
      cluster_->Add(n);
      total_cpu_ += n.allocatable.Get(kResourceCpu);
      total_memory_ += n.allocatable.Get(kResourceMemory);
      total_pods_ += n.allocatable.Get(kResourcePods);
      for (const auto& [label, domains] :
           {std::pair{kDefaultRackLabel, &node_rack_}, std::pair{kZoneLabel, &node_zone_}}) {
        if (auto it = n.meta.labels.find(std::string(label)); it != n.meta.labels.end()) {
          (*domains)[n.meta.name] = it->second;
          report_.topology.labelled = true;
        }
      }
    }
    for (const auto& [name, queue] : cluster_->queues()) {
      queue_index_.emplace(name, queues_.size());
      queues_.emplace_back().name = name;
    }
    jobs_.resize(workload_.jobs.size());
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      jobs_[i].spec = &workload_.jobs[i];
      ++queues_[queue_index_.at(workload_.jobs[i].queue)].jobs;
    }

    report_.cluster = cluster_spec_.source;
    report_.workload = workload_.source;
    report_.description = workload_.description;
    report_.seed = options_.seed;
    report_.invariants_checked = options_.check_invariants;
    report_.period_ms = workload_.period_ms;
    report_.nodes = static_cast<std::int64_t>(cluster_spec_.nodes.size());
    report_.pods = workload_.pod_count();
    report_.jobs = static_cast<std::int64_t>(workload_.jobs.size());

    Loop();
    Finish(wall_start);
    return std::move(report_);
  }

 private:
  struct QueueState {
    std::string name;
    std::int64_t jobs = 0;
    std::int64_t active_jobs = 0;  // arrived, not finished
    std::int64_t allocated_cpu = 0;
    std::int64_t deserved_cpu = 0;
    std::int64_t busy_ms = 0;
    std::int64_t busy_since = -1;
    double allocated_area = 0;  // integrals over busy time
    double deserved_area = 0;
    std::int64_t last_t = 0;
    StepSeries series;
  };

  Status Validate() const {
    const BindFaults& faults = options_.bind_faults;
    if (!(faults.failure_rate >= 0 && faults.failure_rate < 1)) {
      return InvalidArgumentError("bind failure rate " + std::to_string(faults.failure_rate) +
                                  ": must be at least 0 and below 1 (at 1 nothing ever binds)");
    }
    if (faults.latency.count() < 0)
      return InvalidArgumentError("bind latency: must not be negative");
    std::set<std::string> queues = {std::string(kDefaultQueueName)};
    for (const Queue& q : cluster_spec_.queues) queues.insert(q.meta.name);
    std::set<std::string> classes;
    for (const PriorityClass& pc : cluster_spec_.priority_classes) classes.insert(pc.meta.name);
    std::set<std::string> data_sets;
    for (const DataSet& d : cluster_spec_.data_sets) data_sets.insert(d.meta.Key());
    std::set<std::string> nodes;
    for (const Node& n : cluster_spec_.nodes) nodes.insert(n.meta.name);
    for (const auto& [node, speed] : workload_.node_speeds) {
      if (!nodes.contains(node)) {
        return InvalidArgumentError(workload_.source + ": nodeSpeeds names node " + node +
                                    ", which the cluster file " + cluster_spec_.source +
                                    " does not define");
      }
    }
    for (const JobSpec& job : workload_.jobs) {
      if (job.locality.has_value() && !job.locality->data_set.empty() &&
          !data_sets.contains(job.namespace_name + "/" + job.locality->data_set)) {
        return InvalidArgumentError("job " + job.namespace_name + "/" + job.name +
                                    " names data set \"" + job.locality->data_set +
                                    "\", which the cluster file " + cluster_spec_.source +
                                    " does not define in its namespace");
      }
      if (!queues.contains(job.queue)) {
        return InvalidArgumentError(
            job.queue_origin + ": job " + job.namespace_name + "/" + job.name + " names queue \"" +
            job.queue + "\", which the cluster file " + cluster_spec_.source + " does not define");
      }
      if (!job.priority_class_name.empty() && !classes.contains(job.priority_class_name)) {
        return InvalidArgumentError(job.priority_class_origin + ": job " + job.namespace_name +
                                    "/" + job.name + " names priority class \"" +
                                    job.priority_class_name + "\", which the cluster file " +
                                    cluster_spec_.source + " does not define");
      }
    }
    return Status::Ok();
  }

  Clock::WallTime At(std::int64_t t_ms) const {
    return ScenarioEpoch() + std::chrono::milliseconds(t_ms);
  }

  // The PodGroup and pods a job's controller would create when it arrives.
  ExtraJob MakeObjects(const JobSpec& spec) const {
    ExtraJob objects;
    PodGroup& group = objects.group.emplace();
    group.meta.name = spec.name;
    group.meta.namespace_name = spec.namespace_name;
    group.meta.uid = "pg/" + group.meta.Key();
    group.meta.creation_timestamp = At(spec.arrival_ms);
    group.spec.min_member = spec.min_member;
    group.spec.queue = spec.queue;
    group.spec.priority_class_name = spec.priority_class_name;
    group.spec.topology = spec.topology;
    group.spec.locality = spec.locality;
    if (spec.preemptable) group.meta.labels[std::string(kPreemptableLabel)] = "true";
    if (spec.run_for_hint > 0) {
      const auto hint_ms = static_cast<std::int64_t>(
          std::ceil(static_cast<double>(spec.duration_ms) * spec.run_for_hint));
      group.meta.annotations[std::string(kRunForAnnotation)] =
          std::to_string(std::max<std::int64_t>(hint_ms, 1)) + "ms";
    }
    // What a job controller (Volcano's, Kubeflow's) writes: the requests of the first minMember
    // pods, so that admission need not wait for the pods.
    // A sum that overflows (absurd requests) leaves minResources unset: admission then waits
    // for the pods, as it does for any group without it.
    std::int32_t counted = 0;
    bool overflow = false;
    for (const TaskSpec& task : spec.tasks) {
      for (std::int32_t r = 0; r < task.replicas && counted < spec.min_member; ++r, ++counted) {
        overflow = overflow || !group.spec.min_resources.Add(task.requests).ok();
      }
    }
    if (overflow) group.spec.min_resources = ResourceList();
    Pod pod;
    pod.meta.namespace_name = spec.namespace_name;
    pod.meta.creation_timestamp = At(spec.arrival_ms);
    pod.meta.labels[std::string(kPodGroupLabel)] = spec.name;
    pod.spec.scheduler_name = cluster_->scheduler_name();
    pod.status.phase = PodPhase::kPending;
    objects.pods.reserve(static_cast<std::size_t>(spec.pod_count()));
    for (const TaskSpec& task : spec.tasks) {
      pod.meta.labels[std::string(kTaskLabel)] = task.name;
      pod.spec.containers = {Container{"main", task.requests, {}, ""}};
      pod.spec.priority = task.priority;
      pod.spec.node_selector = task.node_selector;
      pod.spec.tolerations = task.tolerations;
      for (std::int32_t r = 0; r < task.replicas; ++r) {
        pod.meta.name = spec.name + "-" + task.name + "-" + std::to_string(r);
        pod.meta.uid = pod.meta.Key();
        objects.pods.push_back(pod);
      }
    }
    objects.run_time = {std::chrono::milliseconds(spec.duration_ms), RunTimeSource::kExact};
    objects.arrives = At(spec.arrival_ms);
    return objects;
  }

  void Arrive(std::size_t index, std::int64_t t) {
    JobState& job = jobs_[index];
    const JobSpec& spec = *job.spec;
    job.arrived = true;
    ExtraJob objects = MakeObjects(spec);
    cluster_->Add(*objects.group);
    job.pod_uids.reserve(objects.pods.size());
    for (const Pod& pod : objects.pods) {
      job.pod_uids.push_back(pod.meta.uid);
      pod_job_.emplace(pod.meta.uid, index);
      cluster_->Add(pod);
    }
    job.originals = job.pod_uids.size();
    QueueState& q = queues_[queue_index_.at(spec.queue)];
    AdvanceQueue(q, t);
    if (q.active_jobs++ == 0) q.busy_since = t;
  }

  // The job has its minimum placed at `t`: each pod placed runs its duration over its node's
  // speed; the job ends when the slowest does, the others finish on their own before.
  void Start(std::size_t index, std::int64_t t) {
    JobState& job = jobs_[index];
    job.ends.clear();
    for (const std::string& uid : job.pod_uids) {
      auto pod = cluster_->pods().find(uid);
      if (pod == cluster_->pods().end() || pod->second.spec.node_name.empty() ||
          pod->second.Finished()) {
        continue;
      }
      job.ends[uid] = EndOf(job, pod->second, t);
      job.runs_since[uid] = t;
    }
    job.finish_at = -1;
    Reschedule(index, t);
    if (job.spec->idempotent) running_idempotent_.insert(index);
  }

  // When a pod placed at `t` ends: the job's duration over its node's speed.
  std::int64_t EndOf(const JobState& job, const Pod& pod, std::int64_t t) {
    double speed = 1;
    if (auto s = workload_.node_speeds.find(pod.spec.node_name); s != workload_.node_speeds.end()) {
      speed = s->second;
    }
    if (report_.stragglers.slow_nodes > 0) {
      ++report_.stragglers.pods;
      if (speed < 1) ++report_.stragglers.pods_on_slow_nodes;
    }
    return t +
           static_cast<std::int64_t>(std::ceil(static_cast<double>(job.spec->duration_ms) / speed));
  }

  // The job ends when the last of its pods does, a pod with a copy when the first of the two
  // does; the others end on their own before (pod_finishes_). A change of the job's end makes
  // every entry made for the old one stale, so they are made again.
  void Reschedule(std::size_t index, std::int64_t t) {
    JobState& job = jobs_[index];
    std::int64_t finish = -1;
    for (const auto& [uid, end] : job.ends) {
      if (job.copy_index.contains(uid)) continue;
      std::int64_t e = end;
      if (auto p = job.partner.find(uid); p != job.partner.end()) {
        if (auto c = job.ends.find(p->second); c != job.ends.end()) e = std::min(e, c->second);
      }
      finish = std::max(finish, e);
    }
    if (finish < 0) finish = t + job.spec->duration_ms;
    if (finish == job.finish_at) return;
    job.finish_at = finish;
    finishes_.emplace(finish, index);
    for (const auto& [uid, end] : job.ends) {
      if (end < finish) pod_finishes_.emplace(end, index, finish, uid);
    }
  }

  // A copy placed while its job runs: it ends on its own node's time, and may end the job sooner.
  void StartCopy(std::size_t index, const std::string& uid, const Pod& pod, std::int64_t t) {
    JobState& job = jobs_[index];
    if (job.finish_at < 0) return;  // stopped: Start counts it when the job starts again
    const std::int64_t end = EndOf(job, pod, t);
    job.ends[uid] = end;
    job.runs_since[uid] = t;
    if (end < job.finish_at) pod_finishes_.emplace(end, index, job.finish_at, uid);
    Reschedule(index, t);
  }

  // Makes the copies the BatchJob controller's rule asks for, for each running idempotent job.
  void MakeCopies(std::int64_t t) {
    next_copy_check_ = -1;
    for (std::size_t index : running_idempotent_) {
      JobState& job = jobs_[index];
      if (job.finish_at < 0) continue;
      std::vector<controllers::TaskRun> runs;
      for (std::size_t i = 0; i < job.pod_uids.size(); ++i) {
        const std::string& uid = job.pod_uids[i];
        auto pod = cluster_->pods().find(uid);
        if (pod == cluster_->pods().end()) continue;
        const auto copy = job.copy_index.find(uid);
        // Pods placed after the start end with the job: not runs of their own.
        if (copy == job.copy_index.end() && !job.ends.contains(uid) && !pod->second.Finished()) {
          continue;
        }
        controllers::TaskRun run;
        run.index = copy != job.copy_index.end() ? copy->second : static_cast<std::int32_t>(i);
        run.backup = copy != job.copy_index.end();
        run.node = pod->second.spec.node_name;
        run.started = pod->second.status.start_time;
        if (auto since = job.runs_since.find(uid); since != job.runs_since.end()) {
          run.started = At(since->second);
        }
        run.succeeded = pod->second.status.phase == PodPhase::kSucceeded;
        if (run.succeeded) run.finished = pod->second.status.finished_at;
        runs.push_back(std::move(run));
      }
      if (const auto due =
              controllers::NextBehind(runs, static_cast<std::int32_t>(job.originals), At(t));
          due.has_value()) {
        // The first session after it: a run is behind once it has run longer than the bound.
        const std::int64_t ms =
            std::chrono::ceil<std::chrono::milliseconds>(*due - ScenarioEpoch()).count() + 1;
        if (next_copy_check_ < 0 || ms < next_copy_check_) next_copy_check_ = ms;
      }
      for (const controllers::BackupChoice& choice :
           controllers::ChooseBackups(runs, static_cast<std::int32_t>(job.originals), At(t))) {
        const std::string original = job.pod_uids[static_cast<std::size_t>(choice.index)];
        Pod copy = cluster_->pods().at(original);
        copy.meta.name += controllers::kBackupSuffix;
        copy.meta.uid = copy.meta.Key();
        copy.meta.labels[std::string(controllers::kBackupLabel)] = "true";
        copy.spec.node_name.clear();
        copy.status = PodStatus{};
        controllers::ExcludeNodes(copy.spec.required_node_affinity, choice.avoid_nodes);
        job.pod_uids.push_back(copy.meta.uid);
        job.partner[original] = copy.meta.uid;
        job.partner[copy.meta.uid] = original;
        job.copy_index[copy.meta.uid] = choice.index;
        pod_job_.emplace(copy.meta.uid, index);
        cluster_->Add(copy);
        ++report_.stragglers.copies;
      }
    }
  }

  // The other of a pair, once one has ended: deleted, its room freed.
  // A placed pod of the job leaves its node at `t`: its room is no longer used.
  void FreeRoom(JobState& job, const Pod& pod, std::int64_t t) {
    const std::int64_t cpu = pod.spec.containers.front().requests.Get(kResourceCpu);
    const std::int64_t memory = pod.spec.containers.front().requests.Get(kResourceMemory);
    job.placed_cpu -= cpu;
    job.placed_memory -= memory;
    used_cpu_ -= cpu;
    used_memory_ -= memory;
    --used_pods_;
    QueueState& q = queues_[queue_index_.at(job.spec->queue)];
    AdvanceQueue(q, t);
    q.allocated_cpu -= cpu;
  }

  void DropLoser(std::size_t index, const std::string& uid, std::int64_t t) {
    JobState& job = jobs_[index];
    job.ends.erase(uid);
    auto pod = cluster_->pods().find(uid);
    if (pod == cluster_->pods().end() || pod->second.Finished()) return;
    // A loser being evicted is deleted now instead: its room is freed here, not when the
    // eviction completes (which would find it gone, and create it again).
    evicting_.erase(uid);
    evicted_specs_.erase(uid);
    if (!pod->second.spec.node_name.empty()) {
      ++job.finished;
      FreeRoom(job, pod->second, t);
      bound_at_.erase(uid);
    }
    pod_job_.erase(uid);
    (void)cluster_->DeletePod(uid);
  }

  // A pod of a running job ends before its job (a faster node than its slowest peer's).
  void FinishPod(std::size_t index, const std::string& uid, std::int64_t t) {
    JobState& job = jobs_[index];
    auto pod = cluster_->pods().find(uid);
    if (pod == cluster_->pods().end() || pod->second.Finished() ||
        pod->second.meta.deletion_timestamp.has_value() || evicting_.contains(uid)) {
      return;
    }
    FreeRoom(job, pod->second, t);
    (void)cluster_->FinishPod(uid, PodPhase::kSucceeded, At(t));
    ++job.finished;
    job.ends.erase(uid);
    if (auto p = job.partner.find(uid); p != job.partner.end()) {
      if (job.copy_index.contains(uid)) ++report_.stragglers.copies_won;
      DropLoser(index, p->second, t);
    }
  }

  void FinishJob(std::size_t index, std::int64_t t) {
    JobState& job = jobs_[index];
    running_idempotent_.erase(index);
    // Pairs still both there: the one that ends first is kept (it ends now, with the job).
    for (const auto& [copy, position] : job.copy_index) {
      const std::string& original = job.pod_uids[static_cast<std::size_t>(position)];
      auto c = job.ends.find(copy);
      if (c == job.ends.end()) {
        DropLoser(index, copy, t);  // not placed, or ended
        continue;
      }
      auto o = job.ends.find(original);
      if (o == job.ends.end()) continue;
      if (c->second < o->second) {
        ++report_.stragglers.copies_won;
        DropLoser(index, original, t);
      } else {
        DropLoser(index, copy, t);
      }
    }
    job.finish_ms = t;
    if (job.finished > 0) {
      // Some pods ended before others (nodes of different speeds): as a job controller keeps
      // its finished pods until it cleans up, the last ones are seen Succeeded for a session,
      // with their run times (what the straggler plugin judges nodes by), then removed.
      // Pods never placed go now, as they would with the job.
      std::erase_if(job.pod_uids, [&](const std::string& uid) {
        auto pod = cluster_->pods().find(uid);
        if (pod != cluster_->pods().end() && !pod->second.spec.node_name.empty()) {
          if (!pod->second.Finished()) {
            (void)cluster_->FinishPod(uid, PodPhase::kSucceeded, At(t));
          }
          return false;
        }
        pod_job_.erase(uid);
        (void)cluster_->DeletePod(uid);
        return true;
      });
      removals_.emplace(t + workload_.period_ms, index);
    } else {
      RemoveJob(index);
    }
    used_cpu_ -= job.placed_cpu;
    used_memory_ -= job.placed_memory;
    used_pods_ -= job.placed - job.finished;
    QueueState& q = queues_[queue_index_.at(job.spec->queue)];
    AdvanceQueue(q, t);
    q.allocated_cpu -= job.placed_cpu;
    if (--q.active_jobs == 0) {
      q.busy_ms += t - q.busy_since;
      q.busy_since = -1;
    }
    ++report_.jobs_finished;
  }

  // The job's pods and PodGroup are deleted.
  void RemoveJob(std::size_t index) {
    JobState& job = jobs_[index];
    for (const std::string& uid : job.pod_uids) {
      pod_job_.erase(uid);
      (void)cluster_->DeletePod(uid);
    }
    (void)cluster_->DeletePodGroup(job.spec->namespace_name + "/" + job.spec->name);
    job.pod_uids.clear();
    job.pod_uids.shrink_to_fit();
  }

  // Accumulates the queue's integrals up to `t` (before its values change at `t`).
  static void AdvanceQueue(QueueState& q, std::int64_t t) {
    if (q.active_jobs > 0 && t > q.last_t) {
      const auto dt = static_cast<double>(t - q.last_t);
      q.allocated_area += static_cast<double>(q.allocated_cpu) * dt;
      q.deserved_area += static_cast<double>(q.deserved_cpu) * dt;
    }
    q.last_t = t;
  }

  static void AddTiming(std::vector<std::pair<std::string, double>>& totals,
                        const std::vector<NamedDuration>& durations) {
    if (totals.size() < durations.size()) totals.resize(durations.size());
    for (std::size_t i = 0; i < durations.size(); ++i) {
      totals[i].first = durations[i].name;
      totals[i].second += static_cast<double>(durations[i].nanos) / 1e6;
    }
  }

  void AddTimings(const SessionStats& stats) {
    AddTiming(report_.performance.action_ms, stats.action_nanos);
    AddTiming(report_.performance.plugin_ms, stats.plugin_nanos);
    report_.performance.nodes_filtered += stats.nodes_filtered;
  }

  void CheckInvariants(const SessionRecord& record, std::int64_t t) {
    // Nothing is disturbed: the workload deletes a job's pods only when the whole job finishes.
    static const std::set<std::string> kNoneDisturbed;
    for (const Violation& v : CheckSessionInvariants(*cluster_, record, kNoneDisturbed)) {
      ++report_.invariant_violations;
      if (report_.violations.size() < 20) {
        report_.violations.push_back("t=" + std::to_string(t / 1000) + "s: " + ToString(v));
      }
    }
  }

  void ApplySession(const SessionRecord& record, std::int64_t t) {
    report_.performance.session_ms.push_back(record.scheduler_seconds * 1000);
    snapshot_ms_.push_back(record.snapshot_seconds * 1000);
    report_.performance.scheduler_seconds += record.scheduler_seconds;
    AddTimings(record.result.stats);
    report_.bind_failures += static_cast<std::int64_t>(record.failed_binds.size());
    for (QueueState& q : queues_) AdvanceQueue(q, t);
    std::set<std::size_t> touched;
    for (const BindDecision& bind : record.bound) {
      auto it = pod_job_.find(bind.pod_uid());
      if (it == pod_job_.end()) continue;
      JobState& job = jobs_[it->second];
      const Pod& pod = cluster_->pods().at(bind.pod_uid());
      const std::int64_t cpu = pod.spec.containers.front().requests.Get(kResourceCpu);
      const std::int64_t memory = pod.spec.containers.front().requests.Get(kResourceMemory);
      ++job.placed;
      job.placed_cpu += cpu;
      job.placed_memory += memory;
      used_cpu_ += cpu;
      used_memory_ += memory;
      ++used_pods_;
      queues_[queue_index_.at(job.spec->queue)].allocated_cpu += cpu;
      touched.insert(it->second);
      ++report_.binds;
      bound_at_[bind.pod_uid()] = t;
      if (job.spec->locality.has_value()) CountLocality(*job.spec, bind.node_name());
      if (job.copy_index.contains(bind.pod_uid())) StartCopy(it->second, bind.pod_uid(), pod, t);
    }
    ApplyEvictions(record, t);
    for (std::size_t index : touched) {
      JobState& job = jobs_[index];
      if (job.finish_at < 0 && job.placed >= job.spec->min_member) {
        if (job.start_ms < 0) {
          job.start_ms = t;
          ++report_.jobs_started;
          if (job.spec->min_member > 1 && report_.topology.labelled) CountDomains(job);
        }
        Start(index, t);
      }
      if (job.placed < job.spec->min_member && !job.partial_counted) {
        job.partial_counted = true;
        ++report_.partial_gangs;
      }
    }
    for (const QueueUpdate& update : record.result.queue_updates) {
      auto it = queue_index_.find(update.name);
      if (it != queue_index_.end()) {
        queues_[it->second].deserved_cpu = update.status.deserved.Get(kResourceCpu);
      }
    }
  }

  // Evictions: counted when made; the pod holds its node until the simulated API server deletes
  // it (its grace period), and is then created again under the same name.
  // About the least work any gang-safe choice of victims could have lost for this session's
  // reclaims: the CPU they freed, taken from the same victim queues in the order of least
  // running time per CPU (a pod of a job above its minimum, or a job at its minimum whole), the
  // last one in part. A fractional knapsack: it ignores nodes, placement and the shares' limits,
  // and asks for the CPU the evictions freed, not only what the reclaimers then used.
  void BoundReclaimWorkLost(const SessionRecord& record, std::int64_t t) {
    std::set<std::string> victim_queues;
    std::int64_t freed_cpu = 0;
    for (const EvictDecision& e : record.evicted) {
      if (e.kind != EvictionKind::kReclaim || !pod_job_.contains(e.pod_uid)) continue;
      victim_queues.insert(e.queue);
      freed_cpu +=
          cluster_->pods().at(e.pod_uid).spec.containers.front().requests.Get(kResourceCpu);
      if (auto b = bound_at_.find(e.pod_uid); b != bound_at_.end()) {
        report_.reclaim_work_lost_pod_seconds += static_cast<double>(t - b->second) / 1000.0;
      }
    }
    if (freed_cpu == 0) return;
    // What may go: each running pod of a job above its minimum, and each job at its minimum
    // whole (gang-safe victims), as (seconds, millicores).
    std::map<std::size_t, std::vector<std::pair<double, std::int64_t>>> by_job;
    for (const auto& [uid, since] : bound_at_) {
      if (evicting_.contains(uid)) continue;  // leaving already, before this session
      auto job = pod_job_.find(uid);
      if (job == pod_job_.end() || !victim_queues.contains(jobs_[job->second].spec->queue)) {
        continue;
      }
      const std::int64_t cpu =
          cluster_->pods().at(uid).spec.containers.front().requests.Get(kResourceCpu);
      by_job[job->second].emplace_back(static_cast<double>(t - since) / 1000.0, cpu);
    }
    std::vector<std::pair<double, std::int64_t>> candidates;  // (seconds per millicore, millicores)
    const auto add = [&](double seconds, std::int64_t cpu) {
      if (cpu > 0) candidates.emplace_back(seconds / static_cast<double>(cpu), cpu);
    };
    for (const auto& [index, pods] : by_job) {
      if (jobs_[index].placed > jobs_[index].spec->min_member) {
        for (const auto& [seconds, cpu] : pods) add(seconds, cpu);
        continue;
      }
      double seconds = 0;
      std::int64_t cpu = 0;
      for (const auto& [pod_seconds, pod_cpu] : pods) {
        seconds += pod_seconds;
        cpu += pod_cpu;
      }
      add(seconds, cpu);
    }
    std::sort(candidates.begin(), candidates.end());
    std::int64_t left = freed_cpu;
    for (const auto& [per_millicore, cpu] : candidates) {
      const std::int64_t take = std::min(left, cpu);
      report_.reclaim_work_lost_bound_pod_seconds += per_millicore * static_cast<double>(take);
      left -= take;
      if (left == 0) break;
    }
  }

  void ApplyEvictions(const SessionRecord& record, std::int64_t t) {
    BoundReclaimWorkLost(record, t);
    std::set<std::size_t> preempted;
    for (const EvictDecision& e : record.evicted) {
      auto it = pod_job_.find(e.pod_uid);
      if (it == pod_job_.end()) continue;
      ++report_.evictions;
      ++report_.evictions_by_queue[e.queue];
      ++report_.evictions_by_kind[std::string(EvictionKindName(e.kind))];
      if (auto b = bound_at_.find(e.pod_uid); b != bound_at_.end()) {
        report_.work_lost_pod_seconds += static_cast<double>(t - b->second) / 1000.0;
      }
      preempted.insert(it->second);
      evicting_.insert(e.pod_uid);
      if (auto pod = cluster_->pods().find(e.pod_uid); pod != cluster_->pods().end()) {
        evicted_specs_.emplace(e.pod_uid, pod->second);
      }
      std::int64_t& last = last_evicted_[e.pod_name];
      if (last > 0 && t - last <= SimulationReport::kThrashWindowMs) {
        Flag("pod " + e.namespace_name + "/" + e.pod_name + " evicted twice within " +
             std::to_string(SimulationReport::kThrashWindowMs / 1000) + " s");
      }
      last = t;
    }
    for (std::size_t index : preempted) {
      JobState& job = jobs_[index];
      if (job.preemptions++ == 0) ++report_.jobs_preempted;
      report_.max_preemptions_per_job = std::max(report_.max_preemptions_per_job, job.preemptions);
      if (job.preemptions == SimulationReport::kThrashPreemptions + 1) {
        Flag("job " + job.spec->namespace_name + "/" + job.spec->name + " preempted more than " +
             std::to_string(SimulationReport::kThrashPreemptions) + " times");
      }
    }
    // Evicted pods the cluster has deleted: off their nodes, and created again.
    std::set<std::size_t> shrunk;
    for (auto uid = evicting_.begin(); uid != evicting_.end();) {
      if (cluster_->pods().contains(*uid)) {
        ++uid;
        continue;
      }
      auto it = pod_job_.find(*uid);
      if (it != pod_job_.end()) {
        const std::size_t index = it->second;
        Unplace(index, *uid);
        Recreate(index, *uid);
        shrunk.insert(index);
      }
      evicted_specs_.erase(*uid);  // its job finished meanwhile: nothing to create again
      uid = evicting_.erase(uid);
    }
    for (std::size_t index : shrunk) {
      JobState& job = jobs_[index];
      if (job.placed < job.spec->min_member) {
        job.finish_at = -1;  // stopped: starts over once placed again
        if (job.placed > 0 && !job.partial_counted) {
          job.partial_counted = true;
          ++report_.partial_gangs;
        }
      } else if (job.finish_at >= 0 && !job.ends.empty()) {
        Reschedule(index, t);  // it runs on: its end may have been a pod that left (a copy's)
      }
    }
  }

  void Unplace(std::size_t index, const std::string& uid) {
    JobState& job = jobs_[index];
    auto spec = evicted_specs_.find(uid);
    if (spec == evicted_specs_.end()) return;
    const std::int64_t cpu = spec->second.spec.containers.front().requests.Get(kResourceCpu);
    const std::int64_t memory = spec->second.spec.containers.front().requests.Get(kResourceMemory);
    --job.placed;
    job.placed_cpu -= cpu;
    job.placed_memory -= memory;
    used_cpu_ -= cpu;
    used_memory_ -= memory;
    --used_pods_;
    queues_[queue_index_.at(job.spec->queue)].allocated_cpu -= cpu;
    bound_at_.erase(uid);
    job.ends.erase(uid);
  }

  // The job's controller creates the evicted pod again: same name, a new uid.
  void Recreate(std::size_t index, const std::string& uid) {
    auto spec = evicted_specs_.find(uid);
    if (spec == evicted_specs_.end()) return;
    Pod pod = std::move(spec->second);
    evicted_specs_.erase(spec);
    pod_job_.erase(uid);
    JobState& job = jobs_[index];
    pod.meta.uid = pod.meta.Key() + "#" + std::to_string(++recreated_);
    pod.spec.node_name.clear();
    pod.meta.deletion_timestamp.reset();
    pod.status = PodStatus();
    // In its place: positions are task indexes. A copy stays its original's copy, and a pair
    // stays a pair (the controller makes an evicted copy again while its original is behind).
    if (auto slot = std::find(job.pod_uids.begin(), job.pod_uids.end(), uid);
        slot != job.pod_uids.end()) {
      *slot = pod.meta.uid;
    } else {
      job.pod_uids.push_back(pod.meta.uid);
    }
    job.runs_since.erase(uid);
    if (auto copy = job.copy_index.find(uid); copy != job.copy_index.end()) {
      job.copy_index[pod.meta.uid] = copy->second;
      job.copy_index.erase(copy);
    }
    if (auto p = job.partner.find(uid); p != job.partner.end()) {
      const std::string other = p->second;
      job.partner.erase(p);
      job.partner[pod.meta.uid] = other;
      job.partner[other] = pod.meta.uid;
    }
    pod_job_.emplace(pod.meta.uid, index);
    cluster_->Add(pod);
  }

  void Flag(std::string what) {
    if (report_.thrash.size() < 20) report_.thrash.push_back(std::move(what));
  }

  void Sample(std::int64_t t) {
    auto fraction = [](std::int64_t used, std::int64_t total) {
      return total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0.0;
    };
    utilisation_.Record(t, {fraction(used_cpu_, total_cpu_), fraction(used_memory_, total_memory_),
                            fraction(used_pods_, total_pods_)});
    for (QueueState& q : queues_) {
      q.series.Record(t,
                      {static_cast<double>(q.allocated_cpu), static_cast<double>(q.deserved_cpu)});
    }
  }

  void Loop() {
    const std::int64_t period = workload_.period_ms;
    std::size_t next_arrival = 0;
    first_arrival_ = workload_.jobs.front().arrival_ms;
    // Sessions run on the period's grid, from the first arrival's slot.
    std::int64_t t = first_arrival_ / period * period;
    int idle_sessions = 0;
    while (true) {
      if (workload_.horizon_ms && t > *workload_.horizon_ms) {
        end_reason_ = "horizon";
        t = *workload_.horizon_ms;
        break;
      }
      bool events = false;
      std::vector<std::size_t> to_estimate;
      while (next_arrival < jobs_.size() && workload_.jobs[next_arrival].arrival_ms <= t) {
        if (options_.eta_every > 0 &&
            static_cast<std::int64_t>(next_arrival) % options_.eta_every == 0) {
          to_estimate.push_back(next_arrival);
        }
        Arrive(next_arrival++, t);
        events = true;
      }
      while (!removals_.empty() && removals_.top().first <= t) {
        RemoveJob(removals_.top().second);
        removals_.pop();
        events = true;
      }
      while (!pod_finishes_.empty() && std::get<0>(pod_finishes_.top()) <= t) {
        const auto [at, index, job_finish, uid] = pod_finishes_.top();
        pod_finishes_.pop();
        // Stale when the job was stopped (preempted) since.
        if (jobs_[index].finish_at == job_finish) FinishPod(index, uid, t);
        events = true;
      }
      while (!finishes_.empty() && finishes_.top().first <= t) {
        const auto [at, index] = finishes_.top();
        finishes_.pop();
        if (jobs_[index].finish_at != at) continue;  // restarted since: a stale finish
        FinishJob(index, t);
        events = true;
      }
      if (!to_estimate.empty()) Estimate(to_estimate, t);
      if (!running_idempotent_.empty()) MakeCopies(t);
      const SessionRecord record = cluster_->RunSessionAt(At(t));
      if (options_.check_invariants) CheckInvariants(record, t);
      ApplySession(record, t);
      Sample(t);
      ReportProgress(t, next_arrival, record.scheduler_seconds);
      const bool progress = events || !record.result.binds.empty() || !record.bound.empty();
      // Binds in flight, failed binds waiting for their ttl and evicted pods in their grace
      // change the cluster without an arrival or a finish: keep the sessions coming until done.
      idle_sessions = (progress || cluster_->Settling()) ? 0 : idle_sessions + 1;
      last_t_ = t;

      const bool more_arrivals = next_arrival < jobs_.size();
      if (!more_arrivals && finishes_.empty()) {
        if (report_.jobs_finished == report_.jobs) {
          end_reason_ = "all jobs finished";
          break;
        }
        if (idle_sessions >= kIdleSessionsBeforeGivingUp) {
          end_reason_ = "no progress possible";
          break;
        }
      }
      std::int64_t next = t + period;
      if (idle_sessions >= kIdleSessionsBeforeGivingUp) {
        // Nothing changes until the next arrival or finish: jump to its slot on the grid.
        std::int64_t event = std::numeric_limits<std::int64_t>::max();
        if (more_arrivals) event = workload_.jobs[next_arrival].arrival_ms;
        if (!finishes_.empty()) event = std::min(event, finishes_.top().first);
        if (!pod_finishes_.empty()) event = std::min(event, std::get<0>(pod_finishes_.top()));
        if (next_copy_check_ > t) event = std::min(event, next_copy_check_);
        next = std::max(next, (event + period - 1) / period * period);
      }
      t = next;
    }
    end_t_ = std::max(t, last_t_);
  }

  // A forecast from the cluster as it is at `t`, every job's run time known exactly: running
  // jobs end when their finish is due, waiting ones run for their duration.
  void Estimate(const std::vector<std::size_t>& indexes, std::int64_t t) {
    const auto wall_start = std::chrono::steady_clock::now();
    std::map<std::string, JobTiming> timing;
    for (const JobState& job : jobs_) {
      if (!job.arrived || job.finish_ms >= 0) continue;
      JobTiming& timed = timing[job.spec->namespace_name + "/" + job.spec->name];
      timed.run_time = {std::chrono::milliseconds(job.spec->duration_ms), RunTimeSource::kExact};
      if (job.finish_at >= 0) timed.ends = At(job.finish_at);
    }
    std::shared_ptr<const Snapshot> snapshot = cluster_->cache().TakeSnapshot(At(t));
    ForecastOptions forecast;
    forecast.config = options_.config;
    forecast.period = std::chrono::milliseconds(workload_.period_ms);
    std::vector<ExtraJob> arrivals;
    if (options_.eta_foresee_arrivals) {
      for (const JobState& job : jobs_) {
        if (!job.arrived) arrivals.push_back(MakeObjects(*job.spec));
      }
    }
    StatusOr<ForecastResult> result = Forecast(*snapshot, At(t), timing, forecast, arrivals);
    for (std::size_t index : indexes) {
      JobState& job = jobs_[index];
      ++report_.eta.estimated;
      job.estimated_start_ms = -2;
      if (!result.ok()) continue;
      auto e = result->estimates.find(job.spec->namespace_name + "/" + job.spec->name);
      if (e != result->estimates.end() && e->second.start) {
        job.estimated_start_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(*e->second.start - At(0)).count();
      }
    }
    report_.eta.forecast_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  }

  void ReportProgress(std::int64_t t, std::size_t arrived, double session_seconds) {
    if (!options_.progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_progress_).count() <
        options_.progress_every_seconds) {
      return;
    }
    last_progress_ = now;
    options_.progress(SimulationProgress{t, cluster_->sessions_run(),
                                         static_cast<std::int64_t>(arrived), report_.jobs_started,
                                         report_.jobs_finished, session_seconds * 1000});
  }

  void CompareEstimate(const JobState& job) {
    if (job.estimated_start_ms == -1) return;
    const bool estimated = job.estimated_start_ms >= 0;
    if (estimated != (job.start_ms >= 0)) {
      ++report_.eta.missed;
      return;
    }
    if (!estimated) return;
    ++report_.eta.compared;
    const std::int64_t error = job.start_ms - job.estimated_start_ms;
    eta_error_ms_.push_back(static_cast<double>(std::abs(error)));
    if (error > 0) eta_late_ms_.push_back(static_cast<double>(error));
    const std::int64_t wait = job.start_ms - job.spec->arrival_ms;
    if (wait >= EtaAccuracy::kMinWaitMs) {
      eta_relative_error_.push_back(static_cast<double>(std::abs(error)) /
                                    static_cast<double>(wait));
    }
  }

  // How local a bound pod is to its job's data.
  void CountLocality(const JobSpec& spec, const std::string& node) {
    LocalityRequest data = *spec.locality;
    if (!data.data_set.empty()) {  // Validate() checked that it exists
      const std::vector<std::string>& holders =
          data_set_nodes_.at(spec.namespace_name + "/" + data.data_set);
      data.nodes.insert(data.nodes.end(), holders.begin(), holders.end());
    }
    LocalityOutcome& out = report_.locality;
    ++out.pods;
    if (std::find(data.nodes.begin(), data.nodes.end(), node) != data.nodes.end()) {
      ++out.node_local;
      return;
    }
    auto rack = node_rack_.find(node);
    bool in_rack = rack != node_rack_.end() && std::find(data.racks.begin(), data.racks.end(),
                                                         rack->second) != data.racks.end();
    for (const std::string& holder : data.nodes) {
      if (in_rack || rack == node_rack_.end()) break;
      auto r = node_rack_.find(holder);
      in_rack = r != node_rack_.end() && r->second == rack->second;
    }
    ++(in_rack ? out.rack_local : out.remote);
  }

  // The racks and zones of a gang's placed pods at its start.
  void CountDomains(const JobState& job) {
    std::set<std::string> racks;
    std::set<std::string> zones;
    for (const std::string& uid : job.pod_uids) {
      auto pod = cluster_->pods().find(uid);
      if (pod == cluster_->pods().end() || pod->second.spec.node_name.empty()) continue;
      const std::string& node = pod->second.spec.node_name;
      if (auto r = node_rack_.find(node); r != node_rack_.end()) racks.insert(r->second);
      if (auto z = node_zone_.find(node); z != node_zone_.end()) zones.insert(z->second);
    }
    TopologyOutcome& out = report_.topology;
    ++out.gangs;
    out.cross_rack += racks.size() > 1 ? 1 : 0;
    out.cross_zone += zones.size() > 1 ? 1 : 0;
    racks_per_gang_.push_back(static_cast<double>(racks.size()));
  }

  void Finish(std::chrono::steady_clock::time_point wall_start) {
    report_.end_ms = end_t_;
    report_.end_reason = end_reason_;
    std::int64_t last_finish = first_arrival_;
    std::vector<double> waits;
    std::vector<double> gang_waits;
    std::vector<double> completions;
    for (const JobState& job : jobs_) {
      const JobSpec& spec = *job.spec;
      JobOutcome outcome;
      outcome.name = spec.namespace_name + "/" + spec.name;
      outcome.queue = spec.queue;
      outcome.pods = spec.pod_count();
      outcome.min_member = spec.min_member;
      outcome.arrival_ms = spec.arrival_ms;
      outcome.start_ms = job.start_ms;
      outcome.finish_ms = job.finish_ms;
      outcome.estimated_start_ms = job.estimated_start_ms;
      CompareEstimate(job);
      if (job.start_ms >= 0) {
        waits.push_back(static_cast<double>(job.start_ms - spec.arrival_ms));
        if (spec.min_member > 1) gang_waits.push_back(waits.back());
      } else if (report_.never_started.size() < 20) {
        report_.never_started.push_back(outcome.name);
      }
      if (job.finish_ms >= 0) {
        completions.push_back(static_cast<double>(job.finish_ms - spec.arrival_ms));
        last_finish = std::max(last_finish, job.finish_ms);
      }
      report_.job_outcomes.push_back(std::move(outcome));
    }
    report_.topology.racks_per_gang = Summarize(std::move(racks_per_gang_));
    report_.makespan_ms =
        (report_.jobs_finished == report_.jobs ? last_finish : end_t_) - first_arrival_;
    report_.eta.error_ms = Summarize(std::move(eta_error_ms_));
    report_.eta.relative_error = Summarize(std::move(eta_relative_error_));
    report_.eta.late_ms = Summarize(std::move(eta_late_ms_));
    report_.wait_ms = Summarize(std::move(waits));
    report_.gang_wait_ms = Summarize(std::move(gang_waits));
    report_.completion_ms = Summarize(std::move(completions));

    const std::int64_t to = std::max(end_t_, first_arrival_ + 1);
    report_.mean_cpu_utilisation = utilisation_.Mean(0, first_arrival_, to);
    report_.mean_memory_utilisation = utilisation_.Mean(1, first_arrival_, to);
    for (const auto& [t, v] :
         utilisation_.Downsample(first_arrival_, to, SimulationReport::kMaxSeriesPoints)) {
      report_.utilisation.push_back(UtilisationPoint{t, v[0], v[1], v[2]});
    }

    double sum = 0;
    double sum_squares = 0;
    int fair_queues = 0;
    for (QueueState& q : queues_) {
      AdvanceQueue(q, end_t_);
      if (q.busy_since >= 0) q.busy_ms += end_t_ - q.busy_since;
      QueueOutcome out;
      out.name = q.name;
      out.weight = cluster_->queues().at(q.name).spec.weight;
      out.jobs = q.jobs;
      out.busy_ms = q.busy_ms;
      if (q.busy_ms > 0) {
        out.mean_allocated_millicores = q.allocated_area / static_cast<double>(q.busy_ms);
        out.mean_deserved_millicores = q.deserved_area / static_cast<double>(q.busy_ms);
      }
      if (out.mean_deserved_millicores > 0) {
        const double x = out.mean_allocated_millicores / out.mean_deserved_millicores;
        sum += x;
        sum_squares += x * x;
        ++fair_queues;
      }
      for (const auto& [t, v] :
           q.series.Downsample(first_arrival_, to, SimulationReport::kMaxSeriesPoints)) {
        out.series.push_back(QueuePoint{t, std::llround(v[0]), std::llround(v[1])});
      }
      if (q.jobs > 0) report_.queues.push_back(std::move(out));
    }
    if (fair_queues > 0 && sum_squares > 0) {
      report_.jain_index = sum * sum / (fair_queues * sum_squares);
    }
    report_.sessions = cluster_->sessions_run();

    Performance& perf = report_.performance;
    perf.session = Summarize(perf.session_ms);
    perf.snapshot = Summarize(std::move(snapshot_ms_));
    perf.decisions_per_second = perf.scheduler_seconds > 0
                                    ? static_cast<double>(report_.binds) / perf.scheduler_seconds
                                    : 0;
    perf.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) perf.peak_rss_bytes = usage.ru_maxrss * 1024;
  }

  const ClusterSpec& cluster_spec_;
  const Workload& workload_;
  const SimulationOptions& options_;
  std::unique_ptr<SimulatedCluster> cluster_;
  std::vector<JobState> jobs_;
  std::unordered_map<std::string, std::size_t> pod_job_;
  std::unordered_map<std::string, std::int64_t> bound_at_;      // pod uid -> when bound
  std::set<std::string> evicting_;                              // uids evicted, not yet deleted
  std::unordered_map<std::string, Pod> evicted_specs_;          // their pods as evicted
  std::unordered_map<std::string, std::int64_t> last_evicted_;  // pod name -> when
  std::int64_t recreated_ = 0;
  std::vector<QueueState> queues_;
  std::map<std::string, std::size_t> queue_index_;
  std::unordered_map<std::string, std::string> node_rack_, node_zone_;  // node name -> domain
  // Per DataSet of the cluster file (namespace/name): the nodes holding its blocks' replicas.
  std::unordered_map<std::string, std::vector<std::string>> data_set_nodes_;
  std::vector<double> racks_per_gang_;
  std::set<std::size_t> running_idempotent_;  // started jobs whose stragglers may get copies
  std::int64_t next_copy_check_ = -1;         // when a run of one of them will be behind
  // Finishes by time, then by job index (arrival order), so that ties are deterministic.
  std::priority_queue<std::pair<std::int64_t, std::size_t>,
                      std::vector<std::pair<std::int64_t, std::size_t>>, std::greater<>>
      finishes_;
  // Finished jobs whose pods are kept (Succeeded) for a session: when they are removed.
  std::priority_queue<std::pair<std::int64_t, std::size_t>,
                      std::vector<std::pair<std::int64_t, std::size_t>>, std::greater<>>
      removals_;
  // Pods that end before their job: (when, job index, the job's finish_at then, pod uid).
  std::priority_queue<std::tuple<std::int64_t, std::size_t, std::int64_t, std::string>,
                      std::vector<std::tuple<std::int64_t, std::size_t, std::int64_t, std::string>>,
                      std::greater<>>
      pod_finishes_;
  std::int64_t total_cpu_ = 0, total_memory_ = 0, total_pods_ = 0;
  std::int64_t used_cpu_ = 0, used_memory_ = 0, used_pods_ = 0;
  StepSeries utilisation_;
  std::vector<double> snapshot_ms_;
  std::vector<double> eta_error_ms_, eta_relative_error_, eta_late_ms_;
  std::int64_t first_arrival_ = 0;
  std::int64_t last_t_ = 0;
  std::int64_t end_t_ = 0;
  std::string end_reason_;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
  SimulationReport report_;
};

}  // namespace

StatusOr<SimulationReport> Simulate(const ClusterSpec& cluster, const Workload& workload,
                                    const SimulationOptions& options) {
  if (workload.jobs.empty()) return InvalidArgumentError(workload.source + ": no jobs");
  Simulation simulation(cluster, workload, options);
  return simulation.Run();
}

}  // namespace arbiter::sim
