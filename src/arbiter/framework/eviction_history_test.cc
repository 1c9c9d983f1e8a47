#include "arbiter/framework/eviction_history.h"

#include <chrono>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Clock::WallTime kT0{seconds(1'750'000'000)};

EvictDecision Eviction(std::string pod, std::string victim_job, std::string preemptor,
                       std::string queue) {
  EvictDecision e;
  e.pod_uid = std::move(pod);
  e.victim_job = std::move(victim_job);
  e.preemptor = std::move(preemptor);
  e.queue = std::move(queue);
  return e;
}

TEST(EvictionHistory, CountsPerQueueRemembersPairsAndForgetsOldEntries) {
  EvictionHistory history(minutes(10));
  history.Record(
      {Eviction("p1", "ns/low", "ns/high", "q"), Eviction("p2", "ns/low", "ns/high", "q")}, kT0);
  EXPECT_EQ(history.EvictedFromQueue("q", kT0 - minutes(1)), 2);
  EXPECT_EQ(history.EvictedFromQueue("other", kT0 - minutes(1)), 0);
  EXPECT_TRUE(history.EvictedFor("ns/high", "ns/low", kT0 - minutes(10)));
  EXPECT_FALSE(history.EvictedFor("ns/other", "ns/low", kT0 - minutes(10)));
  EXPECT_EQ(history.LastPlanFor("ns/high"), kT0);
  EXPECT_EQ(history.VictimJobsSince(kT0).size(), 2U);
  // Recording 11 minutes later drops what is older than the 10 kept.
  history.Record({}, kT0 + minutes(11));
  EXPECT_FALSE(history.EvictedFor("ns/high", "ns/low", kT0 - minutes(10)));
  EXPECT_FALSE(history.LastPlanFor("ns/high").has_value());
}

TEST(EvictionHistory, EvictionsNeverMadeAreForgotten) {
  EvictionHistory history;
  history.Record({Eviction("p1", "ns/a", "ns/high", "q"), Eviction("p2", "ns/b", "ns/high", "q")},
                 kT0);
  history.Forget({"p1"});
  EXPECT_FALSE(history.EvictedFor("ns/high", "ns/a", kT0));
  EXPECT_TRUE(history.EvictedFor("ns/high", "ns/b", kT0));
  EXPECT_EQ(history.EvictedFromQueue("q", kT0), 1);
}

// The one-pass views a plan reads once agree with the per-pod questions, window by window.
TEST(EvictionHistory, OnePassViewsAgreeWithTheQuestionsTheyReplace) {
  EvictionHistory history;
  history.Record({Eviction("p1", "ns/a", "ns/high", "q"), Eviction("p2", "ns/b", "ns/other", "r")},
                 kT0);
  history.Record({Eviction("p3", "ns/c", "ns/high", "q")}, kT0 + minutes(2));
  const Clock::WallTime last_minute = kT0 + minutes(2) - minutes(1);
  const auto by_queue = history.EvictedByQueue(last_minute);
  EXPECT_EQ(by_queue.size(), 1U);
  EXPECT_EQ(by_queue.at("q"), history.EvictedFromQueue("q", last_minute));
  EXPECT_EQ(history.EvictedByQueue(kT0).at("q"), 2);
  EXPECT_EQ(history.EvictedByQueue(kT0).at("r"), 1);
  EXPECT_EQ(history.VictimJobsOf("ns/high", kT0), (std::set<std::string_view>{"ns/a", "ns/c"}));
  EXPECT_EQ(history.VictimJobsOf("ns/high", last_minute), (std::set<std::string_view>{"ns/c"}));
  EXPECT_TRUE(history.VictimJobsOf("ns/none", kT0).empty());
}

}  // namespace
}  // namespace arbiter
