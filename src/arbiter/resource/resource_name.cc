#include "arbiter/resource/resource_name.h"

#include <string>

namespace arbiter {

ResourceUnit UnitOf(std::string_view resource_name) {
  if (resource_name == kResourceCpu) return ResourceUnit::kMilli;
  if (resource_name == kResourceMemory || resource_name == kResourceEphemeralStorage ||
      resource_name.starts_with("hugepages-")) {
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
