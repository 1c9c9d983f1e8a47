// ApiClient: the Kubernetes REST verbs over an HttpTransport, with the API server's failures
// turned into Status values that keep the server's own message and reason:
//
//   404 NotFound -> NOT_FOUND          409 AlreadyExists -> ALREADY_EXISTS
//   409 Conflict -> ABORTED (a stale resourceVersion or a failed precondition: read and retry)
//   410 Gone/Expired -> OUT_OF_RANGE (the resourceVersion is older than etcd keeps: re-list)
//   422 Invalid, 400 -> INVALID_ARGUMENT    401 -> UNAUTHENTICATED    403 -> PERMISSION_DENIED
//   429 -> RESOURCE_EXHAUSTED (after the transport's retries)     5xx -> UNAVAILABLE
//
// Messages read "<VERB> <path>: <server message> (reason R, code N)". Bodies are JSON strings;
// decoding them is the caller's (k8s/decode.h for big objects, nlohmann-json for small ones).
//
// Thread safety: as the transport (any thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/k8s/http_transport.h"

namespace arbiter::k8s {

enum class PatchType : std::uint8_t {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kJson,            // application/json-patch+json (RFC 6902)
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in types only)
};

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  // "Background", "Foreground" or "Orphan": what the garbage collector does with what it owns.
  std::optional<std::string> propagation_policy;
};

class ApiClient {
 public:
  explicit ApiClient(HttpTransport& transport) : transport_(transport) {}

  StatusOr<std::string> Get(std::string_view path);
  // The requests Create, Update and Patch send, for callers that send many at once
  // (Expect2xxAll).
  static HttpRequest CreateRequest(std::string_view path, std::string body);
  static HttpRequest UpdateRequest(std::string_view path, std::string body);
  static HttpRequest PatchRequest(std::string_view path, std::string body, PatchType type);

  // POST; the created object.
  StatusOr<std::string> Create(std::string_view path, std::string body);
  // PUT; the updated object. Conflicts (a stale metadata.resourceVersion) are ABORTED.
  StatusOr<std::string> Update(std::string_view path, std::string body);
  StatusOr<std::string> Patch(std::string_view path, std::string body, PatchType type);
  Status Delete(std::string_view path, const DeleteOptions& options = {});

  // The raw exchange, for callers that need the status code (evictions, bindings).
  StatusOr<HttpResponse> Send(const HttpRequest& request);
  // A request of the caller's making (its own timeout or retries), its 2xx body or the Status.
  StatusOr<std::string> Expect2xx(const HttpRequest& request);
  // Expect2xx of every request at once (HttpTransport::DoAll, whose terms `done` and `may_start`
  // follow): done(i, result) as each ends.
  using DoneFunction = std::function<void(std::size_t, StatusOr<std::string>)>;
  void Expect2xxAll(std::span<const HttpRequest> requests, const DoneFunction& done,
                    const std::function<bool()>& may_start = {});

  HttpTransport& transport() { return transport_; }

 private:
  HttpTransport& transport_;
};

// The Status for a non-2xx response, from the API server's Status body when there is one.
Status StatusFromResponse(const HttpRequest& request, const HttpResponse& response);

// The reason of a failed API call, as the API server put it ("Conflict", "AlreadyExists", ...),
// read back from a Status made by StatusFromResponse; empty if there is none.
std::string ReasonOf(const Status& status);

}  // namespace arbiter::k8s
