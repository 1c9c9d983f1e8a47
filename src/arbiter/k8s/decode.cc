#include "arbiter/k8s/decode.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "arbiter/resource/checked_math.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::k8s {
namespace {

using simdjson::error_code;
using simdjson::ondemand::array;
using simdjson::ondemand::field;
using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::raw_json_string;
using simdjson::ondemand::value;

// ---- Errors with a JSON path -------------------------------------------------------------------
//
// While an error travels up, its message is "<relative path>: <what>"; an error about the value
// itself (no path yet) is ": <what>". At() prefixes one step: a field name (joined with '.') or
// an index "[3]" (joined as is). The top level prepends the object's kind and name.

Status Here(std::string_view what) { return InvalidArgumentError(": " + std::string(what)); }

Status At(std::string_view step, Status status) {
  if (status.ok()) return status;
  const std::string& inner = status.message();
  std::string message(step);
  if (!inner.starts_with(':') && !inner.starts_with('[')) message += '.';
  message += inner;
  return {status.code(), std::move(message)};
}

Status AtIndex(std::size_t index, Status status) {
  if (status.ok()) return status;
  return At("[" + std::to_string(index) + "]", std::move(status));
}

std::string_view TypeName(value& v) {
  json_type type{};
  if (v.type().get(type) != simdjson::SUCCESS) return "invalid JSON";
  switch (type) {
    case json_type::array:
      return "array";
    case json_type::object:
      return "object";
    case json_type::number:
      return "number";
    case json_type::string:
      return "string";
    case json_type::boolean:
      return "boolean";
    case json_type::null:
      return "null";
  }
  return "unknown";
}

// The error for a failed get_<type>() on `v`: a type mismatch names both types; anything else
// (malformed JSON) is simdjson's own message.
Status TypeError(error_code error, value& v, std::string_view want) {
  if (error == simdjson::INCORRECT_TYPE) {
    return Here("expected " + std::string(want) + ", got " + std::string(TypeName(v)));
  }
  if (error == simdjson::NUMBER_OUT_OF_RANGE || error == simdjson::NUMBER_ERROR) {
    return Here("expected " + std::string(want) + ": number out of range");
  }
  return Here(std::string("malformed JSON: ") + simdjson::error_message(error));
}

// True when `v` is JSON null (which every reader takes as "absent").
bool IsNull(value& v) {
  bool null = false;
  return v.is_null().get(null) == simdjson::SUCCESS && null;
}

// ---- Scalars -----------------------------------------------------------------------------------

Status ReadString(value& v, std::string& out) {
  std::string_view s;
  if (error_code e = v.get_string().get(s)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "a string");
  }
  out.assign(s);
  return Status::Ok();
}

Status ReadOptionalString(value& v, std::optional<std::string>& out) {
  if (IsNull(v)) return Status::Ok();
  std::string s;
  ARBITER_RETURN_IF_ERROR(ReadString(v, s));
  out = std::move(s);
  return Status::Ok();
}

Status ReadBool(value& v, bool& out) {
  bool b = false;
  if (error_code e = v.get_bool().get(b)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "a boolean");
  }
  out = b;
  return Status::Ok();
}

Status ReadInt64(value& v, std::int64_t& out) {
  std::int64_t n = 0;
  if (error_code e = v.get_int64().get(n)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an integer");
  }
  out = n;
  return Status::Ok();
}

Status ReadInt32(value& v, std::int32_t& out) {
  std::int64_t n = out;
  ARBITER_RETURN_IF_ERROR(ReadInt64(v, n));
  if (n < std::numeric_limits<std::int32_t>::min() ||
      n > std::numeric_limits<std::int32_t>::max()) {
    return Here("integer " + std::to_string(n) + " out of int32 range");
  }
  out = static_cast<std::int32_t>(n);
  return Status::Ok();
}

template <typename Int>
Status ReadOptionalInt(value& v, std::optional<Int>& out) {
  if (IsNull(v)) return Status::Ok();
  Int n = 0;
  if constexpr (sizeof(Int) == sizeof(std::int32_t)) {
    ARBITER_RETURN_IF_ERROR(ReadInt32(v, n));
  } else {
    ARBITER_RETURN_IF_ERROR(ReadInt64(v, n));
  }
  out = n;
  return Status::Ok();
}

Status ReadTime(value& v, std::optional<Clock::WallTime>& out) {
  std::string_view s;
  if (error_code e = v.get_string().get(s)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an RFC 3339 time string");
  }
  StatusOr<Clock::WallTime> time = ParseRfc3339(s);
  if (!time.ok()) return Here(time.status().message());
  out = *time;
  return Status::Ok();
}

Status ReadTime(value& v, Clock::WallTime& out) {
  std::optional<Clock::WallTime> time;
  ARBITER_RETURN_IF_ERROR(ReadTime(v, time));
  if (time.has_value()) out = *time;
  return Status::Ok();
}

std::string_view TrimAsciiSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// A quantity as apimachinery's Quantity.UnmarshalJSON reads it: a string or a bare number, with
// surrounding white space ignored; null is zero.
Status ReadQuantity(value& v, Quantity& out) {
  std::string_view text;
  error_code e = v.get_string().get(text);
  if (e == simdjson::INCORRECT_TYPE) {
    json_type type{};
    if (v.type().get(type) == simdjson::SUCCESS && type == json_type::null) {
      out = Quantity();
      return Status::Ok();
    }
    if (v.type().get(type) == simdjson::SUCCESS && type == json_type::number) {
      text = v.raw_json_token();
      e = simdjson::SUCCESS;
    }
  }
  if (e != simdjson::SUCCESS) return TypeError(e, v, "a quantity (string or number)");
  StatusOr<Quantity> q = Quantity::Parse(TrimAsciiSpace(text));
  if (!q.ok()) return Here(q.status().message());
  out = *std::move(q);
  return Status::Ok();
}

// ---- Containers --------------------------------------------------------------------------------

// Calls each(element) for every element of an array, with "[i]" added to errors. null is empty.
template <typename Fn>
Status ReadArray(value& v, Fn&& each) {
  array arr;
  if (error_code e = v.get_array().get(arr)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an array");
  }
  std::size_t index = 0;
  for (auto element : arr) {
    value item;
    if (error_code e = element.get(item)) {
      return AtIndex(index, Here(std::string("malformed JSON: ") + simdjson::error_message(e)));
    }
    ARBITER_RETURN_IF_ERROR(AtIndex(index, each(item)));
    ++index;
  }
  return Status::Ok();
}

// Calls each(raw key, value) for every field of a struct-like object, in document order. The
// callback wraps its own errors with the field name (it knows it as a literal). null is empty.
template <typename Fn>
Status ReadFields(value& v, Fn&& each) {
  object obj;
  if (error_code e = v.get_object().get(obj)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an object");
  }
  for (auto member : obj) {
    field f;
    if (error_code e = std::move(member).get(f)) {
      return Here(std::string("malformed JSON: ") + simdjson::error_message(e));
    }
    ARBITER_RETURN_IF_ERROR(each(f.key(), f.value()));
  }
  return Status::Ok();
}

