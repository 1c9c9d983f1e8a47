// The decoder of BatchJobs (decode.h).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/k8s/decode_internal.h"

namespace arbiter::k8s {
namespace decode_internal {

// ---- BatchJob ----------------------------------------------------------------------------------

Status ReadNonNegative(value& v, std::int32_t& out) {
  ARBITER_RETURN_IF_ERROR(ReadInt32(v, out));
  if (out < 0) return Here("must not be negative, got " + std::to_string(out));
  return Status::Ok();
}

Status ReadOptionalNonNegative(value& v, std::optional<std::int64_t>& out) {
  ARBITER_RETURN_IF_ERROR(ReadOptionalInt(v, out));
  if (out.has_value() && *out < 0) {
    return Here("must not be negative, got " + std::to_string(*out));
  }
  return Status::Ok();
}

template <typename T, typename Parser>
Status ReadEnum(value& v, T& out, Parser parse) {
  std::string text;
  ARBITER_RETURN_IF_ERROR(ReadString(v, text));
  StatusOr<T> parsed = parse(text);
  if (!parsed.ok()) return Here(parsed.status().message());
  out = *parsed;
  return Status::Ok();
}

Status ReadLifecyclePolicy(value& v, LifecyclePolicy& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "event") {
      if (IsNull(f)) return Status::Ok();
      return At("event", ReadEnum(f, out.event.emplace(), ParseJobEvent));
    }
    if (key == "action") return At("action", ReadEnum(f, out.action, ParseJobAction));
    if (key == "timeoutSeconds") {
      return At("timeoutSeconds", ReadOptionalNonNegative(f, out.timeout_seconds));
    }
    if (key == "exitCodes") {
      if (IsNull(f)) return Status::Ok();
      ExitCodeRule& rule = out.exit_codes.emplace();
      return At("exitCodes", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "operator") {
                    std::string op;
                    ARBITER_RETURN_IF_ERROR(At("operator", ReadString(g, op)));
                    if (op != "In" && op != "NotIn") {
                      return At("operator",
                                Here("unknown operator \"" + op + "\" (want In or NotIn)"));
                    }
                    rule.in = op == "In";
                    return Status::Ok();
                  }
                  if (k == "values") {
                    return At("values", ReadArray(g, [&](value& item) {
                                return ReadInt32(item, rule.values.emplace_back());
                              }));
                  }
                  return Status::Ok();
                }));
    }
    return Status::Ok();
  });
}

Status ReadPolicies(value& v, std::vector<LifecyclePolicy>& out) {
  return ReadArray(v, [&](value& item) { return ReadLifecyclePolicy(item, out.emplace_back()); });
}

Status ReadBatchTask(value& v, BatchTaskSpec& out) {
  Status status = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "replicas") return At("replicas", ReadNonNegative(f, out.replicas));
    if (key == "minAvailable") {
      if (IsNull(f)) return Status::Ok();
      return At("minAvailable", ReadNonNegative(f, out.min_available.emplace()));
    }
    if (key == "template") {
      if (IsNull(f)) return Status::Ok();
      object obj;
      if (error_code e = f.get_object().get(obj)) {
        return At("template", TypeError(e, f, "an object (a PodTemplateSpec)"));
      }
      std::string_view raw;
      if (error_code e = obj.raw_json().get(raw)) {
        return At("template", Here(std::string("malformed JSON: ") + simdjson::error_message(e)));
      }
      out.template_json = std::string(raw);
      return Status::Ok();
    }
    if (key == "dependsOn") {
      return At("dependsOn", ReadArray(f, [&](value& item) {
                  TaskDependency& dep = out.depends_on.emplace_back();
                  return ReadFields(item, [&](raw_json_string k, value& g) {
                    if (k == "task") return At("task", ReadString(g, dep.task));
                    if (k == "condition") {
                      return At("condition", ReadEnum(g, dep.condition, ParseDependencyCondition));
                    }
                    return Status::Ok();
                  });
                }));
    }
    if (key == "policies") return At("policies", ReadPolicies(f, out.policies));
    if (key == "idempotent") return At("idempotent", ReadBool(f, out.idempotent));
    return Status::Ok();
  });
  ARBITER_RETURN_IF_ERROR(status);
  if (out.name.empty()) return At("name", Here("missing"));
  if (out.MinAvailable() > out.replicas) {
    return At("minAvailable", Here("must be at most replicas (" + std::to_string(out.replicas) +
                                   "), got " + std::to_string(out.MinAvailable())));
  }
  return Status::Ok();
}

