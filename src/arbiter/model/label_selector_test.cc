#include "arbiter/model/label_selector.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

LabelSelectorRequirement Req(std::string key, SelectorOperator op,
                             std::vector<std::string> values = {}) {
  return {std::move(key), op, std::move(values)};
}

TEST(LabelSelectorTest, EmptySelectorMatchesEverything) {
  LabelSelector s;
  EXPECT_TRUE(s.Empty());
  EXPECT_TRUE(s.Matches({}));
  EXPECT_TRUE(s.Matches({{"team", "ml"}}));
}

TEST(LabelSelectorTest, MatchLabelsNeedsEveryPair) {
  LabelSelector s;
  s.match_labels = {{"team", "ml"}, {"env", "prod"}};
  EXPECT_TRUE(s.Matches({{"team", "ml"}, {"env", "prod"}, {"extra", "x"}}));
  EXPECT_FALSE(s.Matches({{"team", "ml"}}));
  EXPECT_FALSE(s.Matches({{"team", "ml"}, {"env", "dev"}}));
}

TEST(LabelSelectorTest, InNeedsKeyWithListedValue) {
  LabelSelector s;
  s.match_expressions = {Req("tier", SelectorOperator::kIn, {"gold", "silver"})};
  EXPECT_TRUE(s.Matches({{"tier", "gold"}}));
  EXPECT_FALSE(s.Matches({{"tier", "bronze"}}));
  EXPECT_FALSE(s.Matches({}));
}

TEST(LabelSelectorTest, NotInMatchesMissingKey) {
  LabelSelector s;
  s.match_expressions = {Req("tier", SelectorOperator::kNotIn, {"gold"})};
  EXPECT_TRUE(s.Matches({}));
  EXPECT_TRUE(s.Matches({{"tier", "silver"}}));
  EXPECT_FALSE(s.Matches({{"tier", "gold"}}));
}

TEST(LabelSelectorTest, ExistsAndDoesNotExistIgnoreValues) {
  LabelSelector exists;
  exists.match_expressions = {Req("gpu", SelectorOperator::kExists)};
  EXPECT_TRUE(exists.Matches({{"gpu", ""}}));
  EXPECT_FALSE(exists.Matches({{"cpu", "x"}}));
  LabelSelector absent;
  absent.match_expressions = {Req("gpu", SelectorOperator::kDoesNotExist)};
  EXPECT_FALSE(absent.Matches({{"gpu", "a100"}}));
  EXPECT_TRUE(absent.Matches({}));
}

TEST(LabelSelectorTest, LabelsAndExpressionsAreAnded) {
  LabelSelector s;
  s.match_labels = {{"team", "ml"}};
  s.match_expressions = {Req("env", SelectorOperator::kIn, {"prod"}),
                         Req("frozen", SelectorOperator::kDoesNotExist)};
  EXPECT_TRUE(s.Matches({{"team", "ml"}, {"env", "prod"}}));
  EXPECT_FALSE(s.Matches({{"team", "ml"}, {"env", "prod"}, {"frozen", "yes"}}));
  EXPECT_FALSE(s.Matches({{"team", "hpc"}, {"env", "prod"}}));
}

TEST(LabelSelectorTest, InWithoutValuesSelectsNothingAndIsInvalid) {
  LabelSelector s;
  s.match_expressions = {Req("tier", SelectorOperator::kIn)};
  EXPECT_FALSE(s.Matches({{"tier", "gold"}}));
  EXPECT_EQ(s.Validate().message(), "matchExpressions[0].values: In needs values");
}

TEST(LabelSelectorTest, ValidateRejectsValuesOnExists) {
  LabelSelector s;
  s.match_expressions = {Req("a", SelectorOperator::kIn, {"x"}),
                         Req("b", SelectorOperator::kExists, {"x"})};
  EXPECT_EQ(s.Validate().message(), "matchExpressions[1].values: Exists takes no values");
}

TEST(LabelSelectorTest, OperatorNamesRoundTrip) {
  for (SelectorOperator op : {SelectorOperator::kIn, SelectorOperator::kNotIn,
                              SelectorOperator::kExists, SelectorOperator::kDoesNotExist}) {
    StatusOr<SelectorOperator> parsed = ParseSelectorOperator(SelectorOperatorName(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_FALSE(ParseSelectorOperator("in").ok());
  EXPECT_FALSE(ParseSelectorOperator("Gt").ok());
}

}  // namespace
}  // namespace arbiter
