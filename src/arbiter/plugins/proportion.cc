#include "arbiter/plugins/proportion.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arbiter/framework/session.h"

namespace arbiter {

StatusOr<std::unique_ptr<Plugin>> ProportionPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Check());
  ARBITER_ASSIGN_OR_RETURN(double factor, reader.GetDouble("overcommitFactor", 1.0, 1.0, 100.0));
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<ProportionPlugin>(factor));
}

namespace {

// A ResourceList as a vector over the snapshot's resources; resources no pod or node mentions
// are dropped (nothing can ask for them). Absent resources read as `absent`.
ResourceVector ToVector(const ResourceSpace& space, const ResourceList& list, std::int64_t absent) {
  ResourceVector out(space.size());
  for (std::size_t r = 0; r < space.size(); ++r) out.Set(static_cast<ResourceId>(r), absent);
  for (const ResourceEntry& e : list.entries()) {
    if (auto id = space.Find(e.name)) out.Set(*id, e.amount);
  }
  return out;
}

bool IsTerminal(TaskState s) { return s == TaskState::kSucceeded || s == TaskState::kFailed; }

std::string Amount(const Session& session, ResourceId r, std::int64_t amount) {
  if (amount == fairness::kUnlimited) return "unlimited";
  return session.snapshot().resources.FormatAmount(r, amount);
}

}  // namespace

// Which limit binds a queue on a resource, for messages: its own capability, or the hard limit
// of its ResourceQuotas (which is lower).
std::string ProportionPlugin::CapName(const QueueBook& book, ResourceId id) {
  return book.own_capability.Get(id) == book.capability.Get(id) ? "capability" : "quota";
}

void ProportionPlugin::OnSessionOpen(const Session& session) {
  const Snapshot& snapshot = session.snapshot();
  const std::size_t queue_count = snapshot.queues.size();
  const std::size_t resources = snapshot.resources.size();
  ResourceVector total(resources);
  for (NodeIndex n : NodeIndex::Range(session.node_count())) {
    if (session.node(n).in_scope) total.Add(session.node(n).allocatable);
  }
  std::vector<fairness::QueueDemand> demands(queue_count);
  queues_.assign(queue_count, QueueBook());
  for (std::size_t q = 0; q < queue_count; ++q) {
    const Queue& queue = *snapshot.queues[q].queue;
    fairness::QueueDemand& d = demands[q];
    d.name = queue.meta.name;
    d.weight = queue.spec.weight;
    d.request = ResourceVector(resources);
    if (!queue.spec.parent.empty()) {
      if (auto p = snapshot.FindQueue(queue.spec.parent)) d.parent = p->value();
    }
    d.capability = ToVector(snapshot.resources, queue.spec.capability, fairness::kUnlimited);
    queues_[q].own_capability = d.capability;
    // The queue's ResourceQuotas cap it as its capability does (lowered: at once; raised: once
    // the API server admits pods up to the new limit), and its share with it.
    if (const std::optional<ResourceList>& quota = snapshot.queues[q].quota_cap) {
      for (const ResourceEntry& e : quota->entries()) {
        if (std::optional<ResourceId> id = snapshot.resources.Find(e.name)) {
          d.capability.Set(*id, std::min(d.capability.Get(*id), e.amount));
        }
      }
    }
    d.guarantee = ToVector(snapshot.resources, queue.spec.guarantee, 0);
    queues_[q].capability = d.capability;
    queues_[q].allocated = ResourceVector(resources);
    queues_[q].request = ResourceVector(resources);
  }
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    if (job.queue_index == kNoQueue) continue;
    // A job its queue refuses (closed, or not for its namespace) can never use a share: it asks
    // for nothing, so the room goes to queues that can use it.
    if (JobInvalid(session, j).has_value()) continue;
    const auto q = job.queue_index.pos();
    ResourceVector asks(resources);
    for (TaskIndex t : job.tasks) {
      const TaskState state = session.task_state(t);
      if (IsTerminal(state)) continue;
      asks.Add(session.task(t).request);
      if (HoldsNode(state)) queues_[q].allocated.Add(session.task(t).request);
    }
    // A group not yet started, whose pods may not all be there, asks for at least its
    // minResources; a running or finished one asks for what its pods ask.
    const PodGroupPhase phase = session.job_phase(j);
    const bool starting = phase == PodGroupPhase::kPending || phase == PodGroupPhase::kInqueue;
    for (std::size_t r = 0; starting && r < resources; ++r) {
      const auto id = static_cast<ResourceId>(r);
      asks.Set(id, std::max(asks.Get(id), job.min_resources.Get(id)));
    }
    demands[q].request.Add(asks);
    queues_[q].request.Add(asks);
  }
  std::vector<fairness::QueueShare> shares = fairness::ComputeDeserved(demands, total, resources);
  for (std::size_t q = 0; q < queue_count; ++q) {
    queues_[q].parent = demands[q].parent;
    queues_[q].share = std::move(shares[q]);
    queues_[q].subtree_allocated = ResourceVector(resources);
  }
  // Cut parent cycles as the water-filling does, so that every walk up the tree ends.
  for (std::size_t q = 0; q < queue_count; ++q) {
    auto at = static_cast<std::int32_t>(q);
    std::size_t steps = 0;
    while (at >= 0 && steps <= queue_count) {
      at = queues_[static_cast<std::size_t>(at)].parent;
      ++steps;
    }
    if (steps > queue_count) queues_[q].parent = -1;
  }
  for (std::size_t q = 0; q < queue_count; ++q) {
    for (auto a = static_cast<std::int32_t>(q); a >= 0;
         a = queues_[static_cast<std::size_t>(a)].parent) {
      queues_[static_cast<std::size_t>(a)].subtree_allocated.Add(queues_[q].allocated);
    }
  }
  unclaimed_ = total;
  for (std::size_t q = 0; q < queue_count; ++q) {
    if (queues_[q].parent < 0)
      unclaimed_.Subtract(ResourceVector::Min(unclaimed_, queues_[q].share.deserved));
  }
  admitted_.assign(queue_count, ResourceVector(resources));
  admitted_subtree_.assign(queue_count, ResourceVector(resources));
  reserved_subtree_ready_ = false;
  unclaimed_used_ = ResourceVector(resources);
}

