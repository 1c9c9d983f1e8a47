#include "arbiter/runtime/flag_values.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter::runtime {
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

TEST(ParseNodeSelectorTest, ReadsPairs) {
  StatusOr<Labels> s = ParseNodeSelector("zone=a,tier=batch");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, (Labels{{"tier", "batch"}, {"zone", "a"}}));
}

TEST(ParseNodeSelectorTest, EmptyMeansEveryNode) {
  StatusOr<Labels> s = ParseNodeSelector("");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->empty());
}

TEST(ParseNodeSelectorTest, AcceptsDoubleEqualsSpacesPrefixesAndEmptyValues) {
  StatusOr<Labels> s =
      ParseNodeSelector(" topology.kubernetes.io/zone == eu-1a , example.com/pool=, gpu=true");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, (Labels{{"example.com/pool", ""},
                        {"gpu", "true"},
                        {"topology.kubernetes.io/zone", "eu-1a"}}));
}

TEST(ParseNodeSelectorTest, RejectsWhatIsNotAnEqualityPair) {
  const std::string long_value = "zone=" + std::string(64, 'a');
  for (std::string_view bad :
       {std::string_view("zone"), std::string_view("zone!=a"), std::string_view("zone in (a,b)"),
        std::string_view("=a"), std::string_view("zone=a,,tier=b"), std::string_view("zone=a,"),
        std::string_view("-zone=a"), std::string_view("zone=a b"),
        std::string_view("Example.com/zone=a"), std::string_view(long_value)}) {
    StatusOr<Labels> s = ParseNodeSelector(bad);
    EXPECT_FALSE(s.ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(ParseNodeSelectorTest, RejectsAKeyGivenTwice) {
  StatusOr<Labels> s = ParseNodeSelector("zone=a,zone=b");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("given twice"), std::string::npos) << s.status();
}

TEST(ParseNamespaceListTest, ReadsNamesAndMergesDuplicates) {
  StatusOr<std::set<std::string>> n = ParseNamespaceList("team-a, team-b,team-a");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, (std::set<std::string>{"team-a", "team-b"}));
  StatusOr<std::set<std::string>> all = ParseNamespaceList("");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

TEST(ParseNamespaceListTest, RejectsInvalidNamesAndEmptyItems) {
  const std::string long_name(64, 'a');
  for (std::string_view bad :
       {std::string_view("a,,b"), std::string_view("a,"), std::string_view("Team"),
        std::string_view("a.b"), std::string_view("-a"), std::string_view(long_name)}) {
    EXPECT_FALSE(ParseNamespaceList(bad).ok()) << "accepted \"" << bad << "\"";
  }
}

TEST(LabelSyntaxTest, FollowsKubernetesRules) {
  EXPECT_TRUE(IsValidLabelKey("app"));
  EXPECT_TRUE(IsValidLabelKey("kubernetes.io/hostname"));
  EXPECT_TRUE(IsValidLabelKey("A_b.c-9"));
  EXPECT_FALSE(IsValidLabelKey(""));
  EXPECT_FALSE(IsValidLabelKey("a/"));
  EXPECT_FALSE(IsValidLabelKey("/a"));
  EXPECT_FALSE(IsValidLabelKey("a/b/c"));
  EXPECT_FALSE(IsValidLabelKey(std::string(64, 'a')));
  EXPECT_TRUE(IsValidLabelValue(""));
  EXPECT_TRUE(IsValidLabelValue("v1.2_x"));
  EXPECT_FALSE(IsValidLabelValue("v1-"));
  EXPECT_TRUE(IsDns1123Label("kube-system"));
  EXPECT_FALSE(IsDns1123Label("kube_system"));
}

}  // namespace
}  // namespace arbiter::runtime
