#include "arbiter/k8s/writes.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbiter::k8s {
namespace {

std::string PodPath(std::string_view namespace_name, std::string_view pod_name) {
  return "/api/v1/namespaces/" + std::string(namespace_name) + "/pods/" + std::string(pod_name);
}

// A server error or no answer: the API server may or may not have done the request.
bool OutcomeUnknown(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnavailable:
    case StatusCode::kInternal:
    case StatusCode::kUnknown:
    case StatusCode::kDeadlineExceeded:
      return true;
    default:
      return false;
  }
}

HttpRequest BindingRequest(const BindTarget& bind) {
  nlohmann::json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", bind.pod_name}, {"namespace", bind.namespace_name}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", bind.node_name}}},
  };
  if (!bind.uid.empty()) binding["metadata"]["uid"] = bind.uid;
  return ApiClient::CreateRequest(PodPath(bind.namespace_name, bind.pod_name) + "/binding",
                                  binding.dump());
}

// What the binding's creation means; an unknown outcome is settled by reading the pod back.
StatusOr<BindOutcome> SettleBind(ApiClient& api, const BindTarget& bind,
                                 const StatusOr<std::string>& created) {
  if (created.ok()) return BindOutcome::kBound;
  const Status& error = created.status();
  // The API server answers a second binding with 409 "pod x is already assigned to node y".
  if (error.code() == StatusCode::kAborted &&
      error.message().find("is already assigned to node") != std::string::npos) {
    return BindOutcome::kAlreadyAssigned;
  }
  if (!OutcomeUnknown(error)) return error;
  // Without this read the scheduler would keep the pod assumed for the failed-bind TTL (30 s):
  // its node's room held, the pod given no reason, its queue's usage counted with it.
  StatusOr<std::string> pod = api.Get(PodPath(bind.namespace_name, bind.pod_name));
  if (!pod.ok()) {
    if (pod.status().code() != StatusCode::kNotFound) return error;
    return NotFoundError(error.message() + "; read back: the pod is gone");
  }
  const nlohmann::json object = nlohmann::json::parse(*pod, nullptr, false);
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) {
    return error;
  }
  if (!bind.uid.empty() && object["metadata"].value("uid", "") != bind.uid) {
    return NotFoundError(error.message() + "; read back: the pod was replaced");
  }
  const std::string bound_to = object.contains("spec") && object["spec"].is_object()
                                   ? object["spec"].value("nodeName", "")
                                   : std::string();
  if (bound_to == bind.node_name) return BindOutcome::kBound;
  if (!bound_to.empty()) return BindOutcome::kAlreadyAssigned;
  return AbortedError(error.message() + "; read back: the pod is not bound");
}

}  // namespace

StatusOr<BindOutcome> Bind(ApiClient& api, std::string_view namespace_name,
                           std::string_view pod_name, std::string_view uid,
                           std::string_view node_name) {
  const BindTarget bind{namespace_name, pod_name, uid, node_name};
  return SettleBind(api, bind, api.Expect2xx(BindingRequest(bind)));
}

void BindAll(ApiClient& api, std::span<const BindTarget> binds,
             const std::function<void(std::size_t, StatusOr<BindOutcome>)>& done,
             const std::function<bool()>& may_send) {
  std::vector<HttpRequest> requests;
  requests.reserve(binds.size());
  for (const BindTarget& bind : binds) requests.push_back(BindingRequest(bind));
  // A read-back is a request of its own: made inside the loop, it would hold every other bind's
  // answer (and their timeouts would run out meanwhile), so those wait for the loop to end.
  std::vector<std::pair<std::size_t, Status>> unknown;
  api.Expect2xxAll(
      requests,
      [&](std::size_t i, const StatusOr<std::string>& created) {
        if (!created.ok() && OutcomeUnknown(created.status())) {
          unknown.emplace_back(i, created.status());
          return;
        }
        done(i, SettleBind(api, binds[i], created));
      },
      may_send);
  for (const auto& [i, error] : unknown) done(i, SettleBind(api, binds[i], error));
}