// Calls each(unescaped key, value) for every entry of a map-like object; errors get the key.
template <typename Fn>
Status ReadMap(value& v, Fn&& each) {
  object obj;
  if (error_code e = v.get_object().get(obj)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an object");
  }
  for (auto member : obj) {
    field f;
    std::string_view key;
    error_code e = std::move(member).get(f);
    if (e == simdjson::SUCCESS) e = f.unescaped_key().get(key);
    if (e != simdjson::SUCCESS) {
      return Here(std::string("malformed JSON: ") + simdjson::error_message(e));
    }
    ARBITER_RETURN_IF_ERROR(At(key, each(key, f.value())));
  }
  return Status::Ok();
}

Status ReadStringMap(value& v, Labels& out) {
  return ReadMap(v, [&](std::string_view key, value& item) {
    std::string s;
    ARBITER_RETURN_IF_ERROR(ReadString(item, s));
    // The API server writes map keys sorted, so the end is the right hint.
    out.insert_or_assign(out.end(), std::string(key), std::move(s));
    return Status::Ok();
  });
}

Status ReadStringArray(value& v, std::vector<std::string>& out) {
  return ReadArray(v, [&](value& item) {
    ARBITER_RETURN_IF_ERROR(ReadString(item, out.emplace_back()));
    return Status::Ok();
  });
}

// A ResourceList or a ResourceQuota's hard/used, in canonical units (UnitOf: "requests.cpu" counts
// millicores as "cpu" does).
Status ReadResourceList(value& v, ResourceList& out) {
  return ReadMap(v, [&](std::string_view name, value& item) {
    Quantity q;
    ARBITER_RETURN_IF_ERROR(ReadQuantity(item, q));
    if (q.Sign() < 0) return Here("negative quantity " + q.ToString());
    StatusOr<std::int64_t> amount = ToCanonical(name, q);
    if (!amount.ok()) return Here(amount.status().message());
    out.Set(name, *amount);
    return Status::Ok();
  });
}

// ---- Shared structures -------------------------------------------------------------------------

Status ReadOwnerReference(value& v, OwnerReference& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "apiVersion") return At("apiVersion", ReadString(f, out.api_version));
    if (key == "kind") return At("kind", ReadString(f, out.kind));
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    if (key == "controller") return At("controller", ReadBool(f, out.controller));
    return Status::Ok();
  });
}

Status ReadMeta(value& v, ObjectMeta& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "namespace") return At("namespace", ReadString(f, out.namespace_name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    if (key == "resourceVersion") return At("resourceVersion", ReadString(f, out.resource_version));
    if (key == "generation") return At("generation", ReadInt64(f, out.generation));
    if (key == "labels") return At("labels", ReadStringMap(f, out.labels));
    if (key == "annotations") return At("annotations", ReadStringMap(f, out.annotations));
    if (key == "creationTimestamp") {
      return At("creationTimestamp", ReadTime(f, out.creation_timestamp));
    }
    if (key == "deletionTimestamp") {
      return At("deletionTimestamp", ReadTime(f, out.deletion_timestamp));
    }
    if (key == "ownerReferences") {
      return At("ownerReferences", ReadArray(f, [&](value& item) {
                  return ReadOwnerReference(item, out.owner_references.emplace_back());
                }));
    }
    if (key == "finalizers") {
      return At("finalizers", ReadArray(f, [&](value& item) {
                  return ReadString(item, out.finalizers.emplace_back());
                }));
    }
    return Status::Ok();
  });
}

Status ReadConditionField(raw_json_string key, value& f, Condition& out) {
  if (key == "type") return At("type", ReadString(f, out.type));
  if (key == "status") return At("status", ReadString(f, out.status));
  if (key == "reason") return At("reason", ReadString(f, out.reason));
  if (key == "message") return At("message", ReadString(f, out.message));
  if (key == "lastTransitionTime") {
    return At("lastTransitionTime", ReadTime(f, out.last_transition_time));
  }
  return Status::Ok();
}

Status ReadCondition(value& v, Condition& out) {
  return ReadFields(v,
                    [&](raw_json_string key, value& f) { return ReadConditionField(key, f, out); });
}

Status ReadConditions(value& v, std::vector<Condition>& out) {
  return ReadArray(v, [&](value& item) { return ReadCondition(item, out.emplace_back()); });
}

// ---- Pod ---------------------------------------------------------------------------------------

Status ReadToleration(value& v, Toleration& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "key") return At("key", ReadString(f, out.key));
    if (key == "operator") {
      std::string op;
      ARBITER_RETURN_IF_ERROR(At("operator", ReadString(f, op)));
      if (op == "Exists") {
        out.op = TolerationOperator::kExists;
      } else if (op == "Equal" || op.empty()) {
        out.op = TolerationOperator::kEqual;
      } else {
        return At("operator", Here("unknown operator \"" + op + "\" (want Equal or Exists)"));
      }
      return Status::Ok();
    }
    if (key == "value") return At("value", ReadString(f, out.value));
    if (key == "effect") return At("effect", ReadString(f, out.effect));
    if (key == "tolerationSeconds") {
      return At("tolerationSeconds", ReadOptionalInt(f, out.toleration_seconds));
    }
    return Status::Ok();
  });
}

Status ReadNodeSelectorRequirement(value& v, NodeSelectorRequirement& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "key") return At("key", ReadString(f, out.key));
    if (key == "operator") {
      std::string op;
      ARBITER_RETURN_IF_ERROR(At("operator", ReadString(f, op)));
      StatusOr<NodeSelectorOperator> parsed = ParseNodeSelectorOperator(op);
      if (!parsed.ok()) return At("operator", Here(parsed.status().message()));
      out.op = *parsed;
      return Status::Ok();
    }
    if (key == "values") return At("values", ReadStringArray(f, out.values));
    return Status::Ok();
  });
}

Status ReadNodeSelectorTerm(value& v, NodeSelectorTerm& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "matchExpressions") {
      return At("matchExpressions", ReadArray(f, [&](value& item) {
                  return ReadNodeSelectorRequirement(item, out.match_expressions.emplace_back());
                }));
    }
    if (key == "matchFields") {
      return At("matchFields", ReadArray(f, [&](value& item) {
                  return ReadNodeSelectorRequirement(item, out.match_fields.emplace_back());
                }));
    }
    return Status::Ok();
  });
}

Status ReadAffinity(value& v, std::optional<NodeSelector>& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (!(key == "nodeAffinity")) return Status::Ok();
    return At("nodeAffinity", ReadFields(f, [&](raw_json_string k, value& g) {
                if (!(k == "requiredDuringSchedulingIgnoredDuringExecution")) return Status::Ok();
                if (IsNull(g)) return Status::Ok();
                out.emplace();
                return At("requiredDuringSchedulingIgnoredDuringExecution",
                          ReadFields(g, [&](raw_json_string t, value& h) {
                            if (!(t == "nodeSelectorTerms")) return Status::Ok();
                            return At("nodeSelectorTerms", ReadArray(h, [&](value& item) {
                                        return ReadNodeSelectorTerm(item,
                                                                    out->terms.emplace_back());
                                      }));
                          }));
              }));
  });
}