double ProportionPlugin::Share(QueueIndex queue) const {
  const QueueBook& st = queues_[queue.pos()];
  double share = 0;
  for (std::size_t r = 0; r < st.allocated.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    const std::int64_t allocated = st.allocated.Get(id);
    if (allocated == 0) continue;
    const std::int64_t deserved = st.share.own_deserved.Get(id);
    if (deserved == 0) return std::numeric_limits<double>::infinity();
    share = std::max(share, static_cast<double>(allocated) / static_cast<double>(deserved));
  }
  return share;
}

int ProportionPlugin::CompareQueues(const Session& /*session*/, QueueIndex a, QueueIndex b) const {
  if (a == kNoQueue || b == kNoQueue) return 0;
  const double sa = Share(a);
  const double sb = Share(b);
  if (sa == sb) return 0;
  return sa < sb ? -1 : 1;
}

std::optional<JobVerdict> ProportionPlugin::JobInvalid(const Session& session, JobIndex j) const {
  const JobInfo& job = session.job(j);
  if (job.group_missing) return std::nullopt;  // gang says so
  if (job.queue_index == kNoQueue) {
    return JobVerdict{JobReason::kQueueNotFound,
                      "queue " + job.queue +
                          " does not exist: create it, or name an existing queue in the "
                          "PodGroup's spec.queue"};
  }
  const Snapshot& snapshot = session.snapshot();
  const Queue& queue = *snapshot.queues[job.queue_index.pos()].queue;
  if (queue.spec.state == QueueState::kClosed) {
    return JobVerdict{JobReason::kQueueClosed,
                      "queue " + job.queue + " is Closed: it accepts no new work"};
  }
  // Every job is checked each session: the namespace's labels are looked up only for a queue
  // that selects namespaces.
  if (!queue.spec.namespace_selector.has_value()) return std::nullopt;
  static const Labels kNoLabels;
  auto ns = snapshot.namespace_labels.find(job.namespace_name);
  if (!queue.spec.AdmitsNamespace(ns == snapshot.namespace_labels.end() ? kNoLabels : ns->second)) {
    return JobVerdict{JobReason::kQueueNotAllowed,
                      "queue " + job.queue + " does not admit namespace " + job.namespace_name +
                          ": its namespaceSelector does not match the namespace's labels"};
  }
  return std::nullopt;
}

