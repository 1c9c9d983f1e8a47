// The scheduler's writes to the API server: binding a pod to a node, evicting it, and updating a
// status with optimistic concurrency. Each is one function over an ApiClient, so the binder,
// evictor and status writer (and their fakes in tests) stay small.
//
// Thread safety: as ApiClient.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/model/object_meta.h"

namespace arbiter::k8s {

enum class BindOutcome : std::uint8_t {
  kBound,            // this call bound the pod
  kAlreadyAssigned,  // the pod was bound already (by us earlier, or by someone else)
};

// Creates the pods/binding subresource. A pod that is already assigned to a node is not a
// failure: the result says so (the watch will tell which node). `uid` guards against binding a
// pod of the same name that replaced the one we decided for (409 ABORTED then).
//
// A bind whose outcome is unknown (answered 5xx, or not answered at all: the server may have made
// it) is settled by reading the pod back: bound to `node_name` is kBound, bound elsewhere
// kAlreadyAssigned, still unbound ABORTED ("not made"), gone or replaced NOT_FOUND. Only when the
// read fails too is the bind's own error returned, and the outcome stays unknown.
StatusOr<BindOutcome> Bind(ApiClient& api, std::string_view namespace_name,
                           std::string_view pod_name, std::string_view uid,
                           std::string_view node_name);

// One bind of BindAll: views into the caller's strings.
struct BindTarget {
  std::string_view namespace_name;
  std::string_view pod_name;
  std::string_view uid;
  std::string_view node_name;
};

// Bind of every target at once, over one connection (ApiClient::Expect2xxAll): done(i, outcome)
// on the calling thread as each ends; the binds whose outcome needs a read-back are settled
// after the others have all been answered. Returns when all have. `may_send`, if given, is asked
// before each is sent; those it refuses end CANCELLED, unsent.
void BindAll(ApiClient& api, std::span<const BindTarget> binds,
             const std::function<void(std::size_t, StatusOr<BindOutcome>)>& done,
             const std::function<bool()>& may_send = {});

// Evicts a pod through the policy/v1 Eviction subresource, honouring PodDisruptionBudgets: when
// a budget forbids it the result is RESOURCE_EXHAUSTED with the server's reason (not retried
// here: the evictor decides when to try again). A pod already gone is OK. With `dry_run`, the API
// server checks everything (budgets included) and evicts nothing. A non-empty `uid` is a
// precondition: a pod of the same name that replaced the one decided for (a job controller may
// recreate its pods at once) is not evicted, and that is OK too, as the pod decided for is gone.
Status Evict(ApiClient& api, std::string_view namespace_name, std::string_view pod_name,
             std::string_view uid, std::int64_t grace_period_seconds, bool dry_run = false);

// Whether the pod `uid` is gone: no pod of that name, or one with another uid. An API error reads
// as false (not known to be gone).
bool PodGoneOrReplaced(ApiClient& api, std::string_view namespace_name, std::string_view pod_name,
                       std::string_view uid);

// Replaces the whole status of the custom resource `meta` (of `api_version` and `kind`, at `path`)
// with `status_json` (a JSON object) in one PUT of `path` + "/status", on condition that the
// object is still at meta.resource_version: the body is only the object's identity and its new
// status, as the status subresource of a custom resource ignores everything but the status.
// ABORTED (409) when the object changed since; NOT_FOUND when it is gone. For a status that is
// wholly the caller's; one that others write too needs UpdateStatus.
Status ReplaceStatusAt(ApiClient& api, std::string_view path, std::string_view api_version,
                       std::string_view kind, const ObjectMeta& meta, std::string_view status_json);
// A strategic-merge patch of the pod's status subresource (a condition, nominatedNodeName), as a
// request for ApiClient::Expect2xx or Expect2xxAll.
HttpRequest PodStatusPatchRequest(std::string_view namespace_name, std::string_view pod_name,
                                  std::string patch);

// The request ReplaceStatusAt sends, for a caller that sends many at once.
HttpRequest ReplaceStatusRequest(std::string_view path, std::string_view api_version,
                                 std::string_view kind, const ObjectMeta& meta,
                                 std::string_view status_json);

// Reads the object at `path`, lets `mutate` turn its JSON into the new object's JSON (keeping
// metadata.resourceVersion, which makes the write conditional), and PUTs it to `path` +
// "/status". On a conflict it reads again and retries, up to `max_attempts` times in all.
// `mutate` may return the input unchanged: then nothing is written.
Status UpdateStatus(ApiClient& api, std::string_view path,
                    const std::function<StatusOr<std::string>(const std::string&)>& mutate,
                    int max_attempts = 5);

}  // namespace arbiter::k8s
