#include "arbiter/controllers/queue_quota.h"

#include <algorithm>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "arbiter/base/text.h"
#include "arbiter/fairness/water_filling.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/resource/resource_vector.h"

namespace arbiter::controllers {
namespace {

constexpr std::size_t kMaxNameLength = 253;
// Namespaces named in a condition's message; the status lists them all.
constexpr std::size_t kMaxNamedInMessage = 5;

// The quota key that limits what pods request of `resource`.
std::string QuotaKey(std::string_view resource) {
  if (resource == "pods") return "pods";
  return "requests." + std::string(resource);
}

bool Deleting(const Queue& queue) { return queue.meta.deletion_timestamp.has_value(); }

bool HasFinalizer(const ObjectMeta& meta) {
  return std::ranges::find(meta.finalizers, kQuotaFinalizer) != meta.finalizers.end();
}

ResourceVector ToVector(ResourceSpace& space, const ResourceList& list, std::int64_t missing) {
  ResourceVector out(space.size());
  for (std::size_t r = 0; r < space.size(); ++r) out.Set(static_cast<ResourceId>(r), missing);
  for (const ResourceEntry& e : list.entries()) out.Set(space.Intern(e.name), e.amount);
  return out;
}

std::string JoinSome(const std::vector<std::string>& names) {
  return arbiter::JoinSome(names, kMaxNamedInMessage);
}

std::int64_t GenerationOf(const ResourceQuota& quota) {
  auto it = quota.meta.annotations.find(kQuotaGenerationAnnotation);
  if (it == quota.meta.annotations.end()) return -1;
  std::int64_t value = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9' || value > (std::int64_t{1} << 58)) return -1;
    value = value * 10 + (c - '0');
  }
  return it->second.empty() ? -1 : value;
}

bool OwnedBy(const ResourceQuota& quota, const Queue& queue) {
  const OwnerReference* owner = quota.meta.Controller();
  return owner != nullptr && owner->uid == queue.meta.uid && owner->kind == "Queue";
}

ResourceList Zeroed(const ResourceList& hard) {
  ResourceList out;
  for (const ResourceEntry& e : hard.entries()) out.Set(e.name, 0);
  return out;
}

// Whether going from `before` to `after` lowers some limit, or sets one where there was none
// (a missing key is no limit): pods may then run beyond the new quota.
bool Lowers(const ResourceList& before, const ResourceList& after) {
  return std::ranges::any_of(after.entries(), [&](const ResourceEntry& e) {
    const std::optional<std::int64_t> old = before.Find(e.name);
    return !old.has_value() || e.amount < *old;
  });
}

// The condition, keeping its transition time when its status did not change.
ObservedCondition MakeCondition(const Queue& queue, bool synced, std::string reason,
                                std::string message, Clock::WallTime now) {
  ObservedCondition c{Condition{std::string(kQuotaSyncedCondition), synced ? "True" : "False",
                                std::move(reason), std::move(message), now},
                      queue.meta.generation};
  for (const ObservedCondition& old : queue.status.conditions) {
    if (old.condition.type == kQuotaSyncedCondition && old.condition.status == c.condition.status &&
        old.condition.last_transition_time) {
      c.condition.last_transition_time = old.condition.last_transition_time;
    }
  }
  return c;
}

}  // namespace

std::string QuotaName(std::string_view queue) {
  return std::string(kQuotaNamePrefix) + std::string(queue);
}

ResourceList ClusterAllocatable(const std::vector<Node>& nodes) {
  ResourceList total;
  for (const Node& node : nodes) {
    if (node.unschedulable || !node.Ready() || node.meta.deletion_timestamp) continue;
    // Saturates rather than fails: a sum past int64 is no limit anyone can reach.
    if (!total.Add(node.allocatable).ok()) continue;
  }
  return total;
}

