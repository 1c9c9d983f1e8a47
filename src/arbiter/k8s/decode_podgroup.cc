// The decoders of PodGroups: Arbiter's and the other APIs' (decode.h, model/pod_group.h).

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

Status ReadTopology(value& v, std::optional<TopologyRequest>& out) {
  if (IsNull(v)) {
    out.reset();
    return Status::Ok();
  }
  TopologyRequest t;
  // Not inside ARBITER_RETURN_IF_ERROR: the lambda's own uses of it would shadow its variable.
  Status read = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "mode") {
      std::string mode;
      ARBITER_RETURN_IF_ERROR(At("mode", ReadString(f, mode)));
      StatusOr<TopologyMode> parsed = ParseTopologyMode(mode);
      if (!parsed.ok()) return At("mode", Here(parsed.status().message()));
      t.mode = *parsed;
      return Status::Ok();
    }
    if (key == "level") return At("level", ReadString(f, t.level));
    if (key == "maxWaitSeconds") {
      ARBITER_RETURN_IF_ERROR(At("maxWaitSeconds", ReadInt32(f, t.max_wait_seconds)));
      if (t.max_wait_seconds < 0) {
        return At("maxWaitSeconds",
                  Here("must not be negative, got " + std::to_string(t.max_wait_seconds)));
      }
      return Status::Ok();
    }
    return Status::Ok();
  });
  if (!read.ok()) return read;
  if (t.level.empty()) return At("level", Here("missing"));
  out = std::move(t);
  return Status::Ok();
}

Status ReadLocality(value& v, std::optional<LocalityRequest>& out) {
  if (IsNull(v)) {
    out.reset();
    return Status::Ok();
  }
  LocalityRequest l;
  Status read = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "nodes") return At("nodes", ReadStringArray(f, l.nodes));
    if (key == "racks") return At("racks", ReadStringArray(f, l.racks));
    if (key == "dataSet") {
      if (IsNull(f)) return Status::Ok();
      ARBITER_RETURN_IF_ERROR(At("dataSet", ReadString(f, l.data_set)));
      return l.data_set.empty() ? At("dataSet", Here("must not be empty")) : Status::Ok();
    }
    return Status::Ok();
  });
  if (!read.ok()) return read;
  for (const auto& [field, names] : {std::pair{"nodes", &l.nodes}, std::pair{"racks", &l.racks}}) {
    for (std::size_t i = 0; i < names->size(); ++i) {
      if ((*names)[i].empty()) {
        return At(field, AtIndex(i, Here("must not be empty")));
      }
    }
  }
  out = std::move(l);
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
    if (key == "topology") return At("topology", ReadTopology(f, out.topology));
    if (key == "locality") return At("locality", ReadLocality(f, out.locality));
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

Status ReadReservation(value& v, GangReservationStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "nodes") return At("nodes", ReadStringArray(f, out.nodes));
    if (key == "since") {
      std::optional<Clock::WallTime> since;
      ARBITER_RETURN_IF_ERROR(At("since", ReadTime(f, since)));
      out.since = since.value_or(Clock::WallTime{});
      return Status::Ok();
    }
    if (key == "estimatedStart") return At("estimatedStart", ReadTime(f, out.estimated_start));
    return Status::Ok();
  });
}

Status ReadLocalityStatus(value& v, LocalityStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "nodeLocal") return At("nodeLocal", ReadInt32(f, out.node_local));
    if (key == "rackLocal") return At("rackLocal", ReadInt32(f, out.rack_local));
    if (key == "remote") return At("remote", ReadInt32(f, out.remote));
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
    if (key == "reservation") {
      if (IsNull(f)) return Status::Ok();
      return At("reservation", ReadReservation(f, out.reservation.emplace()));
    }
    if (key == "locality") {
      if (IsNull(f)) return Status::Ok();
      return At("locality", ReadLocalityStatus(f, out.locality.emplace()));
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

}  // namespace decode_internal

StatusOr<PodGroup> DecodePodGroup(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<PodGroup>(json_value, true);
}
StatusOr<KubernetesPodGroup> DecodeKubernetesPodGroup(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<KubernetesPodGroup>(json_value, true);
}
StatusOr<VolcanoPodGroup> DecodeVolcanoPodGroup(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<VolcanoPodGroup>(json_value, true);
}
StatusOr<SchedulerPluginsPodGroup> DecodeSchedulerPluginsPodGroup(
    simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<SchedulerPluginsPodGroup>(json_value, true);
}

ARBITER_K8S_INSTANTIATE_DECODERS(PodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(KubernetesPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(VolcanoPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(SchedulerPluginsPodGroup);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kKubernetes>);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kVolcano>);
ARBITER_K8S_INSTANTIATE_DECODERS(DialectPodGroupMeta<PodGroupDialect::kSchedulerPlugins>);

}  // namespace arbiter::k8s
