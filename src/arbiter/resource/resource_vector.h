// ResourceSpace and ResourceVector: resource amounts as dense int64 vectors indexed by an interned
// resource id, for the scheduling hot path (filter and score run per pod per node, where a
// string-keyed ResourceList costs a lookup per resource).
//
// A ResourceSpace interns resource names; cpu, memory, pods and ephemeral-storage always have the
// ids 0..3, so the common resources need no lookup. A space only grows: ids never change, so a
// vector made with a smaller space stays valid (resources it lacks read as 0).
//
// Amounts are canonical units (resource_name.h), never negative. Sums saturate at INT64_MAX
// instead of wrapping: a saturated amount never fits anywhere, which is the safe reading of an
// absurd request, and the inputs were already checked for overflow when parsed.
//
// Thread safety: value types; a ResourceSpace is not synchronised (the cache owns one and copies
// it into each snapshot).
//
//   ResourceSpace space;
//   ResourceVector request = space.FromList(pod_request);
//   if (request.FitsIn(node_free)) ...
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// GCC 12 warns, after inlining, that moving an inline small_vector may read past its inline
// buffer (-Wstringop-overread): it cannot see that the size is at most the capacity. The
// pragma covers the library's own lines only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "arbiter/resource/resource_list.h"

namespace arbiter {

using ResourceId = std::uint16_t;

inline constexpr ResourceId kCpuId = 0;
inline constexpr ResourceId kMemoryId = 1;
inline constexpr ResourceId kPodsId = 2;
inline constexpr ResourceId kEphemeralStorageId = 3;

class ResourceVector {
 public:
  ResourceVector() = default;
  explicit ResourceVector(std::size_t size) : amounts_(size, 0) {}

  std::int64_t Get(ResourceId id) const { return id < amounts_.size() ? amounts_[id] : 0; }
  void Set(ResourceId id, std::int64_t amount);
  std::size_t size() const { return amounts_.size(); }
  bool IsZero() const;

  // Saturating per-resource sum; this -= other clamps at 0 (and CHECKs in debug builds that it
  // never had to: subtracting more than was added is a bookkeeping bug).
  void Add(const ResourceVector& other);
  void Subtract(const ResourceVector& other);

  // Every amount of this vector <= the same resource in `available` (absent: 0).
  bool FitsIn(const ResourceVector& available) const;
  // The first resource of this request that `available` cannot hold, or nullopt when it fits.
  std::optional<ResourceId> FirstShortfall(const ResourceVector& available) const;
  // Per resource, the smaller amount (absent: 0).
  static ResourceVector Min(const ResourceVector& a, const ResourceVector& b);
  std::span<const std::int64_t> amounts() const { return {amounts_.data(), amounts_.size()}; }

  friend bool operator==(const ResourceVector& a, const ResourceVector& b);

  // cpu, memory, pods, ephemeral-storage and two more (a GPU, hugepages) stay inline: a
  // snapshot copies one vector per node and per task, and a heap block each was a third of its
  // allocations.
  static constexpr std::size_t kInline = 6;

 private:
  boost::container::small_vector<std::int64_t, kInline> amounts_;
};

class ResourceSpace {
 public:
  ResourceSpace();

  ResourceId Intern(std::string_view name);
  std::optional<ResourceId> Find(std::string_view name) const;
  const std::string& Name(ResourceId id) const { return names_.at(id); }
  std::size_t size() const { return names_.size(); }

  // Interns every name of the list.
  ResourceVector FromList(const ResourceList& list);
  // Only the resources of `vector` that are non-zero, or all of them with `keep_zero`.
  ResourceList ToList(const ResourceVector& vector, bool keep_zero = false) const;
  // "cpu=1500m,memory=1Gi" for messages: the non-zero resources, in Kubernetes notation.
  std::string Format(const ResourceVector& vector) const;
  // One resource amount in Kubernetes notation: "1500m", "2Gi", "3".
  std::string FormatAmount(ResourceId id, std::int64_t amount) const;

 private:
  std::vector<std::string> names_;
  std::map<std::string, ResourceId, std::less<>> ids_;
};

}  // namespace arbiter
