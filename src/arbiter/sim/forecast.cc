#include "arbiter/sim/forecast.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "arbiter/model/namespace.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/resource_quota.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/sim/scenario_runner.h"

namespace arbiter::sim {

std::string_view ConfidenceName(Confidence confidence) {
  switch (confidence) {
    case Confidence::kHigh:
      return "High";
    case Confidence::kMedium:
      return "Medium";
    case Confidence::kLow:
      return "Low";
  }
  return "Low";
}

bool IsWaiting(const Snapshot& snapshot, const JobInfo& job) {
  std::int32_t placed = 0;
  for (TaskIndex t : job.tasks) placed += CountsTowardGang(snapshot.tasks[t.pos()].state) ? 1 : 0;
  return placed < job.min_member;
}

std::map<std::string, JobTiming> TimingFromHints(const Snapshot& snapshot,
                                                 const RunTimeHistory* history,
                                                 Clock::WallTime now) {
  std::map<std::string, JobTiming> timing;
  for (const JobInfo& job : snapshot.jobs) {
    JobTiming& t = timing[job.Key()];
    t.run_time = RunTimeOf(snapshot, job, history);
    if (IsWaiting(snapshot, job) || !t.run_time.duration) continue;
    // A job past its estimate is late: it ends any moment.
    t.ends = std::max(now, JobStart(snapshot, job, now) + *t.run_time.duration);
  }
  return timing;
}

std::string DescribeAssumptions(const JobEstimate& estimate, const ForecastResult& forecast) {
  std::string out;
  std::int32_t ends = 0;
  std::string by;
  for (const auto& [source, n] : estimate.rests_on) {
    if (n == 0) continue;
    ends += n;
    by += (by.empty() ? "" : ", ") + std::to_string(n) + " by " +
          std::string(RunTimeSourceName(source));
  }
  if (estimate.start) {
    out = ends == 0 ? "room is free now"
                    : "after " + std::to_string(ends) + (ends == 1 ? " job end (" : " job ends (") +
                          by + ")";
  } else {
    out = "does not start within the forecast (" + forecast.end_reason + ")";
  }
  out += "; its own run time: " + std::string(RunTimeSourceName(estimate.run_time_source));
  if (forecast.running_without_end > 0) {
    out += "; " + std::to_string(forecast.running_without_end) +
           (forecast.running_without_end == 1
                ? " running job has no run time and is taken to run on"
                : " running jobs have no run time and are taken to run on");
  }
  out += "; jobs submitted later are not foreseen";
  return out;
}

namespace {

constexpr int kIdleSessionsBeforeJumping = 3;
constexpr std::string_view kOtherScheduler = "arbiter-forecast-other";

struct TrackedJob {
  std::string key;
  std::int32_t min_member = 1;
  std::optional<std::string> group_key;  // to delete when it ends
  std::set<std::string> pods;            // uids
  RunTime run_time;
  RunTimeSource ends_by = RunTimeSource::kUnknown;  // what its end (when known) rests on
  bool waiting = false;                             // waiting at the start: its start is estimated
  bool running = false;                             // at least minMember placed
  std::optional<Clock::WallTime> end_at;
  JobEstimate* estimate = nullptr;
};

class ForecastRun {
 public:
  ForecastRun(const Snapshot& snapshot, Clock::WallTime now,
              const std::map<std::string, JobTiming>& timing, const ForecastOptions& options)
      : snapshot_(snapshot), now_(now), timing_(timing), options_(options) {}

  StatusOr<ForecastResult> Run(const std::vector<ExtraJob>& extra) {
    ARBITER_ASSIGN_OR_RETURN(cluster_, SimulatedCluster::Create(options_.config));
    result_.now = now_;
    AddCluster();
    AddJobs();
    for (const ExtraJob& job : extra) {
      if (job.arrives && *job.arrives > now_) {
        arrivals_.emplace(*job.arrives, &job);
      } else {
        AddExtra(job, now_);
      }
    }
    Loop();
    return std::move(result_);
  }

