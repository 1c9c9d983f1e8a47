#include "arbiter/resource/quantity.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <ranges>

namespace arbiter {
namespace {

constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kNanoExponent = -9;
// apimachinery's fast path holds at most this many digits in an int64 (maxInt64Factors).
constexpr std::size_t kMaxInt64Factors = 18;
constexpr std::string_view kMaxBinarySI = "9223372036854775807";  // 2^63-1, the binary-SI cap
constexpr std::size_t kQuotedTextLimit = 64;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The text in an error message: quoted, non-printables escaped, long inputs cut.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  std::size_t shown = std::min(text.size(), kQuotedTextLimit);
  for (std::size_t i = 0; i < shown; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (text.size() > shown) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

Status ParseError(std::string_view text, std::string_view why) {
  return InvalidArgumentError("quantity " + Quote(text) + ": " + std::string(why));
}

struct Suffix {
  int base = 10;  // 10 or 2
  std::int64_t exponent = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

struct SuffixEntry {
  std::string_view text;
  int base;
  int exponent;
};

constexpr std::array<SuffixEntry, 16> kSuffixes = {{
    {"", 10, 0},
    {"n", 10, -9},
    {"u", 10, -6},
    {"m", 10, -3},
    {"k", 10, 3},
    {"M", 10, 6},
    {"G", 10, 9},
    {"T", 10, 12},
    {"P", 10, 15},
    {"E", 10, 18},
    {"Ki", 2, 10},
    {"Mi", 2, 20},
    {"Gi", 2, 30},
    {"Ti", 2, 40},
    {"Pi", 2, 50},
    {"Ei", 2, 60},
}};

// strconv.ParseInt(s, 10, 64), then the range check that later apimachinery releases apply.
std::optional<std::int64_t> ParseExponent(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return std::nullopt;
  std::int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
    value = value * 10 + (s[i] - '0');
    if (value > kMaxInt32) return std::nullopt;  // also bounds the loop's arithmetic
  }
  return negative ? -value : value;
}

std::optional<Suffix> InterpretSuffix(std::string_view s) {
  for (const SuffixEntry& entry : kSuffixes) {
    if (entry.text == s) {
      return Suffix{entry.base, entry.exponent,
                    entry.base == 2 ? QuantityFormat::kBinarySI : QuantityFormat::kDecimalSI};
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::optional<std::int64_t> exponent = ParseExponent(s.substr(1));
    if (!exponent) return std::nullopt;
    return Suffix{10, *exponent, QuantityFormat::kDecimalExponent};
  }
  return std::nullopt;
}

// Multiplies a big-endian decimal digit string by `factor` (small) in place.
void MultiplyDigits(std::string& digits, std::uint32_t factor) {
  std::uint64_t carry = 0;
  for (char& digit : std::ranges::reverse_view(digits)) {
    std::uint64_t v = static_cast<std::uint64_t>(digit - '0') * factor + carry;
    digit = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
}

// Adds one to a decimal digit string in place.
void IncrementDigits(std::string& digits) {
  for (char& digit : std::ranges::reverse_view(digits)) {
    if (digit != '9') {
      ++digit;
      return;
    }
    digit = '0';
  }
  digits.insert(digits.begin(), '1');
}

// Compares digitsA*10^expA with digitsB*10^expB, both normalised (no leading or trailing zeros).
int CompareMagnitude(std::string_view a, std::int64_t a_exp, std::string_view b,
                     std::int64_t b_exp) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  // The order of magnitude of the leading digit decides first; with equal orders the digits
  // line up, and plain lexicographic order is numeric order (a shorter string that is a prefix
  // of a longer one lacks the longer one's non-zero tail).
  std::int64_t a_order = static_cast<std::int64_t>(a.size()) + a_exp;
  std::int64_t b_order = static_cast<std::int64_t>(b.size()) + b_exp;
  if (a_order != b_order) return a_order < b_order ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Magnitude of |digits * 10^exponent| as an integer, if it is one and fits in uint64.
std::optional<std::uint64_t> IntegerMagnitude(std::string_view digits, std::int64_t exponent) {
  if (exponent < 0) return std::nullopt;
  if (static_cast<std::int64_t>(digits.size()) + exponent > 20) return std::nullopt;
  std::uint64_t v = 0;
  auto append = [&v](unsigned digit) {
    return !__builtin_mul_overflow(v, 10U, &v) && !__builtin_add_overflow(v, digit, &v);
  };
  for (char c : digits) {
    if (!append(static_cast<unsigned>(c - '0'))) return std::nullopt;
  }
  for (std::int64_t i = 0; i < exponent; ++i) {
    if (!append(0)) return std::nullopt;
  }
  return v;
}

std::string_view DecimalSuffix(std::int64_t exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      return {};
  }
}

constexpr std::array<std::string_view, 7> kBinarySuffixes = {"",   "Ki", "Mi", "Gi",
                                                             "Ti", "Pi", "Ei"};

}  // namespace

std::string_view QuantityFormatName(QuantityFormat format) {
  switch (format) {
    case QuantityFormat::kDecimalSI:
      return "DecimalSI";
    case QuantityFormat::kBinarySI:
      return "BinarySI";
    case QuantityFormat::kDecimalExponent:
      return "DecimalExponent";
  }
  return "DecimalSI";
}

void Quantity::Normalize() {
  std::size_t first = digits_.find_first_not_of('0');
  if (first == std::string::npos) {
    digits_.clear();
    exponent_ = 0;
    negative_ = false;
    return;
  }
  digits_.erase(0, first);
  std::size_t last = digits_.find_last_not_of('0');
  exponent_ += static_cast<std::int64_t>(digits_.size() - 1 - last);
  digits_.resize(last + 1);
}

void Quantity::RoundToNano() {
  if (digits_.empty() || exponent_ >= kNanoExponent) return;
  // Dropping any digit drops the last one, which is not zero, so the result rounds up.
  std::int64_t drop = kNanoExponent - exponent_;
  if (drop >= static_cast<std::int64_t>(digits_.size())) {
    digits_ = "1";
  } else {
    digits_.resize(digits_.size() - static_cast<std::size_t>(drop));
    IncrementDigits(digits_);
  }
  exponent_ = kNanoExponent;
  Normalize();
}

StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return ParseError(text, "empty");
  if (text == "0") {
    Quantity zero;
    zero.remembered_ = "0";
    return zero;
  }

  // The scanner of apimachinery's parseQuantityString, step by step.
  std::size_t pos = 0;
  const std::size_t end = text.size();
  bool positive = true;
  if (text[0] == '-' || text[0] == '+') {
    positive = text[0] == '+';
    ++pos;
  }
  // Upstream accepts a number without digits ("Gi", ".", "-", "e5" parse as zero); the API
  // server's own OpenAPI pattern for quantities does not, and neither do we.
  std::size_t number_end = pos;
  while (number_end < end && (IsDigit(text[number_end]) || text[number_end] == '.')) ++number_end;
  if (text.substr(pos, number_end - pos).find_first_of("0123456789") == std::string_view::npos) {
    return ParseError(text, "no digits before the suffix");
  }
  while (pos < end && text[pos] == '0') ++pos;
  std::string_view num;
  std::string_view denom;
  std::string_view suffix;
  if (pos == end) {
    num = "0";
  } else {
    std::size_t num_start = pos;
    while (pos < end && IsDigit(text[pos])) ++pos;
    num = text.substr(num_start, pos - num_start);
    if (num.empty()) num = "0";
    if (pos < end && text[pos] == '.') {
      std::size_t denom_start = ++pos;
      while (pos < end && IsDigit(text[pos])) ++pos;
      denom = text.substr(denom_start, pos - denom_start);
    }
    std::size_t suffix_start = pos;
    constexpr std::string_view kSuffixLetters = "eEinumkKMGTP";
    while (pos < end && kSuffixLetters.find(text[pos]) != std::string_view::npos) ++pos;
    if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
    while (pos < end && IsDigit(text[pos])) ++pos;
    if (pos != end) {
      return ParseError(text, "not a number with an optional suffix: unexpected " +
                                  Quote(text.substr(pos, 1)) + " at offset " + std::to_string(pos));
    }
    suffix = text.substr(suffix_start);
  }

  std::optional<Suffix> interpreted = InterpretSuffix(suffix);
  if (!interpreted && suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') &&
      suffix.find_first_not_of("0123456789+-", 1) == std::string_view::npos) {
    return ParseError(
        text, "exponent " + Quote(suffix.substr(1)) + " is not an integer within ±(2^31-1)");
  }
  if (!interpreted) {
    return ParseError(text, "unknown suffix " + Quote(suffix) +
                                " (want n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an "
                                "exponent e<N>)");
  }

  Quantity q;
  q.negative_ = !positive;
  q.format_ = interpreted->format;
  q.digits_.reserve(num.size() + denom.size());
  q.digits_.append(num);
  q.digits_.append(denom);
  const auto denom_size = static_cast<std::int64_t>(denom.size());

  if (interpreted->base == 10) {
    q.exponent_ = interpreted->exponent - denom_size;
    q.Normalize();
    q.RoundToNano();
    // apimachinery keeps the input text when its int64 fast path took it and it already looks
    // canonical; String() then returns that text verbatim.
    if (num.size() + denom.size() <= kMaxInt64Factors &&
        interpreted->exponent - denom_size >= kNanoExponent) {
      std::int64_t scale = interpreted->exponent - denom_size;
      // Upstream tests the digits num+denom; read them in place (this runs for every quantity
      // decoded, so no concatenated copy).
      const std::size_t digits = num.size() + denom.size();
      auto digit_from_end = [&](std::size_t k) {  // k = 1 is the last digit
        std::size_t i = digits - k;
        return i < num.size() ? num[i] : denom[i - num.size()];
      };
      bool ends_in_000 = digits >= 3 && digit_from_end(1) == '0' && digit_from_end(2) == '0' &&
                         digit_from_end(3) == '0';
      if (scale % 3 == 0 && !ends_in_000 && num[0] != '0') q.remembered_ = text;
    }
  } else {
    for (std::int64_t e = 0; e < interpreted->exponent; e += 10) MultiplyDigits(q.digits_, 1024);
    q.exponent_ = -denom_size;
    q.Normalize();
    q.RoundToNano();
    if (CompareMagnitude(q.digits_, q.exponent_, kMaxBinarySI, 0) > 0) {
      q.digits_ = kMaxBinarySI;
      q.exponent_ = 0;
    }
    if (!q.digits_.empty() && CompareMagnitude(q.digits_, q.exponent_, "1", 0) < 0) {
      q.format_ = QuantityFormat::kDecimalSI;  // as upstream: a fraction of one is not binary
    }
    // The fast path: whole numbers with few enough digits; text kept unless its number is a
    // multiple of 8 (upstream's test for "could be written with a larger binary suffix").
    std::int64_t precision =
        14 - static_cast<std::int64_t>(num.size()) - interpreted->exponent * 3 / 10;
    if (denom.empty() && precision >= 0) {
      std::optional<std::uint64_t> n = IntegerMagnitude(num == "0" ? "" : num, 0);
      if (n && (*n & 0x07U) != 0) q.remembered_ = text;
    }
  }
  if (q.digits_.empty()) q.negative_ = false;
  // Every accepted value must print in a form that parses again; beyond 10^(2^31) the exponent of
  // that form would not fit the grammar's range (and v0.36 wraps it).
  if (static_cast<std::int64_t>(q.digits_.size()) + q.exponent_ > kMaxInt32 + 1) {
    return ParseError(text, "magnitude of 10^(2^31) or more");
  }
  return q;
}

StatusOr<Quantity> Quantity::ParseJson(std::string_view json) {
  if (json == "null") return Quantity();
  if (json.size() >= 2 && json.front() == '"' && json.back() == '"') {
    json = json.substr(1, json.size() - 2);
  }
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::size_t first = json.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return Parse("");
  std::size_t last = json.find_last_not_of(kSpace);
  return Parse(json.substr(first, last - first + 1));
}

Quantity Quantity::FromScaled(std::int64_t value, std::int32_t scale, QuantityFormat format) {
  Quantity q;
  q.format_ = format;
  q.negative_ = value < 0;
  // Through uint64 so that INT64_MIN has a magnitude.
  std::uint64_t magnitude =
      value < 0 ? ~static_cast<std::uint64_t>(value) + 1 : static_cast<std::uint64_t>(value);
  q.digits_ = std::to_string(magnitude);
  q.exponent_ = scale;
  q.Normalize();
  return q;
}

Quantity Quantity::FromInt64(std::int64_t value, QuantityFormat format) {
  return FromScaled(value, 0, format);
}

Quantity Quantity::FromMilli(std::int64_t milli_value, QuantityFormat format) {
  return FromScaled(milli_value, -3, format);
}

std::string Quantity::ToString() const {
  return remembered_.empty() ? CanonicalString() : remembered_;
}

std::string Quantity::CanonicalString() const {
  if (IsZero()) return "0";
  std::string out = negative_ ? "-" : "";
  QuantityFormat format = format_;
  if (format == QuantityFormat::kBinarySI) {
    std::optional<std::uint64_t> whole = IntegerMagnitude(digits_, exponent_);
    // Below 1024, or not whole, binary prints as decimal so that nothing is rounded.
    if (whole && *whole >= 1024) {
      std::uint64_t mantissa = *whole;
      std::size_t power = 0;
      while (mantissa % 1024 == 0 && power + 1 < kBinarySuffixes.size()) {
        mantissa /= 1024;
        ++power;
      }
      return out + std::to_string(mantissa) + std::string(kBinarySuffixes[power]);
    }
    format = QuantityFormat::kDecimalSI;
  }
  // The exponent moves down to a multiple of three, the mantissa takes the zeros.
  std::int64_t exponent = exponent_;
  std::int64_t remainder = ((exponent % 3) + 3) % 3;
  out += digits_;
  out.append(static_cast<std::size_t>(remainder), '0');
  exponent -= remainder;
  if (format == QuantityFormat::kDecimalSI) {
    std::string_view suffix = DecimalSuffix(exponent);
    if (!suffix.empty() || exponent == 0) return out + std::string(suffix);
    // Beyond E (or below n) decimal SI has no suffix: later upstream falls back to an exponent.
  }
  if (exponent != 0) out += "e" + std::to_string(exponent);
  return out;
}

StatusOr<std::int64_t> Quantity::ScaledValue(std::int32_t scale) const {
  if (IsZero()) return 0;
  std::int64_t shift = exponent_ - scale;
  std::uint64_t magnitude = 0;
  if (shift >= 0) {
    std::optional<std::uint64_t> whole = IntegerMagnitude(digits_, shift);
    if (!whole) {
      return OutOfRangeError("quantity " + ToString() + " does not fit in int64 at scale 10^" +
                             std::to_string(scale));
    }
    magnitude = *whole;
  } else if (-shift >= static_cast<std::int64_t>(digits_.size())) {
    magnitude = 1;  // a non-zero fraction of one unit rounds up to one
  } else {
    std::string_view kept(digits_.data(), digits_.size() - static_cast<std::size_t>(-shift));
    std::optional<std::uint64_t> whole = IntegerMagnitude(kept, 0);
    // The dropped digits end in a non-zero digit, so the result rounds away from zero.
    if (!whole || *whole == std::numeric_limits<std::uint64_t>::max()) {
      return OutOfRangeError("quantity " + ToString() + " does not fit in int64 at scale 10^" +
                             std::to_string(scale));
    }
    magnitude = *whole + 1;
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative_) {
    if (magnitude > kMax + 1) {
      return OutOfRangeError("quantity " + ToString() + " does not fit in int64 at scale 10^" +
                             std::to_string(scale));
    }
    return static_cast<std::int64_t>(~magnitude + 1);
  }
  if (magnitude > kMax) {
    return OutOfRangeError("quantity " + ToString() + " does not fit in int64 at scale 10^" +
                           std::to_string(scale));
  }
  return static_cast<std::int64_t>(magnitude);
}

int Quantity::Compare(const Quantity& other) const {
  if (Sign() != other.Sign()) return Sign() < other.Sign() ? -1 : 1;
  int magnitude = CompareMagnitude(digits_, exponent_, other.digits_, other.exponent_);
  return negative_ ? -magnitude : magnitude;
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) { return os << q.ToString(); }

}  // namespace arbiter
