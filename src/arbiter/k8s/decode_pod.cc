// The decoders of Pods and Nodes (decode.h).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/k8s/decode_internal.h"

namespace arbiter::k8s {
namespace decode_internal {

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
      return At("matchExpressions",
                ReadVector(f, out.match_expressions, ReadNodeSelectorRequirement));
    }
    if (key == "matchFields") {
      return At("matchFields", ReadVector(f, out.match_fields, ReadNodeSelectorRequirement));
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
                            return At("nodeSelectorTerms",
                                      ReadVector(h, out->terms, ReadNodeSelectorTerm));
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
  return ReadVector(v, out, ReadContainer);
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
      return At("tolerations", ReadVector(f, out.tolerations, ReadToleration));
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

// containerStatuses[i]: keeps state.terminated.exitCode when no non-zero code was kept before,
// and its finishedAt when it is the latest yet.
Status ReadContainerTermination(value& v, PodStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (!(key == "state")) return Status::Ok();
    return At(
        "state", ReadFields(f, [&](raw_json_string k, value& g) {
          if (!(k == "terminated")) return Status::Ok();
          return At(
              "terminated", ReadFields(g, [&](raw_json_string t, value& h) {
                if (t == "finishedAt") {
                  std::optional<Clock::WallTime> at;
                  ARBITER_RETURN_IF_ERROR(At("finishedAt", ReadTime(h, at)));
                  if (at.has_value() && (!out.finished_at.has_value() || *at > *out.finished_at)) {
                    out.finished_at = at;
                  }
                  return Status::Ok();
                }
                if (!(t == "exitCode")) return Status::Ok();
                std::optional<std::int32_t> code;
                ARBITER_RETURN_IF_ERROR(At("exitCode", ReadOptionalInt(h, code)));
                if (code.has_value() && (!out.exit_code.has_value() || *out.exit_code == 0)) {
                  out.exit_code = code;
                }
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
      return At("containerStatuses",
                ReadArray(f, [&](value& item) { return ReadContainerTermination(item, out); }));
    }
    return Status::Ok();
  });
}

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

}  // namespace decode_internal

StatusOr<Pod> DecodePod(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Pod>(json_value, true);
}
StatusOr<Node> DecodeNode(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Node>(json_value, true);
}

ARBITER_K8S_INSTANTIATE_DECODERS(Pod);
ARBITER_K8S_INSTANTIATE_DECODERS(Node);

}  // namespace arbiter::k8s
