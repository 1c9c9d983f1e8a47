#include "arbiter/resource/resource_name.h"

#include <string>

namespace arbiter {

namespace {

// The resource a ResourceQuota key limits, whose unit the key counts in: "requests.cpu" and
// "limits.cpu" limit cpu; "gold.storageclass.storage.k8s.io/requests.storage" limits storage.
// A key that limits no resource ("pods", "count/jobs.batch", "services.loadbalancers") is
// returned as is, and counts objects.
std::string_view QuotaResource(std::string_view key) {
  constexpr std::string_view kStorageClassInfix = ".storageclass.storage.k8s.io/";
  if (std::size_t infix = key.find(kStorageClassInfix); infix != std::string_view::npos) {
    key.remove_prefix(infix + kStorageClassInfix.size());
  }
  for (std::string_view prefix : {"requests.", "limits."}) {
    if (key.starts_with(prefix)) return key.substr(prefix.size());
  }
  return key;
}

}  // namespace

ResourceUnit UnitOf(std::string_view resource_name) {
  std::string_view resource = QuotaResource(resource_name);
  if (resource == kResourceCpu) return ResourceUnit::kMilli;
  if (resource == kResourceMemory || resource == kResourceEphemeralStorage ||
      resource == kResourceStorage || resource.starts_with("hugepages-")) {
    return ResourceUnit::kBytes;
  }
  return ResourceUnit::kCount;
}

StatusOr<std::int64_t> ToCanonical(std::string_view resource_name, const Quantity& quantity) {
  if (quantity.Sign() < 0) {
    return InvalidArgumentError("resource " + std::string(resource_name) + ": negative quantity " +
                                quantity.ToString());
  }
  StatusOr<std::int64_t> value =
      UnitOf(resource_name) == ResourceUnit::kMilli ? quantity.MilliValue() : quantity.Value();
  if (!value.ok()) return value.status().WithContext("resource " + std::string(resource_name));
  return value;
}

Quantity FromCanonical(std::string_view resource_name, std::int64_t amount) {
  switch (UnitOf(resource_name)) {
    case ResourceUnit::kMilli:
      return Quantity::FromMilli(amount, QuantityFormat::kDecimalSI);
    case ResourceUnit::kBytes:
      return Quantity::FromInt64(amount, QuantityFormat::kBinarySI);
    case ResourceUnit::kCount:
      return Quantity::FromInt64(amount, QuantityFormat::kDecimalSI);
  }
  return Quantity::FromInt64(amount, QuantityFormat::kDecimalSI);
}

}  // namespace arbiter
