// Resource names and their canonical units. Arbiter stores every resource amount as an int64 in
// its canonical unit (ARCHITECTURE.md §3): CPU in millicores, memory, ephemeral storage and
// hugepages in bytes, pods and extended resources (nvidia.com/gpu, ...) in whole units.
#pragma once

#include <cstdint>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/resource/quantity.h"

namespace arbiter {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";

enum class ResourceUnit : std::uint8_t {
  kMilli,  // thousandths of the quantity (cpu)
  kBytes,  // memory, storage, hugepages
  kCount,  // pods, extended resources
};

ResourceUnit UnitOf(std::string_view resource_name);

// The quantity in the resource's canonical unit, rounded up as Kubernetes rounds (so "1n" of CPU
// is 1 millicore, as the kubelet would count it). Errors name the resource: a negative amount, or
// one that does not fit in int64.
StatusOr<std::int64_t> ToCanonical(std::string_view resource_name, const Quantity& quantity);

// The canonical amount back as a quantity in the format Kubernetes prints it with: "1500m" of
// CPU, "1Gi" of memory, "3" pods.
Quantity FromCanonical(std::string_view resource_name, std::int64_t amount);

}  // namespace arbiter
