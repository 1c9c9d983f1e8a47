// The quantity table: what Arbiter's Quantity makes of 241 inputs, grouped by where the case
// comes from. Every expectation outside group J was checked against apimachinery v0.36.3 itself
// (tests/differential/quantity_test.sh runs that comparison in CI); group J lists where we
// deliberately differ from v0.36.3, with the reason in docs/quantities.md.
//
// Columns: input, String() (apimachinery's, which may return the input itself), canonical form,
// format, Value() and MilliValue() (rounded up, away from zero; kOverflow when not an int64).
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>

#include <gtest/gtest.h>

#include "arbiter/resource/quantity.h"

namespace arbiter {
namespace {

constexpr auto kDec = QuantityFormat::kDecimalSI;
constexpr auto kBin = QuantityFormat::kBinarySI;
constexpr auto kExp = QuantityFormat::kDecimalExponent;
constexpr std::optional<std::int64_t> kOverflow = std::nullopt;
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
struct InvalidTag {};
constexpr InvalidTag kInvalid;

struct Case {
  Case(std::string_view in, InvalidTag /*unused*/) : input(in) {}
  Case(std::string_view in, std::string_view str, std::string_view canon, QuantityFormat fmt,
       std::optional<std::int64_t> v, std::optional<std::int64_t> m)
      : input(in), valid(true), to_string(str), canonical(canon), format(fmt), value(v), milli(m) {}