std::map<std::string, ResourceList> QuotaHardLimits(const std::vector<Queue>& queues,
                                                    const ResourceList& cluster) {
  ResourceSpace space;
  for (const Queue& q : queues) {
    for (const ResourceEntry& e : q.spec.capability.entries()) space.Intern(e.name);
    for (const ResourceEntry& e : q.spec.guarantee.entries()) space.Intern(e.name);
  }
  const ResourceVector total = space.FromList(cluster);
  const std::size_t resources = space.size();

  std::map<std::string, std::int32_t, std::less<>> index;
  for (std::size_t i = 0; i < queues.size(); ++i) {
    index.emplace(queues[i].meta.name, static_cast<std::int32_t>(i));
  }
  std::set<std::string, std::less<>> parents;
  for (const Queue& q : queues) parents.insert(q.spec.parent);

  std::vector<fairness::QueueDemand> demands(queues.size());
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const Queue& q = queues[i];
    fairness::QueueDemand& d = demands[i];
    d.name = q.meta.name;
    d.weight = q.spec.weight;
    if (auto it = index.find(q.spec.parent); !q.spec.parent.empty() && it != index.end()) {
      d.parent = it->second;
    }
    // Everyone asks for everything: the entitlement does not follow demand. A parent's own jobs
    // ask for nothing, so that its children share all of it.
    d.request = ToVector(space, {}, parents.contains(q.meta.name) ? 0 : fairness::kUnlimited);
    d.capability = ToVector(space, q.spec.capability, fairness::kUnlimited);
    d.guarantee = ToVector(space, q.spec.guarantee, 0);
  }
  const std::vector<fairness::QueueShare> shares =
      fairness::ComputeDeserved(demands, total, resources);

  std::map<std::string, ResourceList> out;
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const Queue& q = queues[i];
    ResourceList hard;
    switch (q.spec.quota_enforce) {
      case QuotaEnforce::kNone:
        continue;
      case QuotaEnforce::kCapability:
        for (const ResourceEntry& e : q.spec.capability.entries()) {
          hard.Set(QuotaKey(e.name), e.amount);
        }
        break;
      case QuotaEnforce::kDeserved: {
        std::set<std::string> names = {std::string(kResourceCpu), std::string(kResourceMemory)};
        for (const ResourceEntry& e : q.spec.capability.entries()) names.insert(e.name.str());
        for (const ResourceEntry& e : q.spec.guarantee.entries()) names.insert(e.name.str());
        for (const std::string& name : names) {
          std::optional<ResourceId> id = space.Find(name);
          hard.Set(QuotaKey(name), id ? shares[i].deserved.Get(*id) : 0);
        }
        break;
      }
    }
    out.emplace(q.meta.name, std::move(hard));
  }
  return out;
}

