// The validating webhook's protocol: an admission.k8s.io/v1 AdmissionReview in, the same with its
// response out, the decision made by the rules of webhook/rules.h.
//
// Objects are decoded with the model's decoders: one that does not decode is refused with the
// decoder's message (it names the object and the field). An update that leaves the spec as it was
// (metadata, a finalizer) is always allowed, so that objects created before the webhook ran can
// still be finalized and deleted. Kinds and operations the rules do not cover are allowed.
//
// Pure apart from the `context` callback. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/webhook/rules.h"

namespace arbiter::webhook {

// Where a context comes from: what the controller's watches observed, or read again from the API
// server. The watches lag the API server: a manifest that creates a queue and then a child of it
// (or a job in it) reaches the webhook before the watch delivers the first, so a request that
// the cached context refuses is decided again on a fresh one before it is refused.
enum class Freshness : std::uint8_t { kCached, kFromServer };

// What the rules of one request need of the cluster; `kind` is the request's kind ("Queue",
// "PodGroup", "BatchJob", "Pod") and `operation` its operation ("CREATE", "UPDATE", "DELETE").
using ContextSource =
    std::function<AdmissionContext(std::string_view kind, std::string_view operation, Freshness)>;

// The AdmissionReview response for the AdmissionReview request `body`; INVALID_ARGUMENT when
// `body` is not one (the server answers 400).
StatusOr<std::string> Review(std::string_view body, const ContextSource& context);

}  // namespace arbiter::webhook