Status ReadContainerPort(value& v, Container& out) {
  HostPort port;
  Status status = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "hostPort") return At("hostPort", ReadInt32(f, port.port));
    if (key == "protocol") return At("protocol", ReadString(f, port.protocol));
    if (key == "hostIP") return At("hostIP", ReadString(f, port.host_ip));
    return Status::Ok();
  });
  ARBITER_RETURN_IF_ERROR(status);
  if (port.port < 0 || port.port > 65535) {
    return At("hostPort", Here("port " + std::to_string(port.port) + " out of range"));
  }
  if (port.port > 0) out.host_ports.push_back(std::move(port));
  return Status::Ok();
}

Status ReadContainer(value& v, Container& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "restartPolicy") return At("restartPolicy", ReadString(f, out.restart_policy));
    if (key == "resources") {
      return At("resources", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "requests") return At("requests", ReadResourceList(g, out.requests));
                  return Status::Ok();
                }));
    }
    if (key == "ports") {
      return At("ports", ReadArray(f, [&](value& item) { return ReadContainerPort(item, out); }));
    }
    return Status::Ok();
  });
}

Status ReadContainers(value& v, std::vector<Container>& out) {
  return ReadArray(v, [&](value& item) { return ReadContainer(item, out.emplace_back()); });
}

Status ReadPodSpec(value& v, PodSpec& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "containers") return At("containers", ReadContainers(f, out.containers));
    if (key == "initContainers") {
      return At("initContainers", ReadContainers(f, out.init_containers));
    }
    if (key == "schedulerName") return At("schedulerName", ReadString(f, out.scheduler_name));
    if (key == "nodeName") return At("nodeName", ReadString(f, out.node_name));
    if (key == "schedulingGroup") {
      if (IsNull(f)) return Status::Ok();
      return At("schedulingGroup", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "podGroupName") {
                    return At("podGroupName", ReadString(g, out.scheduling_group));
                  }
                  return Status::Ok();
                }));
    }
    if (key == "priority") return At("priority", ReadOptionalInt(f, out.priority));
    if (key == "priorityClassName") {
      return At("priorityClassName", ReadString(f, out.priority_class_name));
    }
    if (key == "nodeSelector") return At("nodeSelector", ReadStringMap(f, out.node_selector));
    if (key == "tolerations") {
      return At("tolerations", ReadArray(f, [&](value& item) {
                  return ReadToleration(item, out.tolerations.emplace_back());
                }));
    }
    if (key == "affinity") return At("affinity", ReadAffinity(f, out.required_node_affinity));
    if (key == "overhead") return At("overhead", ReadResourceList(f, out.overhead));
    if (key == "preemptionPolicy") {
      return At("preemptionPolicy", ReadString(f, out.preemption_policy));
    }
    if (key == "terminationGracePeriodSeconds") {
      return At("terminationGracePeriodSeconds",
                ReadOptionalInt(f, out.termination_grace_period_seconds));
    }
    if (key == "activeDeadlineSeconds") {
      return At("activeDeadlineSeconds", ReadOptionalInt(f, out.active_deadline_seconds));
    }
    return Status::Ok();
  });
}

// containerStatuses[i]: keeps state.terminated.exitCode when no non-zero code was kept before.
Status ReadContainerExitCode(value& v, std::optional<std::int32_t>& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (!(key == "state")) return Status::Ok();
    return At("state", ReadFields(f, [&](raw_json_string k, value& g) {
                if (!(k == "terminated")) return Status::Ok();
                return At("terminated", ReadFields(g, [&](raw_json_string t, value& h) {
                            if (!(t == "exitCode")) return Status::Ok();
                            std::optional<std::int32_t> code;
                            ARBITER_RETURN_IF_ERROR(At("exitCode", ReadOptionalInt(h, code)));
                            if (code.has_value() && (!out.has_value() || *out == 0)) out = code;
                            return Status::Ok();
                          }));
              }));
  });
}

Status ReadPodStatus(value& v, PodStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "phase") {
      std::string phase;
      ARBITER_RETURN_IF_ERROR(At("phase", ReadString(f, phase)));
      out.phase = ParsePodPhase(phase);
      return Status::Ok();
    }
    if (key == "conditions") return At("conditions", ReadConditions(f, out.conditions));
    if (key == "startTime") return At("startTime", ReadTime(f, out.start_time));
    if (key == "nominatedNodeName") {
      return At("nominatedNodeName", ReadString(f, out.nominated_node_name));
    }
    if (key == "reason") return At("reason", ReadString(f, out.reason));
    if (key == "containerStatuses") {
      return At("containerStatuses", ReadArray(f, [&](value& item) {
                  return ReadContainerExitCode(item, out.exit_code);
                }));
    }
    return Status::Ok();
  });
}

// ---- Per-kind bodies: every top-level field but metadata ---------------------------------------

std::string_view KindName(const Pod& /*unused*/) { return "pod"; }
std::string_view KindName(const Node& /*unused*/) { return "node"; }
std::string_view KindName(const Namespace& /*unused*/) { return "namespace"; }
std::string_view KindName(const PriorityClass& /*unused*/) { return "priorityclass"; }
std::string_view KindName(const Lease& /*unused*/) { return "lease"; }
std::string_view KindName(const Event& /*unused*/) { return "event"; }
std::string_view KindName(const ResourceQuota& /*unused*/) { return "resourcequota"; }
std::string_view KindName(const PodGroup& /*unused*/) { return "podgroup"; }
std::string_view KindName(const KubernetesPodGroup& /*unused*/) {
  return "podgroup.scheduling.k8s.io";
}
std::string_view KindName(const VolcanoPodGroup& /*unused*/) {
  return "podgroup.scheduling.volcano.sh";
}
std::string_view KindName(const SchedulerPluginsPodGroup& /*unused*/) {
  return "podgroup.scheduling.x-k8s.io";
}
std::string_view KindName(const Queue& /*unused*/) { return "queue"; }
std::string_view KindName(const PodDisruptionBudget& /*unused*/) { return "poddisruptionbudget"; }
std::string_view KindName(const BatchJob& /*unused*/) { return "batchjob"; }

Status ReadBody(raw_json_string key, value& f, Pod& out) {
  if (key == "spec") return At("spec", ReadPodSpec(f, out.spec));
  if (key == "status") return At("status", ReadPodStatus(f, out.status));
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, Node& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "unschedulable")
                  return At("unschedulable", ReadBool(g, out.unschedulable));
                if (k == "taints") {
                  return At("taints", ReadArray(g, [&](value& item) {
                              Taint& taint = out.taints.emplace_back();
                              return ReadFields(item, [&](raw_json_string t, value& h) {
                                if (t == "key") return At("key", ReadString(h, taint.key));
                                if (t == "value") return At("value", ReadString(h, taint.value));
                                if (t == "effect") return At("effect", ReadString(h, taint.effect));
                                return Status::Ok();
                              });
                            }));
                }
                return Status::Ok();
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "capacity") return At("capacity", ReadResourceList(g, out.capacity));
                if (k == "allocatable") {
                  return At("allocatable", ReadResourceList(g, out.allocatable));
                }
                if (k == "conditions") return At("conditions", ReadConditions(g, out.conditions));
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, Namespace& out) {
  if (!(key == "status")) return Status::Ok();
  return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
              if (k == "phase") return At("phase", ReadString(g, out.phase));
              return Status::Ok();
            }));
}

