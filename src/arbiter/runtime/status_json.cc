#include "arbiter/runtime/status_json.h"

#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "arbiter/resource/resource_name.h"

namespace arbiter::runtime {
namespace {

// The CRD's maxLength for a condition's message and reason.
constexpr std::size_t kMaxConditionMessage = 32768;
constexpr std::size_t kMaxConditionReason = 1024;

// Invalid UTF-8 (which no message should hold) is replaced rather than thrown on.
std::string Dump(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ConditionJson(const Condition& c) {
  nlohmann::json out = {{"type", c.type}, {"status", c.status}};
  if (!c.reason.empty()) out["reason"] = TruncateUtf8(c.reason, kMaxConditionReason);
  if (!c.message.empty()) out["message"] = TruncateUtf8(c.message, kMaxConditionMessage);
  if (c.last_transition_time) out["lastTransitionTime"] = FormatRfc3339(*c.last_transition_time);
  return out;
}

nlohmann::json ResourcesJson(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const ResourceEntry& e : list.entries()) {
    out[e.name] = FromCanonical(e.name, e.amount).ToString();
  }
  return out;
}

// Empty members are left out: the object stays small, and what is absent reads as empty.
nlohmann::json ExplanationJson(const PendingExplanation& e) {
  nlohmann::json out = {{"gate", e.gate}, {"reason", e.reason}};
  const auto put = [&](const char* key, const ResourceList& list) {
    if (!list.empty()) out[key] = ResourcesJson(list);
  };
  put("needs", e.needs);
  if (!e.queue.empty()) {
    nlohmann::json queue = {{"name", e.queue}};
    if (!e.queue_allocated.empty()) queue["allocated"] = ResourcesJson(e.queue_allocated);
    if (!e.queue_deserved.empty()) queue["deserved"] = ResourcesJson(e.queue_deserved);
    if (!e.queue_capability.empty()) queue["capability"] = ResourcesJson(e.queue_capability);
    if (!e.queue_room.empty()) queue["room"] = ResourcesJson(e.queue_room);
    out["queue"] = std::move(queue);
  }
  if (!e.pod.empty()) out["pod"] = e.pod;
  if (e.nodes > 0) out["nodes"] = e.nodes;
  if (!e.excluded.empty()) {
    nlohmann::json excluded = nlohmann::json::array();
    for (const NodeExclusion& x : e.excluded) {
      excluded.push_back(
          {{"reason", TruncateUtf8(x.reason, kMaxConditionReason)}, {"nodes", x.nodes}});
    }
    out["excluded"] = std::move(excluded);
  }
  put("shortfall", e.shortfall);
  if (!e.node_classes.empty()) {
    nlohmann::json classes = nlohmann::json::array();
    for (const NodeClassRoom& c : e.node_classes) {
      nlohmann::json item = {{"nodes", c.nodes},
                             {"allocatable", ResourcesJson(c.allocatable)},
                             {"mostFree", ResourcesJson(c.most_free)}};
      if (!c.instance_type.empty()) item["instanceType"] = c.instance_type;
      classes.push_back(std::move(item));
    }
    out["nodeClasses"] = std::move(classes);
  }
  if (e.position > 0) out["position"] = e.position;
  if (!e.ahead.empty()) out["ahead"] = e.ahead;
  if (e.estimate) {
    nlohmann::json estimate = {
        {"asOf", FormatRfc3339(e.estimate->as_of)},
        {"confidence", e.estimate->confidence},
        {"assumptions", TruncateUtf8(e.estimate->assumptions, StartEstimate::kMaxAssumptions)}};
    if (e.estimate->start) estimate["start"] = FormatRfc3339(*e.estimate->start);
    out["estimate"] = std::move(estimate);
  }
  return out;
}

nlohmann::json StatusObject(const PodGroupStatus& status) {
  nlohmann::json conditions = nlohmann::json::array();
  for (const Condition& c : status.conditions) conditions.push_back(ConditionJson(c));
  nlohmann::json out = {
      {"phase", PodGroupPhaseName(status.phase)},
      {"scheduled", status.scheduled},
      {"running", status.running},
      {"succeeded", status.succeeded},
      {"failed", status.failed},
      {"conditions", std::move(conditions)},
  };
  if (status.preemption_count > 0) out["preemptionCount"] = status.preemption_count;
  if (status.explanation.has_value()) out["explanation"] = ExplanationJson(*status.explanation);
  if (const auto& r = status.reservation) {
    nlohmann::json reservation = {{"nodes", r->nodes}, {"since", FormatRfc3339(r->since)}};
    if (r->estimated_start) reservation["estimatedStart"] = FormatRfc3339(*r->estimated_start);
    out["reservation"] = std::move(reservation);
  }
  if (const auto& l = status.locality) {
    out["locality"] = {
        {"nodeLocal", l->node_local}, {"rackLocal", l->rack_local}, {"remote", l->remote}};
  }
  return out;
}

nlohmann::json QueueStatusObject(const QueueStatus& status) {
  return {
      {"deserved", ResourcesJson(status.deserved)},
      {"allocated", ResourcesJson(status.allocated)},
      {"used", ResourcesJson(status.used)},
      {"pending", status.pending},
      {"inqueue", status.inqueue},
      {"running", status.running},
  };
}

}  // namespace

std::string QueueStatusJson(const QueueStatus& status) { return Dump(QueueStatusObject(status)); }

StatusOr<std::string> ReplaceQueueStatus(const std::string& object_json,
                                         const QueueStatus& status) {
  nlohmann::json object = nlohmann::json::parse(object_json, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return InvalidArgumentError("Queue: the API server's answer is not a JSON object");
  }
  // The scheduler owns the keys it writes; arbiter-controller's (quota, conditions) are kept.
  nlohmann::json merged = object.value("status", nlohmann::json::object());
  if (!merged.is_object()) merged = nlohmann::json::object();
  nlohmann::json before = merged;
  const nlohmann::json wanted = QueueStatusObject(status);
  for (auto it = wanted.begin(); it != wanted.end(); ++it) merged[it.key()] = *it;
  if (object.contains("status") && merged == before) return object_json;
  object["status"] = std::move(merged);
  return Dump(object);
}

std::string PodGroupStatusJson(const PodGroupStatus& status) { return Dump(StatusObject(status)); }

namespace {

// Volcano has no Failed phase: a failed group is Completed there.
std::string_view VolcanoPhase(PodGroupPhase phase) {
  return phase == PodGroupPhase::kFailed ? "Completed" : PodGroupPhaseName(phase);
}

std::string_view SchedulerPluginsPhase(const PodGroupStatus& status, std::int32_t min_member) {
  switch (status.phase) {
    case PodGroupPhase::kPending:
      return "Pending";
    case PodGroupPhase::kInqueue:
      return "Scheduling";
    case PodGroupPhase::kRunning:
      return status.running >= min_member ? "Running" : "Scheduled";
    case PodGroupPhase::kCompleted:
      return "Finished";
    case PodGroupPhase::kFailed:
      return "Failed";
  }
  return "Pending";
}

// A metav1.Condition (every field required but observedGeneration), set into `conditions` by
// type as apimachinery's SetStatusCondition does: the transition time changes only with the
// status.
void SetMetaCondition(nlohmann::json& conditions, const std::string& type,
                      const std::string& status, const std::string& reason,
                      const std::string& message, Clock::WallTime when, std::int64_t generation) {
  nlohmann::json wanted = {
      {"type", type},
      {"status", status},
      {"reason", TruncateUtf8(reason, kMaxConditionReason)},
      {"message", TruncateUtf8(message, kMaxConditionMessage)},
      {"lastTransitionTime", FormatRfc3339(when)},
      {"observedGeneration", generation},
  };
  for (nlohmann::json& c : conditions) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    if (c.value("status", "") == status && c.contains("lastTransitionTime")) {
      wanted["lastTransitionTime"] = c["lastTransitionTime"];
    }
    c = std::move(wanted);
    return;
  }
  conditions.push_back(std::move(wanted));
}

nlohmann::json KubernetesStatus(nlohmann::json merged, const PodGroupStatus& status,
                                std::int64_t generation) {
  nlohmann::json conditions = merged.value("conditions", nlohmann::json::array());
  if (!conditions.is_array()) conditions = nlohmann::json::array();
  const auto time_of = [](const Condition& c) {
    return c.last_transition_time.value_or(Clock::WallTime{});
  };
  const Condition* scheduled = FindCondition(status.conditions, "Scheduled");
  const Condition* unschedulable = FindCondition(status.conditions, "Unschedulable");
  bool was_scheduled = false;
  for (const nlohmann::json& c : conditions) {
    was_scheduled = was_scheduled || (c.is_object() && c.value("type", "") == "PodGroupScheduled" &&
                                      c.value("status", "") == "True");
  }
  if (scheduled != nullptr && scheduled->IsTrue()) {
    SetMetaCondition(conditions, "PodGroupScheduled", "True", "Scheduled", scheduled->message,
                     time_of(*scheduled), generation);
  } else if (unschedulable != nullptr && unschedulable->IsTrue() && !was_scheduled) {
    SetMetaCondition(conditions, "PodGroupScheduled", "False", "Unschedulable",
                     unschedulable->reason + ": " + unschedulable->message, time_of(*unschedulable),
                     generation);
  }
  if (const Condition* preempted = FindCondition(status.conditions, "Preempted");
      preempted != nullptr && preempted->IsTrue()) {
    SetMetaCondition(conditions, "DisruptionTarget", "True", "PreemptionByScheduler",
                     preempted->message, time_of(*preempted), generation);
  }
  if (!conditions.empty()) merged["conditions"] = std::move(conditions);
  return merged;
}

}  // namespace