  std::string_view input;
  bool valid = false;
  std::string_view to_string;
  std::string_view canonical;
  QuantityFormat format = kDec;
  std::optional<std::int64_t> value;
  std::optional<std::int64_t> milli;
};

// Test names and failure messages show the input, not the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << '"' << c.input << '"'; }

std::optional<std::int64_t> AsOptional(const StatusOr<std::int64_t>& v) {
  if (v.ok()) return *v;
  EXPECT_EQ(v.status().code(), StatusCode::kOutOfRange) << v.status();
  return std::nullopt;
}

const Case kCases[] = {
    // upstream TestQuantityParse valid table (apimachinery pkg/api/resource/quantity_test.go)
    {"0", "0", "0", kDec, 0, 0},
    {"0n", "0", "0", kDec, 0, 0},
    {"0u", "0", "0", kDec, 0, 0},
    {"0m", "0", "0", kDec, 0, 0},
    {"0Ki", "0", "0", kBin, 0, 0},
    {"0k", "0", "0", kDec, 0, 0},
    {"0Mi", "0", "0", kBin, 0, 0},
    {"0M", "0", "0", kDec, 0, 0},
    {"0Gi", "0", "0", kBin, 0, 0},
    {"0G", "0", "0", kDec, 0, 0},
    {"0Ti", "0", "0", kBin, 0, 0},
    {"0T", "0", "0", kDec, 0, 0},
    {"1", "1", "1", kDec, 1, 1000},
    {"1Ki", "1Ki", "1Ki", kBin, 1024, 1024000},
    {"8Ki", "8Ki", "8Ki", kBin, 8192, 8192000},
    {"7Mi", "7Mi", "7Mi", kBin, 7340032, 7340032000LL},
    {"6Gi", "6Gi", "6Gi", kBin, 6442450944LL, 6442450944000LL},
    {"5Ti", "5Ti", "5Ti", kBin, 5497558138880LL, 5497558138880000LL},
    {"4Pi", "4Pi", "4Pi", kBin, 4503599627370496LL, 4503599627370496000LL},
    {"3Ei", "3Ei", "3Ei", kBin, 3458764513820540928LL, kOverflow},
    {"10Ti", "10Ti", "10Ti", kBin, 10995116277760LL, 10995116277760000LL},
    {"100Ti", "100Ti", "100Ti", kBin, 109951162777600LL, 109951162777600000LL},
    {"5n", "5n", "5n", kDec, 1, 1},
    {"4u", "4u", "4u", kDec, 1, 1},
    {"3m", "3m", "3m", kDec, 1, 3},
    {"9", "9", "9", kDec, 9, 9000},
    {"8k", "8k", "8k", kDec, 8000, 8000000},
    {"50k", "50k", "50k", kDec, 50000, 50000000},
    {"7M", "7M", "7M", kDec, 7000000, 7000000000LL},
    {"6G", "6G", "6G", kDec, 6000000000LL, 6000000000000LL},
    {"5T", "5T", "5T", kDec, 5000000000000LL, 5000000000000000LL},
    {"40T", "40T", "40T", kDec, 40000000000000LL, 40000000000000000LL},
    {"300T", "300T", "300T", kDec, 300000000000000LL, 300000000000000000LL},
    {"2P", "2P", "2P", kDec, 2000000000000000LL, 2000000000000000000LL},
    {"1E", "1E", "1E", kDec, 1000000000000000000LL, kOverflow},
    {"1E-3", "1E-3", "1e-3", kExp, 1, 1},
    {"1e3", "1e3", "1e3", kExp, 1000, 1000000},
    {"1E6", "1E6", "1e6", kExp, 1000000, 1000000000},
    {"1e9", "1e9", "1e9", kExp, 1000000000, 1000000000000LL},
    {"1E12", "1E12", "1e12", kExp, 1000000000000LL, 1000000000000000LL},
    {"1e15", "1e15", "1e15", kExp, 1000000000000000LL, 1000000000000000000LL},
    {"1E18", "1E18", "1e18", kExp, 1000000000000000000LL, kOverflow},
    {"1e14", "100e12", "100e12", kExp, 100000000000000LL, 100000000000000000LL},
    {"1e13", "10e12", "10e12", kExp, 10000000000000LL, 10000000000000000LL},
    {"100.035k", "100.035k", "100035", kDec, 100035, 100035000},
    {"0.001", "1m", "1m", kDec, 1, 1},
    {"0.0005k", "500m", "500m", kDec, 1, 500},
    {"0.005", "5m", "5m", kDec, 1, 5},
    {"0.05", "50m", "50m", kDec, 1, 50},
    {"0.5", "500m", "500m", kDec, 1, 500},
    {"0.00050k", "500m", "500m", kDec, 1, 500},
    {"0.00500", "5m", "5m", kDec, 1, 5},
    {"0.05000", "50m", "50m", kDec, 1, 50},
    {"0.50000", "500m", "500m", kDec, 1, 500},
    {"0.5e0", "500e-3", "500e-3", kExp, 1, 500},
    {"0.5e-1", "50e-3", "50e-3", kExp, 1, 50},
    {"0.5e-2", "5e-3", "5e-3", kExp, 1, 5},
    {"10.035M", "10.035M", "10035k", kDec, 10035000, 10035000000LL},
    {"1.2e3", "1200", "1200", kExp, 1200, 1200000},
    {"1.3E+6", "1300e3", "1300e3", kExp, 1300000, 1300000000},
    {"1.40e9", "1400e6", "1400e6", kExp, 1400000000, 1400000000000LL},
    {"1.53E12", "1530e9", "1530e9", kExp, 1530000000000LL, 1530000000000000LL},
    {"1.6e15", "1600e12", "1600e12", kExp, 1600000000000000LL, 1600000000000000000LL},
    {"1.7E18", "1700e15", "1700e15", kExp, 1700000000000000000LL, kOverflow},
    {"9.01", "9010m", "9010m", kDec, 10, 9010},
    {"8.1k", "8100", "8100", kDec, 8100, 8100000},
    {"7.123456M", "7.123456M", "7123456", kDec, 7123456, 7123456000LL},
    {"6.987654321G", "6.987654321G", "6987654321", kDec, 6987654321LL, 6987654321000LL},
    {"5.444T", "5.444T", "5444G", kDec, 5444000000000LL, 5444000000000000LL},
    {"40.1T", "40100G", "40100G", kDec, 40100000000000LL, 40100000000000000LL},
    {"300.2T", "300200G", "300200G", kDec, 300200000000000LL, 300200000000000000LL},
    {"2.5P", "2500T", "2500T", kDec, 2500000000000000LL, 2500000000000000000LL},
    {"1.01E", "1010P", "1010P", kDec, 1010000000000000000LL, kOverflow},
    {"3.001n", "4n", "4n", kDec, 1, 1},
    {"1.1E-9", "2e-9", "2e-9", kExp, 1, 1},
    {"0.0000000001", "1n", "1n", kDec, 1, 1},
    {"0.0000000005", "1n", "1n", kDec, 1, 1},
    {"0.00000000050", "1n", "1n", kDec, 1, 1},
    {"0.5e-9", "1e-9", "1e-9", kExp, 1, 1},
    {"0.9n", "1n", "1n", kDec, 1, 1},
    {"0.00000012345", "124n", "124n", kDec, 1, 1},
    {"0.00000012354", "124n", "124n", kDec, 1, 1},
    {"9Ei", "9223372036854775807", "9223372036854775807", kBin, 9223372036854775807LL, kOverflow},
    {"9223372036854775807Ki", "9223372036854775807", "9223372036854775807", kBin,
     9223372036854775807LL, kOverflow},
    {"12E", "12E", "12E", kDec, kOverflow, kOverflow},
    {"100.035Ki", "102435840m", "102435840m", kBin, 102436, 102435840},
    {"0.5Mi", "512Ki", "512Ki", kBin, 524288, 524288000},
    {"0.05Gi", "53687091200m", "53687091200m", kBin, 53687092, 53687091200LL},
    {"0.025Ti", "27487790694400m", "27487790694400m", kBin, 27487790695LL, 27487790694400LL},
    {"0.000000000001Ki", "2n", "2n", kDec, 1, 1},
    {".001", "1m", "1m", kDec, 1, 1},
    {".0001k", "100m", "100m", kDec, 1, 100},
    {"1.", "1.", "1", kDec, 1, 1000},
    {"1.G", "1.G", "1G", kDec, 1000000000, 1000000000000LL},
    // signs: every valid input also parses with - and + (upstream), and how String() shows them
    {"-1Ki", "-1Ki", "-1Ki", kBin, -1024, -1024000},
    {"+1Ki", "+1Ki", "1Ki", kBin, 1024, 1024000},
    {"-100m", "-100m", "-100m", kDec, -1, -100},
    {"+100m", "+100m", "100m", kDec, 1, 100},
    {"-1.5", "-1500m", "-1500m", kDec, -2, -1500},
    {"-0.9n", "-1n", "-1n", kDec, -1, -1},
    {"-9Ei", "-9223372036854775807", "-9223372036854775807", kBin, -9223372036854775807LL,
     kOverflow},
    {"-12E", "-12E", "-12E", kDec, kOverflow, kOverflow},
    {"-0", "0", "0", kDec, 0, 0},
    {"+0.5Mi", "512Ki", "512Ki", kBin, 524288, 524288000},
    {"-1e3", "-1e3", "-1e3", kExp, -1000, -1000000},
    // upstream TestQuantityString: non-canonical spellings and their canonical form
    {"1024Mi", "1Gi", "1Gi", kBin, 1073741824, 1073741824000LL},
    {"307200Ki", "300Mi", "300Mi", kBin, 314572800, 314572800000LL},
    {"1025024Mi", "1001Gi", "1001Gi", kBin, 1074815565824LL, 1074815565824000LL},
    {"1024Gi", "1Ti", "1Ti", kBin, 1099511627776LL, 1099511627776000LL},
    {"5000m", "5", "5", kDec, 5, 5000},
    {"1000M", "1G", "1G", kDec, 1000000000, 1000000000000LL},
    {"0.001T", "1G", "1G", kDec, 1000000000, 1000000000000LL},
    {"1000u", "1m", "1m", kDec, 1, 1},
    {"1.08", "1080m", "1080m", kDec, 2, 1080},
    {"1080000000n", "1080m", "1080m", kDec, 2, 1080},
    {".001e12", "1e9", "1e9", kExp, 1000000000, 1000000000000LL},
    {"0.001e0", "1e-3", "1e-3", kExp, 1, 1},
    {"1000e-12", "1e-9", "1e-9", kExp, 1, 1},
    {"00", "0", "0", kDec, 0, 0},
    // upstream TestQuantityParseEmit: binary fractions
    {".001Ki", "1024m", "1024m", kBin, 2, 1024},
    {".000001Ki", "1024u", "1024u", kDec, 1, 2},
    {".000000001Ki", "1024n", "1024n", kDec, 1, 1},
    {".000000000001Ki", "2n", "2n", kDec, 1, 1},
    // remembered text vs canonical form (quantity.go: the fast path keeps the input)
    {"1.100", "1.100", "1100m", kDec, 2, 1100},
    {"01Ki", "01Ki", "1Ki", kBin, 1024, 1024000},
    {"0100m", "0100m", "100m", kDec, 1, 100},
    {"100m", "100m", "100m", kDec, 1, 100},
    {"1500m", "1500m", "1500m", kDec, 2, 1500},
    {"1.5", "1500m", "1500m", kDec, 2, 1500},
    {"1.5Gi", "1536Mi", "1536Mi", kBin, 1610612736, 1610612736000LL},
    {"1536Mi", "1536Mi", "1536Mi", kBin, 1610612736, 1610612736000LL},
    {"2048Ki", "2Mi", "2Mi", kBin, 2097152, 2097152000},
    {"16Ki", "16Ki", "16Ki", kBin, 16384, 16384000},
    {"12Ki", "12Ki", "12Ki", kBin, 12288, 12288000},
    {"1000", "1k", "1k", kDec, 1000, 1000000},
    {"1000m", "1", "1", kDec, 1, 1000},
    {"1k", "1k", "1k", kDec, 1000, 1000000},
    {"10e2", "1e3", "1e3", kExp, 1000, 1000000},
    {"1.0", "1", "1", kDec, 1, 1000},
    {"1.000", "1", "1", kDec, 1, 1000},
    {"0.1", "100m", "100m", kDec, 1, 100},
    {"1e0", "1e0", "1", kExp, 1, 1000},
    {"1E+3", "1E+3", "1e3", kExp, 1000, 1000000},
    {"1e+03", "1e+03", "1e3", kExp, 1000, 1000000},
    {"123456789012345678", "123456789012345678", "123456789012345678", kDec, 123456789012345678LL,
     kOverflow},
    {"1234567890123456789", "1234567890123456789", "1234567890123456789", kDec,
     1234567890123456789LL, kOverflow},
    {"18446744073709551616", "18446744073709551616", "18446744073709551616", kDec, kOverflow,
     kOverflow},
    {"9223372036854775807", "9223372036854775807", "9223372036854775807", kDec,
     9223372036854775807LL, kOverflow},
    {"9223372036854775808", "9223372036854775808", "9223372036854775808", kDec, kOverflow,
     kOverflow},
    {"-9223372036854775808", "-9223372036854775808", "-9223372036854775808", kDec, kInt64Min,
     kOverflow},
    {"99999999999Ki", "99999999999Ki", "99999999999Ki", kBin, 102399999998976LL,
     102399999998976000LL},
    {"999999999999Ki", "999999999999Ki", "999999999999Ki", kBin, 1023999999998976LL,
     1023999999998976000LL},
    {"7Pi", "7Pi", "7Pi", kBin, 7881299347898368LL, 7881299347898368000LL},
    {"1Ei", "1Ei", "1Ei", kBin, 1152921504606846976LL, kOverflow},
    {"8Ei", "9223372036854775807", "9223372036854775807", kBin, 9223372036854775807LL, kOverflow},
    {"0.5Ki", "512", "512", kBin, 512, 512000},
    {"1.5Ki", "1536", "1536", kBin, 1536, 1536000},
    {"1023", "1023", "1023", kDec, 1023, 1023000},
    {"1024", "1024", "1024", kDec, 1024, 1024000},
    {"1025", "1025", "1025", kDec, 1025, 1025000},
    {"2Mi", "2Mi", "2Mi", kBin, 2097152, 2097152000},
    {"1.25Gi", "1280Mi", "1280Mi", kBin, 1342177280, 1342177280000LL},
    {"2233720312.5Ki", "2287329600000", "2287329600000", kBin, 2287329600000LL, 2287329600000000LL},
    // rounding of Value() and MilliValue(): CPU millicores and bytes round up, away from zero
    {"1n", "1n", "1n", kDec, 1, 1},
    {"1u", "1u", "1u", kDec, 1, 1},
    {"0.1m", "100u", "100u", kDec, 1, 1},
    {"250m", "250m", "250m", kDec, 1, 250},
    {"0.25", "250m", "250m", kDec, 1, 250},
    {"2.5", "2500m", "2500m", kDec, 3, 2500},
    {"1.0001", "1000100u", "1000100u", kDec, 2, 1001},
    {"1001m", "1001m", "1001m", kDec, 2, 1001},
    {"999m", "999m", "999m", kDec, 1, 999},
    {"-1n", "-1n", "-1n", kDec, -1, -1},
    {"-0.1m", "-100u", "-100u", kDec, -1, -1},
    {"-2.5", "-2500m", "-2500m", kDec, -3, -2500},
    {"0.0001Ki", "102400u", "102400u", kDec, 1, 103},
    {"4.7Gi", "5046586572800m", "5046586572800m", kBin, 5046586573LL, 5046586572800LL},
    // int64 limits of the accessors
    {"9223372036854775807m", "9223372036854775807m", "9223372036854775807m", kDec,
     9223372036854776LL, 9223372036854775807LL},
    {"9223372036854775808m", "9223372036854775808m", "9223372036854775808m", kDec,
     9223372036854776LL, kOverflow},
    {"9223372036854775", "9223372036854775", "9223372036854775", kDec, 9223372036854775LL,
     9223372036854775000LL},
    {"9223372036854776", "9223372036854776", "9223372036854776", kDec, 9223372036854776LL,
     kOverflow},
    {"9223372036854775807000m", "9223372036854775807", "9223372036854775807", kDec,
     9223372036854775807LL, kOverflow},
    {"-9223372036854775808m", "-9223372036854775808m", "-9223372036854775808m", kDec,
     -9223372036854776LL, kInt64Min},
    {"1e18", "1e18", "1e18", kExp, 1000000000000000000LL, kOverflow},
    {"1e19", "10e18", "10e18", kExp, kOverflow, kOverflow},
    {"9.3e18", "9300e15", "9300e15", kExp, kOverflow, kOverflow},
    // large and small exponents within ±(2^31-1)
    {"1e2147483647", "10e2147483646", "10e2147483646", kExp, kOverflow, kOverflow},
    {"1e-200000", "1e-9", "1e-9", kExp, 1, 1},
    {"1e400", "10e399", "10e399", kExp, kOverflow, kOverflow},
    {"-1e-400", "-1e-9", "-1e-9", kExp, -1, -1},
    {"1.5e-10", "1e-9", "1e-9", kExp, 1, 1},
    {"123e-12", "1e-9", "1e-9", kExp, 1, 1},
    // rejected by upstream and by us (upstream invalid table and the grammar)
    {"1K", kInvalid},
    {"0.1mi", kInvalid},
    {"1.2.3", kInvalid},
    {" 1", kInvalid},
    {"1 ", kInvalid},
    {"1 Gi", kInvalid},
    {"1.1.M", kInvalid},
    {"1+1.0M", kInvalid},
    {"0.1am", kInvalid},
    {"aoeu", kInvalid},
    {".5i", kInvalid},
    {"1i", kInvalid},
    {"-3.01i", kInvalid},
    {"-3.01e-", kInvalid},
    {"1e", kInvalid},
    {"1ee", kInvalid},
    {"1Ki5", kInvalid},
    {"1Kib", kInvalid},
    {"1e1.5", kInvalid},
    {"--1", kInvalid},
    {"+-1", kInvalid},
    {"1mm", kInvalid},
    {"1KI", kInvalid},
    {"1ki", kInvalid},
    {"0x10", kInvalid},
    {"1_000", kInvalid},
    {"1e+", kInvalid},
    {"1Gi ", kInvalid},
    {"1,5", kInvalid},
    {"1.5.", kInvalid},
    // deliberate deviations from v0.36.x (docs/quantities.md)
    {"", kInvalid},
    {"Gi", kInvalid},
    {".", kInvalid},
    {"-", kInvalid},
    {"+", kInvalid},
    {"-.", kInvalid},
    {"e5", kInvalid},
    {"m", kInvalid},
    {"1e4294967297", kInvalid},
    {"2E6024865272343", kInvalid},
    {"1e2147483648", kInvalid},
    {"1e-2147483648", kInvalid},
    {"1e-2147483647", "1e-9", "1e-9", kExp, 1, 1},
    {"1.55e-2147483647", "1e-9", "1e-9", kExp, 1, 1},
    {"1000E", "1e21", "1e21", kDec, kOverflow, kOverflow},
    {"5000E", "5e21", "5e21", kDec, kOverflow, kOverflow},
    {"1000000E", "1e24", "1e24", kDec, kOverflow, kOverflow},
    {"10e2147483647", kInvalid},
    {"1000e2147483645", kInvalid},
};

class QuantityTableTest : public testing::TestWithParam<Case> {};

TEST_P(QuantityTableTest, ParsesPrintsAndConvertsAsApimachinery) {
  const Case& c = GetParam();
  StatusOr<Quantity> q = Quantity::Parse(c.input);
  if (!c.valid) {
    ASSERT_FALSE(q.ok()) << "parsed as " << q->ToString();
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->ToString(), c.to_string);
  EXPECT_EQ(q->CanonicalString(), c.canonical);
  EXPECT_EQ(q->format(), c.format) << QuantityFormatName(q->format());
  EXPECT_EQ(AsOptional(q->Value()), c.value);
  EXPECT_EQ(AsOptional(q->MilliValue()), c.milli);
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  return "case" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Table, QuantityTableTest, testing::ValuesIn(kCases), CaseName);

TEST(QuantityTableSizeTest, HasAtLeast150Cases) { EXPECT_GE(std::size(kCases), 150U); }

}  // namespace
}  // namespace arbiter
