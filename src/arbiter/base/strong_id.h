// StrongIndex<Tag>: a position in one vector, whose type says which vector, so that a node's
// index can never be passed where a job's is expected (STYLE.md §6). It is an int32 underneath,
// as cheap to copy and compare as one; a negative value means "none" where a type says so.
//
//   using NodeIndex = StrongIndex<struct NodeIndexTag>;
//   for (NodeIndex n : NodeIndex::Range(node_count)) use(nodes[n.pos()]);
//
// Thread safety: a value type.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

namespace arbiter {

template <typename Tag>
class StrongIndex {
 public:
  constexpr StrongIndex() = default;
  constexpr explicit StrongIndex(std::int32_t value) : value_(value) {}
  // From a position or a difference of iterators: the caller knows it fits in an int32.
  template <typename Integer>
  static constexpr StrongIndex Of(Integer value) {
    return StrongIndex(static_cast<std::int32_t>(value));
  }

  constexpr std::int32_t value() const { return value_; }
  // The position, for indexing a vector; the index must not be negative.
  constexpr std::size_t pos() const { return static_cast<std::size_t>(value_); }

  constexpr StrongIndex& operator++() {
    ++value_;
    return *this;
  }
  friend constexpr auto operator<=>(StrongIndex, StrongIndex) = default;
  friend constexpr bool operator==(StrongIndex, StrongIndex) = default;
  friend std::ostream& operator<<(std::ostream& os, StrongIndex i) { return os << i.value_; }

  // The indexes 0 .. count-1, for a range-for.
  class Iterator {
   public:
    constexpr explicit Iterator(std::int32_t v) : v_(v) {}
    constexpr StrongIndex operator*() const { return StrongIndex(v_); }
    constexpr Iterator& operator++() {
      ++v_;
      return *this;
    }
    friend constexpr bool operator==(Iterator, Iterator) = default;

   private:
    std::int32_t v_;
  };
  struct Indexes {
    std::int32_t count;
    constexpr Iterator begin() const { return Iterator(0); }
    constexpr Iterator end() const { return Iterator(count); }
  };
  static constexpr Indexes Range(std::int32_t count) { return Indexes{count}; }
  static constexpr Indexes Range(std::size_t count) {
    return Indexes{static_cast<std::int32_t>(count)};
  }

 private:
  std::int32_t value_ = 0;
};

}  // namespace arbiter

template <typename Tag>
struct std::hash<arbiter::StrongIndex<Tag>> {
  std::size_t operator()(arbiter::StrongIndex<Tag> i) const noexcept {
    return std::hash<std::int32_t>{}(i.value());
  }
};