QuotaPlan PlanQueueQuotas(const QuotaObservation& obs) {
  QuotaPlan plan;
  std::vector<Queue> live;
  for (const Queue& q : obs.queues) {
    if (!Deleting(q)) live.push_back(q);
  }
  const std::map<std::string, ResourceList> limits = QuotaHardLimits(live, obs.cluster);

  // Which live queues' selectors pick each namespace.
  std::map<std::string, std::vector<std::string>> owned;
  std::map<std::string, std::vector<std::string>> shared;
  std::set<std::string> terminating;
  std::vector<const Namespace*> namespaces;
  namespaces.reserve(obs.namespaces.size());
  for (const Namespace& ns : obs.namespaces) namespaces.push_back(&ns);
  std::ranges::sort(namespaces, {}, [](const Namespace* ns) { return ns->meta.name; });
  for (const Namespace* ns : namespaces) {
    if (ns->phase == "Terminating" || ns->meta.deletion_timestamp)
      terminating.insert(ns->meta.name);
    std::vector<std::string> selecting;
    for (const Queue& q : live) {
      if (q.spec.namespace_selector && q.spec.namespace_selector->Matches(ns->meta.labels)) {
        selecting.push_back(q.meta.name);
      }
    }
    if (selecting.size() == 1) {
      owned[selecting.front()].push_back(ns->meta.name);
    } else {
      for (const std::string& q : selecting) shared[q].push_back(ns->meta.name);
    }
  }

  // The controller's ResourceQuotas by queue, and namespace/name -> quota.
  std::map<std::string, std::vector<const ResourceQuota*>> by_queue;
  for (const ResourceQuota& rq : obs.quotas) by_queue[std::string(QuotaQueueOf(rq))].push_back(&rq);
  std::set<const ResourceQuota*> kept;

  std::vector<const Queue*> queues;
  queues.reserve(obs.queues.size());
  for (const Queue& q : obs.queues) queues.push_back(&q);
  std::ranges::sort(queues, {}, [](const Queue* q) { return q->meta.name; });

  for (const Queue* queue : queues) {
    const std::string& name = queue->meta.name;
    const bool deleting = Deleting(*queue);
    const bool enforcing = !deleting && queue->spec.quota_enforce != QuotaEnforce::kNone;
    const std::vector<const ResourceQuota*>& existing = by_queue[name];
    const std::vector<std::string>& mine = owned[name];
    QueueQuotaUpdate update;
    update.queue = name;

    if (deleting) {
      // Zero first, so that no pod can be created into the namespace while the rest goes.
      for (const ResourceQuota* rq : existing) {
        kept.insert(rq);
        if (!HasFinalizer(queue->meta)) continue;  // the garbage collector's, then
        if (!rq->spec_hard.IsZero()) {
          plan.writes.push_back({rq->meta.namespace_name, rq->meta.name, rq->meta.resource_version,
                                 name, queue->meta.uid, Zeroed(rq->spec_hard), GenerationOf(*rq)});
        } else {
          plan.deletes.push_back({rq->meta.namespace_name, rq->meta.name, rq->meta.uid});
        }
      }
      if (HasFinalizer(queue->meta) && existing.empty()) {
        update.remove_finalizer = true;
        plan.queues.push_back(std::move(update));
      }
      continue;
    }

    QueueStatus next = queue->status;
    QueueQuotaStatus& quota = next.quota;
    quota.namespaces = enforcing ? mine : std::vector<std::string>();
    quota.shared_namespaces = enforcing ? shared[name] : std::vector<std::string>();
    const std::string quota_name = QuotaName(name);
    std::vector<std::string> waiting;
    std::optional<ObservedCondition> condition;

    if (!enforcing) {
      quota.hard = ResourceList();
      condition = MakeCondition(*queue, true, "NotEnforced", "spec.quota.enforce is None", obs.now);
    } else if (quota_name.size() > kMaxNameLength) {
      quota.hard = ResourceList();
      condition = MakeCondition(*queue, false, "InvalidName",
                                "the ResourceQuota's name " + quota_name.substr(0, 40) +
                                    "... would be longer than 253 characters",
                                obs.now);
    } else {
      const ResourceList& hard = limits.at(name);
      if (!(queue->status.quota.hard == hard) || queue->status.quota.generation == 0) {
        quota.generation = queue->status.quota.generation + 1;
        if (queue->status.quota.generation == 0 || Lowers(queue->status.quota.hard, hard)) {
          quota.lowered_at = obs.now;
        }
        quota.hard = hard;
      }
      for (const std::string& ns : mine) {
        const ResourceQuota* found = nullptr;
        for (const ResourceQuota* rq : existing) {
          if (rq->meta.namespace_name == ns && rq->meta.name == quota_name) found = rq;
        }
        if (found != nullptr) kept.insert(found);
        const bool right = found != nullptr && found->spec_hard == hard &&
                           GenerationOf(*found) == quota.generation && OwnedBy(*found, *queue);
        if (!right && !terminating.contains(ns)) {
          plan.writes.push_back({ns, quota_name, found ? found->meta.resource_version : "", name,
                                 queue->meta.uid, hard, quota.generation});
        }
        if (!right || !(found->status_hard == found->spec_hard)) waiting.push_back(ns);
      }
      std::string shared_note;
      if (!quota.shared_namespaces.empty()) {
        shared_note = "; no ResourceQuota in " + JoinSome(quota.shared_namespaces) +
                      ", which other queues select too";
      }
      if (waiting.empty()) {
        std::string message;
        if (mine.empty()) {
          message =
              "the queue owns no namespace (its namespaceSelector picks none that no other "
              "queue picks)";
        } else {
          message = "ResourceQuota " + quota_name + " at generation ";
          message += std::to_string(quota.generation);
          message += " in ";
          message += JoinSome(mine);
        }
        message += shared_note;
        condition = MakeCondition(*queue, true, "Synced", std::move(message), obs.now);
      } else {
        condition =
            MakeCondition(*queue, false, "Syncing",
                          "waiting for ResourceQuota " + quota_name + " at generation " +
                              std::to_string(quota.generation) +
                              " to be written and taken by the API server in " + JoinSome(waiting),
                          obs.now);
      }
    }
    next.conditions.erase(std::remove_if(next.conditions.begin(), next.conditions.end(),
                                         [](const ObservedCondition& c) {
                                           return c.condition.type == kQuotaSyncedCondition;
                                         }),
                          next.conditions.end());
    next.conditions.push_back(std::move(*condition));
    if (!(next == queue->status)) update.status = std::move(next);

    const bool has_finalizer = HasFinalizer(queue->meta);
    update.add_finalizer = enforcing && !has_finalizer;
    bool strays = false;
    for (const ResourceQuota* rq : existing) strays = strays || !kept.contains(rq);
    update.remove_finalizer = !enforcing && has_finalizer && !strays;
    if (update.status || update.add_finalizer || update.remove_finalizer) {
      plan.queues.push_back(std::move(update));
    }
  }

  // What no live queue wants any more: a namespace no longer owned, a queue that stopped
  // enforcing or is gone.
  for (const ResourceQuota& rq : obs.quotas) {
    if (!kept.contains(&rq)) {
      plan.deletes.push_back({rq.meta.namespace_name, rq.meta.name, rq.meta.uid});
    }
  }
  return plan;
}

