#include "arbiter/runtime/bootstrap.h"

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "arbiter/base/log.h"
#include "arbiter/model/pod_group.h"

namespace arbiter::runtime {
namespace {

constexpr char kGroupVersionPath[] = "/apis/arbiter.dev/v1alpha1";

Status NotInstalled(const std::string& what) {
  return FailedPreconditionError(
      what +
      ": the arbiter.dev CRDs (PodGroup, Queue) are not installed; apply them with "
      "`kubectl apply -f deploy/crds/` and start the scheduler again");
}

}  // namespace

Status WaitForCrds(k8s::ApiClient& api, std::span<const std::string_view> resources) {
  Status crds = CheckCrdsInstalled(api, resources);
  for (int attempt = 0; !crds.ok() && attempt < 30; ++attempt) {
    if (attempt == 0)
      ARBITER_LOG(kInfo) << "waiting for the arbiter.dev CRDs to be served: " << crds;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    crds = CheckCrdsInstalled(api, resources);
  }
  return crds;
}

Status CheckCrdsInstalled(k8s::ApiClient& api, std::span<const std::string_view> resources) {
  StatusOr<std::string> discovery = api.Get(kGroupVersionPath);
  if (!discovery.ok()) {
    if (discovery.status().code() == StatusCode::kNotFound) {
      return NotInstalled("the API server does not serve arbiter.dev/v1alpha1");
    }
    return discovery.status().WithContext("checking for the arbiter.dev CRDs");
  }
  nlohmann::json list = nlohmann::json::parse(*discovery, nullptr, /*allow_exceptions=*/false);
  std::set<std::string, std::less<>> served;
  if (list.is_object() && list.contains("resources") && list["resources"].is_array()) {
    for (const nlohmann::json& resource : list["resources"]) {
      if (resource.is_object() && resource.contains("name") && resource["name"].is_string()) {
        served.insert(resource["name"].get<std::string>());
      }
    }
  }
  for (std::string_view resource : resources) {
    if (!served.contains(resource)) {
      return NotInstalled("arbiter.dev/v1alpha1 has no resource \"" + std::string(resource) + "\"");
    }
  }
  return Status::Ok();
}

Status EnsureDefaultQueue(k8s::ApiClient& api) {
  const std::string path = std::string(kGroupVersionPath) + "/queues";
  const std::string name(kDefaultQueueName);
  StatusOr<std::string> existing = api.Get(path + "/" + name);
  if (existing.ok()) return Status::Ok();
  if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status().WithContext("reading Queue " + name);
  }
  nlohmann::json queue = {
      {"apiVersion", "arbiter.dev/v1alpha1"},
      {"kind", "Queue"},
      {"metadata", {{"name", name}}},
      {"spec", {{"weight", 1}}},
  };
  StatusOr<std::string> created = api.Create(path, queue.dump());
  if (created.ok() || created.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
  return created.status().WithContext("creating Queue " + name);
}

}  // namespace arbiter::runtime