std::optional<JobVerdict> ProportionPlugin::JobNotEnqueueable(const Session& session,
                                                              JobIndex j) const {
  const JobInfo& job = session.job(j);
  if (job.queue_index == kNoQueue) return std::nullopt;  // JobInvalid reports it
  const auto q = job.queue_index.pos();
  const ResourceVector need = session.MinimumRequest(j);
  // The hard cap, on the queue and every ancestor: what the subtree holds and what its groups
  // admitted before this one reserve.
  for (std::int32_t a = job.queue_index.value(); a >= 0;
       a = queues_[static_cast<std::size_t>(a)].parent) {
    const QueueBook& st = queues_[static_cast<std::size_t>(a)];
    const ResourceVector reserved = SubtreeReserved(session, static_cast<std::size_t>(a));
    for (std::size_t r = 0; r < need.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      if (need.Get(id) == 0) continue;
      const std::int64_t cap = st.capability.Get(id);
      const std::int64_t held = st.subtree_allocated.Get(id) + reserved.Get(id);
      if (cap != fairness::kUnlimited && (held > cap || need.Get(id) > cap - held)) {
        return JobVerdict{JobReason::kQueueCapability,
                          "queue " + session.snapshot().queues[static_cast<std::size_t>(a)].name() +
                              " would exceed its " + CapName(st, id) + ": " +
                              session.snapshot().resources.Name(id) + " allocated " +
                              Amount(session, id, held) + ", the group needs " +
                              Amount(session, id, need.Get(id)) + ", " + CapName(st, id) + " " +
                              Amount(session, id, cap)};
      }
    }
  }
  const std::optional<ResourceId> short_id = ShareShortfall(session, job.queue_index, need);
  if (!short_id.has_value()) return std::nullopt;
  ResourceVector open = unclaimed_;
  open.Subtract(ResourceVector::Min(open, unclaimed_used_));
  if (need.FitsIn(open)) return std::nullopt;
  const QueueBook& st = queues_[q];
  const ResourceId r = *short_id;
  return JobVerdict{
      JobReason::kNotEnqueued,
      "queue " + job.queue + "'s deserved share is taken: it deserves " +
          Amount(session, r, st.share.own_deserved.Get(r)) + " " +
          session.snapshot().resources.Name(r) + ", has allocated " +
          Amount(session, r, st.allocated.Get(r)) + " and reserved " +
          Amount(session, r, session.queue_reserved(job.queue_index).Get(r) + admitted_[q].Get(r)) +
          " for admitted groups; this group needs " + Amount(session, r, need.Get(r))};
}

ResourceVector ProportionPlugin::SubtreeReserved(const Session& session, std::size_t queue) const {
  if (!reserved_subtree_ready_) {
    // Groups admitted in earlier sessions, not placed yet: their queue's reservation, counted in
    // the queue and every ancestor.
    reserved_subtree_.assign(queues_.size(), ResourceVector(session.snapshot().resources.size()));
    for (std::size_t q = 0; q < queues_.size(); ++q) {
      const ResourceVector& reserved = session.queue_reserved(QueueIndex::Of(q));
      for (auto a = static_cast<std::int32_t>(q); a >= 0;
           a = queues_[static_cast<std::size_t>(a)].parent) {
        reserved_subtree_[static_cast<std::size_t>(a)].Add(reserved);
      }
    }
    reserved_subtree_ready_ = true;
  }
  ResourceVector reserved = reserved_subtree_[queue];
  reserved.Add(admitted_subtree_[queue]);
  return reserved;
}

std::optional<ResourceId> ProportionPlugin::ShareShortfall(const Session& session, QueueIndex queue,
                                                           const ResourceVector& need) const {
  const auto q = queue.pos();
  const QueueBook& st = queues_[q];
  const ResourceVector& reserved = session.queue_reserved(queue);
  std::optional<ResourceId> shortfall;
  bool holds_nothing = true;
  for (std::size_t r = 0; r < need.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    if (need.Get(id) == 0) continue;
    const auto limit = static_cast<double>(st.share.own_deserved.Get(id)) * overcommit_factor_;
    const double used = static_cast<double>(st.allocated.Get(id)) +
                        static_cast<double>(reserved.Get(id)) +
                        static_cast<double>(admitted_[q].Get(id));
    holds_nothing = holds_nothing && used == 0;
    if (!shortfall && used + static_cast<double>(need.Get(id)) > limit) shortfall = id;
  }
  // A job larger than its queue's whole share could never start by that rule, however idle the
  // cluster: while its queue holds nothing of what it asks for, it may (the queue is then above
  // its share until the job ends: reclaim never takes a queue below its share).
  if (holds_nothing) return std::nullopt;
  return shortfall;
}

