#include "arbiter/resource/resource_vector.h"

#include <algorithm>
#include <limits>

#include "arbiter/base/check.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter {

namespace {

std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::numeric_limits<std::int64_t>::max();
  return out;
}

}  // namespace

void ResourceVector::Set(ResourceId id, std::int64_t amount) {
  ARBITER_CHECK_GE(amount, 0);
  if (id >= amounts_.size()) amounts_.resize(static_cast<std::size_t>(id) + 1, 0);
  amounts_[id] = amount;
}

bool ResourceVector::IsZero() const {
  return std::all_of(amounts_.begin(), amounts_.end(), [](std::int64_t a) { return a == 0; });
}

void ResourceVector::Add(const ResourceVector& other) {
  if (other.amounts_.size() > amounts_.size()) amounts_.resize(other.amounts_.size(), 0);
  for (std::size_t i = 0; i < other.amounts_.size(); ++i) {
    amounts_[i] = SaturatingAdd(amounts_[i], other.amounts_[i]);
  }
}

void ResourceVector::Subtract(const ResourceVector& other) {
  if (other.amounts_.size() > amounts_.size()) amounts_.resize(other.amounts_.size(), 0);
  for (std::size_t i = 0; i < other.amounts_.size(); ++i) {
    ARBITER_DCHECK(amounts_[i] >= other.amounts_[i]);
    amounts_[i] = std::max<std::int64_t>(0, amounts_[i] - other.amounts_[i]);
  }
}

bool ResourceVector::FitsIn(const ResourceVector& available) const {
  return !FirstShortfall(available).has_value();
}

std::optional<ResourceId> ResourceVector::FirstShortfall(const ResourceVector& available) const {
  for (std::size_t i = 0; i < amounts_.size(); ++i) {
    if (amounts_[i] > available.Get(static_cast<ResourceId>(i))) {
      return static_cast<ResourceId>(i);
    }
  }
  return std::nullopt;
}

ResourceVector ResourceVector::Min(const ResourceVector& a, const ResourceVector& b) {
  const std::size_t n = std::min(a.size(), b.size());
  ResourceVector out(n);
  for (std::size_t i = 0; i < n; ++i) out.amounts_[i] = std::min(a.amounts_[i], b.amounts_[i]);
  return out;
}

bool operator==(const ResourceVector& a, const ResourceVector& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a.Get(static_cast<ResourceId>(i)) != b.Get(static_cast<ResourceId>(i))) return false;
  }
  return true;
}

ResourceSpace::ResourceSpace() {
  for (std::string_view name :
       {kResourceCpu, kResourceMemory, kResourcePods, kResourceEphemeralStorage}) {
    Intern(name);
  }
}

ResourceId ResourceSpace::Intern(std::string_view name) {
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  ARBITER_CHECK_LT(names_.size(), std::numeric_limits<ResourceId>::max());
  const auto id = static_cast<ResourceId>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(std::string(name), id);
  return id;
}

std::optional<ResourceId> ResourceSpace::Find(std::string_view name) const {
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  return std::nullopt;
}

ResourceVector ResourceSpace::FromList(const ResourceList& list) {
  ResourceVector out;
  for (const ResourceEntry& entry : list.entries()) out.Set(Intern(entry.name), entry.amount);
  return out;
}

ResourceList ResourceSpace::ToList(const ResourceVector& vector, bool keep_zero) const {
  ResourceList out;
  for (std::size_t i = 0; i < vector.size() && i < names_.size(); ++i) {
    const std::int64_t amount = vector.Get(static_cast<ResourceId>(i));
    if (amount != 0 || keep_zero) out.Set(names_[i], amount);
  }
  return out;
}

std::string ResourceSpace::Format(const ResourceVector& vector) const {
  return ToList(vector).ToString();
}

std::string ResourceSpace::FormatAmount(ResourceId id, std::int64_t amount) const {
  return FromCanonical(Name(id), amount).ToString();
}

}  // namespace arbiter