std::string ResourceQuotaJson(const QuotaWrite& write) {
  nlohmann::json hard = nlohmann::json::object();
  for (const ResourceEntry& e : write.hard.entries()) {
    hard[e.name] = FromCanonical(e.name, e.amount).ToString();
  }
  nlohmann::json metadata = {
      {"name", write.name},
      {"namespace", write.namespace_name},
      {"labels", {{kManagedByLabel, "arbiter-controller"}}},
      {"annotations",
       {{kQuotaQueueAnnotation, write.queue},
        {kQuotaGenerationAnnotation, std::to_string(write.generation)}}},
      {"ownerReferences", nlohmann::json::array({{{"apiVersion", "arbiter.dev/v1alpha1"},
                                                  {"kind", "Queue"},
                                                  {"name", write.queue},
                                                  {"uid", write.queue_uid},
                                                  {"controller", true}}})},
  };
  if (!write.resource_version.empty()) metadata["resourceVersion"] = write.resource_version;
  nlohmann::json body = {{"apiVersion", "v1"},
                         {"kind", "ResourceQuota"},
                         {"metadata", std::move(metadata)},
                         {"spec", {{"hard", std::move(hard)}}}};
  return body.dump();
}

std::string QueueQuotaStatusPatch(const QueueStatus& before, const QueueStatus& after) {
  nlohmann::json hard = nlohmann::json::object();
  for (const ResourceEntry& e : before.quota.hard.entries()) hard[e.name] = nullptr;
  for (const ResourceEntry& e : after.quota.hard.entries()) {
    hard[e.name] = FromCanonical(e.name, e.amount).ToString();
  }
  nlohmann::json conditions = nlohmann::json::array();
  for (const ObservedCondition& c : after.conditions) {
    nlohmann::json item = {{"type", c.condition.type},
                           {"status", c.condition.status},
                           {"reason", c.condition.reason},
                           {"message", c.condition.message},
                           {"observedGeneration", c.observed_generation}};
    if (c.condition.last_transition_time) {
      item["lastTransitionTime"] = FormatRfc3339(*c.condition.last_transition_time);
    }
    conditions.push_back(std::move(item));
  }
  nlohmann::json patch = {{"status",
                           {{"quota",
                             {{"generation", after.quota.generation},
                              {"hard", std::move(hard)},
                              {"loweredAt", after.quota.lowered_at ? nlohmann::json(FormatRfc3339(
                                                                         *after.quota.lowered_at))
                                                                   : nlohmann::json(nullptr)},
                              {"namespaces", after.quota.namespaces},
                              {"sharedNamespaces", after.quota.shared_namespaces}}},
                            {"conditions", std::move(conditions)}}}};
  return patch.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string FinalizersPatch(const std::vector<std::string>& finalizers,
                            std::string_view resource_version) {
  nlohmann::json patch = {
      {"metadata", {{"resourceVersion", resource_version}, {"finalizers", finalizers}}}};
  return patch.dump();
}

}  // namespace arbiter::controllers
