#include "arbiter/runtime/flag_values.h"

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

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
