#include "arbiter/resource/resource_list.h"

#include <algorithm>

#include "arbiter/base/check.h"
#include "arbiter/resource/checked_math.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter {
namespace {

// Walks two sorted entry lists together, calling fn(name, a_amount*, b_amount*) for every name in
// either; a pointer is null where that list lacks the resource.
template <typename Fn>
void MergeWalk(const std::vector<ResourceEntry>& a, const std::vector<ResourceEntry>& b, Fn fn) {
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->name < ib->name)) {
      fn(ia->name, &ia->amount, nullptr);
      ++ia;
    } else if (ia == a.end() || ib->name < ia->name) {
      fn(ib->name, nullptr, &ib->amount);
      ++ib;
    } else {
      fn(ia->name, &ia->amount, &ib->amount);
      ++ia;
      ++ib;
    }
  }
}

std::string Amount(std::string_view name, std::int64_t amount) {
  return FromCanonical(name, amount).ToString();
}

}  // namespace

ResourceList::ResourceList(
    std::initializer_list<std::pair<std::string_view, std::int64_t>> amounts) {
  for (const auto& [name, amount] : amounts) {
    ARBITER_CHECK(!Has(name)) << "duplicate resource " << name;
    Set(name, amount);
  }
}

StatusOr<ResourceList> ResourceList::Parse(
    const std::vector<std::pair<std::string, std::string>>& quantities) {
  ResourceList list;
  for (const auto& [name, text] : quantities) {
    if (name.empty()) return InvalidArgumentError("resource with an empty name");
    if (list.Has(name)) return InvalidArgumentError("resource " + name + ": listed twice");
    StatusOr<Quantity> quantity = Quantity::Parse(text);
    if (!quantity.ok()) return quantity.status().WithContext("resource " + name);
    ARBITER_ASSIGN_OR_RETURN(std::int64_t amount, ToCanonical(name, *quantity));
    list.Set(name, amount);
  }
  return list;
}

std::vector<ResourceEntry>::iterator ResourceList::LowerBound(std::string_view name) {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const ResourceEntry& e, std::string_view n) { return e.name < n; });
}

std::vector<ResourceEntry>::const_iterator ResourceList::LowerBound(std::string_view name) const {
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const ResourceEntry& e, std::string_view n) { return e.name < n; });
}

bool ResourceList::Has(std::string_view name) const { return Find(name).has_value(); }

std::optional<std::int64_t> ResourceList::Find(std::string_view name) const {
  auto it = LowerBound(name);
  if (it == entries_.end() || it->name != name) return std::nullopt;
  return it->amount;
}

std::int64_t ResourceList::Get(std::string_view name) const { return Find(name).value_or(0); }

void ResourceList::Set(std::string_view name, std::int64_t amount) {
  ARBITER_CHECK_GE(amount, 0) << "resource " << name;
  auto it = LowerBound(name);
  if (it != entries_.end() && it->name == name) {
    it->amount = amount;
  } else {
    entries_.insert(it, ResourceEntry{InternedString(name), amount});
  }
}

void ResourceList::Erase(std::string_view name) {
  auto it = LowerBound(name);
  if (it != entries_.end() && it->name == name) entries_.erase(it);
}

bool ResourceList::IsZero() const {
  return std::all_of(entries_.begin(), entries_.end(),
                     [](const ResourceEntry& e) { return e.amount == 0; });
}

Status ResourceList::Add(const ResourceList& other) {
  std::vector<ResourceEntry> result;
  result.reserve(entries_.size() + other.entries_.size());
  Status status;
  MergeWalk(entries_, other.entries_,
            [&](const InternedString& name, const std::int64_t* a, const std::int64_t* b) {
              std::optional<std::int64_t> sum = CheckedAdd(a ? *a : 0, b ? *b : 0);
              if (!sum && status.ok()) {
                status =
                    OutOfRangeError("resource " + name.str() + ": " + std::to_string(a ? *a : 0) +
                                    " + " + std::to_string(b ? *b : 0) + " overflows int64");
              }
              result.push_back({name, sum.value_or(0)});
            });
  if (status.ok()) entries_ = std::move(result);
  return status;
}

Status ResourceList::Subtract(const ResourceList& other) {
  std::vector<ResourceEntry> result;
  result.reserve(entries_.size());
  Status status;
  MergeWalk(entries_, other.entries_,
            [&](const InternedString& name, const std::int64_t* a, const std::int64_t* b) {
              std::int64_t have = a ? *a : 0;
              std::int64_t take = b ? *b : 0;
              if (take > have && status.ok()) {
                status =
                    FailedPreconditionError("resource " + name.str() + ": cannot subtract " +
                                            Amount(name, take) + " from " + Amount(name, have) +
                                            " (short by " + Amount(name, take - have) + ")");
              }
              if (a != nullptr || take != 0) result.push_back({name, have - take});
            });
  if (status.ok()) entries_ = std::move(result);
  return status;
}

bool ResourceList::LessEqual(const ResourceList& limit, Missing missing_in_limit) const {
  bool ok = true;
  MergeWalk(entries_, limit.entries_,
            [&](const InternedString&, const std::int64_t* a, const std::int64_t* b) {
              if (a == nullptr) return;
              if (b == nullptr) {
                if (missing_in_limit == Missing::kZero && *a > 0) ok = false;
              } else if (*a > *b) {
                ok = false;
              }
            });
  return ok;
}

bool ResourceList::FitsIn(const ResourceList& available) const {
  return LessEqual(available, Missing::kZero);
}

std::vector<std::string> ResourceList::Shortfalls(const ResourceList& available) const {
  std::vector<std::string> names;
  for (const ResourceEntry& e : entries_) {
    if (e.amount > available.Get(e.name)) names.push_back(e.name.str());
  }
  return names;
}

ResourceList ResourceList::Max(const ResourceList& a, const ResourceList& b) {
  ResourceList out;
  MergeWalk(a.entries_, b.entries_,
            [&](const InternedString& name, const std::int64_t* x, const std::int64_t* y) {
              out.entries_.push_back({name, std::max(x ? *x : 0, y ? *y : 0)});
            });
  return out;
}

ResourceList ResourceList::Min(const ResourceList& a, const ResourceList& b, Missing missing) {
  ResourceList out;
  MergeWalk(a.entries_, b.entries_,
            [&](const InternedString& name, const std::int64_t* x, const std::int64_t* y) {
              if (x != nullptr && y != nullptr) {
                out.entries_.push_back({name, std::min(*x, *y)});
              } else if (missing == Missing::kUnlimited) {
                out.entries_.push_back({name, x ? *x : *y});
              }
            });
  return out;
}

DominantShare ResourceList::Dominant(const ResourceList& total) const {
  DominantShare best;
  for (const ResourceEntry& e : entries_) {
    if (e.amount == 0) continue;
    std::int64_t t = total.Get(e.name);
    double share = t == 0 ? 1.0 : static_cast<double>(e.amount) / static_cast<double>(t);
    if (best.resource.empty() || share > best.share) best = {share, e.name.str()};
  }
  return best;
}

std::string ResourceList::ToString() const {
  std::string out;
  for (const ResourceEntry& e : entries_) {
    if (!out.empty()) out += ',';
    out += e.name.view();
    out += '=';
    out += Amount(e.name, e.amount);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const ResourceList& list) {
  return os << "{" << list.ToString() << "}";
}

}  // namespace arbiter