Status ReadBatchJobSpec(value& v, BatchJobSpec& out) {
  Status status = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "queue") return At("queue", ReadString(f, out.queue));
    if (key == "topology") return At("topology", ReadTopology(f, out.topology));
    if (key == "locality") return At("locality", ReadLocality(f, out.locality));
    if (key == "priorityClassName") {
      return At("priorityClassName", ReadString(f, out.priority_class_name));
    }
    if (key == "minAvailable") {
      if (IsNull(f)) return Status::Ok();
      return At("minAvailable", ReadNonNegative(f, out.min_available.emplace()));
    }
    if (key == "maxRetry") return At("maxRetry", ReadNonNegative(f, out.max_retry));
    if (key == "ttlSecondsAfterFinished") {
      return At("ttlSecondsAfterFinished",
                ReadOptionalNonNegative(f, out.ttl_seconds_after_finished));
    }
    if (key == "activeDeadlineSeconds") {
      return At("activeDeadlineSeconds", ReadOptionalNonNegative(f, out.active_deadline_seconds));
    }
    if (key == "suspend") return At("suspend", ReadBool(f, out.suspend));
    if (key == "tasks") {
      return At("tasks", ReadArray(f, [&](value& item) {
                  return ReadBatchTask(item, out.tasks.emplace_back());
                }));
    }
    if (key == "policies") return At("policies", ReadPolicies(f, out.policies));
    if (key == "successPolicy") {
      return At("successPolicy", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "operator") {
                    std::string op;
                    ARBITER_RETURN_IF_ERROR(At("operator", ReadString(g, op)));
                    if (op != "All" && op != "Any" && !op.empty()) {
                      return At("operator",
                                Here("unknown operator \"" + op + "\" (want All or Any)"));
                    }
                    out.success_policy.any = op == "Any";
                    return Status::Ok();
                  }
                  if (k == "tasks")
                    return At("tasks", ReadStringArray(g, out.success_policy.tasks));
                  return Status::Ok();
                }));
    }
    return Status::Ok();
  });
  ARBITER_RETURN_IF_ERROR(status);
  // What the controller relies on; the CRD's rules say the same to the user at admission.
  if (out.queue.empty()) out.queue = std::string(kDefaultQueueName);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < out.tasks.size(); ++i) {
    if (!names.insert(out.tasks[i].name).second) {
      return At("tasks",
                AtIndex(i, At("name", Here("duplicate task \"" + out.tasks[i].name + "\""))));
    }
  }
  for (std::size_t i = 0; i < out.tasks.size(); ++i) {
    for (std::size_t d = 0; d < out.tasks[i].depends_on.size(); ++d) {
      const std::string& dep = out.tasks[i].depends_on[d].task;
      if (!names.contains(dep) || dep == out.tasks[i].name) {
        return At("tasks",
                  AtIndex(i, At("dependsOn",
                                AtIndex(d, At("task", Here("no other task \"" + dep + "\""))))));
      }
    }
  }
  for (std::size_t i = 0; i < out.success_policy.tasks.size(); ++i) {
    if (!names.contains(out.success_policy.tasks[i])) {
      return At("successPolicy",
                At("tasks", AtIndex(i, Here("no task \"" + out.success_policy.tasks[i] + "\""))));
    }
  }
  if (out.MinAvailable() > out.Replicas()) {
    return At("minAvailable", Here("must be at most the sum of the tasks' replicas (" +
                                   std::to_string(out.Replicas()) + "), got " +
                                   std::to_string(out.MinAvailable())));
  }
  return Status::Ok();
}

Status ReadTaskCounts(value& v, TaskCounts& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "pending") return At("pending", ReadInt32(f, out.pending));
    if (key == "running") return At("running", ReadInt32(f, out.running));
    if (key == "succeeded") return At("succeeded", ReadInt32(f, out.succeeded));
    if (key == "failed") return At("failed", ReadInt32(f, out.failed));
    if (key == "attempt") return At("attempt", ReadInt32(f, out.attempt));
    if (key == "backups") return At("backups", ReadInt32(f, out.backups));
    return Status::Ok();
  });
}

Status ReadBatchJobStatus(value& v, BatchJobStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "phase") {
      std::string phase;
      ARBITER_RETURN_IF_ERROR(At("phase", ReadString(f, phase)));
      if (phase.empty()) return Status::Ok();
      StatusOr<BatchJobPhase> parsed = ParseBatchJobPhase(phase);
      if (!parsed.ok()) return At("phase", Here(parsed.status().message()));
      out.phase = *parsed;
      return Status::Ok();
    }
    if (key == "conditions") return At("conditions", ReadObservedConditions(f, out.conditions));
    if (key == "observedGeneration") {
      return At("observedGeneration", ReadInt64(f, out.observed_generation));
    }
    if (key == "tasks") {
      return At("tasks", ReadMap(f, [&](std::string_view name, value& item) {
                  return ReadTaskCounts(item, out.tasks[std::string(name)]);
                }));
    }
    if (key == "running") return At("running", ReadInt32(f, out.running));
    if (key == "minAvailable") return At("minAvailable", ReadInt32(f, out.min_available));
    if (key == "retryCount") return At("retryCount", ReadInt32(f, out.retry_count));
    if (key == "preemptionCount") return At("preemptionCount", ReadInt32(f, out.preemption_count));
    if (key == "attempt") return At("attempt", ReadInt32(f, out.attempt));
    if (key == "startTime") return At("startTime", ReadTime(f, out.start_time));
    if (key == "completionTime") return At("completionTime", ReadTime(f, out.completion_time));
    return Status::Ok();
  });
}

Status ReadBody(raw_json_string key, value& f, BatchJob& out) {
  if (key == "spec") return At("spec", ReadBatchJobSpec(f, out.spec));
  if (key == "status") return At("status", ReadBatchJobStatus(f, out.status));
  return Status::Ok();
}

}  // namespace decode_internal

StatusOr<BatchJob> DecodeBatchJob(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<BatchJob>(json_value, true);
}

ARBITER_K8S_INSTANTIATE_DECODERS(BatchJob);

}  // namespace arbiter::k8s