bool PodGoneOrReplaced(ApiClient& api, std::string_view namespace_name, std::string_view pod_name,
                       std::string_view uid) {
  StatusOr<std::string> pod = api.Get(PodPath(namespace_name, pod_name));
  if (!pod.ok()) return pod.status().code() == StatusCode::kNotFound;
  const nlohmann::json object = nlohmann::json::parse(*pod, nullptr, false);
  if (!object.is_object() || !object.contains("metadata")) return false;
  return object["metadata"].value("uid", "") != uid;
}

Status Evict(ApiClient& api, std::string_view namespace_name, std::string_view pod_name,
             std::string_view uid, std::int64_t grace_period_seconds, bool dry_run) {
  nlohmann::json eviction = {
      {"apiVersion", "policy/v1"},
      {"kind", "Eviction"},
      {"metadata", {{"name", pod_name}, {"namespace", namespace_name}}},
      {"deleteOptions", {{"gracePeriodSeconds", grace_period_seconds}}},
  };
  if (dry_run) eviction["deleteOptions"]["dryRun"] = nlohmann::json::array({"All"});
  if (!uid.empty()) eviction["deleteOptions"]["preconditions"]["uid"] = uid;
  HttpRequest request;
  request.method = "POST";
  request.path = PodPath(namespace_name, pod_name) + "/eviction";
  request.body = eviction.dump();
  request.retry_throttled = false;
  ARBITER_ASSIGN_OR_RETURN(HttpResponse response, api.Send(request));
  if (response.status >= 200 && response.status < 300) return Status::Ok();
  Status status = StatusFromResponse(request, response);
  if (status.code() == StatusCode::kNotFound) return Status::Ok();
  // A failed uid precondition is a 409, as are other conflicts: only a look tells them apart.
  if (status.code() == StatusCode::kAborted && !uid.empty() &&
      PodGoneOrReplaced(api, namespace_name, pod_name, uid)) {
    return Status::Ok();
  }
  return status;
}

HttpRequest PodStatusPatchRequest(std::string_view namespace_name, std::string_view pod_name,
                                  std::string patch) {
  return ApiClient::PatchRequest(PodPath(namespace_name, pod_name) + "/status", std::move(patch),
                                 PatchType::kStrategicMerge);
}

HttpRequest ReplaceStatusRequest(std::string_view path, std::string_view api_version,
                                 std::string_view kind, const ObjectMeta& meta,
                                 std::string_view status_json) {
  nlohmann::json identity = {{"apiVersion", api_version},
                             {"kind", kind},
                             {"metadata",
                              {{"name", meta.name},
                               {"namespace", meta.namespace_name},
                               {"resourceVersion", meta.resource_version}}}};
  std::string body = identity.dump();
  body.pop_back();  // the closing brace: the status, already JSON, goes in as it is
  body += R"(,"status":)";
  body += status_json;
  body += '}';
  return ApiClient::UpdateRequest(std::string(path) + "/status", std::move(body));
}

Status ReplaceStatusAt(ApiClient& api, std::string_view path, std::string_view api_version,
                       std::string_view kind, const ObjectMeta& meta,
                       std::string_view status_json) {
  return api.Expect2xx(ReplaceStatusRequest(path, api_version, kind, meta, status_json)).status();
}

Status UpdateStatus(ApiClient& api, std::string_view path,
                    const std::function<StatusOr<std::string>(const std::string&)>& mutate,
                    int max_attempts) {
  Status last;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    ARBITER_ASSIGN_OR_RETURN(std::string current, api.Get(path));
    ARBITER_ASSIGN_OR_RETURN(std::string updated, mutate(current));
    if (updated == current) return Status::Ok();
    StatusOr<std::string> written = api.Update(std::string(path) + "/status", std::move(updated));
    if (written.ok()) return Status::Ok();
    last = written.status();
    if (last.code() != StatusCode::kAborted) return last;
  }
  return last.WithContext("gave up after " + std::to_string(max_attempts) + " conflicts");
}

}  // namespace arbiter::k8s
