#include "arbiter/resource/quantity.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

Quantity MustParse(std::string_view text) {
  StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << q.status();
  return q.ok() ? *q : Quantity();
}

TEST(QuantityTest, ErrorNamesTheTextAndTheProblem) {
  EXPECT_EQ(Quantity::Parse("1K").status().message(),
            "quantity \"1K\": unknown suffix \"K\" (want n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, "
            "Ti, Pi, Ei or an exponent e<N>)");
  EXPECT_EQ(Quantity::Parse("1.2.3").status().message(),
            "quantity \"1.2.3\": not a number with an optional suffix: unexpected \".\" at "
            "offset 3");
  EXPECT_EQ(Quantity::Parse("").status().message(), "quantity \"\": empty");
  EXPECT_EQ(Quantity::Parse("Gi").status().message(),
            "quantity \"Gi\": no digits before the suffix");
  EXPECT_EQ(Quantity::Parse("2E6024865272343").status().message(),
            "quantity \"2E6024865272343\": exponent \"6024865272343\" is not an integer within "
            "±(2^31-1)");
}

TEST(QuantityTest, ErrorEscapesAndShortensHostileText) {
  std::string long_text(10'000, '9');
  long_text += "x";
  std::string message = Quantity::Parse(long_text).status().message();
  EXPECT_LT(message.size(), 300U);
  EXPECT_NE(message.find("(10001 bytes)"), std::string::npos) << message;
  EXPECT_EQ(Quantity::Parse(std::string("1\n\"")).status().message(),
            "quantity \"1\\x0a\\\"\": not a number with an optional suffix: unexpected "
            "\"\\x0a\" at offset 1");
}

TEST(QuantityTest, PathologicalExponentsCostNothing) {
  // Neither value is ever written out in full: both parse, compare and print in microseconds.
  Quantity tiny = MustParse("1e-2147483647");
  Quantity huge = MustParse("9e2147483647");
  EXPECT_EQ(tiny.CanonicalString(), "1e-9");
  EXPECT_EQ(huge.CanonicalString(), "90e2147483646");
  EXPECT_LT(tiny.Compare(huge), 0);
  EXPECT_EQ(*tiny.MilliValue(), 1);
  EXPECT_FALSE(huge.Value().ok());
  EXPECT_EQ(Quantity::Parse("10e2147483647").status().message(),
            "quantity \"10e2147483647\": magnitude of 10^(2^31) or more");
}

TEST(QuantityTest, LongDigitStringsStayExact) {
  std::string digits = "1" + std::string(5000, '0') + "1";
  Quantity q = MustParse(digits + "e-5001");
  // 1 + 10^-5001: exact until the rounding to nano, which goes up.
  EXPECT_EQ(q.CanonicalString(), "1000000001e-9");
  EXPECT_EQ(*q.Value(), 2);
  EXPECT_EQ(*MustParse(std::string(4000, '0') + "5").Value(), 5);
}

TEST(QuantityTest, ParseJsonAcceptsWhatUnmarshalJsonAccepts) {
  EXPECT_EQ(Quantity::ParseJson("\"1Gi\"")->ToString(), "1Gi");
  EXPECT_EQ(Quantity::ParseJson("2")->ToString(), "2");
  EXPECT_EQ(Quantity::ParseJson("\" 1\"")->ToString(), "1");
  EXPECT_EQ(Quantity::ParseJson(" -1")->ToString(), "-1");
  EXPECT_TRUE(Quantity::ParseJson("null")->IsZero());
  EXPECT_FALSE(Quantity::ParseJson("\"\"").ok());
  EXPECT_FALSE(Quantity::ParseJson("\"1 Gi\"").ok());
}

TEST(QuantityTest, ConstructorsPrintAsUpstream) {
  // apimachinery TestMilliNewSet, TestNewSet and TestNewScaledSet.
  EXPECT_EQ(Quantity::FromMilli(1, QuantityFormat::kDecimalSI).ToString(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000, QuantityFormat::kDecimalSI).ToString(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000, QuantityFormat::kDecimalSI).ToString(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, QuantityFormat::kBinarySI).ToString(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1024LL * 1024, QuantityFormat::kBinarySI).ToString(), "1048576m");
  EXPECT_EQ(Quantity::FromMilli(1000000, QuantityFormat::kDecimalExponent).ToString(), "1e3");
  EXPECT_EQ(Quantity::FromInt64(1000, QuantityFormat::kDecimalSI).ToString(), "1k");
  EXPECT_EQ(Quantity::FromInt64(1234000, QuantityFormat::kDecimalSI).ToString(), "1234k");
  EXPECT_EQ(Quantity::FromInt64(1024, QuantityFormat::kBinarySI).ToString(), "1Ki");
  EXPECT_EQ(Quantity::FromInt64(1024LL * 1024, QuantityFormat::kBinarySI).ToString(), "1Mi");
  EXPECT_EQ(Quantity::FromInt64(1000000, QuantityFormat::kDecimalExponent).ToString(), "1e6");
  EXPECT_EQ(Quantity::FromScaled(1, -9, QuantityFormat::kDecimalSI).ToString(), "1n");
  EXPECT_EQ(Quantity::FromScaled(1000, -9, QuantityFormat::kDecimalSI).ToString(), "1u");
  EXPECT_EQ(Quantity::FromScaled(1000, -6, QuantityFormat::kDecimalSI).ToString(), "1m");
  EXPECT_EQ(Quantity::FromScaled(1000, -3, QuantityFormat::kDecimalSI).ToString(), "1");
  EXPECT_EQ(Quantity::FromScaled(1, 3, QuantityFormat::kDecimalSI).ToString(), "1k");
  EXPECT_EQ(Quantity::FromInt64(std::numeric_limits<std::int64_t>::min(), QuantityFormat::kBinarySI)
                .ToString(),
            "-8Ei");
  EXPECT_EQ(Quantity::FromInt64(0, QuantityFormat::kBinarySI).ToString(), "0");
}

TEST(QuantityTest, ScaledValueRoundsAwayFromZero) {
  // apimachinery TestQuantityRoundUp at the scales ScaledValue takes.
  Quantity q = MustParse("9.01");
  EXPECT_EQ(*q.ScaledValue(-2), 901);
  EXPECT_EQ(*q.ScaledValue(-1), 91);
  EXPECT_EQ(*q.ScaledValue(0), 10);
  EXPECT_EQ(*q.ScaledValue(1), 1);
  EXPECT_EQ(*q.ScaledValue(2), 1);
  Quantity n = MustParse("-9.01");
  EXPECT_EQ(*n.ScaledValue(-1), -91);
  EXPECT_EQ(*n.ScaledValue(0), -10);
  EXPECT_EQ(*n.ScaledValue(2), -1);
  EXPECT_EQ(*MustParse("1Gi").ScaledValue(9), 2);
  EXPECT_EQ(*MustParse("1G").ScaledValue(9), 1);
}

TEST(QuantityTest, CompareOrdersByValueNotFormat) {
  // apimachinery TestQuantityCmp and a few across formats.
  EXPECT_EQ(MustParse("0").Compare(MustParse("0")), 0);
  EXPECT_EQ(MustParse("100m").Compare(MustParse("50m")), 1);
  EXPECT_EQ(MustParse("50m").Compare(MustParse("100m")), -1);
  EXPECT_EQ(MustParse("10000T").Compare(MustParse("100Gi")), 1);
  EXPECT_EQ(MustParse("1Ki").Compare(MustParse("1024")), 0);
  EXPECT_EQ(MustParse("1k").Compare(MustParse("1Ki")), -1);
  EXPECT_EQ(MustParse("-1").Compare(MustParse("1n")), -1);
  EXPECT_EQ(MustParse("-2").Compare(MustParse("-1")), -1);
  EXPECT_EQ(MustParse("1e3"), MustParse("1k"));
  EXPECT_EQ(MustParse("0.5"), MustParse("500m"));
}

// Random quantities in every format, from a fixed seed, for the properties below.
std::vector<std::string> RandomQuantityTexts(std::size_t count) {
  std::mt19937_64 rng(20261129);
  const std::vector<std::string> suffixes = {"",   "n",   "u",    "m",  "k",    "M",  "G",  "T",
                                             "P",  "E",   "Ki",   "Mi", "Gi",   "Ti", "Pi", "Ei",
                                             "e3", "e-7", "E+12", "e0", "e-12", "e21"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::string text = (rng() % 4 == 0) ? "-" : "";
    text += std::to_string(rng() % 1'000'000'000'000ULL >> (rng() % 40));
    if (rng() % 2 == 0) text += "." + std::to_string(rng() % 100000);
    text += suffixes[rng() % suffixes.size()];
    out.push_back(text);
  }
  return out;
}

TEST(QuantityPropertyTest, ParseOfToStringIsTheSameValue) {
  for (const std::string& text : RandomQuantityTexts(5000)) {
    Quantity q = MustParse(text);
    StatusOr<Quantity> again = Quantity::Parse(q.ToString());
    ASSERT_TRUE(again.ok()) << text << " -> " << q.ToString();
    EXPECT_EQ(*again, q) << text << " -> " << q.ToString();
    StatusOr<Quantity> canonical = Quantity::Parse(q.CanonicalString());
    ASSERT_TRUE(canonical.ok()) << text;
    EXPECT_EQ(*canonical, q) << text << " -> " << q.CanonicalString();
    // From the second printing on, the canonical form is a fixed point (see the next test).
    std::string once = canonical->CanonicalString();
    EXPECT_EQ(Quantity::Parse(once)->CanonicalString(), once) << text;
  }
}

TEST(QuantityTest, BinaryValueOffTheKiGridReadsBackAsDecimal) {
  // Found by the fuzzer; apimachinery does the same: the canonical binary form of a value that is
  // no whole number of Ki has no suffix, and that text reads back as decimal SI.
  Quantity q = MustParse("2233720312.5Ki");
  EXPECT_EQ(q.CanonicalString(), "2287329600000");
  Quantity again = MustParse(q.CanonicalString());
  EXPECT_EQ(again, q);
  EXPECT_EQ(again.format(), QuantityFormat::kDecimalSI);
  EXPECT_EQ(again.CanonicalString(), "2287329600k");
}

TEST(QuantityPropertyTest, MilliValueRoundTripsThroughFromMilli) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 5000; ++i) {
    auto v = static_cast<std::int64_t>(rng() >> (rng() % 63));
    if (rng() % 2 == 0) v = -v;
    for (QuantityFormat f : {QuantityFormat::kDecimalSI, QuantityFormat::kBinarySI,
                             QuantityFormat::kDecimalExponent}) {
      Quantity q = Quantity::FromMilli(v, f);
      EXPECT_EQ(*q.MilliValue(), v);
      EXPECT_EQ(*Quantity::Parse(q.ToString())->MilliValue(), v) << q.ToString();
    }
  }
}

TEST(QuantityPropertyTest, CompareAgreesWithIntegerOrder) {
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> values;
  std::vector<Quantity> quantities;
  for (int i = 0; i < 2000; ++i) {
    auto v = static_cast<std::int64_t>(rng() % 2'000'000) - 1'000'000;
    values.push_back(v);
    // Alternate spellings of the same milli value.
    quantities.push_back(i % 3 == 0 ? Quantity::FromMilli(v, QuantityFormat::kDecimalSI)
                                    : *Quantity::Parse(std::to_string(v) + "e-3"));
  }
  for (std::size_t i = 0; i + 1 < values.size(); ++i) {
    int expected = values[i] < values[i + 1] ? -1 : (values[i] > values[i + 1] ? 1 : 0);
    EXPECT_EQ(quantities[i].Compare(quantities[i + 1]), expected);
    EXPECT_EQ(quantities[i + 1].Compare(quantities[i]), -expected);
  }
  std::sort(quantities.begin(), quantities.end(),
            [](const Quantity& a, const Quantity& b) { return a.Compare(b) < 0; });
  std::sort(values.begin(), values.end());
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(*quantities[i].MilliValue(), values[i]);
}

}  // namespace
}  // namespace arbiter
