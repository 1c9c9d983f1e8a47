#include "arbiter/runtime/flag_values.h"

#include <array>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace arbiter::runtime {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The comma-separated items of `text`, trimmed; one empty item for an empty text.
std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  while (true) {
    std::size_t comma = text.find(',');
    items.push_back(Trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

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

bool IsLabelName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsDns1123Subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (!IsLowerAlnum(name.front()) || !IsLowerAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsLowerAlnum(c) && c != '-' && c != '.') return false;
  }
  return true;
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

bool IsValidLabelKey(std::string_view key) {
  std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsLabelName(key);
  return IsDns1123Subdomain(key.substr(0, slash)) && IsLabelName(key.substr(slash + 1));
}

bool IsValidLabelValue(std::string_view value) { return value.empty() || IsLabelName(value); }

bool IsDns1123Label(std::string_view name) {
  return name.size() <= 63 && IsDns1123Subdomain(name) && name.find('.') == std::string::npos;
}

StatusOr<Labels> ParseNodeSelector(std::string_view text) {
  Labels selector;
  if (Trim(text).empty()) return selector;
  for (std::string_view item : SplitCommas(text)) {
    if (item.empty()) return InvalidArgumentError(Quote(text) + ": empty item between commas");
    if (item.find("!=") != std::string_view::npos) {
      return InvalidArgumentError(Quote(item) + ": only key=value pairs are supported");
    }
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError(Quote(item) + ": expected key=value");
    }
    std::string_view key = Trim(item.substr(0, eq));
    std::string_view value = item.substr(eq + 1);
    if (!value.empty() && value.front() == '=') value.remove_prefix(1);  // key==value
    value = Trim(value);
    if (!IsValidLabelKey(key)) {
      return InvalidArgumentError(Quote(item) + ": " + Quote(key) + " is not a valid label key");
    }
    if (!IsValidLabelValue(value)) {
      return InvalidArgumentError(Quote(item) + ": " + Quote(value) +
                                  " is not a valid label value");
    }
    auto [it, inserted] = selector.emplace(key, value);
    if (!inserted) {
      return InvalidArgumentError(Quote(item) + ": label " + Quote(key) + " is given twice");
    }
  }
  return selector;
}

StatusOr<std::set<std::string>> ParseNamespaceList(std::string_view text) {
  std::set<std::string> namespaces;
  if (Trim(text).empty()) return namespaces;
  for (std::string_view item : SplitCommas(text)) {
    if (item.empty()) return InvalidArgumentError(Quote(text) + ": empty item between commas");
    if (!IsDns1123Label(item)) {
      return InvalidArgumentError(Quote(item) +
                                  " is not a valid namespace name (lower-case letters, digits and "
                                  "'-', at most 63 characters)");
    }
    namespaces.emplace(item);
  }
  return namespaces;
}

}  // namespace arbiter::runtime
