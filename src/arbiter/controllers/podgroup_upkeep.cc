#include "arbiter/controllers/podgroup_upkeep.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "arbiter/base/status.h"
#include "arbiter/model/batch_job.h"

namespace arbiter::controllers {
namespace {

bool SameOwner(const OwnerReference* a, const OwnerReference* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->uid == b->uid && a->kind == b->kind && a->name == b->name;
}

// The annotation's value as a whole number >= 1, nullopt when absent, or an error message.
StatusOr<std::optional<std::int32_t>> MinMemberOf(const Pod& pod) {
  auto it = pod.meta.annotations.find(kMinMemberAnnotation);
  if (it == pod.meta.annotations.end()) return std::optional<std::int32_t>();
  const std::string& text = it->second;
  std::int32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    return InvalidArgumentError("pod " + pod.meta.Key() + ": annotation " +
                                std::string(kMinMemberAnnotation) + ": \"" + text +
                                "\" is not a whole number of at least 1");
  }
  return std::optional<std::int32_t>(value);
}

}  // namespace

UpkeepPlan PlanPodGroupUpkeep(const std::vector<const Pod*>& pods,
                              const std::set<std::string>& existing,
                              std::string_view scheduler_name) {
  // Pods by the group they name, in name order (a deterministic "first pod").
  std::map<std::string, std::vector<const Pod*>> by_group;
  for (const Pod* pod : pods) {
    if (pod->spec.scheduler_name != scheduler_name || pod->Finished()) continue;
    // A BatchJob's pods have the group their job made (or will make again).
    const OwnerReference* owner = pod->meta.Controller();
    if (owner != nullptr && IsBatchJobReference(*owner)) continue;
    const std::string group = PodGroupNameOf(*pod);
    if (group.empty()) continue;
    std::string key = pod->meta.namespace_name + "/" + group;
    if (existing.contains(key)) continue;
    by_group[std::move(key)].push_back(pod);
  }
  UpkeepPlan plan;
  for (auto& [key, members] : by_group) {
    std::sort(members.begin(), members.end(),
              [](const Pod* a, const Pod* b) { return a->meta.name < b->meta.name; });
    const Pod& first = *members.front();
    std::optional<std::int32_t> annotated;
    bool bad = false;
    for (const Pod* pod : members) {
      StatusOr<std::optional<std::int32_t>> min = MinMemberOf(*pod);
      if (!min.ok()) {
        plan.errors.push_back(min.status().message());
        bad = true;
      } else if (min->has_value()) {
        annotated = std::max(annotated.value_or(0), **min);
      }
    }
    if (bad) continue;
    const OwnerReference* owner = first.meta.Controller();
    bool one_owner = true;
    std::int32_t of_first_owner = 0;
    for (const Pod* pod : members) {
      const bool same = SameOwner(pod->meta.Controller(), owner);
      one_owner = one_owner && same;
      of_first_owner += same ? 1 : 0;
    }
    PodGroup group;
    group.meta.namespace_name = first.meta.namespace_name;
    group.meta.name = PodGroupNameOf(first);
    group.meta.labels[std::string(kCreatedByLabel)] = std::string(kControllerName);
    if (owner != nullptr && one_owner) {
      OwnerReference ref = *owner;
      ref.controller = false;  // the workload's controller owns the pods, not this group
      group.meta.owner_references.push_back(std::move(ref));
    }
    group.spec.min_member = annotated.value_or(of_first_owner);
    group.spec.queue = std::string(kDefaultQueueName);
    for (const Pod* pod : members) {
      auto it = pod->meta.annotations.find(kQueueAnnotation);
      if (it != pod->meta.annotations.end() && !it->second.empty()) {
        group.spec.queue = it->second;
        break;
      }
    }
    group.spec.priority_class_name = first.spec.priority_class_name;
    plan.create.push_back(std::move(group));
  }
  return plan;
}

}  // namespace arbiter::controllers
