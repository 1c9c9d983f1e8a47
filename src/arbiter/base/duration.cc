#include "arbiter/base/duration.h"

#include <array>
#include <cstdint>
#include <numeric>

namespace arbiter {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

// A unit of a Go duration and its length in nanoseconds.
struct DurationUnit {
  std::string_view name;
  std::int64_t nanos;
};
constexpr std::array<DurationUnit, 7> kDurationUnits = {{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // µs (U+00B5 MICRO SIGN), as Go accepts
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

// The digits at the front of `s`, consumed.
std::string_view TakeDigits(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && IsDigit(s[n])) ++n;
  std::string_view digits = s.substr(0, n);
  s.remove_prefix(n);
  return digits;
}

// Adds whole.fraction units of `unit` nanoseconds each to `total`; false on overflow.
bool AccumulateDuration(std::string_view whole, std::string_view fraction, std::int64_t unit,
                        std::int64_t& total) {
  std::int64_t value = 0;
  for (char c : whole) {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, c - '0', &value)) {
      return false;
    }
  }
  std::int64_t nanos = 0;
  if (__builtin_mul_overflow(value, unit, &nanos)) return false;
  // The fraction as fraction_value / scale units, truncated to a nanosecond. Reduced by the
  // common divisor first, so the product stays exact in 64 bits: 17 digits are more than any unit
  // needs (a nanosecond is 2.8e-13 of an hour).
  std::int64_t scale = 1;
  std::int64_t fraction_value = 0;
  for (char c : fraction.substr(0, 17)) {
    scale *= 10;
    fraction_value = fraction_value * 10 + (c - '0');
  }
  if (fraction_value > 0) {
    std::int64_t g = std::gcd(unit, scale);
    std::int64_t extra = 0;
    if (__builtin_mul_overflow(fraction_value, unit / g, &extra)) return false;
    if (__builtin_add_overflow(nanos, extra / (scale / g), &nanos)) return false;
  }
  return !__builtin_add_overflow(total, nanos, &total);
}

// n / unit as a decimal with the fraction's trailing zeros dropped: (1500, 1000) -> "1.5".
std::string Decimal(std::int64_t n, std::int64_t unit) {
  std::string out = std::to_string(n / unit);
  std::int64_t rest = n % unit;
  if (rest == 0) return out;
  std::string fraction;
  for (std::int64_t place = unit / 10; place > 0; place /= 10) {
    fraction += static_cast<char>('0' + (rest / place) % 10);
  }
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return out + "." + fraction;
}

}  // namespace

StatusOr<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return InvalidArgumentError("empty duration (want e.g. 1s or 500ms)");
  auto invalid = [text](std::string_view why) {
    return InvalidArgumentError("duration " + Quote(text) + ": " + std::string(why) +
                                " (want e.g. 1s, 500ms, 1m30s)");
  };
  std::string_view rest = text;
  std::int64_t total = 0;
  while (!rest.empty()) {
    std::string_view whole = TakeDigits(rest);
    std::string_view fraction;
    if (!rest.empty() && rest.front() == '.') {
      rest.remove_prefix(1);
      fraction = TakeDigits(rest);
    }
    if (whole.empty() && fraction.empty()) return invalid("expected a number");
    std::size_t unit_length = 0;
    while (unit_length < rest.size() && !IsDigit(rest[unit_length]) && rest[unit_length] != '.') {
      ++unit_length;
    }
    std::string_view unit_name = rest.substr(0, unit_length);
    rest.remove_prefix(unit_length);
    if (unit_name.empty()) return invalid("missing unit");
    const DurationUnit* unit = nullptr;
    for (const DurationUnit& u : kDurationUnits) {
      if (u.name == unit_name) unit = &u;
    }
    if (unit == nullptr) return invalid("unknown unit " + Quote(unit_name));
    if (!AccumulateDuration(whole, fraction, unit->nanos, total)) return invalid("too long");
  }
  return std::chrono::nanoseconds(total);
}

std::string FormatDuration(std::chrono::nanoseconds d) {
  std::int64_t n = d.count();
  if (n == 0) return "0s";
  std::string sign;
  if (n < 0) {
    if (n == INT64_MIN) return "-2562047h47m16.854775808s";
    sign = "-";
    n = -n;
  }
  if (n < 1'000) return sign + std::to_string(n) + "ns";
  if (n < 1'000'000) return sign + Decimal(n, 1'000) + "us";
  if (n < 1'000'000'000) return sign + Decimal(n, 1'000'000) + "ms";
  constexpr std::int64_t kMinute = 60'000'000'000;
  constexpr std::int64_t kHour = 60 * kMinute;
  std::string out = sign;
  if (n >= kHour) out += std::to_string(n / kHour) + "h";
  if (n >= kMinute) out += std::to_string(n % kHour / kMinute) + "m";
  return out + Decimal(n % kMinute, 1'000'000'000) + "s";
}

}  // namespace arbiter
