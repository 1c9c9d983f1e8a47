#include "arbiter/model/placement_rules.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using Op = NodeSelectorOperator;

Toleration Tol(std::string key, TolerationOperator op, std::string value, std::string effect) {
  return {std::move(key), op, std::move(value), std::move(effect), std::nullopt};
}
constexpr auto kEqual = TolerationOperator::kEqual;
constexpr auto kExists = TolerationOperator::kExists;

TEST(TolerationTest, EqualNeedsKeyValueAndEffect) {
  Taint gpu{"gpu", "true", "NoSchedule"};
  EXPECT_TRUE(Tolerates(Tol("gpu", kEqual, "true", "NoSchedule"), gpu));
  EXPECT_FALSE(Tolerates(Tol("gpu", kEqual, "false", "NoSchedule"), gpu));
  EXPECT_FALSE(Tolerates(Tol("gpu", kEqual, "true", "NoExecute"), gpu));
  EXPECT_TRUE(Tolerates(Tol("gpu", kEqual, "true", ""), gpu));  // empty effect: all effects
}

TEST(TolerationTest, ExistsIgnoresTheValueAndAnEmptyKeyToleratesEverything) {
  Taint gpu{"gpu", "true", "NoSchedule"};
  EXPECT_TRUE(Tolerates(Tol("gpu", kExists, "", "NoSchedule"), gpu));
  EXPECT_TRUE(Tolerates(Tol("", kExists, "", ""), gpu));
  EXPECT_FALSE(Tolerates(Tol("", kEqual, "", ""), gpu));  // invalid upstream; tolerates nothing
  EXPECT_FALSE(Tolerates(Tol("other", kExists, "", ""), gpu));
}

TEST(TolerationTest, OnlyNoScheduleAndNoExecuteForbidPlacement) {
  std::vector<Taint> taints = {{"soft", "x", "PreferNoSchedule"}, {"hard", "y", "NoExecute"}};
  const Taint* blocking = FirstUntoleratedTaint({}, taints);
  ASSERT_NE(blocking, nullptr);
  EXPECT_EQ(blocking->key, "hard");
  EXPECT_EQ(FirstUntoleratedTaint({Tol("hard", kExists, "", "")}, taints), nullptr);
  EXPECT_EQ(FirstUntoleratedTaint({}, {}), nullptr);
}

TEST(NodeSelectorTest, EveryKeyMustMatch) {
  Labels node = {{"zone", "a"}, {"type", "kwok"}};
  EXPECT_TRUE(MatchesNodeSelector({}, node));
  EXPECT_TRUE(MatchesNodeSelector({{"zone", "a"}}, node));
  EXPECT_FALSE(MatchesNodeSelector({{"zone", "b"}}, node));
  EXPECT_FALSE(MatchesNodeSelector({{"zone", "a"}, {"gpu", "true"}}, node));
}

TEST(RequirementTest, Operators) {
  Labels labels = {{"zone", "a"}, {"cores", "64"}, {"name", "x"}};
  EXPECT_TRUE(MatchesRequirement({"zone", Op::kIn, {"a", "b"}}, labels));
  EXPECT_FALSE(MatchesRequirement({"zone", Op::kIn, {"b"}}, labels));
  EXPECT_FALSE(MatchesRequirement({"rack", Op::kIn, {"a"}}, labels));
  EXPECT_TRUE(MatchesRequirement({"zone", Op::kNotIn, {"b"}}, labels));
  EXPECT_TRUE(MatchesRequirement({"rack", Op::kNotIn, {"b"}}, labels));  // absent: not in
  EXPECT_TRUE(MatchesRequirement({"zone", Op::kExists, {}}, labels));
  EXPECT_TRUE(MatchesRequirement({"rack", Op::kDoesNotExist, {}}, labels));
  EXPECT_TRUE(MatchesRequirement({"cores", Op::kGt, {"32"}}, labels));
  EXPECT_FALSE(MatchesRequirement({"cores", Op::kLt, {"32"}}, labels));
  EXPECT_FALSE(MatchesRequirement({"name", Op::kGt, {"1"}}, labels));  // not an integer
  EXPECT_FALSE(MatchesRequirement({"cores", Op::kGt, {"1", "2"}}, labels));
}

TEST(NodeAffinityTest, TermsAreOredExpressionsAnded) {
  Node node;
  node.meta.name = "n1";
  node.meta.labels = {{"zone", "a"}, {"gpu", "true"}};
  NodeSelector affinity;
  affinity.terms = {
      {{{"zone", Op::kIn, {"b"}}}, {}},                            // fails
      {{{"zone", Op::kIn, {"a"}}, {"gpu", Op::kExists, {}}}, {}},  // holds
  };
  EXPECT_TRUE(MatchesNodeAffinity(affinity, node));
  affinity.terms.pop_back();
  EXPECT_FALSE(MatchesNodeAffinity(affinity, node));
}

TEST(NodeAffinityTest, FieldsSelectByNodeNameAndEmptyTermsMatchNothing) {
  Node node;
  node.meta.name = "n1";
  NodeSelector by_name;
  by_name.terms = {{{}, {{"metadata.name", Op::kIn, {"n1"}}}}};
  EXPECT_TRUE(MatchesNodeAffinity(by_name, node));
  NodeSelector empty_term;
  empty_term.terms = {{}};
  EXPECT_FALSE(MatchesNodeAffinity(empty_term, node));
  EXPECT_FALSE(MatchesNodeAffinity(NodeSelector{}, node));
}

TEST(HostPortTest, SameProtocolAndPortConflictUnlessAddressesDiffer) {
  std::vector<HostPort> used = {{8080, "TCP", ""}, {53, "UDP", "10.0.0.1"}};
  EXPECT_TRUE(HostPortsConflict({{8080, "TCP", "10.0.0.2"}}, used));  // used on every address
  EXPECT_FALSE(HostPortsConflict({{8080, "UDP", ""}}, used));
  EXPECT_TRUE(HostPortsConflict({{53, "UDP", "0.0.0.0"}}, used));
  EXPECT_FALSE(HostPortsConflict({{53, "UDP", "10.0.0.2"}}, used));
  EXPECT_TRUE(HostPortsConflict({{53, "UDP", "10.0.0.1"}}, used));
  EXPECT_FALSE(HostPortsConflict({}, used));
}

}  // namespace
}  // namespace arbiter