Status ReadBody(raw_json_string key, value& f, PriorityClass& out) {
  if (key == "value") return At("value", ReadInt32(f, out.value));
  if (key == "globalDefault") return At("globalDefault", ReadBool(f, out.global_default));
  if (key == "preemptionPolicy") {
    return At("preemptionPolicy", ReadString(f, out.preemption_policy));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, Lease& out) {
  if (!(key == "spec")) return Status::Ok();
  return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
              if (k == "holderIdentity") {
                return At("holderIdentity", ReadOptionalString(g, out.holder_identity));
              }
              if (k == "leaseDurationSeconds") {
                return At("leaseDurationSeconds", ReadOptionalInt(g, out.lease_duration_seconds));
              }
              if (k == "acquireTime") return At("acquireTime", ReadTime(g, out.acquire_time));
              if (k == "renewTime") return At("renewTime", ReadTime(g, out.renew_time));
              if (k == "leaseTransitions") {
                return At("leaseTransitions", ReadOptionalInt(g, out.lease_transitions));
              }
              return Status::Ok();
            }));
}

Status ReadObjectReference(value& v, ObjectReference& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "apiVersion") return At("apiVersion", ReadString(f, out.api_version));
    if (key == "kind") return At("kind", ReadString(f, out.kind));
    if (key == "namespace") return At("namespace", ReadString(f, out.namespace_name));
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    return Status::Ok();
  });
}

Status ReadBody(raw_json_string key, value& f, Event& out) {
  if (key == "eventTime") return At("eventTime", ReadTime(f, out.event_time));
  if (key == "reportingController") {
    return At("reportingController", ReadString(f, out.reporting_controller));
  }
  if (key == "reportingInstance") {
    return At("reportingInstance", ReadString(f, out.reporting_instance));
  }
  if (key == "action") return At("action", ReadString(f, out.action));
  if (key == "reason") return At("reason", ReadString(f, out.reason));
  if (key == "note") return At("note", ReadString(f, out.note));
  if (key == "type") return At("type", ReadString(f, out.type));
  if (key == "regarding") return At("regarding", ReadObjectReference(f, out.regarding));
  if (key == "related") {
    if (IsNull(f)) return Status::Ok();
    return At("related", ReadObjectReference(f, out.related.emplace()));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, ResourceQuota& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "hard") return At("hard", ReadResourceList(g, out.spec_hard));
                return Status::Ok();
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "hard") return At("hard", ReadResourceList(g, out.status_hard));
                if (k == "used") return At("used", ReadResourceList(g, out.status_used));
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

// minMember: at least 1 in Arbiter's schema; Volcano's and scheduler-plugins' allow 0
// (`zero_is_one`), which asks for no gang, as 1 does.
Status ReadMinMember(value& f, std::int32_t& out, bool zero_is_one) {
  ARBITER_RETURN_IF_ERROR(At("minMember", ReadInt32(f, out)));
  if (zero_is_one && out >= 0) {
    out = std::max(out, 1);
  } else if (zero_is_one) {
    return At("minMember", Here("must not be negative, got " + std::to_string(out)));
  } else if (out < 1) {
    return At("minMember", Here("must be at least 1, got " + std::to_string(out)));
  }
  return Status::Ok();
}

Status ReadPodGroupSpec(value& v, PodGroupSpec& out, bool zero_is_one = false) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "minMember") return ReadMinMember(f, out.min_member, zero_is_one);
    if (key == "queue") {
      ARBITER_RETURN_IF_ERROR(At("queue", ReadString(f, out.queue)));
      if (out.queue.empty()) out.queue = kDefaultQueueName;
      return Status::Ok();
    }
    if (key == "priorityClassName") {
      return At("priorityClassName", ReadString(f, out.priority_class_name));
    }
    if (key == "minResources") return At("minResources", ReadResourceList(f, out.min_resources));
    if (key == "minTaskMember") {
      return At("minTaskMember", ReadMap(f, [&](std::string_view task, value& item) {
                  std::int32_t n = 0;
                  ARBITER_RETURN_IF_ERROR(ReadInt32(item, n));
                  if (n < 0) return Here("must not be negative, got " + std::to_string(n));
                  out.min_task_member.insert_or_assign(std::string(task), n);
                  return Status::Ok();
                }));
    }
    return Status::Ok();
  });
}

Status ReadPendingExplanation(value& v, PendingExplanation& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "gate") return At("gate", ReadString(f, out.gate));
    if (key == "reason") return At("reason", ReadString(f, out.reason));
    if (key == "needs") return At("needs", ReadResourceList(f, out.needs));
    if (key == "queue") {
      return At("queue", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "name") return At("name", ReadString(g, out.queue));
                  if (k == "allocated")
                    return At("allocated", ReadResourceList(g, out.queue_allocated));
                  if (k == "deserved")
                    return At("deserved", ReadResourceList(g, out.queue_deserved));
                  if (k == "capability") {
                    return At("capability", ReadResourceList(g, out.queue_capability));
                  }
                  if (k == "room") return At("room", ReadResourceList(g, out.queue_room));
                  return Status::Ok();
                }));
    }
    if (key == "pod") return At("pod", ReadString(f, out.pod));
    if (key == "nodes") return At("nodes", ReadInt32(f, out.nodes));
    if (key == "excluded") {
      return At("excluded", ReadArray(f, [&](value& item) {
                  NodeExclusion& x = out.excluded.emplace_back();
                  return ReadFields(item, [&](raw_json_string k, value& g) {
                    if (k == "reason") return At("reason", ReadString(g, x.reason));
                    if (k == "nodes") return At("nodes", ReadInt32(g, x.nodes));
                    return Status::Ok();
                  });
                }));
    }
    if (key == "shortfall") return At("shortfall", ReadResourceList(f, out.shortfall));
    if (key == "nodeClasses") {
      return At("nodeClasses", ReadArray(f, [&](value& item) {
                  NodeClassRoom& c = out.node_classes.emplace_back();
                  return ReadFields(item, [&](raw_json_string k, value& g) {
                    if (k == "instanceType")
                      return At("instanceType", ReadString(g, c.instance_type));
                    if (k == "nodes") return At("nodes", ReadInt32(g, c.nodes));
                    if (k == "allocatable") {
                      return At("allocatable", ReadResourceList(g, c.allocatable));
                    }
                    if (k == "mostFree") return At("mostFree", ReadResourceList(g, c.most_free));
                    return Status::Ok();
                  });
                }));
    }
    if (key == "position") return At("position", ReadInt32(f, out.position));
    if (key == "ahead") return At("ahead", ReadStringArray(f, out.ahead));
    if (key == "estimate") {
      StartEstimate& e = out.estimate.emplace();
      return At("estimate", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k == "start") return At("start", ReadTime(g, e.start));
                  if (k == "asOf") {
                    std::optional<Clock::WallTime> as_of;
                    ARBITER_RETURN_IF_ERROR(At("asOf", ReadTime(g, as_of)));
                    e.as_of = as_of.value_or(Clock::WallTime{});
                    return Status::Ok();
                  }
                  if (k == "confidence") return At("confidence", ReadString(g, e.confidence));
                  if (k == "assumptions") return At("assumptions", ReadString(g, e.assumptions));
                  return Status::Ok();
                }));
    }
    return Status::Ok();
  });
}

