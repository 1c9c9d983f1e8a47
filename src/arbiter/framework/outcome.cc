#include "arbiter/framework/outcome.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace arbiter {

namespace {

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

// A group's next status, copied from its current one only at the first edit that changes it:
// most groups keep theirs from one session to the next, and copying every group's conditions
// only to compare them cost a string copy per condition per group per session.
class StatusDraft {
 public:
  explicit StatusDraft(const PodGroupStatus& old) : old_(old) {}

  const PodGroupStatus& current() const { return edited_.has_value() ? *edited_ : old_; }

  template <typename T>
  void Set(T PodGroupStatus::*field, std::type_identity_t<T> value) {
    if (current().*field != value) Edit().*field = std::move(value);
  }

  // SetCondition, when it would change something. Views, so that the usual case (a group's
  // condition as it was) compares without building a string.
  void SetCondition(std::string_view type, std::string_view status, std::string_view reason,
                    std::string_view message, Clock::WallTime now) {
    const Condition* c = Find(type);
    if (c != nullptr && c->status == status && c->reason == reason && c->message == message) {
      return;
    }
    arbiter::SetCondition(Edit().conditions, std::string(type), std::string(status),
                          std::string(reason), std::string(message), now);
  }

  const Condition* Find(std::string_view type) const {
    return FindCondition(current().conditions, type);
  }

  PodGroupStatus& Edit() {
    if (!edited_.has_value()) edited_.emplace(old_);
    return *edited_;
  }

  // The new status, or nothing when no edit changed the old one.
  std::optional<PodGroupStatus> Take() && { return std::move(edited_); }

