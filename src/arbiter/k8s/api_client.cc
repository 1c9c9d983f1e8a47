#include "arbiter/k8s/api_client.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace arbiter::k8s {
namespace {

constexpr std::string_view kReasonTag = " (reason ";

StatusCode CodeFor(long http_status, std::string_view reason) {  // NOLINT(google-runtime-int)
  if (reason == "AlreadyExists") return StatusCode::kAlreadyExists;
  if (reason == "Expired" || reason == "Gone" || http_status == 410) {
    return StatusCode::kOutOfRange;
  }
  switch (http_status) {
    case 400:
    case 422:
      return StatusCode::kInvalidArgument;
    case 401:
      return StatusCode::kUnauthenticated;
    case 403:
      return StatusCode::kPermissionDenied;
    case 404:
      return StatusCode::kNotFound;
    case 405:
      return StatusCode::kUnimplemented;
    case 409:
      return StatusCode::kAborted;
    case 429:
      return StatusCode::kResourceExhausted;
    case 504:
      return StatusCode::kDeadlineExceeded;
    default:
      return http_status >= 500 ? StatusCode::kUnavailable : StatusCode::kUnknown;
  }
}

std::string_view ContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
  }
  return "application/merge-patch+json";
}

}  // namespace

Status StatusFromResponse(const HttpRequest& request, const HttpResponse& response) {
  std::string message;
  std::string reason;
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.value("kind", "") == "Status") {
    message = body.value("message", "");
    reason = body.value("reason", "");
  }
  if (message.empty()) {
    message = response.body.substr(0, 200);
    if (message.empty()) message = "HTTP " + std::to_string(response.status);
  }
  std::string text = request.method + " " + request.path + ": " + message;
  text += std::string(kReasonTag) + (reason.empty() ? "Unknown" : reason) + ", code " +
          std::to_string(response.status) + ")";
  return {CodeFor(response.status, reason), std::move(text)};
}

std::string ReasonOf(const Status& status) {
  const std::string& m = status.message();
  std::size_t at = m.rfind(kReasonTag);
  if (at == std::string::npos) return "";
  at += kReasonTag.size();
  std::size_t end = m.find(',', at);
  if (end == std::string::npos) return "";
  std::string reason = m.substr(at, end - at);
  return reason == "Unknown" ? "" : reason;
}

StatusOr<HttpResponse> ApiClient::Send(const HttpRequest& request) {
  return transport_.Do(request);
}

StatusOr<std::string> ApiClient::Expect2xx(const HttpRequest& request) {
  ARBITER_ASSIGN_OR_RETURN(HttpResponse response, transport_.Do(request));
  if (response.status < 200 || response.status >= 300) {
    return StatusFromResponse(request, response);
  }
  return std::move(response.body);
}

void ApiClient::Expect2xxAll(std::span<const HttpRequest> requests, const DoneFunction& done,
                             const std::function<bool()>& may_start) {
  transport_.DoAll(
      requests,
      [&](std::size_t i, StatusOr<HttpResponse> response) {
        if (!response.ok()) return done(i, response.status());
        if (response->status < 200 || response->status >= 300) {
          return done(i, StatusFromResponse(requests[i], *response));
        }
        done(i, std::move(response->body));
      },
      may_start);
}

StatusOr<std::string> ApiClient::Get(std::string_view path) {
  return Expect2xx(HttpRequest::Get(std::string(path)));
}

HttpRequest ApiClient::CreateRequest(std::string_view path, std::string body) {
  HttpRequest request;
  request.method = "POST";
  request.path = path;
  request.body = std::move(body);
  request.retryable = false;  // a create that reached the server must not be repeated blindly
  return request;
}

HttpRequest ApiClient::UpdateRequest(std::string_view path, std::string body) {
  HttpRequest request;
  request.method = "PUT";
  request.path = path;
  request.body = std::move(body);
  return request;
}

HttpRequest ApiClient::PatchRequest(std::string_view path, std::string body, PatchType type) {
  HttpRequest request;
  request.method = "PATCH";
  request.path = path;
  request.body = std::move(body);
  request.content_type = ContentType(type);
  return request;
}

StatusOr<std::string> ApiClient::Create(std::string_view path, std::string body) {
  return Expect2xx(CreateRequest(path, std::move(body)));
}

StatusOr<std::string> ApiClient::Update(std::string_view path, std::string body) {
  return Expect2xx(UpdateRequest(path, std::move(body)));
}

StatusOr<std::string> ApiClient::Patch(std::string_view path, std::string body, PatchType type) {
  return Expect2xx(PatchRequest(path, std::move(body), type));
}

Status ApiClient::Delete(std::string_view path, const DeleteOptions& options) {
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.precondition_uid) body["preconditions"]["uid"] = *options.precondition_uid;
  if (options.precondition_resource_version) {
    body["preconditions"]["resourceVersion"] = *options.precondition_resource_version;
  }
  if (options.propagation_policy) body["propagationPolicy"] = *options.propagation_policy;
  HttpRequest request;
  request.method = "DELETE";
  request.path = path;
  request.body = body.dump();
  return Expect2xx(request).status();
}

}  // namespace arbiter::k8s