Status ReadArbiterPhase(value& f, PodGroupPhase& out) {
  std::string phase;
  ARBITER_RETURN_IF_ERROR(ReadString(f, phase));
  if (phase.empty()) return Status::Ok();
  StatusOr<PodGroupPhase> parsed = ParsePodGroupPhase(phase);
  if (!parsed.ok()) return Here(parsed.status().message());
  out = *parsed;
  return Status::Ok();
}

// The status of Arbiter's PodGroup, and of Volcano's and scheduler-plugins' (the same fields, or
// fewer), each with its own phases.
using PhaseReader = Status (*)(value&, PodGroupPhase&);
Status ReadPodGroupStatus(value& v, PodGroupStatus& out,
                          PhaseReader read_phase = ReadArbiterPhase) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "phase") return At("phase", read_phase(f, out.phase));
    if (key == "scheduled") return At("scheduled", ReadInt32(f, out.scheduled));
    if (key == "running") return At("running", ReadInt32(f, out.running));
    if (key == "succeeded") return At("succeeded", ReadInt32(f, out.succeeded));
    if (key == "failed") return At("failed", ReadInt32(f, out.failed));
    if (key == "preemptionCount") {
      return At("preemptionCount", ReadInt32(f, out.preemption_count));
    }
    if (key == "conditions") return At("conditions", ReadConditions(f, out.conditions));
    if (key == "explanation") {
      if (IsNull(f)) return Status::Ok();
      return At("explanation", ReadPendingExplanation(f, out.explanation.emplace()));
    }
    return Status::Ok();
  });
}

Status ReadBody(raw_json_string key, value& f, PodGroup& out) {
  if (key == "spec") return At("spec", ReadPodGroupSpec(f, out.spec));
  if (key == "status") return At("status", ReadPodGroupStatus(f, out.status));
  return Status::Ok();
}

// ---- PodGroups of other APIs (model/pod_group.h PodGroupDialect) ------------------------------

// Volcano's phases: Pending, Inqueue, Running, Unknown (some pods run, fewer than minMember:
// admitted, below its minimum, which Arbiter calls Inqueue) and Completed.
Status ReadVolcanoPhase(value& f, PodGroupPhase& out) {
  std::string phase;
  ARBITER_RETURN_IF_ERROR(ReadString(f, phase));
  if (phase.empty() || phase == "Pending") {
    out = PodGroupPhase::kPending;
  } else if (phase == "Inqueue" || phase == "Unknown") {
    out = PodGroupPhase::kInqueue;
  } else if (phase == "Running") {
    out = PodGroupPhase::kRunning;
  } else if (phase == "Completed") {
    out = PodGroupPhase::kCompleted;
  } else {
    return Here("unknown phase \"" + phase +
                "\" (want Pending, Inqueue, Running, Unknown or Completed)");
  }
  return Status::Ok();
}

// scheduler-plugins' phases: Pending, PreScheduling and Scheduling (admitted, being placed),
// Scheduled and Running (minMember placed), Finished, Failed.
Status ReadSchedulerPluginsPhase(value& f, PodGroupPhase& out) {
  std::string phase;
  ARBITER_RETURN_IF_ERROR(ReadString(f, phase));
  if (phase.empty() || phase == "Pending") {
    out = PodGroupPhase::kPending;
  } else if (phase == "PreScheduling" || phase == "Scheduling") {
    out = PodGroupPhase::kInqueue;
  } else if (phase == "Scheduled" || phase == "Running") {
    out = PodGroupPhase::kRunning;
  } else if (phase == "Finished") {
    out = PodGroupPhase::kCompleted;
  } else if (phase == "Failed") {
    out = PodGroupPhase::kFailed;
  } else {
    return Here("unknown phase \"" + phase +
                "\" (want Pending, PreScheduling, Scheduling, Scheduled, Running, Finished or "
                "Failed)");
  }
  return Status::Ok();
}

template <PodGroupDialect D>
std::string_view KindName(const DialectPodGroupMeta<D>& /*unused*/) {
  return KindName(DialectPodGroup<D>());
}
template <PodGroupDialect D>
Status ReadBody(raw_json_string /*key*/, value& /*f*/, DialectPodGroupMeta<D>& /*out*/) {
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, VolcanoPodGroup& out) {
  if (key == "spec") return At("spec", ReadPodGroupSpec(f, out.spec, /*zero_is_one=*/true));
  if (key == "status") return At("status", ReadPodGroupStatus(f, out.status, ReadVolcanoPhase));
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, SchedulerPluginsPodGroup& out) {
  if (key == "spec") {
    return At(
        "spec", ReadFields(f, [&](raw_json_string k, value& g) {
          if (k == "minMember") return ReadMinMember(g, out.spec.min_member, true);
          if (k == "minResources") {
            return At("minResources", ReadResourceList(g, out.spec.min_resources));
          }
          if (k == "scheduleTimeoutSeconds") {
            ARBITER_RETURN_IF_ERROR(At("scheduleTimeoutSeconds",
                                       ReadOptionalInt(g, out.spec.schedule_timeout_seconds)));
            if (out.spec.schedule_timeout_seconds.value_or(0) < 0) {
              return At("scheduleTimeoutSeconds", Here("must not be negative"));
            }
            return Status::Ok();
          }
          return Status::Ok();
        }));
  }
  if (key == "status") {
    return At("status", ReadPodGroupStatus(f, out.status, ReadSchedulerPluginsPhase));
  }
  return Status::Ok();
}

// Kubernetes' PodGroup: spec.schedulingPolicy is either `basic` (no gang: minimum 1) or
// `gang.minCount`; status has conditions only, so the phase is read from PodGroupScheduled
// (True: placed, which Arbiter calls Running; else Pending).
Status ReadBody(raw_json_string key, value& f, KubernetesPodGroup& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "schedulingPolicy") {
                  return At("schedulingPolicy", ReadFields(g, [&](raw_json_string p, value& h) {
                              if (p != "gang" || IsNull(h)) return Status::Ok();
                              return At("gang", ReadFields(h, [&](raw_json_string q, value& m) {
                                          if (q != "minCount") return Status::Ok();
                                          ARBITER_RETURN_IF_ERROR(
                                              At("minCount", ReadInt32(m, out.spec.min_member)));
                                          if (out.spec.min_member < 1) {
                                            return At("minCount",
                                                      Here("must be at least 1, got " +
                                                           std::to_string(out.spec.min_member)));
                                          }
                                          return Status::Ok();
                                        }));
                            }));
                }
                if (k == "priorityClassName") {
                  return At("priorityClassName", ReadString(g, out.spec.priority_class_name));
                }
                if (k == "priority") return At("priority", ReadOptionalInt(g, out.spec.priority));
                return Status::Ok();
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k != "conditions") return Status::Ok();
                std::vector<Condition> conditions;
                ARBITER_RETURN_IF_ERROR(At("conditions", ReadConditions(g, conditions)));
                // In Arbiter's words: PodGroupScheduled True is Scheduled, False with reason
                // Unschedulable is Unschedulable; DisruptionTarget is Preempted.
                for (Condition& c : conditions) {
                  if (c.type == "PodGroupScheduled" && c.IsTrue()) {
                    out.status.phase = PodGroupPhase::kRunning;
                    c.type = "Scheduled";
                  } else if (c.type == "PodGroupScheduled" && c.reason == "Unschedulable") {
                    c.type = "Unschedulable";
                    c.status = "True";
                  } else if (c.type == "DisruptionTarget") {
                    c.type = "Preempted";
                  } else {
                    continue;
                  }
                  out.status.conditions.push_back(std::move(c));
                }
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