 private:
  const PodGroupStatus& old_;
  std::optional<PodGroupStatus> edited_;
};

bool IsTerminal(TaskState state) {
  return state == TaskState::kSucceeded || state == TaskState::kFailed;
}

// The gate a reason belongs to, as `arbiterctl explain` names it.
std::string_view GateOfReason(JobReason reason) {
  switch (reason) {
    case JobReason::kQueueNotFound:
    case JobReason::kQueueClosed:
    case JobReason::kQueueNotAllowed:
      return "Queue";
    case JobReason::kQueueCapability:
      return "Capability";
    case JobReason::kQueueOverused:
    case JobReason::kNotEnqueued:  // its share is taken, at admission
      return "DeservedShare";
    case JobReason::kPodGroupNotFound:
    case JobReason::kNotEnoughPods:
      return "NotEnoughPods";
    case JobReason::kNotEnoughResources:
    case JobReason::kPreemptionWouldNotFit:
      return "Placement";
    case JobReason::kWaitingForPreemption:
      return "WaitingForPreemption";
    case JobReason::kPreempted:
      return "Preempted";
    case JobReason::kGangReleased:
      return "Released";
    case JobReason::kInvalid:
      break;
  }
  return "Invalid";
}

std::string_view GateOf(const Session& session, JobIndex j, const JobVerdict& verdict) {
  // Enqueue's NotEnoughResources: the cluster's room that no admitted group reserved cannot hold
  // the group's minimum, so it is not admitted (allocate's is about the nodes).
  if (verdict.reason == JobReason::kNotEnoughResources &&
      session.job_phase(j) == PodGroupPhase::kPending && session.job_placement(j) == nullptr) {
    return "Admission";
  }
  return GateOfReason(verdict.reason);
}

// Where each waiting job stands in its queue, in the order the scheduler tries them (1: next),
// exact up to kMaxPosition; and, for those, the first jobs ahead of it.
struct QueuePlace {
  std::int32_t position = 0;  // 0: not waiting in a queue
  std::vector<std::string> ahead;
};

// By job (a map's node per waiting job cost more than the sort).
std::vector<QueuePlace> QueuePlaces(const Session& session) {
  std::map<QueueIndex, std::vector<JobIndex>> waiting;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& info = session.job(j);
    if (info.group == nullptr || info.queue_index == kNoQueue || session.JobReady(j) ||
        session.job_verdict(j) == nullptr) {
      continue;
    }
    waiting[info.queue_index].push_back(j);
  }
  std::vector<QueuePlace> out(static_cast<std::size_t>(session.job_count()));
  const auto exact = static_cast<std::size_t>(PendingExplanation::kMaxPosition);
  for (auto& [q, jobs] : waiting) {
    const std::size_t head = std::min(exact, jobs.size());
    std::partial_sort(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(head), jobs.end(),
                      [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      QueuePlace& place = out[jobs[i].pos()];
      if (i >= head) {
        place.position = PendingExplanation::kMaxPosition + 1;
        continue;
      }
      place.position = static_cast<std::int32_t>(i) + 1;
      for (std::size_t a = 0; a < i && a < PendingExplanation::kMaxAhead; ++a) {
        place.ahead.push_back(session.job(jobs[a]).Key());
      }
    }
  }
  return out;
}

PendingExplanation Explain(const Session& session, JobIndex j, const JobVerdict& verdict,
                           const QueuePlace* place) {
  const Snapshot& snapshot = session.snapshot();
  const ResourceSpace& space = snapshot.resources;
  const JobInfo& info = session.job(j);
  PendingExplanation e;
  e.gate = std::string(GateOf(session, j, verdict));
  e.reason = std::string(JobReasonName(verdict.reason));
  e.needs = space.ToList(session.MinimumRequest(j));
  e.queue = info.queue;
  // The queue's numbers only where the queue is the gate: they change whenever its other jobs
  // start or end, and every change is a status write.
  if (const QueueIndex q = info.queue_index; q != kNoQueue && e.QueueIsTheGate()) {
    const QueueInfo& queue = snapshot.queues[q.pos()];
    const ResourceVector& allocated = session.queue_allocated(q);
    e.queue_allocated = space.ToList(allocated);
    if (std::optional<ResourceVector> deserved = session.QueueDeserved(q)) {
      e.queue_deserved = space.ToList(*deserved);
    }
    e.queue_capability = queue.queue->spec.capability;
    if (queue.quota_cap.has_value()) {
      for (const ResourceEntry& cap : queue.quota_cap->entries()) {
        const std::optional<std::int64_t> own = e.queue_capability.Find(cap.name);
        e.queue_capability.Set(cap.name, own.has_value() ? std::min(*own, cap.amount) : cap.amount);
      }
    }
    for (const ResourceEntry& cap : e.queue_capability.entries()) {
      const std::optional<ResourceId> id = space.Find(cap.name);
      const std::int64_t used = id.has_value() ? allocated.Get(*id) : 0;
      e.queue_room.Set(cap.name, std::max<std::int64_t>(cap.amount - used, 0));
    }
  }
  if (const Session::PlacementSummary* p = session.job_placement(j);
      p != nullptr && e.gate == "Placement") {
    e.pod = session.task(p->pod).Key();
    e.nodes = p->nodes;
    for (const auto& [reason, nodes] : p->excluded) e.excluded.push_back({reason, nodes});
    std::stable_sort(
        e.excluded.begin(), e.excluded.end(),
        [](const NodeExclusion& a, const NodeExclusion& b) { return a.nodes > b.nodes; });
    if (e.excluded.size() > PendingExplanation::kMaxExclusions) {
      e.excluded.resize(PendingExplanation::kMaxExclusions);
    }
    e.shortfall = space.ToList(p->shortfall);
    for (const Session::PlacementSummary::NodeClass& c : p->classes) {
      NodeClassRoom& room = e.node_classes.emplace_back();
      room.instance_type = c.instance_type;
      room.allocatable = space.ToList(c.allocatable);
      room.nodes = c.nodes;
      // Every resource the class has, none free included.
      for (const ResourceEntry& a : room.allocatable.entries()) {
        const std::optional<ResourceId> id = space.Find(a.name);
        room.most_free.Set(a.name, id.has_value() ? c.most_free.Get(*id) : 0);
      }
    }
  }
  if (place != nullptr) {
    e.position = place->position;
    e.ahead = place->ahead;
  }
  if (const StartEstimates* estimates = session.estimates()) {
    if (auto it = estimates->find(info.Key()); it != estimates->end()) e.estimate = it->second;
  }
  return e;
}

// status.reservation of the job's group. An estimated start that moved by less than
// kStartSlack stays as it was: a pod past its run time ends "now" in the estimate, which would
// otherwise move it, and write the status, every session.
std::optional<GangReservationStatus> ReservationStatus(const Session& session, JobIndex j) {
  const ActiveReservation* r = session.ReservationOf(j);
  if (r == nullptr) return std::nullopt;
  constexpr auto kStartSlack = std::chrono::seconds(30);
  GangReservationStatus out;
  for (NodeIndex n : r->nodes) {
    if (out.nodes.size() >= GangReservationStatus::kMaxNodes) break;
    out.nodes.push_back(session.node(n).name());
  }
  std::sort(out.nodes.begin(), out.nodes.end());
  // Whole seconds, as the status holds them (RFC 3339): what is read back compares equal.
  const auto whole = [](Clock::WallTime t) {
    return std::chrono::time_point_cast<std::chrono::seconds>(t);
  };
  out.since = whole(r->since);
  if (r->estimated_start.has_value()) out.estimated_start = whole(*r->estimated_start);
  const std::optional<GangReservationStatus>& old = session.job(j).group->status.reservation;
  if (old.has_value() && old->estimated_start.has_value() && out.estimated_start.has_value()) {
    const auto moved = *out.estimated_start > *old->estimated_start
                           ? *out.estimated_start - *old->estimated_start
                           : *old->estimated_start - *out.estimated_start;
    if (moved < kStartSlack) out.estimated_start = old->estimated_start;
  }
  return out;
}

}  // namespace

