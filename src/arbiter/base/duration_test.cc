#include "arbiter/base/duration.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

nanoseconds Duration(std::string_view text) {
  StatusOr<nanoseconds> d = ParseDuration(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status();
  return d.ok() ? *d : nanoseconds(-1);
}

TEST(ParseDurationTest, ReadsGoDurations) {
  EXPECT_EQ(Duration("1s"), seconds(1));
  EXPECT_EQ(Duration("500ms"), milliseconds(500));
  EXPECT_EQ(Duration("1m30s"), seconds(90));
  EXPECT_EQ(Duration("2h"), hours(2));
  EXPECT_EQ(Duration("250us"), microseconds(250));
  EXPECT_EQ(Duration("250\xC2\xB5s"), microseconds(250));
  EXPECT_EQ(Duration("17ns"), nanoseconds(17));
  EXPECT_EQ(Duration("0"), nanoseconds(0));
  EXPECT_EQ(Duration("0s"), nanoseconds(0));
}

TEST(ParseDurationTest, ReadsFractionsExactly) {
  EXPECT_EQ(Duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(Duration(".5s"), milliseconds(500));
  EXPECT_EQ(Duration("1.s"), seconds(1));
  EXPECT_EQ(Duration("0.1h"), minutes(6));
  // Finer than a nanosecond is truncated.
  EXPECT_EQ(Duration("1.0000000019s"), nanoseconds(1'000'000'001));
  EXPECT_EQ(Duration("1.5ns"), nanoseconds(1));
}

TEST(ParseDurationTest, RejectsWhatGoRejectsAndSigns) {
  for (std::string_view bad : {"", "1", "s", "1x", "-1s", "+1s", "1 s", "1s ", ".s", "1..5s"}) {
    StatusOr<nanoseconds> d = ParseDuration(bad);
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument) << "\"" << bad << "\"";
  }
}

TEST(ParseDurationTest, RejectsOverflow) {
  EXPECT_FALSE(ParseDuration("3000000h").ok());
  EXPECT_FALSE(ParseDuration("9223372036854775808ns").ok());
  EXPECT_TRUE(ParseDuration("2562047h").ok());
}

TEST(ParseDurationTest, ErrorsQuoteTheText) {
  StatusOr<nanoseconds> d = ParseDuration("5parsecs");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("\"5parsecs\""), std::string::npos) << d.status();
  EXPECT_NE(d.status().message().find("unknown unit \"parsecs\""), std::string::npos) << d.status();
}

TEST(FormatDurationTest, SpellsTheShortestExactForm) {
  EXPECT_EQ(FormatDuration(nanoseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(nanoseconds(17)), "17ns");
  EXPECT_EQ(FormatDuration(microseconds(1500)), "1.5ms");
  EXPECT_EQ(FormatDuration(microseconds(250)), "250us");
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(seconds(90)), "1m30s");
  EXPECT_EQ(FormatDuration(hours(2)), "2h0m0s");
  EXPECT_EQ(FormatDuration(milliseconds(-3)), "-3ms");
}

TEST(FormatDurationTest, RoundTripsThroughParse) {
  for (nanoseconds d :
       {nanoseconds(1), nanoseconds(1'234'567'891), nanoseconds(3'723'000'000'001)}) {
    EXPECT_EQ(Duration(FormatDuration(d)), d) << FormatDuration(d);
  }
}

}  // namespace
}  // namespace arbiter