// After the whole object is read: what depends on more than one field.
template <typename T>
Status FinishDecode(T& /*unused*/) {
  return Status::Ok();
}
// Kubernetes' and scheduler-plugins' PodGroups have no queue field: the label or annotation
// arbiter.dev/queue names it (the label first), "default" without either.
void QueueFromMeta(PodGroup& out) {
  const std::string key(kQueueNameKey);
  for (const Labels* where : {&out.meta.labels, &out.meta.annotations}) {
    if (auto it = where->find(key); it != where->end() && !it->second.empty()) {
      out.spec.queue = it->second;
      return;
    }
  }
}
Status FinishDecode(KubernetesPodGroup& out) {
  QueueFromMeta(out);
  return Status::Ok();
}
Status FinishDecode(SchedulerPluginsPodGroup& out) {
  QueueFromMeta(out);
  return Status::Ok();
}

Status ReadLabelSelector(value& v, LabelSelector& out) {
  Status status = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "matchLabels") return At("matchLabels", ReadStringMap(f, out.match_labels));
    if (key == "matchExpressions") {
      return At("matchExpressions", ReadArray(f, [&](value& item) {
                  LabelSelectorRequirement& req = out.match_expressions.emplace_back();
                  return ReadFields(item, [&](raw_json_string k, value& g) {
                    if (k == "key") return At("key", ReadString(g, req.key));
                    if (k == "values") return At("values", ReadStringArray(g, req.values));
                    if (k == "operator") {
                      std::string op;
                      ARBITER_RETURN_IF_ERROR(At("operator", ReadString(g, op)));
                      StatusOr<SelectorOperator> parsed = ParseSelectorOperator(op);
                      if (!parsed.ok()) return At("operator", Here(parsed.status().message()));
                      req.op = *parsed;
                    }
                    return Status::Ok();
                  });
                }));
    }
    return Status::Ok();
  });
  ARBITER_RETURN_IF_ERROR(status);
  // Validate's message is already a relative path ("matchExpressions[0].values: ...").
  return out.Validate();
}

Status ReadObservedConditions(value& v, std::vector<ObservedCondition>& out) {
  return ReadArray(v, [&](value& item) {
    ObservedCondition& c = out.emplace_back();
    return ReadFields(item, [&](raw_json_string k, value& g) {
      if (k == "observedGeneration") {
        return At("observedGeneration", ReadInt64(g, c.observed_generation));
      }
      return ReadConditionField(k, g, c.condition);
    });
  });
}

Status ReadQueueSpec(value& v, QueueSpec& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "weight") {
      ARBITER_RETURN_IF_ERROR(At("weight", ReadInt32(f, out.weight)));
      if (out.weight < 1) {
        return At("weight", Here("must be at least 1, got " + std::to_string(out.weight)));
      }
      return Status::Ok();
    }
    if (key == "capability") return At("capability", ReadResourceList(f, out.capability));
    if (key == "guarantee") return At("guarantee", ReadResourceList(f, out.guarantee));
    if (key == "reclaimable") return At("reclaimable", ReadBool(f, out.reclaimable));
    if (key == "parent") return At("parent", ReadString(f, out.parent));
    if (key == "state") {
      std::string state;
      ARBITER_RETURN_IF_ERROR(At("state", ReadString(f, state)));
      if (state.empty()) return Status::Ok();
      StatusOr<QueueState> parsed = ParseQueueState(state);
      if (!parsed.ok()) return At("state", Here(parsed.status().message()));
      out.state = *parsed;
      return Status::Ok();
    }
    if (key == "namespaceSelector") {
      if (IsNull(f)) return Status::Ok();
      return At("namespaceSelector", ReadLabelSelector(f, out.namespace_selector.emplace()));
    }
    if (key == "quota") {
      return At("quota", ReadFields(f, [&](raw_json_string k, value& g) {
                  if (k != "enforce") return Status::Ok();
                  std::string enforce;
                  ARBITER_RETURN_IF_ERROR(At("enforce", ReadString(g, enforce)));
                  if (enforce.empty()) return Status::Ok();
                  StatusOr<QuotaEnforce> parsed = ParseQuotaEnforce(enforce);
                  if (!parsed.ok()) return At("enforce", Here(parsed.status().message()));
                  out.quota_enforce = *parsed;
                  return Status::Ok();
                }));
    }
    return Status::Ok();
  });
}

Status ReadQueueQuotaStatus(value& v, QueueQuotaStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "generation") return At("generation", ReadInt64(f, out.generation));
    if (key == "hard") return At("hard", ReadResourceList(f, out.hard));
    if (key == "loweredAt") return At("loweredAt", ReadTime(f, out.lowered_at));
    if (key == "namespaces") return At("namespaces", ReadStringArray(f, out.namespaces));
    if (key == "sharedNamespaces") {
      return At("sharedNamespaces", ReadStringArray(f, out.shared_namespaces));
    }
    return Status::Ok();
  });
}

Status ReadQueueStatus(value& v, QueueStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "quota") return At("quota", ReadQueueQuotaStatus(f, out.quota));
    if (key == "conditions") return At("conditions", ReadObservedConditions(f, out.conditions));
    if (key == "deserved") return At("deserved", ReadResourceList(f, out.deserved));
    if (key == "allocated") return At("allocated", ReadResourceList(f, out.allocated));
    if (key == "used") return At("used", ReadResourceList(f, out.used));
    if (key == "pending") return At("pending", ReadInt32(f, out.pending));
    if (key == "inqueue") return At("inqueue", ReadInt32(f, out.inqueue));
    if (key == "running") return At("running", ReadInt32(f, out.running));
    return Status::Ok();
  });
}

Status ReadBody(raw_json_string key, value& f, Queue& out) {
  if (key == "spec") return At("spec", ReadQueueSpec(f, out.spec));
  if (key == "status") return At("status", ReadQueueStatus(f, out.status));
  return Status::Ok();
}

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

Status ReadBody(raw_json_string key, value& f, PodDisruptionBudget& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k != "selector" || IsNull(g)) return Status::Ok();
                return At("selector", ReadLabelSelector(g, out.selector.emplace()));
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "disruptionsAllowed") {
                  return At("disruptionsAllowed", ReadInt32(g, out.disruptions_allowed));
                }
                if (k == "observedGeneration") {
                  return At("observedGeneration", ReadInt64(g, out.observed_generation));
                }
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

