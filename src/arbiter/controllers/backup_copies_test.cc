#include "arbiter/controllers/backup_copies.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter::controllers {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const Clock::WallTime kStart(std::chrono::seconds(1'800'000'000));

Clock::WallTime At(int seconds) { return kStart + std::chrono::seconds(seconds); }

TaskRun Finished(std::int32_t index, std::string node, int start, int end) {
  return TaskRun{index, false, std::move(node), At(start), At(end), true, false};
}

TaskRun Running(std::int32_t index, std::string node, int start) {
  return TaskRun{index, false, std::move(node), At(start), std::nullopt, false, false};
}

std::vector<std::int32_t> Indexes(const std::vector<BackupChoice>& choices) {
  std::vector<std::int32_t> out;
  out.reserve(choices.size());
  for (const BackupChoice& c : choices) out.push_back(c.index);
  return out;
}

TEST(ChooseBackupsTest, ARunPastOneAndAHalfTimesItsTasksMedianGetsACopyAwayFromSlowNodes) {
  // Median 40 s; behind past 60 s.
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 38), Finished(1, "n1", 0, 40),
                               Finished(2, "n2", 0, 42), Running(3, "n3", 0)};
  EXPECT_THAT(ChooseBackups(runs, 4, At(60)), IsEmpty());
  const std::vector<BackupChoice> choices = ChooseBackups(runs, 4, At(61));
  ASSERT_THAT(Indexes(choices), ElementsAre(3));
  EXPECT_THAT(choices[0].avoid_nodes, ElementsAre("n3"));
  EXPECT_EQ(choices[0].why, "ran 61s on n3, 1.5x its task's median of 40s");
}

TEST(NextBehindTest, TheFirstRunNotYetBehindSaysWhenItWillBe) {
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 40), Finished(1, "n1", 0, 40),
                               Finished(2, "n2", 0, 40), Running(3, "n3", 10), Running(4, "n4", 5)};
  EXPECT_EQ(NextBehind(runs, 5, At(50)), At(65)) << "started at 5 s, behind past 60 s of run";
  EXPECT_EQ(NextBehind(runs, 5, At(66)), At(70));
  EXPECT_EQ(NextBehind(runs, 5, At(71)), std::nullopt) << "both are behind already";
  EXPECT_EQ(NextBehind(std::span(runs).first(2), 8, At(0)), std::nullopt) << "no median yet";
}

TEST(ChooseBackupsTest, NothingIsJudgedBeforeMinFinishedRunsSucceeded) {
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 10), Finished(1, "n1", 0, 10),
                               Running(2, "n2", 0), Running(3, "n3", 0)};
  EXPECT_THAT(ChooseBackups(runs, 6, At(500)), IsEmpty()) << "2 of 6: fewer than 3";
  EXPECT_THAT(Indexes(ChooseBackups(runs, 6, At(500), BackupRule{1.5, 2, 0.5})), ElementsAre(2, 3));
  // Of 4 replicas, half (2) is enough: a gang of 4 with two stragglers still has its peers.
  EXPECT_THAT(Indexes(ChooseBackups(runs, 4, At(500))), ElementsAre(2));
  const std::vector<TaskRun> one = {runs[0], runs[2], runs[3]};
  EXPECT_THAT(ChooseBackups(one, 4, At(500)), IsEmpty()) << "1 of 4";
}

TEST(ChooseBackupsTest, OneCopyPerIndexAndNoneForAnIndexThatSucceeded) {
  TaskRun copy = Running(3, "n0", 70);
  copy.backup = true;
  TaskRun failed_copy = Running(4, "n1", 70);
  failed_copy.backup = true;
  failed_copy.failed = true;
  failed_copy.finished = At(80);
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 40),
                               Finished(1, "n1", 0, 40),
                               Finished(2, "n2", 0, 40),
                               Running(3, "n3", 0),
                               Running(4, "n4", 0),
                               copy,
                               failed_copy};
  // 3 has a copy running, 4 had one that failed: neither gets another.
  EXPECT_THAT(ChooseBackups(runs, 50, At(200)), IsEmpty());
}