 private:
  void AddCluster() {
    for (const auto& [name, labels] : snapshot_.namespace_labels) {
      Namespace ns;
      ns.meta.name = name;
      ns.meta.labels = labels;
      ns.phase = "Active";
      cluster_->cache().UpsertNamespace(ns);
    }
    for (const QueueInfo& q : snapshot_.queues) {
      cluster_->Add(*q.queue);
      if (!q.quota_cap) continue;
      // The queue's cap as one ResourceQuota: the same cap, whatever objects made it.
      ResourceQuota quota;
      quota.meta.name = "forecast-" + q.name();
      quota.meta.namespace_name = "default";
      quota.meta.labels["app.kubernetes.io/managed-by"] = "arbiter-controller";
      quota.meta.annotations[std::string(kQuotaQueueAnnotation)] = q.name();
      quota.spec_hard = *q.quota_cap;
      quota.status_hard = *q.quota_cap;
      cluster_->cache().UpsertResourceQuota(quota);
    }
    for (const PdbInfo& pdb : snapshot_.pdbs) cluster_->Add(*pdb.pdb);
    for (const PriorityClass& pc : snapshot_.priority_classes) cluster_->Add(pc);
    // Room that pods the scheduler does not own use (other schedulers', daemons') stays used:
    // one stand-in pod per node holds it.
    std::vector<ResourceVector> own(snapshot_.nodes.size());
    std::vector<std::int32_t> own_pods(snapshot_.nodes.size(), 0);
    for (const TaskInfo& task : snapshot_.tasks) {
      if (!HoldsNode(task.state) || task.node == kNoNode) continue;
      own[task.node.pos()].Add(task.request);
      ++own_pods[task.node.pos()];
    }
    for (std::size_t i = 0; i < snapshot_.nodes.size(); ++i) {
      const NodeInfo& info = snapshot_.nodes[i];
      Node node = *info.node;
      // A node this scheduler may not use now (not Ready, cordoned, outside --node-selector)
      // stays unusable.
      if (!info.in_scope) node.unschedulable = true;
      cluster_->Add(node);
      ResourceVector other = info.used;
      other.Subtract(own[i]);
      const std::int32_t other_pods = info.pod_count - own_pods[i];
      // Each stand-in counts as one pod by itself; the rest of the room they hold is one request.
      ResourceList held = snapshot_.resources.ToList(other);
      held.Erase(kResourcePods);
      for (std::int32_t p = 0; p < other_pods || (p == 0 && !other.IsZero()); ++p) {
        Pod pod;
        pod.meta.namespace_name = "forecast-other";
        pod.meta.name = node.meta.name + "-" + std::to_string(p);
        pod.meta.uid = "forecast-other/" + pod.meta.name;
        pod.spec.scheduler_name = std::string(kOtherScheduler);
        pod.spec.node_name = node.meta.name;
        pod.status.phase = PodPhase::kRunning;
        if (p == 0) pod.spec.containers = {Container{"main", held, {}, ""}};
        cluster_->Add(pod);
      }
    }
  }

  TrackedJob& Track(const std::string& key, std::int32_t min_member) {
    auto [it, fresh] = index_.try_emplace(key, jobs_.size());
    if (fresh) {
      jobs_.push_back(std::make_unique<TrackedJob>());
      jobs_.back()->key = key;
      jobs_.back()->min_member = min_member;
    }
    return *jobs_[it->second];
  }

  Pod OwnPod(const Pod& original) const {
    Pod pod = original;
    pod.spec.scheduler_name = cluster_->scheduler_name();
    return pod;
  }

  void AddJobs() {
    for (const JobInfo& job : snapshot_.jobs) {
      TrackedJob& tracked = Track(job.Key(), job.min_member);
      if (job.group != nullptr) {
        cluster_->Add(*job.group);
        tracked.group_key = job.Key();
      }
      auto timing = timing_.find(job.Key());
      if (timing != timing_.end()) tracked.run_time = timing->second.run_time;
      for (TaskIndex t : job.tasks) {
        const TaskInfo& task = snapshot_.tasks[t.pos()];
        Pod pod = OwnPod(*task.pod);
        if (task.state == TaskState::kBinding && task.node != kNoNode) {
          // Assumed by the scheduler: as good as bound.
          pod.spec.node_name = snapshot_.nodes[task.node.pos()].name();
          pod.status.phase = PodPhase::kRunning;
        }
        if (task.state == TaskState::kReleasing) {
          const std::int64_t grace = pod.spec.termination_grace_period_seconds.value_or(30);
          const Clock::WallTime since = pod.meta.deletion_timestamp.value_or(now_);
          deletions_.emplace(std::max(now_, since + std::chrono::seconds(grace)), pod.meta.uid);
          // Evicted before the forecast: created again once gone, as one evicted in it is.
          if (Evicted(pod)) evicted_.emplace(pod.meta.uid, pod);
        }
        tracked.pods.insert(pod.meta.uid);
        pod_job_[pod.meta.uid] = &tracked;
        cluster_->Add(pod);
      }
      if (IsWaiting(snapshot_, job)) {
        // A job with fewer pods than its minimum waits for pods, not for room: it is estimated
        // only once its pods exist.
        if (static_cast<std::int32_t>(job.tasks.size()) >= job.min_member) Wait(tracked);
        continue;
      }
      tracked.running = true;
      if (timing != timing_.end() && timing->second.ends) {
        tracked.end_at = std::max(now_, *timing->second.ends);
        tracked.ends_by = timing->second.run_time.source;
      } else {
        ++result_.running_without_end;
      }
    }
  }