// ---- Top level ---------------------------------------------------------------------------------

// "pod ns/name: <path>: <what>", naming the object as well as its metadata was read.
template <typename T>
Status Named(const T& object, const Status& error) {
  std::string who(KindName(object));
  who += ' ';
  if (object.meta.name.empty()) {
    who += "(unnamed";
    if (!object.meta.namespace_name.empty()) who += " in namespace " + object.meta.namespace_name;
    who += ')';
  } else {
    who += object.meta.Key();
  }
  const std::string& inner = error.message();
  return {error.code(), who + (inner.starts_with(':') ? "" : ": ") + inner};
}

// Decodes one object. After the first error, the remaining fields are still walked (cheaply:
// on-demand skips what is not read) so that metadata found later can name the object.
template <typename T>
StatusOr<T> DecodeTop(value v, bool require_name) {
  T out;
  object obj;
  if (error_code e = v.get_object().get(obj)) return Named(out, TypeError(e, v, "an object"));
  Status first;
  for (auto member : obj) {
    field f;
    if (error_code e = std::move(member).get(f)) {
      if (first.ok()) first = Here(std::string("malformed JSON: ") + simdjson::error_message(e));
      break;
    }
    raw_json_string key = f.key();
    Status status;
    if (key == "metadata") {
      status = At("metadata", ReadMeta(f.value(), out.meta));
    } else if (first.ok()) {
      status = ReadBody(key, f.value(), out);
    }
    if (first.ok() && !status.ok()) first = std::move(status);
  }
  if (first.ok() && require_name && out.meta.name.empty()) {
    first = InvalidArgumentError("metadata.name: missing");
  }
  if (first.ok()) first = FinishDecode(out);
  if (!first.ok()) return Named(out, first);
  return out;
}

Status ReadApiStatus(value& v, ApiStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "code") return At("code", ReadInt32(f, out.code));
    if (key == "status") return At("status", ReadString(f, out.status));
    if (key == "reason") return At("reason", ReadString(f, out.reason));
    if (key == "message") return At("message", ReadString(f, out.message));
    return Status::Ok();
  });
}

// A whole-document error: the path, or simdjson's message, without the ": " lead.
Status DocumentError(std::string_view what, const Status& error) {
  std::string_view inner = error.message();
  if (inner.starts_with(": ")) inner.remove_prefix(2);
  return {error.code(), std::string(what) + ": " + std::string(inner)};
}

Status SimdjsonError(std::string_view what, error_code e) {
  return InvalidArgumentError(std::string(what) +
                              ": malformed JSON: " + simdjson::error_message(e));
}

StatusOr<WatchEventType> ParseWatchEventType(std::string_view text) {
  for (WatchEventType type :
       {WatchEventType::kAdded, WatchEventType::kModified, WatchEventType::kDeleted,
        WatchEventType::kBookmark, WatchEventType::kError}) {
    if (WatchEventTypeName(type) == text) return type;
  }
  return InvalidArgumentError("watch event: unknown type \"" + std::string(text) + "\"");
}

}  // namespace

StatusOr<Pod> DecodePod(value json_value) { return DecodeTop<Pod>(json_value, true); }
StatusOr<Node> DecodeNode(value json_value) { return DecodeTop<Node>(json_value, true); }
StatusOr<Namespace> DecodeNamespace(value json_value) {
  return DecodeTop<Namespace>(json_value, true);
}
StatusOr<PriorityClass> DecodePriorityClass(value json_value) {
  return DecodeTop<PriorityClass>(json_value, true);
}
StatusOr<Lease> DecodeLease(value json_value) { return DecodeTop<Lease>(json_value, true); }
StatusOr<Event> DecodeEvent(value json_value) { return DecodeTop<Event>(json_value, true); }
StatusOr<ResourceQuota> DecodeResourceQuota(value json_value) {
  return DecodeTop<ResourceQuota>(json_value, true);
}
StatusOr<PodGroup> DecodePodGroup(value json_value) {
  return DecodeTop<PodGroup>(json_value, true);
}
StatusOr<KubernetesPodGroup> DecodeKubernetesPodGroup(value json_value) {
  return DecodeTop<KubernetesPodGroup>(json_value, true);
}
StatusOr<VolcanoPodGroup> DecodeVolcanoPodGroup(value json_value) {
  return DecodeTop<VolcanoPodGroup>(json_value, true);
}
StatusOr<SchedulerPluginsPodGroup> DecodeSchedulerPluginsPodGroup(value json_value) {
  return DecodeTop<SchedulerPluginsPodGroup>(json_value, true);
}
StatusOr<Queue> DecodeQueue(value json_value) { return DecodeTop<Queue>(json_value, true); }
StatusOr<PodDisruptionBudget> DecodePodDisruptionBudget(value json_value) {
  return DecodeTop<PodDisruptionBudget>(json_value, true);
}
StatusOr<BatchJob> DecodeBatchJob(value json_value) {
  return DecodeTop<BatchJob>(json_value, true);
}

StatusOr<ApiStatus> DecodeApiStatus(value json_value) {
  ApiStatus out;
  Status status = ReadApiStatus(json_value, out);
  if (!status.ok()) return DocumentError("status", status);
  return out;
}

template <typename T>
StatusOr<T> DecodeObject(simdjson::ondemand::parser& parser, const simdjson::padded_string& json) {
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(KindName(T()), e);
  value v;
  if (error_code e = doc.get_value().get(v)) return SimdjsonError(KindName(T()), e);
  return DecodeTop<T>(v, true);
}

template <typename T>
StatusOr<ObjectList<T>> DecodeList(simdjson::ondemand::parser& parser,
                                   const simdjson::padded_string& json) {
  const std::string what = std::string(KindName(T())) + " list";
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(what, e);
  object top;
  if (error_code e = doc.get_object().get(top)) return SimdjsonError(what, e);

  ObjectList<T> list;
  for (auto member : top) {
    field f;
    if (error_code e = std::move(member).get(f)) return SimdjsonError(what, e);
    raw_json_string key = f.key();
    if (key == "metadata") {
      Status status = ReadFields(f.value(), [&](raw_json_string k, value& g) {
        if (k == "resourceVersion") {
          return At("resourceVersion", ReadString(g, list.resource_version));
        }
        if (k == "continue") return At("continue", ReadString(g, list.continue_token));
        return Status::Ok();
      });
      if (!status.ok()) return DocumentError(what, At("metadata", status));
    } else if (key == "items") {
      array items;
      if (error_code e = f.value().get_array().get(items)) {
        if (IsNull(f.value())) continue;
        return DocumentError(what, At("items", TypeError(e, f.value(), "an array")));
      }
      // Counting first costs a fast skim of the array and saves moving every decoded object
      // as the vector grows (measured: the moves and the allocator churn behind them were a
      // third of the decode time of a 50,000-pod list).
      std::size_t count = 0;
      if (error_code e = items.count_elements().get(count)) return SimdjsonError(what, e);
      list.items.reserve(count);
      std::size_t index = 0;
      for (auto element : items) {
        value item;
        if (error_code e = element.get(item)) return SimdjsonError(what, e);
        StatusOr<T> decoded = DecodeTop<T>(item, true);
        if (decoded.ok()) {
          list.items.push_back(*std::move(decoded));
        } else {
          // A named item is named by its error; an unnamed one by its place in the list.
          Status error = decoded.status();
          if (error.message().starts_with(what.substr(0, what.size() - 4) + "(unnamed")) {
            error = error.WithContext("items[" + std::to_string(index) + "]");
          }
          list.errors.push_back(std::move(error));
        }
        ++index;
      }
    }
  }
  return list;
}

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "?";
}

