#include "arbiter/framework/reservation.h"

#include <algorithm>
#include <map>
#include <utility>

#include "arbiter/framework/session.h"
#include "arbiter/sim/run_time.h"

namespace arbiter {

namespace {

using Time = Clock::WallTime;
// After pods with no known run time end: some day, not a time one can plan on.
constexpr Time kSomeDay = Time::max();

// When room frees on a node: the pods holding it that will leave, by when (kSomeDay: no known
// run time). Other schedulers' pods never leave, as far as this plan knows. Pods being evicted
// free their room now, except what pods nominated to the node (preemptors waiting for that room)
// will take: those hold it, with the room held for them, until their own job ends. Running pods
// of jobs that accept preemption free theirs now too, when the gang may have them evicted once
// it fits: jobs of its own queue, or of another that keeps its share without them.
struct Timeline {
  std::vector<std::pair<Time, ResourceVector>> releases;  // sorted by time
};

// Whether the preempt action may evict job `v` for the gang `gang` (the eviction rules aside).
bool EvictableFor(const Session& session, JobIndex gang, JobIndex v) {
  if (!AcceptsPreemption(session, v)) return false;
  const QueueIndex q = session.job(v).queue_index;
  if (q == kNoQueue) return false;
  if (q == session.job(gang).queue_index) return true;
  ResourceVector held(session.snapshot().resources.size());
  for (TaskIndex t : session.job(v).tasks) {
    if (HoldsNode(session.task_state(t))) held.Add(session.task(t).request);
  }
  return KeepsShareWithout(session, q, held);
}

// Timelines of the given nodes (empty for nodes not asked for), as the gang `gang` sees them.
std::vector<Timeline> Timelines(const Session& session, JobIndex gang,
                                const std::vector<bool>& wanted) {
  std::vector<Timeline> out(static_cast<std::size_t>(session.node_count()));
  std::map<JobIndex, std::optional<Time>> ends;
  const auto end_of = [&](JobIndex j) {
    auto it = ends.find(j);
    if (it == ends.end()) it = ends.emplace(j, EstimatedEnd(session, j)).first;
    return it->second.value_or(kSomeDay);
  };
  std::map<JobIndex, bool> evictable;
  const auto running_end_of = [&](JobIndex j) {
    auto it = evictable.find(j);
    if (it == evictable.end()) it = evictable.emplace(j, EvictableFor(session, gang, j)).first;
    return it->second ? session.now() : end_of(j);
  };
  std::vector<ResourceVector> claimed(static_cast<std::size_t>(session.node_count()));
  for (TaskIndex t : TaskIndex::Range(static_cast<std::int32_t>(session.snapshot().tasks.size()))) {
    const TaskState state = session.task_state(t);
    const TaskInfo& task = session.task(t);
    if (state == TaskState::kPending && task.nominated != kNoNode) {
      const NodeIndex n = task.nominated;
      if (!wanted[n.pos()]) continue;
      // Its request: what is held for it out of the free room, and the rest from the room being
      // freed (ComputeHolds), which therefore does not free for anyone else.
      ResourceVector from_releasing = task.request;
      if (const ResourceVector* held = session.held(t)) from_releasing.Subtract(*held);
      claimed[n.pos()].Add(from_releasing);
      out[n.pos()].releases.emplace_back(end_of(task.job), task.request);
      continue;
    }
    const NodeIndex n = session.task_node(t);
    if (n == kNoNode || !HoldsNode(state) || !wanted[n.pos()] || state == TaskState::kReleasing) {
      continue;
    }
    out[n.pos()].releases.emplace_back(running_end_of(task.job), task.request);
  }
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    if (!wanted[n.pos()]) continue;
    // A nominee whose room is not all there yet claims at most what is being freed.
    ResourceVector unclaimed = session.node_releasing(n);
    unclaimed.Subtract(ResourceVector::Min(claimed[n.pos()], unclaimed));
    if (!unclaimed.IsZero()) out[n.pos()].releases.emplace_back(session.now(), unclaimed);
  }
  for (Timeline& timeline : out) {
    std::stable_sort(timeline.releases.begin(), timeline.releases.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return out;
}

// The earliest time `need` fits on the node as its pods leave; none: never, even once all of
// ours have left.
std::optional<Time> EarliestFit(const Session& session, NodeIndex n, const Timeline& timeline,
                                const ResourceVector& need) {
  ResourceVector room = session.node_free(n);
  if (need.FitsIn(room)) return session.now();
  for (const auto& [when, freed] : timeline.releases) {
    room.Add(freed);
    if (need.FitsIn(room)) return when;
  }
  return std::nullopt;
}

bool NodeConstraintsFit(const Session& session, TaskIndex t, NodeIndex n) {
  for (const auto& tier : session.plugins().filter) {
    for (const FilterExtension* p : tier) {
      if (!p->NodeConstraint(session, t, n).fit()) return false;
    }
  }
  return true;
}

struct Choice {
  std::vector<NodeIndex> nodes;  // in node order
  std::optional<Time> start;
};

// The room on the node at `when`: free now plus what its pods release by then.
ResourceVector RoomAt(const Session& session, NodeIndex n, const Timeline& timeline, Time when) {
  ResourceVector room = session.node_free(n);
  for (const auto& [at, freed] : timeline.releases) {
    if (at > when) break;
    room.Add(freed);
  }
  return room;
}

// Nodes for the gang's remaining minimum, in two passes over its pods (in the order allocate
// tries them), among `allowed`; none when some pod fits on none of them ever.
//   1. The start: each pod on the node where it fits the soonest; the latest of those times is
//      the earliest the gang can start (as Slurm's backfill computes it).
//   2. The nodes: the pods again, packed onto as few nodes as fit them by that start (a node the
//      gang already has, then the node with the most room then), so that the nodes it does not
//      need stay open to jobs that outlast its start.
std::optional<Choice> ChooseNodes(const Session& session, JobIndex j,
                                  const std::vector<bool>& allowed) {
  const std::int32_t needed = session.job(j).min_member - session.job_ready_tasks(j);
  if (needed <= 0) return std::nullopt;
  std::vector<TaskIndex> tasks = GangTryOrder(session, j);
  if (static_cast<std::int32_t>(tasks.size()) < needed) return std::nullopt;
  tasks.resize(static_cast<std::size_t>(needed));
  const std::vector<Timeline> timelines = Timelines(session, j, allowed);
  std::map<NodeIndex, ResourceVector> taken;
  Time start = session.now();
  for (TaskIndex t : tasks) {
    std::optional<std::pair<Time, NodeIndex>> best;
    bool best_taken = false;
    for (NodeIndex n : NodeIndex::Range(session.node_count())) {
      if (!allowed[n.pos()] || !NodeConstraintsFit(session, t, n)) continue;
      ResourceVector need = session.task(t).request;
      auto already = taken.find(n);
      if (already != taken.end()) need.Add(already->second);
      const std::optional<Time> when = EarliestFit(session, n, timelines[n.pos()], need);
      if (!when.has_value()) continue;
      const bool is_taken = already != taken.end();
      if (!best.has_value() || *when < best->first ||
          (*when == best->first && is_taken && !best_taken)) {
        best.emplace(*when, n);
        best_taken = is_taken;
      }
    }
    if (!best.has_value()) return std::nullopt;
    taken[best->second].Add(session.task(t).request);
    start = std::max(start, best->first);
  }
  if (start != kSomeDay) {
    // Pass 2. Room at the start, less what the packed pods take; every pod fits somewhere by
    // the start (pass 1 found a way), but packing in another order may not: then pass 1 stands.
    std::map<NodeIndex, ResourceVector> left;
    for (NodeIndex n : NodeIndex::Range(session.node_count())) {
      if (allowed[n.pos()]) left.emplace(n, RoomAt(session, n, timelines[n.pos()], start));
    }
    std::map<NodeIndex, ResourceVector> packed;
    bool all = true;
    for (TaskIndex t : tasks) {
      const ResourceVector& request = session.task(t).request;
      std::optional<NodeIndex> best;
      for (auto& [n, room] : left) {
        if (!request.FitsIn(room) || !NodeConstraintsFit(session, t, n)) continue;
        if (!best.has_value()) {
          best = n;
          continue;
        }
        const bool is_taken = packed.contains(n);
        const bool best_taken = packed.contains(*best);
        if (is_taken != best_taken) {
          if (is_taken) best = n;
          continue;
        }
        // The most room first: the node that takes the most of the gang.
        if (left.at(*best).FitsIn(room) && !room.FitsIn(left.at(*best))) best = n;
      }
      if (!best.has_value()) {
        all = false;
        break;
      }
      left.at(*best).Subtract(request);
      packed[*best].Add(request);
    }
    if (all && packed.size() < taken.size()) taken = std::move(packed);
  }
  Choice choice;
  for (const auto& [n, amount] : taken) choice.nodes.push_back(n);
  if (start != kSomeDay) choice.start = start;
  return choice;
}

// For a gang that asks for a topology, the nodes are chosen inside one of the domains its plan
// names (each tried, the earliest start kept; a tie goes to the domain the plan puts first,
// the tightest fit), since nodes spread over domains would be of no use to a Required gang and
// would hold a Preferred one to a spread; otherwise among all of `allowed`.
std::optional<Choice> ChooseFor(const Session& session, JobIndex j,
                                const std::vector<bool>& allowed) {
  const std::optional<TopologyPlan> plan = session.TopologyPlanOf(j);
  if (!plan.has_value()) return ChooseNodes(session, j, allowed);
  std::optional<Choice> best;
  const auto consider = [&](const TopologyDomain& domain) {
    std::vector<bool> within(allowed.size());
    bool any = false;
    for (NodeIndex n : domain.nodes) {
      within[n.pos()] = allowed[n.pos()];
      any = any || allowed[n.pos()];
    }
    if (!any) return;
    std::optional<Choice> choice = ChooseNodes(session, j, within);
    if (!choice.has_value()) return;
    const Time start = choice->start.value_or(kSomeDay);
    if (!best.has_value() || start < best->start.value_or(kSomeDay)) best = std::move(choice);
  };
  for (const TopologyDomain& domain : plan->tries) consider(domain);
  for (const TopologyDomain& domain : plan->others) consider(domain);
  return best;
}

// Whether the gang may hold a reservation this session (the wait aside).
bool Eligible(const Session& session, JobIndex j) {
  const JobInfo& job = session.job(j);
  const PodGroupPhase phase = session.job_phase(j);
  // A single pod fits in whatever room frees first: only gangs starve for want of room at once.
  if (job.group == nullptr || job.queue_index == kNoQueue || job.min_member <= 1) return false;
  if (phase != PodGroupPhase::kPending && phase != PodGroupPhase::kInqueue) return false;
  if (session.PendingTasks(j).empty() || session.JobReady(j) || session.job_holding_tasks(j) > 0) {
    return false;
  }
  if (session.CheckJob(j).has_value() || session.QueueOverused(job.queue_index).has_value()) {
    return false;
  }
  const std::optional<JobVerdict> refused = session.JobNotEnqueueable(j);
  return !refused.has_value() || refused->reason != JobReason::kQueueCapability;
}

std::vector<bool> InScope(const Session& session, const std::vector<bool>& reserved) {
  std::vector<bool> out(static_cast<std::size_t>(session.node_count()));
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    out[n.pos()] = session.node(n).in_scope && !reserved[n.pos()];
  }
  return out;
}

// The named nodes, if every one is in scope and not reserved by another gang.
std::optional<std::vector<bool>> NamedNodes(const Session& session,
                                            const std::vector<std::string>& names,
                                            const std::vector<bool>& reserved) {
  std::vector<bool> out(static_cast<std::size_t>(session.node_count()));
  for (const std::string& name : names) {
    const std::optional<NodeIndex> n = session.snapshot().FindNode(name);
    if (!n.has_value() || !session.node(*n).in_scope || reserved[n->pos()]) return std::nullopt;
    out[n->pos()] = true;
  }
  return out;
}

}  // namespace

bool AcceptsPreemption(const Session& session, JobIndex j) {
  const JobInfo& job = session.job(j);
  static const std::string kKey(kPreemptableLabel);
  const auto label = [](const ObjectMeta& meta) -> std::optional<std::string_view> {
    auto it = meta.labels.find(kKey);
    if (it == meta.labels.end()) return std::nullopt;
    return std::string_view(it->second);
  };
  std::optional<std::string_view> says;
  if (job.group != nullptr) says = label(job.group->meta);
  if (!says.has_value() && job.tasks.empty()) return false;
  for (TaskIndex t : job.tasks) {
    const Pod& pod = *session.task(t).pod;
    if (SystemPod(pod)) return false;
    const std::optional<std::string_view> pod_says = label(pod.meta);
    if (pod_says == "false") return false;
    if (!says.has_value() && pod_says != "true") return false;
  }
  return says.value_or("true") == "true";
}

bool SystemPod(const Pod& pod) {
  return pod.meta.namespace_name == "kube-system" ||
         pod.spec.priority_class_name == "system-node-critical" ||
         pod.spec.priority_class_name == "system-cluster-critical";
}

ResourceVector QueueGuarantee(const Session& session, QueueIndex queue) {
  const ResourceSpace& space = session.snapshot().resources;
  ResourceVector out(space.size());
  for (const ResourceEntry& e :
       session.snapshot().queues[queue.pos()].queue->spec.guarantee.entries()) {
    if (auto id = space.Find(e.name)) out.Set(*id, e.amount);
  }
  return out;
}

bool AtOrAboveShare(const ResourceVector& allocated, const ResourceVector& deserved) {
  const std::size_t n = std::max(allocated.size(), deserved.size());
  for (std::size_t r = 0; r < n; ++r) {
    const auto id = static_cast<ResourceId>(r);
    if (deserved.Get(id) > 0 && allocated.Get(id) >= deserved.Get(id)) return true;
  }
  return false;
}

bool KeepsShareWithout(const Session& session, QueueIndex queue, const ResourceVector& taken) {
  if (queue == kNoQueue) return false;
  ResourceVector left = session.queue_allocated(queue);
  if (!taken.FitsIn(left)) return false;
  left.Subtract(taken);
  if (!QueueGuarantee(session, queue).FitsIn(left)) return false;
  const std::optional<ResourceVector> deserved = session.QueueDeserved(queue);
  return !deserved.has_value() || AtOrAboveShare(left, *deserved);
}

std::optional<Clock::WallTime> EstimatedEnd(const Session& session, JobIndex j) {
  const JobInfo& job = session.job(j);
  const sim::RunTime run_time = sim::RunTimeOf(session.snapshot(), job, nullptr);
  if (!run_time.duration.has_value()) return std::nullopt;
  const Time end = sim::JobStart(session.snapshot(), job, session.now()) + *run_time.duration;
  return std::max(end, session.now());
}

std::vector<ActiveReservation> ReservationBook::Update(const Session& session) {
  std::vector<ActiveReservation> active;
  if (!config_.enabled || config_.max_reservations <= 0) {
    entries_.clear();
    return active;
  }
  std::map<std::string_view, JobIndex> by_uid;
  for (JobIndex j : JobIndex::Range(session.job_count())) by_uid.emplace(session.job(j).uid, j);
  std::vector<bool> reserved(static_cast<std::size_t>(session.node_count()));
  std::vector<Entry> kept;
  const auto hold = [&](JobIndex j, Entry entry, const Choice& choice) {
    for (NodeIndex n : choice.nodes) reserved[n.pos()] = true;
    entry.nodes.clear();
    for (NodeIndex n : choice.nodes) entry.nodes.push_back(session.node(n).name());
    active.push_back({j, choice.nodes, entry.since, choice.start});
    kept.push_back(std::move(entry));
  };
  // Nodes kept where they still can hold the gang; chosen again where they cannot.
  const auto keep = [&](JobIndex j, Entry entry) {
    if (std::optional<std::vector<bool>> nodes = NamedNodes(session, entry.nodes, reserved)) {
      if (std::optional<Choice> choice = ChooseFor(session, j, *nodes)) {
        hold(j, std::move(entry), *choice);
        return;
      }
    }
    if (std::optional<Choice> choice = ChooseFor(session, j, InScope(session, reserved))) {
      hold(j, std::move(entry), *choice);
    }
  };
  for (Entry& entry : entries_) {
    auto it = by_uid.find(entry.job_uid);
    if (it == by_uid.end() || !Eligible(session, it->second)) continue;
    if (static_cast<std::int32_t>(kept.size()) >= config_.max_reservations) break;
    keep(it->second, std::move(entry));
  }
  // Newly elected: those a scheduler before this one reserved for (status.reservation) first,
  // then the longest waiting.
  std::vector<JobIndex> candidates;
  const auto wait = std::chrono::seconds(config_.wait_seconds);
  // With every place taken, no election: Eligible is the costly part of a session with many
  // waiting gangs.
  const bool full = static_cast<std::int32_t>(kept.size()) >= config_.max_reservations;
  for (JobIndex j : JobIndex::Range(full ? 0 : session.job_count())) {
    const JobInfo& job = session.job(j);
    if (job.group == nullptr || session.now() - job.creation < wait) continue;
    if (std::any_of(kept.begin(), kept.end(),
                    [&](const Entry& e) { return e.job_uid == job.uid; })) {
      continue;
    }
    if (Eligible(session, j)) candidates.push_back(j);
  }
  const auto recorded = [&](JobIndex j) {
    return session.job(j).group->status.reservation.has_value();
  };
  std::sort(candidates.begin(), candidates.end(), [&](JobIndex a, JobIndex b) {
    const JobInfo& ja = session.job(a);
    const JobInfo& jb = session.job(b);
    if (recorded(a) != recorded(b)) return recorded(a);
    if (ja.creation != jb.creation) return ja.creation < jb.creation;
    return ja.uid < jb.uid;
  });
  for (JobIndex j : candidates) {
    if (static_cast<std::int32_t>(kept.size()) >= config_.max_reservations) break;
    Entry entry{session.job(j).uid, {}, session.now()};
    if (const auto& status = session.job(j).group->status.reservation) {
      entry.nodes = status->nodes;
      entry.since = status->since;
    }
    keep(j, std::move(entry));
  }
  entries_ = std::move(kept);
  return active;
}

}  // namespace arbiter
