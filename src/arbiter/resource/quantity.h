// Quantity: a Kubernetes resource quantity ("500m", "1.5Gi", "2e3"), parsed and printed exactly as
// k8s.io/apimachinery/pkg/api/resource does at the release our local cluster pins (v0.36.x), so
// that Arbiter reads every request, limit and capacity to the same value as the API server (R6).
//
// Grammar (apimachinery's scanner, which is laxer than its doc comment):
//   [+-] digits [. digits] suffix, where the number may be "5", "5.", ".5" or "." (zero), and
//   suffix is "" | n u m k M G T P E (decimal SI) | Ki Mi Gi Ti Pi Ei (binary SI) | e<int> |
//   E<int>.
// A value is kept exactly down to nano (1e-9); anything finer rounds away from zero ("0.9n" is
// 1n). A binary-SI value is capped at 2^63-1, as upstream does; decimal values are not capped.
//
// Deliberate deviations from v0.36.x, each a place where upstream is wrong or later fixed:
//   * an exponent outside ±(2^31-1) is rejected (v0.36 silently truncated it to 32 bits; later
//     upstream rejects it too), so "1e4294967297" is an error, not 10;
//   * a decimal-SI value whose canonical exponent exceeds 18 prints as "1e21" (later upstream),
//     not as "1" (v0.36 dropped the magnitude);
//   * exponent arithmetic never wraps ("1.55e-2147483647" is 1n, not a huge number), and a value
//     of 10^(2^31) or more ("10e2147483647") is rejected, so every value prints re-parseably;
//   * the int accessors (Value, MilliValue, ScaledValue) report overflow instead of wrapping;
//   * ParseJson trims ASCII white space only (Go trims all Unicode spaces).
// See docs/quantities.md for the user-facing account.
//
// Representation: sign, significant decimal digits (no leading or trailing zeros) and a base-10
// exponent, so pathological inputs ("1e-2147483647", "2E6024865272343") cost time and memory in
// proportion to their length, never to their magnitude.
//
// Thread safety: an immutable value after construction.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"

namespace arbiter {

enum class QuantityFormat : std::uint8_t {
  kDecimalSI,        // 12M = 12 * 10^6
  kBinarySI,         // 12Mi = 12 * 2^20
  kDecimalExponent,  // 12e6
};

std::string_view QuantityFormatName(QuantityFormat format);

class Quantity {
 public:
  // Zero, decimal SI.
  Quantity() = default;

  // Parses `text` as apimachinery's ParseQuantity does. The error names the text and what is
  // wrong with it.
  static StatusOr<Quantity> Parse(std::string_view text);

  // Parses a quantity as found in JSON, as apimachinery's UnmarshalJSON does: `null` is zero,
  // surrounding double quotes are removed, and so is white space around the number, so both
  // "\"1Gi\"" and the bare number "2" are accepted.
  static StatusOr<Quantity> ParseJson(std::string_view json);

  // value * 10^scale, in the given format (as NewQuantity, NewMilliQuantity, NewScaledQuantity).
  static Quantity FromInt64(std::int64_t value, QuantityFormat format);
  static Quantity FromMilli(std::int64_t milli_value, QuantityFormat format);
  static Quantity FromScaled(std::int64_t value, std::int32_t scale, QuantityFormat format);

  // What apimachinery's String() returns: the parsed text itself when upstream remembers it
  // (it does for some already-canonical inputs, sign and leading zeros included: "+1Ki" prints
  // as "+1Ki"), else CanonicalString().
  std::string ToString() const;

  // The canonical form: no fractional digits, the largest suffix that loses nothing, a sign only
  // when negative ("1.5" -> "1500m", "1.5Gi" -> "1536Mi", "1000M" -> "1G").
  std::string CanonicalString() const;

  // ceil(value / 10^scale), rounding away from zero, as apimachinery's ScaledValue; an error
  // (OUT_OF_RANGE, naming the quantity) when the result does not fit in int64.
  StatusOr<std::int64_t> ScaledValue(std::int32_t scale) const;
  // ScaledValue(0): whole units, e.g. bytes.
  StatusOr<std::int64_t> Value() const { return ScaledValue(0); }
  // ScaledValue(-3): thousandths, e.g. millicores ("0.1" -> 100, "1n" -> 1).
  StatusOr<std::int64_t> MilliValue() const { return ScaledValue(-3); }

  QuantityFormat format() const { return format_; }
  bool IsZero() const { return digits_.empty(); }
  int Sign() const { return IsZero() ? 0 : (negative_ ? -1 : 1); }

  // Compares values (not formats): -1, 0 or 1, as apimachinery's Cmp.
  int Compare(const Quantity& other) const;

  // Equal values (formats and remembered text are ignored), as apimachinery's Equal.
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.Compare(b) == 0; }

 private:
  void Normalize();
  void RoundToNano();

  bool negative_ = false;
  std::string digits_;         // significant digits; empty means zero
  std::int64_t exponent_ = 0;  // value = digits_ * 10^exponent_
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
  std::string remembered_;  // the parsed text when apimachinery would keep it for String()
};

std::ostream& operator<<(std::ostream& os, const Quantity& q);

}  // namespace arbiter