template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(simdjson::ondemand::parser& parser,
                                         const simdjson::padded_string& json) {
  constexpr std::string_view kWhat = "watch event";
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(kWhat, e);
  object top;
  if (error_code e = doc.get_object().get(top)) return SimdjsonError(kWhat, e);

  WatchEvent<T> event;
  std::string_view type_text;
  value type_value;
  if (error_code e = top.find_field_unordered("type").get(type_value)) {
    return e == simdjson::NO_SUCH_FIELD ? InvalidArgumentError("watch event: type: missing")
                                        : SimdjsonError(kWhat, e);
  }
  if (error_code e = type_value.get_string().get(type_text)) {
    return DocumentError(kWhat, At("type", TypeError(e, type_value, "a string")));
  }
  ARBITER_ASSIGN_OR_RETURN(event.type, ParseWatchEventType(type_text));

  value object_value;
  if (error_code e = top.find_field_unordered("object").get(object_value)) {
    return e == simdjson::NO_SUCH_FIELD ? InvalidArgumentError("watch event: object: missing")
                                        : SimdjsonError(kWhat, e);
  }
  switch (event.type) {
    case WatchEventType::kError: {
      Status status = ReadApiStatus(object_value, event.error);
      if (!status.ok()) return DocumentError(kWhat, At("object", status));
      return event;
    }
    case WatchEventType::kBookmark: {
      // A bookmark carries only metadata.resourceVersion (and annotations); no name.
      StatusOr<T> bookmark = DecodeTop<T>(object_value, false);
      if (!bookmark.ok()) return bookmark.status().WithContext(kWhat);
      event.resource_version = bookmark->meta.resource_version;
      return event;
    }
    default: {
      StatusOr<T> decoded = DecodeTop<T>(object_value, true);
      if (!decoded.ok()) return decoded.status().WithContext(kWhat);
      event.object = *std::move(decoded);
      event.resource_version = event.object.meta.resource_version;
      return event;
    }
  }
}

StatusOr<Clock::WallTime> ParseRfc3339(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("time \"" + std::string(text) + "\": " + std::string(why));
  };
  std::size_t pos = 0;
  // Reads exactly `width` digits.
  auto digits = [&](std::size_t width, int& out) {
    if (pos + width > text.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < width; ++i) {
      char c = text[pos + i];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    pos += width;
    return true;
  };
  auto expect = [&](char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
  };

  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!digits(4, year) || !expect('-') || !digits(2, month) || !expect('-') || !digits(2, day) ||
      !(expect('T') || expect('t')) || !digits(2, hour) || !expect(':') || !digits(2, minute) ||
      !expect(':') || !digits(2, second)) {
    return bad("not RFC 3339 (want 2006-01-02T15:04:05Z)");
  }
  std::chrono::year_month_day date{std::chrono::year(year),
                                   std::chrono::month(static_cast<unsigned>(month)),
                                   std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return bad("no such date");
  if (hour > 23 || minute > 59 || second > 59) return bad("no such time of day");

  constexpr std::int64_t kNano = 1'000'000'000;
  std::int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t start = pos;
    std::int64_t scale = 100'000'000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      nanos += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad("no digits after the decimal point");
  }

  int offset_minutes = 0;
  if (expect('Z') || expect('z')) {
    // UTC
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0;
    int om = 0;
    if (!digits(2, oh) || !expect(':') || !digits(2, om) || oh > 23 || om > 59) {
      return bad("bad zone offset (want Z or +hh:mm)");
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad("missing zone (want Z or +hh:mm)");
  }
  if (pos != text.size()) return bad("trailing characters");

  // Seconds cannot overflow (years 0000-9999), but WallTime counts nanoseconds in an int64 and so
  // spans only 1677-09-21 to 2262-04-11; a time outside is an error, not a wrapped value.
  std::chrono::sys_seconds seconds = std::chrono::sys_days(date) + std::chrono::hours(hour) +
                                     std::chrono::minutes(minute - offset_minutes) +
                                     std::chrono::seconds(second);
  std::int64_t whole = seconds.time_since_epoch().count();
  if (whole < 0 && nanos > 0) {  // so that the earliest time, -2^63 ns, is not an overflow
    ++whole;
    nanos -= kNano;
  }
  std::optional<std::int64_t> since_epoch = CheckedMul(whole, kNano);
  if (since_epoch.has_value()) since_epoch = CheckedAdd(*since_epoch, nanos);
  if (!since_epoch.has_value()) return bad("outside the years 1677 to 2262 that Arbiter can hold");
  return Clock::WallTime(std::chrono::nanoseconds(*since_epoch));
}

// The model types DecodeObject, DecodeList and DecodeWatchEvent are defined for.
// NOLINTBEGIN(bugprone-macro-parentheses): T is a type name in a declaration.
#define ARBITER_K8S_INSTANTIATE_DECODERS(T)                                         \
  template StatusOr<T> DecodeObject<T>(simdjson::ondemand::parser&,                 \
                                       const simdjson::padded_string&);             \
  template StatusOr<ObjectList<T>> DecodeList<T>(simdjson::ondemand::parser&,       \
                                                 const simdjson::padded_string&);   \
  template StatusOr<WatchEvent<T>> DecodeWatchEvent<T>(simdjson::ondemand::parser&, \
                                                       const simdjson::padded_string&)

ARBITER_K8S_INSTANTIATE_DECODERS(Pod);
ARBITER_K8S_INSTANTIATE_DECODERS(Node);
ARBITER_K8S_INSTANTIATE_DECODERS(Namespace);
ARBITER_K8S_INSTANTIATE_DECODERS(PriorityClass);
ARBITER_K8S_INSTANTIATE_DECODERS(Lease);
ARBITER_K8S_INSTANTIATE_DECODERS(Event);
ARBITER_K8S_INSTANTIATE_DECODERS(ResourceQuota);
ARBITER_K8S_INSTANTIATE_DECODERS(PodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(KubernetesPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(VolcanoPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(SchedulerPluginsPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kKubernetes>);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kVolcano>);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kSchedulerPlugins>);
ARBITER_K8S_INSTANTIATE_DECODERS(Queue);
ARBITER_K8S_INSTANTIATE_DECODERS(PodDisruptionBudget);
ARBITER_K8S_INSTANTIATE_DECODERS(BatchJob);

#undef ARBITER_K8S_INSTANTIATE_DECODERS
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace arbiter::k8s