StatusOr<std::string> ReplacePodGroupStatus(const std::string& object_json,
                                            const PodGroupStatus& status, PodGroupDialect dialect,
                                            std::int32_t min_member) {
  nlohmann::json object = nlohmann::json::parse(object_json, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return InvalidArgumentError("PodGroup: the API server's answer is not a JSON object");
  }
  auto current = object.find("status");
  nlohmann::json wanted;
  if (dialect == PodGroupDialect::kArbiter) {
    wanted = StatusObject(status);
  } else {
    // Others' keys are kept; Arbiter's are replaced.
    wanted = current != object.end() && current->is_object() ? *current : nlohmann::json::object();
    if (dialect == PodGroupDialect::kKubernetes) {
      std::int64_t generation = 0;
      if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
        generation = meta->value("generation", std::int64_t{0});
      }
      wanted = KubernetesStatus(std::move(wanted), status, generation);
    } else {
      wanted["phase"] = dialect == PodGroupDialect::kVolcano
                            ? VolcanoPhase(status.phase)
                            : SchedulerPluginsPhase(status, min_member);
      wanted["running"] = status.running;
      wanted["succeeded"] = status.succeeded;
      wanted["failed"] = status.failed;
      if (dialect == PodGroupDialect::kVolcano) {
        nlohmann::json conditions = nlohmann::json::array();
        for (const Condition& c : status.conditions) conditions.push_back(ConditionJson(c));
        wanted["conditions"] = std::move(conditions);
      }
    }
  }
  if (current != object.end() && *current == wanted) return object_json;
  if (current == object.end() && wanted.empty()) return object_json;  // nothing to say yet
  object["status"] = std::move(wanted);
  return Dump(object);
}

