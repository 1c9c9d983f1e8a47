// StrongId<Tag, Rep>: an identifier whose type says what it names, so a NodeId can never be
// passed where a JobId is expected (STYLE.md §6). It is a thin value around Rep (a string for
// names and uids, an integer for interned indexes), ordered and hashable like Rep.
//
//   struct NodeTag {};
//   using NodeId = StrongId<NodeTag>;
//   NodeId id("node-1");
//   std::unordered_map<NodeId, int> counts;  // std::hash is provided
//
// Thread safety: a value type.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <utility>

namespace arbiter {

template <typename Tag, typename Rep = std::string>
class StrongId {
 public:
  using RepType = Rep;

  StrongId() = default;
  explicit StrongId(Rep value) : value_(std::move(value)) {}

  const Rep& value() const { return value_; }

  friend auto operator<=>(const StrongId&, const StrongId&) = default;
  friend bool operator==(const StrongId&, const StrongId&) = default;

  friend std::ostream& operator<<(std::ostream& os, const StrongId& id) { return os << id.value_; }

 private:
  Rep value_{};
};

}  // namespace arbiter

template <typename Tag, typename Rep>
struct std::hash<arbiter::StrongId<Tag, Rep>> {
  std::size_t operator()(const arbiter::StrongId<Tag, Rep>& id) const noexcept {
    return std::hash<Rep>{}(id.value());
  }
};
