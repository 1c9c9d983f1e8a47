// What the scheduler checks and creates on the API server before it schedules:
//   * the arbiter.dev/v1alpha1 API (the PodGroup and Queue CRDs of deploy/crds/) must be served,
//     else nothing can work: fail at once with a message saying how to install them;
//   * the Queue "default" must exist (pods without a group, and groups that name no queue, draw
//     from it; ARCHITECTURE.md §2): create it if missing, with weight 1.
//
// Thread safety: reentrant (as ApiClient).
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/k8s/api_client.h"

namespace arbiter::runtime {

// The arbiter.dev resources each daemon needs.
inline constexpr std::array<std::string_view, 2> kSchedulerCrds = {"podgroups", "queues"};
inline constexpr std::array<std::string_view, 3> kControllerCrds = {"podgroups", "batchjobs",
                                                                    "queues"};

// OK when the API server serves `resources` in arbiter.dev/v1alpha1; FAILED_PRECONDITION naming
// what is missing and how to install it; the API error when the server cannot be asked.
Status CheckCrdsInstalled(k8s::ApiClient& api,
                          std::span<const std::string_view> resources = kSchedulerCrds);
// CheckCrdsInstalled, again every second for up to 30 s: CRDs applied just before a daemon starts
// take a few seconds to be served.
Status WaitForCrds(k8s::ApiClient& api,
                   std::span<const std::string_view> resources = kSchedulerCrds);

// Creates the cluster-scoped Queue "default" (spec.weight 1) unless it exists; OK either way.
Status EnsureDefaultQueue(k8s::ApiClient& api);

}  // namespace arbiter::runtime