bool HasUnschedulableCondition(const std::vector<Condition>& observed, std::string_view message) {
  const Condition* c = FindCondition(observed, kPodScheduledCondition);
  return c != nullptr && c->status == "False" && c->reason == kUnschedulableReason &&
         c->message == TruncateUtf8(message, kMaxConditionMessage);
}

bool HasUnschedulableCondition(const std::vector<Condition>& observed) {
  const Condition* c = FindCondition(observed, kPodScheduledCondition);
  return c != nullptr && c->status == "False" && c->reason == kUnschedulableReason;
}

std::string UnschedulablePatch(std::string_view uid, std::string_view message,
                               const std::vector<Condition>& observed, Clock::WallTime now) {
  Clock::WallTime transition = now;
  const Condition* c = FindCondition(observed, kPodScheduledCondition);
  if (c != nullptr && c->status == "False" && c->last_transition_time) {
    transition = *c->last_transition_time;
  }
  nlohmann::json condition = {
      {"type", kPodScheduledCondition},
      {"status", "False"},
      {"reason", kUnschedulableReason},
      {"message", TruncateUtf8(message, kMaxConditionMessage)},
      {"lastTransitionTime", FormatRfc3339(transition)},
      {"lastProbeTime", nullptr},
  };
  nlohmann::json patch = {
      {"metadata", {{"uid", uid}}},
      {"status", {{"conditions", nlohmann::json::array({std::move(condition)})}}},
  };
  return Dump(patch);
}

std::string DisruptionTargetPatch(std::string_view uid, std::string_view reason,
                                  std::string_view message, Clock::WallTime now) {
  nlohmann::json condition = {
      {"type", kDisruptionTargetCondition},
      {"status", "True"},
      {"reason", reason},
      {"message", TruncateUtf8(message, kMaxConditionMessage)},
      {"lastTransitionTime", FormatRfc3339(now)},
  };
  nlohmann::json preempted = condition;
  preempted["type"] = kPreemptedCondition;
  nlohmann::json patch = {
      {"metadata", {{"uid", uid}}},
      {"status",
       {{"conditions", nlohmann::json::array({std::move(condition), std::move(preempted)})}}},
  };
  return Dump(patch);
}

std::string NominationPatch(std::string_view uid, std::string_view node) {
  nlohmann::json patch = {
      {"metadata", {{"uid", uid}}},
      {"status",
       {{"nominatedNodeName", node.empty() ? nlohmann::json(nullptr) : nlohmann::json(node)}}},
  };
  return Dump(patch);
}

std::string TruncateUtf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the sequence that was cut.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

}  // namespace arbiter::runtime
