#include "arbiter/controllers/batchjob_sync.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "arbiter/controllers/backup_copies.h"
#include "arbiter/controllers/batchjob_policy.h"
#include "arbiter/controllers/podgroup_upkeep.h"
#include "arbiter/sim/run_time.h"

namespace arbiter::controllers {
namespace {

using nlohmann::json;

constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
constexpr std::string_view kPreemptionByScheduler = "PreemptionByScheduler";

std::optional<std::int32_t> IntLabel(const Labels& labels, std::string_view key) {
  auto it = labels.find(key);
  if (it == labels.end()) return std::nullopt;
  std::int32_t n = 0;
  const char* end = it->second.data() + it->second.size();
  auto [ptr, ec] = std::from_chars(it->second.data(), end, n);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

std::string Label(const Labels& labels, std::string_view key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

bool HasTrue(const Pod& pod, std::string_view type, std::string_view reason = {}) {
  const Condition* c = FindCondition(pod.status.conditions, type);
  return c != nullptr && c->IsTrue() && (reason.empty() || c->reason == reason);
}

bool IsReady(const Pod& pod) {
  return pod.status.phase == PodPhase::kRunning && HasTrue(pod, "Ready");
}

// Why a pod of the job stopped, if it did: a pod deleted by someone else (`gone`) is a
// disruption even when nothing says who did it.
std::optional<JobEvent> StopEventOf(const Pod& pod, bool gone) {
  if (HasTrue(pod, kPreemptedCondition) ||
      HasTrue(pod, kDisruptionTarget, kPreemptionByScheduler)) {
    return JobEvent::kPodPreempted;
  }
  if (HasTrue(pod, kDisruptionTarget) || pod.status.reason == "Evicted") {
    return JobEvent::kPodEvicted;
  }
  if (gone) return JobEvent::kPodEvicted;
  if (pod.status.phase == PodPhase::kFailed) return JobEvent::kPodFailed;
  return std::nullopt;
}

// When the pod stopped, as far as its conditions tell (kwok and the kubelet move Ready then).
Clock::WallTime StoppedAt(const Pod& pod, Clock::WallTime fallback) {
  const Condition* ready = FindCondition(pod.status.conditions, "Ready");
  if (ready != nullptr && ready->last_transition_time.has_value()) {
    return *ready->last_transition_time;
  }
  return fallback;
}

std::string PodName(const BatchJob& job, std::string_view task, std::int32_t index) {
  return job.meta.name + "-" + std::string(task) + "-" + std::to_string(index);
}

std::string BackupName(const BatchJob& job, std::string_view task, std::int32_t index) {
  return PodName(job, task, index) + std::string(kBackupSuffix);
}

bool IsBackup(const Pod& pod) { return Label(pod.meta.labels, kBackupLabel) == "true"; }

// The JSON form of ExcludeNodes (backup_copies.h): every term of the pod's required node
// affinity (each is an alternative, so each must exclude the nodes) gains `metadata.name NotIn
// [node]` per node; none becomes one term.
void ExcludeNodes(json& spec, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return;
  json& required =
      spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  if (!required.is_object()) required = json::object();
  json& terms = required["nodeSelectorTerms"];
  if (!terms.is_array() || terms.empty()) terms = json::array({json::object()});
  for (json& term : terms) {
    if (!term.is_object()) term = json::object();
    json& fields = term["matchFields"];
    if (!fields.is_array()) fields = json::array();
    for (const std::string& node : nodes) {
      fields.push_back({{"key", "metadata.name"}, {"operator", "NotIn"}, {"values", {node}}});
    }
  }
}

json OwnerReferenceJson(const BatchJob& job) {
  return json::array({{{"apiVersion", "arbiter.dev/v1alpha1"},
                       {"kind", "BatchJob"},
                       {"name", job.meta.name},
                       {"uid", job.meta.uid},
                       {"controller", true},
                       {"blockOwnerDeletion", true}}});
}

OwnerReference OwnerReferenceOf(const BatchJob& job) {
  return OwnerReference{"arbiter.dev/v1alpha1", "BatchJob", job.meta.name, job.meta.uid, true};
}

// Sets `name` in every container's env, replacing a variable of that name.
void SetEnv(json& containers, const std::string& name, const std::string& value) {
  if (!containers.is_array()) return;
  for (json& c : containers) {
    if (!c.is_object()) continue;
    json& env = c["env"];
    if (!env.is_array()) env = json::array();
    bool replaced = false;
    for (json& e : env) {
      if (e.is_object() && e.value("name", "") == name) {
        e = {{"name", name}, {"value", value}};
        replaced = true;
      }
    }
    if (!replaced) env.push_back({{"name", name}, {"value", value}});
  }
}

struct TaskView {
  const BatchTaskSpec* spec = nullptr;
  TaskCounts counts;
  std::int32_t ready = 0;  // current pods Ready (or Succeeded)
  std::optional<Clock::WallTime> last_finished;
};

class Planner {
 public:
  explicit Planner(const JobObservation& obs)
      : obs_(obs), job_(*obs.job), spec_(job_.spec), next_(job_.status) {}

  JobPlan Run() {
    next_.observed_generation = job_.meta.generation;
    next_.min_available = spec_.MinAvailable();
    Classify();
    Step();
    for (auto& [name, task] : tasks_) {
      const std::int32_t attempt = next_.tasks[name].attempt;
      next_.tasks[name] = task.counts;
      next_.tasks[name].attempt = attempt;
    }
    next_.running = 0;
    for (const auto& [name, counts] : next_.tasks) next_.running += counts.running;
    if (next_ != job_.status) plan_.status = next_;
    return std::move(plan_);
  }

 private:
  struct PodView {
    const Pod* pod;
    std::string task;
    bool current;
    bool backup = false;
    std::optional<std::int32_t> index;
  };

  // Current: made for the job's attempt and its task's attempt (as the status had them when this
  // plan began: a restart decided now makes every pod stale, which NewAttempt handles).
  bool IsCurrent(const Pod& pod, const std::string& task) const {
    const BatchTaskSpec* spec = spec_.FindTask(task);
    if (spec == nullptr) return false;
    auto it = job_.status.tasks.find(task);
    const std::int32_t task_attempt = it == job_.status.tasks.end() ? 0 : it->second.attempt;
    return IntLabel(pod.meta.labels, kJobAttemptLabel) == job_.status.attempt &&
           IntLabel(pod.meta.labels, kTaskAttemptLabel) == task_attempt;
  }

  void Classify() {
    for (const BatchTaskSpec& t : spec_.tasks) tasks_[t.name].spec = &t;
    std::vector<const Pod*> sorted = obs_.pods;
    std::sort(sorted.begin(), sorted.end(),
              [](const Pod* a, const Pod* b) { return a->meta.name < b->meta.name; });
    for (const Pod* pod : sorted) {
      PodView view{pod, Label(pod->meta.labels, kTaskLabel), false, IsBackup(*pod),
                   IntLabel(pod->meta.labels, kTaskIndexLabel)};
      view.current = IsCurrent(*pod, view.task);
      pods_.push_back(view);
      if (!view.current) continue;
      TaskView& task = tasks_[view.task];
      if (view.backup) {
        ++task.counts.backups;
        continue;  // counted with its index, below
      }
      switch (pod->status.phase) {
        case PodPhase::kSucceeded:
          ++task.counts.succeeded;
          ++task.ready;
          break;
        case PodPhase::kFailed:
          ++task.counts.failed;
          break;
        case PodPhase::kRunning:
          if (!pod->meta.deletion_timestamp.has_value()) ++task.counts.running;
          if (IsReady(*pod)) ++task.ready;
          break;
        default:
          if (!pod->meta.deletion_timestamp.has_value()) ++task.counts.pending;
          break;
      }
      if (pod->Finished()) {
        const Clock::WallTime at = StoppedAt(*pod, obs_.now);
        if (!task.last_finished.has_value() || *task.last_finished < at) task.last_finished = at;
      }
    }
    SettleCopies();
  }

  const PodView* FindCurrent(const std::string& task, std::int32_t index, bool backup) const {
    for (const PodView& p : pods_) {
      if (p.current && p.backup == backup && p.task == task && p.index == index) return &p;
    }
    return nullptr;
  }

  // Whether a copy of the task's index succeeded: the index counts as succeeded, and its first
  // pod, whatever becomes of it, is no longer the job's concern.
  bool CopyWon(const std::string& task, std::optional<std::int32_t> index) const {
    if (!index.has_value()) return false;
    const PodView* copy = FindCurrent(task, *index, /*backup=*/true);
    return copy != nullptr && copy->pod->status.phase == PodPhase::kSucceeded;
  }

  // The first of an index's two pods to succeed wins: the other is deleted, and the index
  // counts once, as succeeded.
  void SettleCopies() {
    for (const PodView& copy : pods_) {
      if (!copy.current || !copy.backup || !copy.index.has_value()) continue;
      const PodView* first = FindCurrent(copy.task, *copy.index, /*backup=*/false);
      const Pod* original = first != nullptr ? first->pod : nullptr;
      if (copy.pod->status.phase != PodPhase::kSucceeded) {
        if (original != nullptr && original->status.phase == PodPhase::kSucceeded &&
            !copy.pod->Finished()) {
          if (!copy.pod->meta.deletion_timestamp.has_value()) {
            Note("pod " + original->meta.name + " succeeded first: deleting its copy " +
                 copy.pod->meta.name);
          }
          Delete(*copy.pod);
        }
        continue;
      }
      TaskView& task = tasks_[copy.task];
      if (original != nullptr) {
        switch (original->status.phase) {
          case PodPhase::kSucceeded:
            continue;  // both did: counted once already
          case PodPhase::kFailed:
            --task.counts.failed;
            break;
          case PodPhase::kRunning:
            if (!original->meta.deletion_timestamp.has_value()) --task.counts.running;
            if (IsReady(*original)) --task.ready;
            break;
          default:
            if (!original->meta.deletion_timestamp.has_value()) --task.counts.pending;
            break;
        }
        if (!original->Finished() && !original->meta.deletion_timestamp.has_value()) {
          Note("copy " + copy.pod->meta.name + " succeeded first: deleting " + original->meta.name);
          Delete(*original);
        }
      }
      ++task.counts.succeeded;
      ++task.ready;
    }
  }

  void Step() {
    const BatchJobPhase phase = next_.phase;
    if (IsFinished(phase)) {
      StopUnfinished();
      if (spec_.ttl_seconds_after_finished.has_value() && next_.completion_time.has_value() &&
          obs_.now >=
              *next_.completion_time + std::chrono::seconds(*spec_.ttl_seconds_after_finished)) {
        plan_.delete_job = true;
        Note("ttlSecondsAfterFinished passed: deleting the job");
      }
      return;
    }
    if (phase == BatchJobPhase::kCompleting || phase == BatchJobPhase::kFailing) {
      if (StopUnfinished() == 0) {
        const bool completed = phase == BatchJobPhase::kCompleting;
        const JobCondition* why = CurrentCondition();
        Enter(completed ? BatchJobPhase::kCompleted : BatchJobPhase::kFailed,
              why != nullptr ? why->condition.reason : "",
              why != nullptr ? why->condition.message : "");
        next_.completion_time = obs_.now;
      }
      return;
    }
    if (spec_.suspend) {
      // Resuming starts a new attempt (without using a retry): the pods of this one go.
      if (phase != BatchJobPhase::kSuspended) {
        Enter(BatchJobPhase::kSuspended, "Suspended", "spec.suspend is true: its pods are stopped");
        NewAttempt();
      }
      DeleteStale();
      return;
    }
    if (phase == BatchJobPhase::kSuspended) {
      Enter(BatchJobPhase::kRestarting, "Resumed",
            "spec.suspend is false: starting once the pods of the suspended attempt are gone");
    }
    plan_.create_group = obs_.group == nullptr ? std::optional(JobPodGroup(job_)) : std::nullopt;
    // The topology and the data's place are the parts of the group a user may still change
    // once it exists (a Required gang made Preferred while it waits; its input moved): the group
    // follows, if it is the job's own.
    const OwnerReference* owner = obs_.group != nullptr ? obs_.group->meta.Controller() : nullptr;
    if (owner != nullptr && owner->uid == job_.meta.uid) {
      if (obs_.group->spec.topology != job_.spec.topology) {
        plan_.set_group_topology = job_.spec.topology;
        plan_.notes.emplace_back("spec.topology changed: given to its podgroup");
      }
      if (obs_.group->spec.locality != job_.spec.locality) {
        plan_.set_group_locality = job_.spec.locality;
        plan_.notes.emplace_back("spec.locality changed: given to its podgroup");
      }
    }
    plan_.ensure_service = true;
    plan_.ensure_hosts = true;
    const std::int32_t stale = DeleteStale();
    if (next_.phase == BatchJobPhase::kRestarting) {
      if (stale > 0) return;  // blocking: the new pods wait for the old ones to be gone
      Enter(BatchJobPhase::kPending, "Restarted",
            "attempt " + std::to_string(next_.attempt) + ": no pod of an earlier attempt remains");
    }
    if (ActOnOccurrences()) return;
    if (DeadlinePassed()) return;
    if (Succeeded()) return;
    CreateMissingPods();
    UpdateRunning();
  }

  // ---- Occurrences ----

  bool ActOnOccurrences() {
    std::vector<const GonePod*> gone;
    gone.reserve(obs_.gone.size());
    for (const GonePod& g : obs_.gone) gone.push_back(&g);
    std::sort(gone.begin(), gone.end(), [](const GonePod* a, const GonePod* b) {
      return a->last.meta.name < b->last.meta.name;
    });
    for (const GonePod* g : gone) {
      const std::string task = Label(g->last.meta.labels, kTaskLabel);
      if (!IsCurrent(g->last, task) || g->last.Finished()) continue;
      if (IsBackup(g->last) || CopyWon(task, IntLabel(g->last.meta.labels, kTaskIndexLabel))) {
        continue;
      }
      const std::optional<JobEvent> event = StopEventOf(g->last, true);
      if (Occur(task, Occurrence{*event, std::nullopt}, g->seen_at,
                "pod " + g->last.meta.name + " was deleted")) {
        return true;
      }
    }
    // A pod counted in the status and no longer observed was deleted by someone else, and its
    // deletion not seen (the controller was not running): an eviction, for all we know.
    for (const BatchTaskSpec& t : spec_.tasks) {
      auto it = job_.status.tasks.find(t.name);
      if (it == job_.status.tasks.end()) continue;
      const TaskCounts& recorded = it->second;
      const TaskCounts& observed = tasks_[t.name].counts;
      const std::int32_t missing = Total(recorded) - Total(observed);
      const std::int32_t finished_missing =
          std::max(0, recorded.succeeded + recorded.failed - observed.succeeded - observed.failed);
      if (missing - finished_missing <= 0) continue;
      if (Occur(t.name, Occurrence{JobEvent::kPodEvicted, std::nullopt}, obs_.now,
                std::to_string(missing - finished_missing) + " pod(s) of task " + t.name +
                    " disappeared")) {
        return true;
      }
    }
    for (const PodView& p : pods_) {
      if (!p.current || p.pod->status.phase != PodPhase::kFailed) continue;
      if (p.backup || CopyWon(p.task, p.index)) continue;
      const std::optional<JobEvent> event = StopEventOf(*p.pod, false);
      std::string what = "pod " + p.pod->meta.name + " failed";
      if (p.pod->status.exit_code.has_value()) {
        what += " (exit code " + std::to_string(*p.pod->status.exit_code) + ")";
      } else if (!p.pod->status.reason.empty()) {
        what += " (" + p.pod->status.reason + ")";
      }
      if (Occur(p.task, Occurrence{*event, p.pod->status.exit_code}, StoppedAt(*p.pod, obs_.now),
                what)) {
        return true;
      }
    }
    for (const BatchTaskSpec& t : spec_.tasks) {
      const TaskView& task = tasks_[t.name];
      if (TaskFailed(t)) {
        if (Occur(t.name, Occurrence{JobEvent::kTaskFailed, std::nullopt},
                  task.last_finished.value_or(obs_.now),
                  "task " + t.name + " can no longer reach its minimum (" +
                      std::to_string(task.counts.failed) + " of " + std::to_string(t.replicas) +
                      " pods failed, " + std::to_string(t.MinAvailable()) + " needed)")) {
          return true;
        }
      } else if (TaskSucceeded(t)) {
        if (Occur(t.name, Occurrence{JobEvent::kTaskSucceeded, std::nullopt},
                  task.last_finished.value_or(obs_.now), "task " + t.name + " succeeded")) {
          return true;
        }
      }
    }
    if (next_.phase == BatchJobPhase::kPending && obs_.group != nullptr) {
      const Condition* c = FindCondition(obs_.group->status.conditions, "Unschedulable");
      if (c != nullptr && c->IsTrue() &&
          Occur("", Occurrence{JobEvent::kUnschedulable, std::nullopt},
                c->last_transition_time.value_or(obs_.now),
                "the job's PodGroup is Unschedulable: " + c->message)) {
        return true;
      }
    }
    return false;
  }

  // Asks the policies; acts and returns true unless the action is Ignore or its timeout has not
  // passed yet.
  bool Occur(const std::string& task_name, const Occurrence& occurrence, Clock::WallTime at,
             const std::string& what) {
    static const std::vector<LifecyclePolicy> kNone;
    const BatchTaskSpec* task = spec_.FindTask(task_name);
    const PolicyDecision decision = DecidePolicy(task != nullptr ? task->policies : kNone,
                                                 spec_.policies, task_name, occurrence);
    if (decision.action == JobAction::kIgnore) return false;
    if (decision.timeout_seconds.has_value() &&
        obs_.now < at + std::chrono::seconds(*decision.timeout_seconds)) {
      return false;
    }
    const std::string reason(JobEventName(occurrence.event));
    const std::string why =
        what + "; " + std::string(JobActionName(decision.action)) + " by " + decision.rule;
    JobAction action = decision.action;
    if (action == JobAction::kRestartTask && task == nullptr) action = JobAction::kRestartJob;
    switch (action) {
      case JobAction::kRestartJob:
      case JobAction::kRestartTask: {
        if (decision.uses_retry && next_.retry_count >= spec_.max_retry) {
          Finish(false, "MaxRetryExceeded",
                 why + "; no retry left (maxRetry " + std::to_string(spec_.max_retry) + ")");
          return true;
        }
        if (decision.uses_retry) ++next_.retry_count;
        if (occurrence.event == JobEvent::kPodPreempted ||
            occurrence.event == JobEvent::kPodEvicted) {
          ++next_.preemption_count;
        }
        if (action == JobAction::kRestartTask) {
          ++next_.tasks[task_name].attempt;
          tasks_[task_name].counts = TaskCounts{};  // of the new task attempt: none yet
          Note("restart task " + task_name + ": " + why);
          for (const PodView& p : pods_) {
            if (p.task == task_name) Delete(*p.pod);
          }
          return true;
        }
        Enter(BatchJobPhase::kRestarting, reason, why);
        NewAttempt();
        return true;
      }
      case JobAction::kFailJob:
        Finish(false, reason, why);
        return true;
      case JobAction::kCompleteJob:
        Finish(true, reason, why);
        return true;
      case JobAction::kIgnore:
        break;
    }
    return false;
  }

  bool TaskSucceeded(const BatchTaskSpec& t) {
    const TaskView& task = tasks_[t.name];
    if (t.replicas == 0) return true;
    return task.counts.succeeded >= std::max(1, t.MinAvailable()) && task.counts.running == 0;
  }

  bool TaskFailed(const BatchTaskSpec& t) {
    return tasks_[t.name].counts.failed > t.replicas - t.MinAvailable();
  }

  bool DeadlinePassed() {
    if (!spec_.active_deadline_seconds.has_value() || !next_.start_time.has_value()) return false;
    if (obs_.now < *next_.start_time + std::chrono::seconds(*spec_.active_deadline_seconds)) {
      return false;
    }
    Finish(false, "DeadlineExceeded",
           "running for longer than activeDeadlineSeconds (" +
               std::to_string(*spec_.active_deadline_seconds) + ")");
    return true;
  }

  bool Succeeded() {
    std::vector<const BatchTaskSpec*> named;
    for (const BatchTaskSpec& t : spec_.tasks) {
      const auto& names = spec_.success_policy.tasks;
      if (names.empty() || std::find(names.begin(), names.end(), t.name) != names.end()) {
        named.push_back(&t);
      }
    }
    if (named.empty()) return false;
    std::int32_t done = 0;
    for (const BatchTaskSpec* t : named) done += TaskSucceeded(*t) ? 1 : 0;
    const bool success = spec_.success_policy.any ? done > 0 : done == std::ssize(named);
    if (!success) return false;
    Finish(true, "Succeeded",
           spec_.success_policy.any
               ? "a task named by successPolicy (Any) succeeded"
               : "every task" + std::string(spec_.success_policy.tasks.empty() ? "" : " named") +
                     " succeeded");
    return true;
  }

  // ---- Pods ----

  bool Gated(const BatchTaskSpec& t) {
    for (const TaskDependency& dep : t.depends_on) {
      const BatchTaskSpec* other = spec_.FindTask(dep.task);
      if (other == nullptr) return true;
      const bool met = dep.condition == DependencyCondition::kReady
                           ? tasks_[dep.task].ready >= std::max(1, other->MinAvailable())
                           : TaskSucceeded(*other);
      if (!met) return true;
    }
    return false;
  }

  void CreateMissingPods() {
    if (obs_.group == nullptr) return;  // made once the group is observed
    std::set<std::string> names;
    for (const PodView& p : pods_) names.insert(p.pod->meta.name);
    for (const BatchTaskSpec& t : spec_.tasks) {
      if (Gated(t)) continue;
      for (std::int32_t i = 0; i < t.replicas; ++i) {
        std::string name = PodName(job_, t.name, i);
        if (names.contains(name)) continue;
        if (CopyWon(t.name, i)) continue;  // its copy succeeded: the first pod was its loser
        // Not counted yet: the status counts only pods observed, so that a pod counted once
        // and then missing can only have been deleted by someone else.
        plan_.create_pods.push_back(PodToCreate{name, PodJson(t, i, name)});
      }
      if (t.idempotent) CreateCopies(t);
    }
  }

  void CreateCopies(const BatchTaskSpec& t) {
    std::vector<TaskRun> runs;
    for (const PodView& p : pods_) {
      if (!p.current || p.task != t.name || !p.index.has_value()) continue;
      const Pod& pod = *p.pod;
      TaskRun run;
      run.index = *p.index;
      run.backup = p.backup;
      run.node = pod.spec.node_name;
      run.started = pod.status.start_time;
      run.succeeded = pod.status.phase == PodPhase::kSucceeded;
      run.failed = pod.status.phase == PodPhase::kFailed || pod.meta.deletion_timestamp.has_value();
      if (pod.Finished()) run.finished = pod.status.finished_at.value_or(StoppedAt(pod, obs_.now));
      runs.push_back(std::move(run));
    }
    for (const BackupChoice& choice : ChooseBackups(runs, t.replicas, obs_.now)) {
      std::string name = BackupName(job_, t.name, choice.index);
      Note("backup copy " + name + ": " + PodName(job_, t.name, choice.index) + " " + choice.why);
      json pod = json::parse(PodJson(t, choice.index, name));
      pod["metadata"]["labels"][std::string(kBackupLabel)] = "true";
      // Not one of the task's host names (the hosts file lists the first pods): peers do not
      // address a copy of idempotent work.
      pod["spec"].erase("hostname");
      ExcludeNodes(pod["spec"], choice.avoid_nodes);
      plan_.create_pods.push_back(PodToCreate{std::move(name), pod.dump()});
    }
  }

  std::string PodJson(const BatchTaskSpec& t, std::int32_t index, const std::string& name) {
    json pod =
        t.template_json.empty() ? json::object() : json::parse(t.template_json, nullptr, false);
    if (!pod.is_object()) pod = json::object();
    pod["apiVersion"] = "v1";
    pod["kind"] = "Pod";
    json& meta = pod["metadata"];
    if (!meta.is_object()) meta = json::object();
    meta.erase("generateName");
    meta["name"] = name;
    meta["namespace"] = job_.meta.namespace_name;
    json& labels = meta["labels"];
    if (!labels.is_object()) labels = json::object();
    labels[std::string(kPodGroupLabel)] = job_.meta.name;
    labels[std::string(kTaskLabel)] = t.name;
    labels[std::string(kJobNameLabel)] = job_.meta.name;
    labels[std::string(kJobAttemptLabel)] = std::to_string(next_.attempt);
    labels[std::string(kTaskAttemptLabel)] = std::to_string(next_.tasks[t.name].attempt);
    labels[std::string(kTaskIndexLabel)] = std::to_string(index);
    meta["ownerReferences"] = OwnerReferenceJson(job_);
    json& spec = pod["spec"];
    if (!spec.is_object()) spec = json::object();
    spec["schedulerName"] = obs_.scheduler_name;
    spec["hostname"] = name;
    spec["subdomain"] = job_.meta.name;
    if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Never";
    if (!spec.contains("priorityClassName") && !spec_.priority_class_name.empty()) {
      spec["priorityClassName"] = spec_.priority_class_name;
    }
    for (const char* list : {"containers", "initContainers"}) {
      if (!spec.contains(list)) continue;
      SetEnv(spec[list], "ARBITER_JOB_NAME", job_.meta.name);
      SetEnv(spec[list], "ARBITER_TASK_NAME", t.name);
      SetEnv(spec[list], "ARBITER_TASK_INDEX", std::to_string(index));
      SetEnv(spec[list], "ARBITER_TASK_REPLICAS", std::to_string(t.replicas));
    }
    return pod.dump();
  }

  void Delete(const Pod& pod) {
    if (pod.meta.deletion_timestamp.has_value()) return;
    if (!deleted_.insert(pod.meta.uid).second) return;
    plan_.delete_pods.push_back(PodToDelete{pod.meta.name, pod.meta.uid});
  }

  // Every pod is of an earlier attempt from now on: deleted, and no longer counted.
  void NewAttempt() {
    ++next_.attempt;
    for (auto& [name, task] : tasks_) task.counts = TaskCounts{};
    for (const PodView& p : pods_) Delete(*p.pod);
  }

  static std::int32_t Total(const TaskCounts& c) {
    return c.pending + c.running + c.succeeded + c.failed;
  }

  // Deletes the pods of earlier attempts; returns how many remain (deleting or not).
  std::int32_t DeleteStale() {
    std::int32_t stale = 0;
    for (const PodView& p : pods_) {
      if (p.current) continue;
      ++stale;
      Delete(*p.pod);
    }
    return stale;
  }

  // Deletes the pods not finished; returns how many remain (deleting or not).
  std::int32_t StopUnfinished() {
    std::int32_t unfinished = 0;
    for (const PodView& p : pods_) {
      if (p.pod->Finished()) continue;
      ++unfinished;
      Delete(*p.pod);
    }
    return unfinished;
  }

  void UpdateRunning() {
    if (next_.phase != BatchJobPhase::kPending) return;
    std::int32_t up = 0;
    for (const auto& [name, task] : tasks_) up += task.counts.running + task.counts.succeeded;
    const std::int32_t min = spec_.MinAvailable();
    if (min == 0 || up < min) return;
    Enter(BatchJobPhase::kRunning, "MinAvailable",
          std::to_string(up) + " pods running or succeeded, minAvailable " + std::to_string(min));
    if (!next_.start_time.has_value()) next_.start_time = obs_.now;
  }

  // ---- Status ----

  void Finish(bool success, const std::string& reason, const std::string& message) {
    Enter(success ? BatchJobPhase::kCompleting : BatchJobPhase::kFailing, reason, message);
    StopUnfinished();
  }

  const JobCondition* CurrentCondition() const {
    const std::string_view name = BatchJobPhaseName(next_.phase);
    for (const JobCondition& c : next_.conditions) {
      if (c.condition.type == name) return &c;
    }
    return nullptr;
  }

  void Enter(BatchJobPhase phase, const std::string& reason, const std::string& message) {
    const std::string type(BatchJobPhaseName(phase));
    Note(type + ": " + reason + (message.empty() ? "" : ": " + message));
    next_.phase = phase;
    bool found = false;
    for (JobCondition& c : next_.conditions) {
      if (c.condition.type == type) {
        found = true;
        if (!c.condition.IsTrue()) c.condition.last_transition_time = obs_.now;
        c.condition.status = "True";
        c.condition.reason = reason;
        c.condition.message = message;
        c.observed_generation = job_.meta.generation;
      } else if (c.condition.IsTrue()) {
        c.condition.status = "False";
        c.condition.last_transition_time = obs_.now;
        c.observed_generation = job_.meta.generation;
      }
    }
    if (!found) {
      next_.conditions.push_back(
          JobCondition{Condition{type, "True", reason, message, obs_.now}, job_.meta.generation});
    }
  }

  void Note(std::string note) { plan_.notes.push_back(std::move(note)); }

  const JobObservation& obs_;
  const BatchJob& job_;
  const BatchJobSpec& spec_;
  BatchJobStatus next_;
  JobPlan plan_;
  std::map<std::string, TaskView> tasks_;
  std::vector<PodView> pods_;  // by name
  std::set<std::string> deleted_;
};

}  // namespace

JobPlan PlanBatchJob(const JobObservation& observation) {
  if (observation.job == nullptr || observation.job->meta.deletion_timestamp.has_value()) {
    return {};  // the garbage collector removes what it owns
  }
  return Planner(observation).Run();
}

PodGroup JobPodGroup(const BatchJob& job) {
  PodGroup group;
  group.meta.name = job.meta.name;
  group.meta.namespace_name = job.meta.namespace_name;
  group.meta.labels[std::string(kCreatedByLabel)] = std::string(kControllerName);
  group.meta.labels[std::string(kJobNameLabel)] = job.meta.name;
  group.meta.owner_references.push_back(OwnerReferenceOf(job));
  group.spec.queue = job.spec.queue;
  group.spec.priority_class_name = job.spec.priority_class_name;
  group.spec.topology = job.spec.topology;
  group.spec.locality = job.spec.locality;
  // What start-time estimates take the job's run time from (sim/run_time.h).
  if (auto it = job.meta.annotations.find(std::string(sim::kRunForAnnotation));
      it != job.meta.annotations.end()) {
    group.meta.annotations[it->first] = it->second;
  }
  if (job.spec.active_deadline_seconds) {
    group.meta.annotations[std::string(sim::kActiveDeadlineAnnotation)] =
        std::to_string(*job.spec.active_deadline_seconds);
  }
  std::int64_t ungated = 0;
  bool any_gated = false;
  for (const BatchTaskSpec& t : job.spec.tasks) {
    if (!t.depends_on.empty()) {
      any_gated = true;
      continue;
    }
    ungated += t.MinAvailable();
    if (t.MinAvailable() > 0) group.spec.min_task_member[t.name] = t.MinAvailable();
  }
  std::int64_t min = job.spec.MinAvailable();
  if (any_gated) min = std::min(min, ungated);
  group.spec.min_member = static_cast<std::int32_t>(std::max<std::int64_t>(1, min));
  return group;
}

namespace {

json TopologyObject(const std::optional<TopologyRequest>& t) {
  if (!t.has_value()) return nullptr;
  json out = {{"mode", TopologyModeName(t->mode)}, {"level", t->level}};
  if (t->max_wait_seconds > 0) out["maxWaitSeconds"] = t->max_wait_seconds;
  return out;
}

// `for_patch`: what the job no longer names is written null, so that a merge patch removes it
// from the group (an absent key would keep the group's old value).
json LocalityObject(const std::optional<LocalityRequest>& l, bool for_patch = false) {
  if (!l.has_value()) return nullptr;
  json out = json::object();
  auto put = [&](const char* key, json value, bool empty) {
    if (!empty) {
      out[key] = std::move(value);
    } else if (for_patch) {
      out[key] = nullptr;
    }
  };
  put("nodes", l->nodes, l->nodes.empty());
  put("racks", l->racks, l->racks.empty());
  put("dataSet", l->data_set, l->data_set.empty());
  return out;
}

}  // namespace

std::string LocalityJson(const std::optional<LocalityRequest>& locality) {
  return LocalityObject(locality).dump();
}

std::string PodGroupLocalityPatchJson(const std::optional<LocalityRequest>& locality) {
  // A merge patch replaces lists whole, so a hint removed from the job goes from the group too.
  return json{{"spec", {{"locality", LocalityObject(locality, /*for_patch=*/true)}}}}.dump();
}

std::string TopologyJson(const std::optional<TopologyRequest>& topology) {
  return TopologyObject(topology).dump();
}

std::string PodGroupTopologyPatchJson(const std::optional<TopologyRequest>& topology) {
  return json{{"spec", {{"topology", TopologyObject(topology)}}}}.dump();
}

std::string JobServiceJson(const BatchJob& job) {
  json body = {{"apiVersion", "v1"},
               {"kind", "Service"},
               {"metadata",
                {{"name", job.meta.name},
                 {"namespace", job.meta.namespace_name},
                 {"labels", {{std::string(kJobNameLabel), job.meta.name}}},
                 {"ownerReferences", OwnerReferenceJson(job)}}},
               {"spec",
                {{"clusterIP", "None"},
                 {"publishNotReadyAddresses", true},
                 {"selector", {{std::string(kJobNameLabel), job.meta.name}}}}}};
  return body.dump();
}

std::string JobHostsConfigMapJson(const BatchJob& job) {
  json data = json::object();
  std::string all;
  for (const BatchTaskSpec& t : job.spec.tasks) {
    std::string hosts;
    for (std::int32_t i = 0; i < t.replicas; ++i) {
      hosts += PodName(job, t.name, i) + "." + job.meta.name + "\n";
    }
    data[t.name + ".host"] = hosts;
    all += hosts;
  }
  data["hostfile"] = all;
  json body = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata",
                {{"name", job.meta.name + "-hosts"},
                 {"namespace", job.meta.namespace_name},
                 {"labels", {{std::string(kJobNameLabel), job.meta.name}}},
                 {"ownerReferences", OwnerReferenceJson(job)}}},
               {"data", std::move(data)}};
  return body.dump();
}

std::string JobStatusPatchJson(const BatchJob& job, const BatchJobStatus& status) {
  json conditions = json::array();
  for (const JobCondition& c : status.conditions) {
    json item = {{"type", c.condition.type},
                 {"status", c.condition.status},
                 {"reason", c.condition.reason},
                 {"message", c.condition.message},
                 {"observedGeneration", c.observed_generation}};
    if (c.condition.last_transition_time.has_value()) {
      item["lastTransitionTime"] = FormatRfc3339(*c.condition.last_transition_time);
    }
    conditions.push_back(std::move(item));
  }
  json tasks = json::object();
  for (const auto& [name, counts] : status.tasks) {
    tasks[name] = {{"pending", counts.pending},     {"running", counts.running},
                   {"succeeded", counts.succeeded}, {"failed", counts.failed},
                   {"attempt", counts.attempt},     {"backups", counts.backups}};
  }
  json body = {{"phase", BatchJobPhaseName(status.phase)},
               {"conditions", std::move(conditions)},
               {"observedGeneration", status.observed_generation},
               {"tasks", std::move(tasks)},
               {"running", status.running},
               {"minAvailable", status.min_available},
               {"retryCount", status.retry_count},
               {"preemptionCount", status.preemption_count},
               {"attempt", status.attempt},
               {"startTime", nullptr},
               {"completionTime", nullptr}};
  if (status.start_time.has_value()) body["startTime"] = FormatRfc3339(*status.start_time);
  if (status.completion_time.has_value()) {
    body["completionTime"] = FormatRfc3339(*status.completion_time);
  }
  json patch = {{"metadata", {{"resourceVersion", job.meta.resource_version}}},
                {"status", std::move(body)}};
  return patch.dump();
}

}  // namespace arbiter::controllers