  static bool Evicted(const Pod& pod) {
    return std::any_of(
        pod.status.conditions.begin(), pod.status.conditions.end(),
        [](const Condition& c) { return c.type == "DisruptionTarget" && c.status == "True"; });
  }

  void Wait(TrackedJob& job) {
    job.waiting = true;
    JobEstimate& e = result_.estimates[job.key];
    e.job = job.key;
    e.run_time_source = job.run_time.source;
    job.estimate = &e;
    ++waiting_;
  }

  // Jobs that arrive by `t`; true when any did.
  bool Arrive(Clock::WallTime t) {
    bool any = false;
    while (!arrivals_.empty() && arrivals_.begin()->first <= t) {
      AddExtra(*arrivals_.begin()->second, arrivals_.begin()->first);
      arrivals_.erase(arrivals_.begin());
      any = true;
    }
    return any;
  }

  void AddExtra(const ExtraJob& extra, Clock::WallTime at) {
    std::string key;
    std::int32_t min_member = 1;
    if (extra.group) {
      key = extra.group->meta.Key();
      min_member = extra.group->spec.min_member;
    } else if (!extra.pods.empty()) {
      key = extra.pods.front().meta.Key();
    } else {
      return;
    }
    TrackedJob& tracked = Track(key, min_member);
    tracked.run_time = extra.run_time;
    if (extra.group) {
      PodGroup group = *extra.group;
      group.meta.creation_timestamp = at;
      cluster_->Add(group);
      tracked.group_key = key;
    }
    for (const Pod& original : extra.pods) {
      Pod pod = OwnPod(original);
      pod.meta.creation_timestamp = at;
      if (pod.meta.uid.empty()) pod.meta.uid = "whatif/" + pod.meta.Key();
      tracked.pods.insert(pod.meta.uid);
      pod_job_[pod.meta.uid] = &tracked;
      cluster_->Add(pod);
    }
    if (at == now_ && static_cast<std::int32_t>(extra.pods.size()) >= min_member) Wait(tracked);
  }

  std::int32_t Placed(const TrackedJob& job) const {
    std::int32_t placed = 0;
    for (const std::string& uid : job.pods) {
      auto it = cluster_->pods().find(uid);
      if (it == cluster_->pods().end()) continue;
      const Pod& pod = it->second;
      placed += (!pod.spec.node_name.empty() && !pod.meta.deletion_timestamp) ||
                        pod.status.phase == PodPhase::kSucceeded
                    ? 1
                    : 0;
    }
    return placed;
  }

  // Jobs whose end has come: their pods and group go.
  bool EndJobs(Clock::WallTime t) {
    bool any = false;
    for (const auto& job : jobs_) {
      if (!job->end_at || *job->end_at > t) continue;
      job->end_at.reset();
      job->running = false;
      ++ended_[job->ends_by];
      for (const std::string& uid : job->pods) {
        pod_job_.erase(uid);
        (void)cluster_->DeletePod(uid);
      }
      job->pods.clear();
      if (job->group_key) (void)cluster_->DeletePodGroup(*job->group_key);
      any = true;
    }
    while (!deletions_.empty() && deletions_.begin()->first <= t) {
      any = cluster_->DeletePod(deletions_.begin()->second).ok() || any;
      deletions_.erase(deletions_.begin());
    }
    return any;
  }

  // Evicted pods the cluster has deleted come back pending, as their controller makes them.
  void Recreate() {
    for (auto it = evicted_.begin(); it != evicted_.end();) {
      if (cluster_->pods().contains(it->first)) {
        ++it;
        continue;
      }
      auto owner = pod_job_.find(it->first);
      if (owner != pod_job_.end()) {
        TrackedJob* job = owner->second;
        pod_job_.erase(owner);
        job->pods.erase(it->first);
        Pod pod = std::move(it->second);
        pod.meta.uid = pod.meta.Key() + "#forecast-" + std::to_string(++recreated_);
        pod.spec.node_name.clear();
        pod.meta.deletion_timestamp.reset();
        pod.status = PodStatus();
        job->pods.insert(pod.meta.uid);
        pod_job_[pod.meta.uid] = job;
        cluster_->Add(pod);
      }
      it = evicted_.erase(it);
    }
  }