TEST(ChooseBackupsTest, AtMostATenthOfTheReplicasHaveACopyAtOnceTheLongestBehindFirst) {
  std::vector<TaskRun> runs;
  runs.reserve(22);
  for (int i = 0; i < 17; ++i) runs.push_back(Finished(i, "n" + std::to_string(i), 0, 40));
  runs.push_back(Running(17, "s17", 20));  // ran 80 s at 100
  runs.push_back(Running(18, "s18", 0));   // ran 100 s
  runs.push_back(Running(19, "s19", 10));  // ran 90 s
  // 20 replicas: 2 copies at once.
  const std::vector<BackupChoice> choices = ChooseBackups(runs, 20, At(100));
  EXPECT_THAT(Indexes(choices), ElementsAre(18, 19));
  // Every node where a run is behind is avoided, not only the copied run's.
  EXPECT_THAT(choices[0].avoid_nodes, ElementsAre("s17", "s18", "s19"));
  // One of the two copies done (succeeded), one still running: room for one more.
  TaskRun done = Finished(18, "n0", 100, 140);
  done.backup = true;
  TaskRun running = Running(19, "n1", 100);
  running.backup = true;
  runs.push_back(done);
  runs.push_back(running);
  EXPECT_THAT(Indexes(ChooseBackups(runs, 20, At(150))), ElementsAre(17));
}

TEST(ChooseBackupsTest, ANodeWhereAFinishedRunTookLongIsAvoided) {
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 40), Finished(1, "n1", 0, 40),
                               Finished(2, "n2", 0, 40), Finished(3, "slow", 0, 90),
                               Running(4, "n4", 0)};
  const std::vector<BackupChoice> choices = ChooseBackups(runs, 5, At(80));
  ASSERT_THAT(Indexes(choices), ElementsAre(4));
  EXPECT_THAT(choices[0].avoid_nodes, ElementsAre("n4", "slow"));
}

TEST(ChooseBackupsTest, RunsNotStartedOrFailedAreNeverCopied) {
  TaskRun pending{3, false, "", std::nullopt, std::nullopt, false, false};
  TaskRun failed = Running(4, "n4", 0);
  failed.failed = true;
  failed.finished = At(100);
  std::vector<TaskRun> runs = {Finished(0, "n0", 0, 40), Finished(1, "n1", 0, 40),
                               Finished(2, "n2", 0, 40), pending, failed};
  EXPECT_THAT(ChooseBackups(runs, 5, At(500)), IsEmpty());
}

TEST(ExcludeNodesTest, EveryAlternativeTermKeepsOffEachNodeOneValueARequirement) {
  std::optional<NodeSelector> none;
  const std::vector<std::string> nodes = {"n1", "n2"};
  ExcludeNodes(none, nodes);
  ASSERT_TRUE(none.has_value());
  ASSERT_EQ(none->terms.size(), 1U);
  EXPECT_EQ(none->terms[0].match_fields,
            (std::vector<NodeSelectorRequirement>{
                {"metadata.name", NodeSelectorOperator::kNotIn, {"n1"}},
                {"metadata.name", NodeSelectorOperator::kNotIn, {"n2"}}}));

  const NodeSelectorRequirement zone_a{"zone", NodeSelectorOperator::kIn, {"a"}};
  const NodeSelectorRequirement zone_b{"zone", NodeSelectorOperator::kIn, {"b"}};
  std::optional<NodeSelector> two =
      NodeSelector{{NodeSelectorTerm{{zone_a}, {}}, NodeSelectorTerm{{zone_b}, {}}}};
  ExcludeNodes(two, std::vector<std::string>{"n1"});
  ASSERT_EQ(two->terms.size(), 2U);
  for (const NodeSelectorTerm& term : two->terms) {
    EXPECT_EQ(term.match_expressions.size(), 1U) << "its own requirements stay";
    EXPECT_EQ(term.match_fields, (std::vector<NodeSelectorRequirement>{
                                     {"metadata.name", NodeSelectorOperator::kNotIn, {"n1"}}}));
  }
  std::optional<NodeSelector> untouched;
  ExcludeNodes(untouched, std::vector<std::string>{});
  EXPECT_FALSE(untouched.has_value());
}

}  // namespace
}  // namespace arbiter::controllers
