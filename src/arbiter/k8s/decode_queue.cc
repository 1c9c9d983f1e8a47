// The decoder of Queues (decode.h).

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

}  // namespace decode_internal

StatusOr<Queue> DecodeQueue(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Queue>(json_value, true);
}

ARBITER_K8S_INSTANTIATE_DECODERS(Queue);

}  // namespace arbiter::k8s
