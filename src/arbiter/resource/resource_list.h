// ResourceList: amounts of named resources in canonical units (resource_name.h), as used for a
// pod's requests, a node's allocatable, a queue's capability or a job's allocation.
//
// A resource is either present (with an amount >= 0, possibly 0) or absent. What an absent
// resource means depends on the list's role and is always spelled out by the caller through
// `Missing`: absent from a capability means unlimited, absent from a node's allocatable or from a
// guarantee means zero. Amounts never go negative: Subtract refuses to underflow.
//
// All arithmetic is overflow-checked; an operation that would overflow or underflow returns an
// error naming the resource and leaves the list unchanged.
//
// Entries are kept sorted by name, so iteration, printing and equality are deterministic.
// Thread safety: a value type.
//
//   ARBITER_ASSIGN_OR_RETURN(ResourceList req, ResourceList::Parse({{"cpu", "500m"}}));
//   if (req.FitsIn(node_free)) ...
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/base/interned.h"
#include "arbiter/base/status.h"

namespace arbiter {

// How a resource absent from a list counts in a comparison with another list.
enum class Missing : std::uint8_t {
  kZero,       // absent means none: allocatable, guarantee, requests
  kUnlimited,  // absent means no bound: capability
};

// The name is interned (base/interned.h): every pod, node and queue names the same few resources,
// and some names (`ephemeral-storage`, `hugepages-1Gi` on every node) are longer than the 15
// characters a std::string keeps inline. An entry is 16 bytes instead of 40.
struct ResourceEntry {
  InternedString name;
  std::int64_t amount = 0;
  friend bool operator==(const ResourceEntry&, const ResourceEntry&) = default;
};

// The largest share one resource of a list takes of a total (DRF's dominant share).
struct DominantShare {
  double share = 0;      // in [0, +inf); 1 means all of the total
  std::string resource;  // which resource dominates; empty when the list is all zero
};

class ResourceList {
 public:
  ResourceList() = default;
  // Canonical amounts; CHECKs that each is >= 0 and names are unique (for tests and constants).
  ResourceList(std::initializer_list<std::pair<std::string_view, std::int64_t>> amounts);

  // Parses Kubernetes quantities ({"cpu", "500m"}, {"memory", "1Gi"}) into canonical units.
  // Errors name the resource and the text: malformed, negative, too large, or a duplicate name.
  static StatusOr<ResourceList> Parse(
      const std::vector<std::pair<std::string, std::string>>& quantities);

  bool Has(std::string_view name) const;
  std::optional<std::int64_t> Find(std::string_view name) const;
  // The amount, or 0 when absent.
  std::int64_t Get(std::string_view name) const;
  // Sets (adding if absent); CHECKs amount >= 0.
  void Set(std::string_view name, std::int64_t amount);
  void Erase(std::string_view name);
  // Room for n resources in all, so that the Sets that follow allocate once (a decoder knows
  // how many it has read before it sets them).
  void Reserve(std::size_t n) { entries_.reserve(n); }

  const std::vector<ResourceEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  // True when every present amount is 0 (or nothing is present).
  bool IsZero() const;

  // this += other, per resource (absent counts as 0). Fails, unchanged, on overflow.
  [[nodiscard]] Status Add(const ResourceList& other);
  // this -= other, per resource. Fails, unchanged, if any amount would go below zero (including
  // a resource of `other` that this list lacks) and says which resource and by how much.
  [[nodiscard]] Status Subtract(const ResourceList& other);

  // True when every amount of this list is <= the same resource in `limit`; a resource absent
  // from `limit` counts as `missing_in_limit` says; one absent from this list counts as 0.
  bool LessEqual(const ResourceList& limit, Missing missing_in_limit) const;
  // A request fits into what is free when it needs nothing the free list lacks:
  // LessEqual(available, Missing::kZero).
  bool FitsIn(const ResourceList& available) const;
  // The resources of this request that do not fit into `available`, by name.
  std::vector<std::string> Shortfalls(const ResourceList& available) const;

  // Per resource, the larger amount (absent counts as 0); present in the result if in either.
  static ResourceList Max(const ResourceList& a, const ResourceList& b);
  // Per resource, the smaller amount, with absent counted as `missing` says: with kZero the
  // result has only resources present in both; with kUnlimited, a resource present in one list
  // only takes that list's amount.
  static ResourceList Min(const ResourceList& a, const ResourceList& b, Missing missing);

  // max over present resources r of amount(r) / total(r). A resource whose total is 0 (or absent)
  // counts as share 1 when this list has any of it, else 0; ties go to the smaller name.
  DominantShare Dominant(const ResourceList& total) const;

  // "cpu=1500m,memory=1Gi,pods=3", each amount printed as Kubernetes prints that resource.
  std::string ToString() const;

  friend bool operator==(const ResourceList&, const ResourceList&) = default;

 private:
  std::vector<ResourceEntry>::iterator LowerBound(std::string_view name);
  std::vector<ResourceEntry>::const_iterator LowerBound(std::string_view name) const;

  std::vector<ResourceEntry> entries_;  // sorted by name, names unique
};

std::ostream& operator<<(std::ostream& os, const ResourceList& list);

}  // namespace arbiter