void ProportionPlugin::OnJobAdmitted(const Session& session, JobIndex j) {
  const JobInfo& job = session.job(j);
  if (job.queue_index == kNoQueue) return;
  // The same test JobNotEnqueueable passed: the group took room in its queue's share, or else
  // in room no queue claims.
  const ResourceVector need = session.MinimumRequest(j);
  for (std::int32_t a = job.queue_index.value(); a >= 0;
       a = queues_[static_cast<std::size_t>(a)].parent) {
    admitted_subtree_[static_cast<std::size_t>(a)].Add(need);
  }
  if (!ShareShortfall(session, job.queue_index, need).has_value()) {
    admitted_[job.queue_index.pos()].Add(need);
  } else {
    unclaimed_used_.Add(need);
  }
}

bool ProportionPlugin::Waiting(std::size_t queue) const {
  const QueueBook& st = queues_[queue];
  for (std::size_t r = 0; r < st.request.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    if (st.request.Get(id) > st.allocated.Get(id)) return true;
  }
  return false;
}

std::optional<std::string> ProportionPlugin::QueueOverused(const Session& session,
                                                           QueueIndex queue) const {
  if (queue == kNoQueue || Share(queue) < 1) return std::nullopt;
  bool others_wait = false;
  for (std::size_t q = 0; q < queues_.size() && !others_wait; ++q) {
    others_wait = q != queue.pos() && Waiting(q);
  }
  if (!others_wait) return std::nullopt;
  const QueueBook& st = queues_[queue.pos()];
  // Name the resource at or over its deserved amount.
  for (std::size_t r = 0; r < st.allocated.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    const std::int64_t allocated = st.allocated.Get(id);
    if (allocated == 0 || allocated < st.share.own_deserved.Get(id)) continue;
    return "queue " + session.snapshot().queues[queue.pos()].name() +
           " is at its deserved share: " + session.snapshot().resources.Name(id) + " allocated " +
           Amount(session, id, allocated) + " of deserved " +
           Amount(session, id, st.share.own_deserved.Get(id)) + ", and other queues wait";
  }
  return std::nullopt;
}

std::optional<std::string> ProportionPlugin::ExceedsCapability(const Session& session,
                                                               QueueIndex queue,
                                                               TaskIndex task) const {
  const ResourceVector& request = session.task(task).request;
  for (std::int32_t a = queue.value(); a >= 0; a = queues_[static_cast<std::size_t>(a)].parent) {
    const QueueBook& st = queues_[static_cast<std::size_t>(a)];
    for (std::size_t r = 0; r < request.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      const std::int64_t want = request.Get(id);
      const std::int64_t cap = st.capability.Get(id);
      if (want == 0 || cap == fairness::kUnlimited) continue;
      const std::int64_t held = st.subtree_allocated.Get(id);
      if (held > cap || want > cap - held) {
        return "queue " + session.snapshot().queues[static_cast<std::size_t>(a)].name() +
               " is at its " + CapName(st, id) + ": " + session.snapshot().resources.Name(id) +
               " allocated " + Amount(session, id, held) + " + requested " +
               Amount(session, id, want) + " > " + Amount(session, id, cap);
      }
    }
  }
  return std::nullopt;
}

ResourceVector ProportionPlugin::Deserved(const Session& /*session*/, QueueIndex queue) const {
  return queues_[queue.pos()].share.deserved;
}

void ProportionPlugin::Charge(QueueIndex queue, const ResourceVector& amount, bool add) {
  if (queue == kNoQueue) return;
  QueueBook& own = queues_[queue.pos()];
  if (add) {
    own.allocated.Add(amount);
  } else {
    own.allocated.Subtract(amount);
  }
  for (std::int32_t a = queue.value(); a >= 0; a = queues_[static_cast<std::size_t>(a)].parent) {
    QueueBook& st = queues_[static_cast<std::size_t>(a)];
    if (add) {
      st.subtree_allocated.Add(amount);
    } else {
      st.subtree_allocated.Subtract(amount);
    }
  }
}

void ProportionPlugin::OnAllocate(const Session& session, TaskIndex task) {
  Charge(session.job(session.task(task).job).queue_index, session.task(task).request, true);
}

void ProportionPlugin::OnDeallocate(const Session& session, TaskIndex task) {
  Charge(session.job(session.task(task).job).queue_index, session.task(task).request, false);
}

}  // namespace arbiter