bool PodsSettled(const Session& session, JobIndex j) {
  const JobInfo& job = session.job(j);
  Clock::WallTime newest = job.creation;
  for (TaskIndex t : job.tasks) {
    newest = std::max(newest, session.task(t).pod->meta.creation_timestamp);
  }
  return session.now() - newest >= kPodsArrivalGrace;
}

ReservationHold HoldsReservation(const Session& session, JobIndex j) {
  const JobInfo& info = session.job(j);
  if (info.group == nullptr || session.job_phase(j) != PodGroupPhase::kInqueue ||
      session.JobReady(j)) {
    return ReservationHold::kNone;
  }
  // Short of pods: they may still be arriving during the grace, and after it they likely never
  // will; only a group with the reason to wait keeps its room.
  if (std::optional<JobVerdict> invalid = session.CheckJob(j);
      invalid.has_value() &&
      (invalid->reason != JobReason::kNotEnoughPods || PodsSettled(session, j))) {
    return ReservationHold::kNone;
  }
  const Condition* c = FindCondition(info.group->status.conditions, "Unschedulable");
  if (c == nullptr || !c->IsTrue()) return ReservationHold::kCluster;
  const std::optional<JobReason> reason = ParseJobReason(c->reason);
  if (reason == JobReason::kNotEnoughResources || reason == JobReason::kPreemptionWouldNotFit) {
    return ReservationHold::kNone;
  }
  // Held back by its own queue, it could not use room the cluster kept for it, and that room
  // would keep queues below their share from starting; its queue keeps its place, so that later
  // groups of the queue do not pass it or its limits.
  if (reason == JobReason::kQueueOverused || reason == JobReason::kQueueCapability) {
    return ReservationHold::kQueue;
  }
  return ReservationHold::kCluster;
}

