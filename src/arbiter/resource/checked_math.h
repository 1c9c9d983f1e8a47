// Overflow-checked int64 arithmetic for resource amounts: every sum, difference and product of
// canonical resource values goes through these, so an overflow is reported, never wrapped.
#pragma once

#include <cstdint>
#include <optional>

namespace arbiter {

inline std::optional<std::int64_t> CheckedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> CheckedSub(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> CheckedMul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace arbiter
