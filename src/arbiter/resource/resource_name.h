// Resource names and their canonical units. Arbiter stores every resource amount as an int64 in
// its canonical unit (ARCHITECTURE.md §3): CPU in millicores, memory, storage, ephemeral storage
// and hugepages in bytes, pods and extended resources (nvidia.com/gpu, ...) in whole units.
// ResourceQuota keys count in the unit of the resource they limit ("requests.cpu" in millicores,
// "limits.memory" in bytes); object counts ("pods", "count/jobs.batch") in whole units.
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
inline constexpr std::string_view kResourceStorage = "storage";  // a volume's size (PVCs, quota)

enum class ResourceUnit : std::uint8_t {
  kMilli,  // thousandths of the quantity (cpu)
  kBytes,  // memory, storage, hugepages
  kCount,  // pods, extended resources
};

// The unit `resource_name` is counted in. A ResourceQuota key counts in its resource's unit: the
// prefixes "requests." and "limits." (also after "<class>.storageclass.storage.k8s.io/") are
// looked through, so "requests.cpu" and "limits.cpu" are kMilli, "requests.memory",
// "limits.ephemeral-storage", "requests.storage" and "requests.hugepages-2Mi" are kBytes, and
// "requests.nvidia.com/gpu", "pods" and "count/pods" are kCount. Any name not known to count
// millicores or bytes is kCount.
ResourceUnit UnitOf(std::string_view resource_name);

// The quantity in the resource's canonical unit, rounded up as Kubernetes rounds (so "1n" of CPU
// is 1 millicore, as the kubelet would count it). Errors name the resource: a negative amount, or
// one that does not fit in int64.
StatusOr<std::int64_t> ToCanonical(std::string_view resource_name, const Quantity& quantity);

// The canonical amount back as a quantity in the format Kubernetes prints it with: "1500m" of
// CPU, "1Gi" of memory, "3" pods.
Quantity FromCanonical(std::string_view resource_name, std::int64_t amount);

}  // namespace arbiter
