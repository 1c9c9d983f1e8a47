#include "arbiter/webhook/admission.h"

#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "arbiter/k8s/decode.h"

namespace arbiter::webhook {
namespace {

using nlohmann::json;

template <typename T>
StatusOr<T> DecodeJson(const json& object) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string text(object.dump());
  return k8s::DecodeObject<T>(parser, text);
}

// One pod's request of each task, from its template (a pod named after the task, so that a
// decoding error names it).
std::vector<std::optional<ResourceList>> TaskRequests(const BatchJob& job) {
  std::vector<std::optional<ResourceList>> out;
  out.reserve(job.spec.tasks.size());
  for (const BatchTaskSpec& task : job.spec.tasks) {
    std::optional<ResourceList>& request = out.emplace_back();
    const json tmpl = json::parse(task.template_json, nullptr, /*allow_exceptions=*/false);
    if (!tmpl.is_object() || !tmpl.contains("spec")) continue;
    const json pod = {{"metadata", {{"name", job.meta.name + "-" + task.name}}},
                      {"spec", tmpl["spec"]}};
    StatusOr<Pod> decoded = DecodeJson<Pod>(pod);
    if (!decoded.ok()) continue;
    StatusOr<ResourceList> effective = decoded->EffectiveRequest();
    if (effective.ok()) request = std::move(*effective);
  }
  return out;
}

// The decision for an object of kind T: decodes the object (and the old one on UPDATE).
template <typename T, typename Decide>
Refusal Decide2(const json& request, Decide decide) {
  const std::string operation = request.value("operation", "");
  const json& object = operation == "DELETE" ? request["oldObject"] : request["object"];
  if (!object.is_object()) return "the request carries no object";
  StatusOr<T> current = DecodeJson<T>(object);
  if (!current.ok()) return std::string(current.status().message());
  std::optional<T> old;
  if (operation == "UPDATE" && request.contains("oldObject") && request["oldObject"].is_object()) {
    StatusOr<T> decoded = DecodeJson<T>(request["oldObject"]);
    if (decoded.ok()) {
      // Nothing the rules read changed (metadata, a finalizer): always allowed.
      if (decoded->spec == current->spec) return std::nullopt;
      old = std::move(*decoded);
    }
  }
  return decide(*current, old ? &*old : nullptr, operation);
}

std::string ObjectName(const json& request) {
  const std::string ns = request.value("namespace", "");
  const std::string name = request.value("name", "");
  return ns.empty() ? name : ns + "/" + name;
}

}  // namespace

StatusOr<std::string> Review(std::string_view body, const ContextSource& context) {
  const json review = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!review.is_object() || !review.contains("request") || !review["request"].is_object()) {
    return InvalidArgumentError("not an AdmissionReview request");
  }
  const json& request = review["request"];
  const std::string uid = request.value("uid", "");
  const json kind_object = request.value("kind", json::object());
  const std::string kind = kind_object.is_object() ? kind_object.value("kind", "") : "";
  const std::string group = kind_object.is_object() ? kind_object.value("group", "") : "";
  const std::string operation = request.value("operation", "");

  const auto decide = [&](Freshness freshness) -> Refusal {
    if (group == "arbiter.dev" && kind == "PodGroup" && operation != "DELETE") {
      const AdmissionContext ctx = context(kind, operation, freshness);
      return Decide2<PodGroup>(request, [&](const PodGroup& g, const PodGroup* old, auto) {
        return ReviewPodGroup(g, old, ctx);
      });
    }
    if (group == "arbiter.dev" && kind == "BatchJob" && operation != "DELETE") {
      const AdmissionContext ctx = context(kind, operation, freshness);
      return Decide2<BatchJob>(request, [&](const BatchJob& j, const BatchJob* old, auto) {
        return ReviewBatchJob(j, old, TaskRequests(j), ctx);
      });
    }
    if (group == "arbiter.dev" && kind == "Queue") {
      const AdmissionContext ctx = context(kind, operation, freshness);
      return Decide2<Queue>(
          request, [&](const Queue& q, const Queue* /*old*/, const std::string& op) {
            return op == "DELETE" ? ReviewQueueDeletion(q, ctx) : ReviewQueue(q, ctx);
          });
    }
    if (group.empty() && kind == "Pod" && operation == "CREATE") {
      const AdmissionContext ctx = context(kind, operation, freshness);
      return Decide2<Pod>(
          request, [&](const Pod& p, const Pod* /*old*/, auto) { return ReviewPod(p, ctx); });
    }
    return std::nullopt;
  };
  // Refusals are rare; reading the API server for one costs little and keeps a lagging watch
  // from refusing what is valid.
  Refusal refusal = decide(Freshness::kCached);
  if (refusal) refusal = decide(Freshness::kFromServer);

  json response = {{"uid", uid}, {"allowed", !refusal.has_value()}};
  if (refusal) {
    std::string lower = kind;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A decoding error names the object already.
    std::string message = *refusal;
    if (!message.starts_with(lower + " "))
      message = lower + " " + ObjectName(request) + ": " + message;
    response["status"] = {{"code", 403}, {"reason", "Forbidden"}, {"message", std::move(message)}};
  }
  const json out = {{"apiVersion", "admission.k8s.io/v1"},
                    {"kind", "AdmissionReview"},
                    {"response", std::move(response)}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace arbiter::webhook
