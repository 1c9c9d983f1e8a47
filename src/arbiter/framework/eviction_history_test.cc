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

}  // namespace
}  // namespace arbiter