  void Observe(const SessionRecord& record, Clock::WallTime t) {
    for (const EvictDecision& e : record.evicted) {
      if (auto pod = cluster_->pods().find(e.pod_uid); pod != cluster_->pods().end()) {
        evicted_.emplace(e.pod_uid, pod->second);
      }
    }
    for (const auto& job : jobs_) {
      if (job->pods.empty()) continue;
      const bool running = Placed(*job) >= job->min_member;
      if (running && !job->running) {
        job->running = true;
        if (job->run_time.duration) {
          job->end_at = t + *job->run_time.duration;
          job->ends_by = job->run_time.source;
        }
        if (job->estimate != nullptr && !job->estimate->start) {
          job->estimate->start = t;
          job->estimate->rests_on = ended_;
          job->estimate->confidence = ConfidenceOf(ended_);
          --waiting_;
        }
      } else if (!running && job->running) {
        job->running = false;  // preempted below its minimum: it starts over once placed again
        job->end_at.reset();
      }
    }
  }

  static Confidence ConfidenceOf(const std::map<RunTimeSource, std::int32_t>& ended) {
    Confidence c = Confidence::kHigh;
    for (const auto& [source, n] : ended) {
      if (n == 0) continue;
      if (source == RunTimeSource::kLearned) return Confidence::kLow;
      if (source == RunTimeSource::kDeadline) c = Confidence::kMedium;
    }
    return c;
  }

  std::optional<Clock::WallTime> NextEvent() const {
    std::optional<Clock::WallTime> next;
    auto consider = [&](Clock::WallTime at) { next = next ? std::min(*next, at) : at; };
    for (const auto& job : jobs_) {
      if (job->end_at) consider(*job->end_at);
    }
    if (!deletions_.empty()) consider(deletions_.begin()->first);
    if (!arrivals_.empty()) consider(arrivals_.begin()->first);
    if (auto change = cluster_->NextChange()) consider(*change);
    return next;
  }

  void Loop() {
    const Clock::WallTime horizon = now_ + options_.horizon;
    const auto started = std::chrono::steady_clock::now();
    Clock::WallTime t = now_;
    int idle = 0;
    while (true) {
      if (waiting_ == 0) {
        result_.end_reason = "every waiting job starts";
        break;
      }
      if (result_.sessions >= options_.max_sessions) {
        result_.end_reason = "session limit";
        break;
      }
      if (options_.budget.count() > 0 && result_.sessions > 0 &&
          std::chrono::steady_clock::now() - started > options_.budget) {
        result_.end_reason = "time budget";
        break;
      }
      const bool arrived = Arrive(t);
      const bool events = EndJobs(t) || arrived;
      const SessionRecord record = cluster_->RunSessionAt(t);
      ++result_.sessions;
      result_.until = t;
      Observe(record, t);
      Recreate();
      const bool progress = events || !record.result.binds.empty() || !record.bound.empty() ||
                            !record.evicted.empty();
      idle = progress ? 0 : idle + 1;
      Clock::WallTime next = t + options_.period;
      if (idle >= kIdleSessionsBeforeJumping) {
        const std::optional<Clock::WallTime> event = NextEvent();
        if (!event) {
          result_.end_reason = "nothing changes any more";
          break;
        }
        // Sessions keep the period's grid, as the scheduler's do: an end between two sessions
        // is seen by the next one.
        const auto periods =
            (*event - now_ + options_.period - std::chrono::nanoseconds(1)) / options_.period;
        next = std::max(next, now_ + periods * options_.period);
      }
      if (next > horizon) {
        result_.end_reason = "horizon";
        break;
      }
      t = next;
    }
  }

  const Snapshot& snapshot_;
  const Clock::WallTime now_;
  const std::map<std::string, JobTiming>& timing_;
  const ForecastOptions& options_;
  std::unique_ptr<SimulatedCluster> cluster_;
  std::vector<std::unique_ptr<TrackedJob>> jobs_;
  std::unordered_map<std::string, std::size_t> index_;
  std::unordered_map<std::string, TrackedJob*> pod_job_;
  std::map<std::string, Pod> evicted_;                        // by uid, as they were when evicted
  std::multimap<Clock::WallTime, std::string> deletions_;     // pods being deleted now, by when
  std::multimap<Clock::WallTime, const ExtraJob*> arrivals_;  // extra jobs still to come
  std::map<RunTimeSource, std::int32_t> ended_;
  std::int64_t waiting_ = 0;
  std::int64_t recreated_ = 0;
  ForecastResult result_;
};

}  // namespace

StatusOr<ForecastResult> Forecast(const Snapshot& snapshot, Clock::WallTime now,
                                  const std::map<std::string, JobTiming>& timing,
                                  const ForecastOptions& options,
                                  const std::vector<ExtraJob>& extra) {
  ForecastRun run(snapshot, now, timing, options);
  return run.Run(extra);
}

}  // namespace arbiter::sim
