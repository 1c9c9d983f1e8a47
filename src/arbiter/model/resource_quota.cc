#include "arbiter/model/resource_quota.h"

#include <algorithm>
#include <string>

namespace arbiter {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";

// The resource whose requests a quota key limits ("requests.cpu" and "cpu" -> "cpu", "pods"), or
// empty for keys that limit something else (limits.*, count/*, services...).
std::string_view RequestedResource(std::string_view key) {
  if (key.starts_with(kRequestsPrefix)) return key.substr(kRequestsPrefix.size());
  if (key == "cpu" || key == "memory" || key == "ephemeral-storage" || key == "pods") return key;
  if (key.starts_with("hugepages-")) return key;
  return {};
}

}  // namespace

std::string_view QuotaQueueOf(const ResourceQuota& quota) {
  auto it = quota.meta.annotations.find(kQuotaQueueAnnotation);
  return it == quota.meta.annotations.end() ? std::string_view() : std::string_view(it->second);
}

std::optional<ResourceList> QuotaCap(std::span<const ResourceQuota* const> quotas) {
  if (quotas.empty()) return std::nullopt;
  ResourceList cap;
  for (const ResourceQuota* quota : quotas) {
    for (const ResourceEntry& e : quota->spec_hard.entries()) {
      const std::string_view resource = RequestedResource(e.name);
      if (resource.empty()) continue;
      const std::int64_t taken = std::min(e.amount, quota->status_hard.Find(e.name).value_or(0));
      const std::optional<std::int64_t> before = cap.Find(resource);
      cap.Set(resource, before ? std::min(*before, taken) : taken);
    }
  }
  return cap;
}

}  // namespace arbiter
