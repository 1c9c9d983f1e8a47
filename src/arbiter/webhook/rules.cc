#include "arbiter/webhook/rules.h"

#include <set>
#include <string_view>

#include "arbiter/base/text.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::webhook {
namespace {

// A few keys of a list in a message; the count says how many more.
std::string Some(const std::vector<std::string>& keys) { return JoinSome(keys, 3); }

std::string Amount(std::string_view resource, std::int64_t amount) {
  return FromCanonical(resource, amount).ToString();
}

const Queue* FindQueue(const AdmissionContext& ctx, const std::string& name) {
  auto it = ctx.queues.find(name);
  return it == ctx.queues.end() ? nullptr : &it->second;
}

// The queue may take a job of namespace `ns`: it exists, is Open (for a new job), and its
// namespaceSelector admits the namespace. `field` is where the queue is named.
Refusal CheckQueue(const std::string& field, const std::string& queue_name, const std::string& ns,
                   bool creating, const AdmissionContext& ctx) {
  const Queue* queue = FindQueue(ctx, queue_name);
  if (queue == nullptr) {
    return field + ": queue \"" + queue_name + "\" does not exist (kubectl get queues lists them)";
  }
  if (queue->meta.deletion_timestamp) {
    return field + ": queue \"" + queue_name + "\" is being deleted";
  }
  if (creating && queue->spec.state == QueueState::kClosed) {
    return field + ": queue \"" + queue_name + "\" is Closed: it accepts no new jobs";
  }
  // A namespace the controller has not seen yet (just created) is left to the scheduler, which
  // checks the selector again before it starts anything.
  if (auto labels = ctx.namespaces.find(ns); labels != ctx.namespaces.end()) {
    if (!queue->spec.AdmitsNamespace(labels->second)) {
      return field + ": queue \"" + queue_name + "\" does not admit namespace \"" + ns +
             "\" (its spec.namespaceSelector does not select it)";
    }
  }
  return std::nullopt;
}

// What a job needs to start must fit the capability of its queue and of every ancestor.
Refusal CheckFitsCapability(const std::string& field, const ResourceList& need,
                            const std::string& queue_name, const AdmissionContext& ctx) {
  std::set<std::string> seen;
  for (const Queue* q = FindQueue(ctx, queue_name);
       q != nullptr && seen.insert(q->meta.name).second;
       q = q->spec.parent.empty() ? nullptr : FindQueue(ctx, q->spec.parent)) {
    for (const ResourceEntry& e : need.entries()) {
      const std::optional<std::int64_t> cap = q->spec.capability.Find(e.name);
      if (cap && e.amount > *cap) {
        return field + "." + e.name + ": " + Amount(e.name, e.amount) +
               " exceeds the capability of queue \"" + q->meta.name + "\" (" + e.name + " " +
               Amount(e.name, *cap) + "): the job could never run";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Refusal ReviewPodGroup(const PodGroup& group, const PodGroup* old, const AdmissionContext& ctx) {
  const std::string& ns = group.meta.namespace_name;
  const bool queue_changed = old == nullptr || old->spec.queue != group.spec.queue;
  if (queue_changed) {
    if (Refusal r = CheckQueue("spec.queue", group.spec.queue, ns, true, ctx)) return r;
  }
  return CheckFitsCapability("spec.minResources", group.spec.min_resources, group.spec.queue, ctx);
}

Refusal ReviewBatchJob(const BatchJob& job, const BatchJob* old,
                       const std::vector<std::optional<ResourceList>>& task_requests,
                       const AdmissionContext& ctx) {
  const std::string& ns = job.meta.namespace_name;
  if (old == nullptr || old->spec.queue != job.spec.queue) {
    if (Refusal r = CheckQueue("spec.queue", job.spec.queue, ns, true, ctx)) return r;
  }
  // Every task's minimum must run for the job to start: their pods' requests together.
  ResourceList need;
  for (std::size_t i = 0; i < job.spec.tasks.size() && i < task_requests.size(); ++i) {
    if (!task_requests[i]) continue;
    for (std::int32_t n = 0; n < job.spec.tasks[i].MinAvailable(); ++n) {
      if (!need.Add(*task_requests[i]).ok()) break;  // past int64: beyond any capability anyway
    }
  }
  need.Erase("pods");  // the implicit pod count is not what capabilities limit
  return CheckFitsCapability("spec.tasks[*].template.spec.containers[*].resources.requests", need,
                             job.spec.queue, ctx);
}

Refusal ReviewQueue(const Queue& queue, const AdmissionContext& ctx) {
  for (const ResourceEntry& e : queue.spec.guarantee.entries()) {
    const std::optional<std::int64_t> cap = queue.spec.capability.Find(e.name);
    if (cap && e.amount > *cap) {
      return "spec.guarantee." + e.name + ": " + Amount(e.name, e.amount) +
             " exceeds spec.capability." + e.name + " (" + Amount(e.name, *cap) + ")";
    }
  }
  if (queue.spec.parent.empty()) return std::nullopt;
  const Queue* parent = FindQueue(ctx, queue.spec.parent);
  if (parent == nullptr) {
    return "spec.parent: queue \"" + queue.spec.parent + "\" does not exist";
  }
  // Walk up from the parent: reaching this queue again is a cycle.
  std::set<std::string> seen = {queue.meta.name};
  for (const Queue* q = parent; q != nullptr;
       q = q->spec.parent.empty() ? nullptr : FindQueue(ctx, q->spec.parent)) {
    if (!seen.insert(q->meta.name).second) {
      return "spec.parent: \"" + queue.spec.parent + "\" makes a cycle (queue \"" + q->meta.name +
             "\" is its own ancestor)";
    }
  }
  // The children's guarantees together, this queue's new one included, within the parent's.
  ResourceList children = queue.spec.guarantee;
  std::vector<std::string> siblings;
  for (const auto& [name, q] : ctx.queues) {
    if (name == queue.meta.name || q.spec.parent != queue.spec.parent) continue;
    if (!q.spec.guarantee.empty()) siblings.push_back(name);
    if (!children.Add(q.spec.guarantee).ok()) break;
  }
  for (const ResourceEntry& e : children.entries()) {
    const std::int64_t allowed = parent->spec.guarantee.Get(e.name);
    if (e.amount > 0 && e.amount > allowed) {
      return "spec.guarantee." + e.name + ": with its siblings'" +
             (siblings.empty() ? std::string() : " (" + Some(siblings) + ")") +
             " the children of \"" + parent->meta.name + "\" would be guaranteed " +
             Amount(e.name, e.amount) + ", more than its own spec.guarantee." + e.name + " (" +
             Amount(e.name, allowed) + ")";
    }
  }
  return std::nullopt;
}

Refusal ReviewQueueDeletion(const Queue& queue, const AdmissionContext& ctx) {
  if (queue.meta.name == kDefaultQueueName) {
    return "metadata.name: queue \"default\" cannot be deleted (jobs that name no queue use it)";
  }
  std::vector<std::string> jobs;
  for (const QueueJob& j : ctx.jobs) {
    if (j.queue == queue.meta.name) jobs.push_back(j.kind + " " + j.key);
  }
  if (queue.spec.state != QueueState::kClosed) {
    return "spec.state: queue \"" + queue.meta.name +
           "\" is Open: close it (spec.state: Closed), let its jobs finish, then delete it" +
           (jobs.empty() ? std::string() : " (it has " + std::to_string(jobs.size()) + " jobs)");
  }
  if (!jobs.empty()) {
    return "spec.state: queue \"" + queue.meta.name + "\" is Closed but still has " +
           std::to_string(jobs.size()) + " job(s): " + Some(jobs) +
           "; delete them or let them finish first";
  }
  return std::nullopt;
}

Refusal ReviewPod(const Pod& pod, const AdmissionContext& ctx) {
  if (pod.spec.scheduler_name != ctx.scheduler_name) return std::nullopt;
  const std::string group = PodGroupNameOf(pod);
  if (group.empty()) return std::nullopt;  // a group of one in queue default
  const std::string& ns = pod.meta.namespace_name;
  std::string queue;
  std::string field;
  if (auto it = ctx.group_queues.find(ns + "/" + group); it != ctx.group_queues.end()) {
    queue = it->second;
    field = "metadata.labels[arbiter.dev/pod-group]: PodGroup " + group + ": spec.queue";
  } else if (auto a = pod.meta.annotations.find("arbiter.dev/queue");
             a != pod.meta.annotations.end()) {
    queue = a->second;
    field = "metadata.annotations[arbiter.dev/queue]";
  } else {
    return std::nullopt;  // the group is not there yet: the scheduler checks when it is
  }
  return CheckQueue(field, queue, ns, false, ctx);
}

}  // namespace arbiter::webhook