namespace {

// The group's status after the session: phase from its tasks' states, counts, and the
// Unschedulable and Scheduled conditions (transition times kept while a status is unchanged).
void DraftNextGroupStatus(const Session& session, JobIndex j, StatusDraft& status) {
  const JobInfo& info = session.job(j);
  std::int32_t scheduled = 0;
  std::int32_t running = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  // Pipelined pods count towards the gang in a preemption plan, but they are not placed yet.
  std::int32_t pipelined = 0;
  bool all_gone_or_done = true;  // every task finished, or none left
  for (TaskIndex t : info.tasks) {
    const TaskState s = session.task_state(t);
    scheduled += HoldsNode(s) ? 1 : 0;
    running += s == TaskState::kRunning ? 1 : 0;
    succeeded += s == TaskState::kSucceeded ? 1 : 0;
    failed += s == TaskState::kFailed ? 1 : 0;
    pipelined += s == TaskState::kPipelined ? 1 : 0;
    all_gone_or_done = all_gone_or_done && IsTerminal(s);
  }
  const bool all_terminal = all_gone_or_done && !info.tasks.empty();
  status.Set(&PodGroupStatus::scheduled, scheduled);
  status.Set(&PodGroupStatus::running, running);
  status.Set(&PodGroupStatus::succeeded, succeeded);
  status.Set(&PodGroupStatus::failed, failed);
  const PodGroupPhase old_phase = session.job_phase(j);
  const std::int32_t ready = session.job_ready_tasks(j) - pipelined;
  PodGroupPhase phase = old_phase;
  const bool finished =
      old_phase == PodGroupPhase::kCompleted || old_phase == PodGroupPhase::kFailed;
  if (finished && all_gone_or_done) {
    // Finished stays finished when its pods are cleaned up.
  } else if (all_terminal && succeeded >= info.min_member) {
    phase = PodGroupPhase::kCompleted;
  } else if (all_terminal && failed > 0) {
    phase = PodGroupPhase::kFailed;
  } else if (ready >= info.min_member) {
    phase = PodGroupPhase::kRunning;
  } else if (old_phase == PodGroupPhase::kRunning || old_phase == PodGroupPhase::kCompleted ||
             old_phase == PodGroupPhase::kFailed) {
    phase = PodGroupPhase::kInqueue;  // admitted once; now below its minimum again
  }
  status.Set(&PodGroupStatus::phase, phase);

  const Clock::WallTime now = session.now();
  // Evicted this session: counted once per session, and said in the Preempted condition.
  std::int32_t evicted = 0;
  const Session::Eviction* last = nullptr;
  for (const Session::Eviction& e : session.evictions()) {
    if (session.task(e.victim).job != j) continue;
    ++evicted;
    last = &e;
  }
  if (last != nullptr) {
    ++status.Edit().preemption_count;
    std::string why = std::to_string(evicted) + " pod(s) evicted ";
    if (last->kind == EvictionKind::kRelease) {
      why +=
          "(release): the gang held nodes below its minimum for longer than the broken-gang "
          "timeout, and starts again whole";
    } else if (last->preemptor == kNoJob) {
      why += "(quota): queue " + info.queue + " runs beyond its lowered ResourceQuota";
    } else {
      why += "for " + session.job(last->preemptor).Key() + " (" +
             std::string(EvictionKindName(last->kind)) + ")";
    }
    status.SetCondition("Preempted", "True", "PreemptionByScheduler", why, now);
  }
  if (const Session::RecordedJobVerdict* v = session.job_verdict(j)) {
    status.SetCondition("Unschedulable", "True", JobReasonName(v->verdict.reason),
                        v->verdict.message, now);
  } else if (const Condition* c = status.Find("Unschedulable"); c != nullptr && c->IsTrue()) {
    // Nothing stood in the group's way this session: the old reason no longer holds.
    status.SetCondition("Unschedulable", "False",
                        ready >= info.min_member ? "Scheduled" : "Admitted", "", now);
  }
  // A gang holding nodes below its minimum: the condition's transition time is when it broke,
  // which the broken-gang timeout counts from (actions/allocate.cc), across sessions and restarts.
  const std::int32_t held = session.job_holding_tasks(j);
  if (held > 0 && ready < info.min_member) {
    status.SetCondition("Broken", "True", "BelowMinMember",
                        std::to_string(held) + " pod(s) hold nodes, below minMember " +
                            std::to_string(info.min_member) +
                            ": completed first when room comes, else released once the broken-gang "
                            "timeout passes",
                        now);
  } else if (const Condition* c = status.Find("Broken"); c != nullptr && c->IsTrue()) {
    // Whole again, released by this session, or no longer holding anything (its pods deleted
    // or finished).
    const bool released = last != nullptr && last->kind == EvictionKind::kRelease;
    status.SetCondition("Broken", "False",
                        held > 0 ? "Completed" : (released ? "Released" : "NoPodsHeld"), "", now);
  }
  // Where its pods are against its data, for a group that names it (plugins/locality.h).
  std::optional<LocalityStatus> locality;
  if (info.group->spec.locality.has_value()) {
    LocalityStatus counts;
    bool known = false;
    for (TaskIndex t : info.tasks) {
      const TaskState s = session.task_state(t);
      if (!HoldsNode(s) || s == TaskState::kReleasing) continue;
      const std::optional<LocalityLevel> level = session.LocalityOf(t, session.task_node(t));
      if (!level.has_value()) continue;
      known = true;
      ++(*level == LocalityLevel::kNode   ? counts.node_local
         : *level == LocalityLevel::kRack ? counts.rack_local
                                          : counts.remote);
    }
    if (known) locality = counts;
  }
  status.Set(&PodGroupStatus::locality, locality);
  // Written into a buffer on the stack: every running group compares this message each session.
  fmt::memory_buffer message;
  if (ready >= info.min_member) {
    fmt::format_to(std::back_inserter(message), "minMember {} reached", info.min_member);
    status.SetCondition("Scheduled", "True", "Scheduled",
                        std::string_view(message.data(), message.size()), now);
  } else if (status.Find("Scheduled") != nullptr) {
    fmt::format_to(std::back_inserter(message), "fewer than minMember {} pods placed",
                   info.min_member);
    status.SetCondition("Scheduled", "False", JobReasonName(JobReason::kNotEnoughPods),
                        std::string_view(message.data(), message.size()), now);
  }
}

// Whether a job the session found waiting waits as its group's status already says: for the
// same reason, with the same message, at the same place in its queue and with the same start
// estimate. Only explanations made of the job's own numbers qualify: where the queue or the
// nodes are the gate, the explanation holds the cluster's numbers of this session.
bool WaitsAsItSays(const Session& session, JobIndex j, const JobVerdict& verdict,
                   const QueuePlace& place) {
  const JobInfo& info = session.job(j);
  const PodGroupStatus& status = info.group->status;
  if (!status.explanation.has_value() || session.JobReady(j)) return false;
  const PendingExplanation& e = *status.explanation;
  if (e.QueueIsTheGate() || e.gate == "Placement" || e.gate != GateOf(session, j, verdict) ||
      e.reason != JobReasonName(verdict.reason) || e.position != place.position ||
      e.ahead != place.ahead) {
    return false;
  }
  const Condition* c = FindCondition(status.conditions, "Unschedulable");
  if (c == nullptr || !c->IsTrue() || c->reason != e.reason || c->message != verdict.message) {
    return false;
  }
  std::optional<StartEstimate> estimate;
  // The key is built only when there are estimates to look it up in.
  if (const StartEstimates* estimates = session.estimates();
      estimates != nullptr && !estimates->empty()) {
    if (auto it = estimates->find(info.Key()); it != estimates->end()) estimate = it->second;
  }
  return e.estimate == estimate;
}

// Whether the session left the job alone (QuietGroups): its status is then drafted from the
// snapshot's job alone, and, for a job that waits as its status says (WaitsAsItSays), from what
// that status holds.
bool LeftAlone(const Session& session, JobIndex j, const std::vector<bool>& evicted,
               const QueuePlace& place) {
  const JobInfo& info = session.job(j);
  if (session.job_phase(j) != info.phase || session.ReservationOf(j) != nullptr ||
      info.group->spec.locality.has_value() || evicted[j.pos()]) {
    return false;
  }
  if (const Session::RecordedJobVerdict* v = session.job_verdict(j); v != nullptr) {
    if (!WaitsAsItSays(session, j, v->verdict, place)) return false;
  } else if (const Condition* c = FindCondition(info.group->status.conditions, "Unschedulable");
             info.group->status.explanation.has_value() || (c != nullptr && c->IsTrue())) {
    // Its status still says why it waited: the draft would clear that. (A revision quiet while
    // it waited is quiet in `last` whatever the session's verdict.)
    return false;
  }
  return std::all_of(info.tasks.begin(), info.tasks.end(),
                     [&](TaskIndex t) { return session.task_state(t) == session.task(t).state; });
}

}  // namespace

SessionResult BuildResult(const Session& session) {
  const Snapshot& snapshot = session.snapshot();
  SessionResult result;
  result.binds.reserve(session.committed().size());
  std::array<std::int64_t, 3> locality_binds{};
  for (TaskIndex t : session.committed()) {
    const TaskInfo& info = session.task(t);
    result.binds.emplace_back(info.pod, session.node(session.task_node(t)).node);
    if (const std::optional<LocalityLevel> level = session.LocalityOf(t, session.task_node(t))) {
      ++locality_binds[static_cast<std::size_t>(*level)];
    }
  }
  for (const Session::Eviction& e : session.evictions()) {
    const TaskInfo& info = session.task(e.victim);
    std::string message;
    std::string preemptor_key;
    if (e.kind == EvictionKind::kRelease) {
      message = "Evicted by the scheduler (release: pod group " + session.job(info.job).Key() +
                " held nodes below its minMember for longer than the broken-gang timeout; its " +
                "controller creates the pod again and the gang starts again whole)";
    } else if (e.preemptor == kNoJob) {
      message = "Evicted by the scheduler (quota: queue " + session.job(info.job).queue +
                " runs beyond its lowered ResourceQuota, and its grace period has passed)";
    } else {
      const JobInfo& preemptor = session.job(e.preemptor);
      preemptor_key = preemptor.Key();
      message =
          "Preempted by " + preemptor_key + " (" + std::string(EvictionKindName(e.kind)) + ": ";
      if (e.kind == EvictionKind::kPreempt) {
        message += "a job of higher priority in queue " + preemptor.queue + ")";
      } else if (e.kind == EvictionKind::kReservation) {
        message +=
            "the pod accepts preemption, arbiter.dev/preemptable=true, and ran on a node "
            "reserved for that gang, which now fits)";
      } else {
        message += "queue " + preemptor.queue + " is below its deserved share)";
      }
    }
    EvictDecision d;
    d.namespace_name = info.namespace_name();
    d.pod_name = info.name();
    d.pod_uid = info.uid();
    d.node_name = session.node(info.node).name();
    d.reason = "PreemptionByScheduler";
    d.message = std::move(message);
    d.grace_period_seconds = e.grace_period_seconds;
    d.kind = e.kind;
    d.preemptor = std::move(preemptor_key);
    d.victim_job = session.job(info.job).Key();
    d.queue = session.job(info.job).queue;
    result.evictions.push_back(std::move(d));
  }
  for (TaskIndex t : session.nominations()) {
    const TaskInfo& info = session.task(t);
    if (info.pod->status.nominated_node_name == session.node(session.task_node(t)).name()) continue;
    result.nominations.push_back({info.namespace_name(), info.name(), info.uid(),
                                  session.node(session.task_node(t)).name(),
                                  session.job(info.job).Key()});
  }
  for (std::size_t i = 0; i < snapshot.tasks.size(); ++i) {
    const auto t = TaskIndex::Of(i);
    const TaskInfo& info = session.task(t);
    // A nomination that no longer holds is cleared: the job is neither placed nor waiting for
    // the room, and no new plan nominated the pod.
    if (session.task_state(t) == TaskState::kPending &&
        !info.pod->status.nominated_node_name.empty()) {
      const Session::RecordedJobVerdict* jv = session.job_verdict(info.job);
      if (jv == nullptr || jv->verdict.reason != JobReason::kWaitingForPreemption) {
        result.nominations.push_back(
            {info.namespace_name(), info.name(), info.uid(), "", session.job(info.job).Key()});
      }
    }
    if (session.task_state(t) != TaskState::kPending &&
        session.task_state(t) != TaskState::kPipelined) {
      continue;
    }
    std::string message;
    const Session::RecordedJobVerdict* jv = session.job_verdict(session.task(t).job);
    if (const TaskVerdict* v = session.task_verdict(t)) {
      message = v->message;
      // What preemption then made of it follows, as kube-scheduler's "preemption: ..." does.
      if (jv != nullptr && jv->tell_pods &&
          (jv->verdict.reason == JobReason::kPreemptionWouldNotFit ||
           jv->verdict.reason == JobReason::kWaitingForPreemption)) {
        message += " " + jv->verdict.message;
      }
    } else if (jv != nullptr && jv->tell_pods) {
      message = jv->verdict.message;
    } else {
      continue;
    }
    result.unschedulable.push_back({info.namespace_name(), info.name(), info.uid(),
                                    "FailedScheduling", std::move(message),
                                    static_cast<std::int32_t>(i)});
  }
  const std::vector<QueuePlace> places = QueuePlaces(session);
  const std::size_t queue_count = snapshot.queues.size();
  std::vector<QueueStatus> queues(queue_count);
  std::vector<ResourceVector> allocated(queue_count);
  std::vector<ResourceVector> used(queue_count);
  // (queue, gate): views of the snapshot's queue names and the gates' literals, so that counting a
  // waiting job allocates nothing but its first map node.
  std::map<std::pair<std::string_view, std::string_view>, std::int64_t> pending;
  QuietGroups* quiet = session.quiet_groups();
  std::int64_t skipped = 0;
  // Jobs with a pod evicted this session, which are never left alone (read only with `quiet`).
  std::vector<bool> evicted(quiet != nullptr ? snapshot.jobs.size() : 0, false);
  if (quiet != nullptr) {
    for (const Session::Eviction& e : session.evictions()) {
      evicted[session.task(e.victim).job.pos()] = true;
    }
  }
  for (std::size_t i = 0; i < snapshot.jobs.size(); ++i) {
    const auto j = JobIndex::Of(i);
    const JobInfo& info = session.job(j);
    const auto q = info.queue_index.pos();
    if (info.queue_index != kNoQueue) {
      for (TaskIndex t : info.tasks) {
        if (HoldsNode(session.task_state(t))) allocated[q].Add(session.task(t).request);
        if (session.task_state(t) == TaskState::kRunning) used[q].Add(session.task(t).request);
      }
    }
    if (const Session::RecordedJobVerdict* v = session.job_verdict(j);
        v != nullptr && !session.JobReady(j)) {
      ++pending[{info.queue, GateOf(session, j, v->verdict)}];
    }
    if (info.group == nullptr) continue;
    const auto count_phase = [&](PodGroupPhase phase) {
      if (info.queue_index == kNoQueue) return;
      queues[q].pending += phase == PodGroupPhase::kPending ? 1 : 0;
      queues[q].inqueue += phase == PodGroupPhase::kInqueue ? 1 : 0;
      queues[q].running += phase == PodGroupPhase::kRunning ? 1 : 0;
    };
    const bool alone =
        quiet != nullptr && info.revision != 0 && LeftAlone(session, j, evicted, places[i]);
    if (alone && quiet->last.contains(info.revision)) {
      quiet->next.insert(info.revision);
      ++skipped;
      count_phase(info.group->status.phase);
      continue;
    }
    StatusDraft draft(info.group->status);
    DraftNextGroupStatus(session, j, draft);
    std::optional<PendingExplanation> explanation;
    if (const Session::RecordedJobVerdict* v = session.job_verdict(j);
        v != nullptr && !session.JobReady(j)) {
      const QueuePlace& place = places[i];
      explanation = Explain(session, j, v->verdict, place.position == 0 ? nullptr : &place);
    }
    draft.Set(&PodGroupStatus::explanation, std::move(explanation));
    draft.Set(&PodGroupStatus::reservation, ReservationStatus(session, j));
    count_phase(draft.current().phase);
    std::optional<PodGroupStatus> status = std::move(draft).Take();
    if (!status.has_value() || *status == info.group->status) {
      if (alone) quiet->next.insert(info.revision);
    } else {
      result.group_updates.push_back(
          {.namespace_name = info.namespace_name,
           .name = info.name,
           .status = std::move(*status),
           .dialect = info.group->dialect,
           .min_member = info.min_member,
           .resource_version = info.group->meta.resource_version,
           .admits = info.group->status.phase == PodGroupPhase::kPending &&
                     status->phase != PodGroupPhase::kPending});
    }
  }
  for (std::size_t q = 0; q < queue_count; ++q) {
    const Queue& queue = *snapshot.queues[q].queue;
    QueueStatus& status = queues[q];
    const auto index = QueueIndex::Of(q);
    if (std::optional<ResourceVector> deserved = session.QueueDeserved(index)) {
      status.deserved = snapshot.resources.ToList(*deserved);
    } else {
      status.deserved = queue.status.deserved;
    }
    status.allocated = snapshot.resources.ToList(allocated[q]);
    status.used = snapshot.resources.ToList(used[q]);
    // arbiter-controller's part of the status, which the scheduler's write keeps.
    status.quota = queue.status.quota;
    status.conditions = queue.status.conditions;
    if (status != queue.status) {
      result.queue_updates.push_back({queue.meta.name, std::move(status)});
    }
  }
  result.stats = session.stats();
  result.stats.group_drafts_skipped = skipped;
  result.stats.tasks_bound = static_cast<std::int64_t>(result.binds.size());
  result.stats.locality_binds = locality_binds;
  result.stats.pending_jobs.reserve(pending.size());
  for (auto& [key, jobs] : pending) {
    result.stats.pending_jobs.push_back({std::string(key.first), std::string(key.second), jobs});
  }
  return result;
}

}  // namespace arbiter
