#include "arbiter/ctl/top.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter::ctl {
namespace {

using ::testing::HasSubstr;

std::vector<MetricSample> Parse(std::string_view text) {
  StatusOr<std::vector<MetricSample>> samples = ParseExposition(text);
  EXPECT_TRUE(samples.ok()) << samples.status();
  return samples.ok() ? *samples : std::vector<MetricSample>{};
}

TEST(ParseExpositionTest, NamesLabelsValuesAndEscapes) {
  const std::vector<MetricSample> s = Parse(
      "# HELP x a help\n# TYPE x counter\nx 3\n"
      "y{a=\"1\",b=\"q\\\"uote\"} 2.5 1700000000\n"
      "z_bucket{le=\"+Inf\"} 7\n\n");
  ASSERT_EQ(s.size(), 3U);
  EXPECT_EQ(s[0].name, "x");
  EXPECT_EQ(s[0].value, 3);
  EXPECT_EQ(s[1].labels.at("a"), "1");
  EXPECT_EQ(s[1].labels.at("b"), "q\"uote");
  EXPECT_EQ(s[1].value, 2.5);
  EXPECT_EQ(s[2].labels.at("le"), "+Inf");
}

TEST(ParseExpositionTest, ABadLineIsNamed) {
  StatusOr<std::vector<MetricSample>> s = ParseExposition("x 1\ny{a=1} 2\n");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("metrics line 2: a label is not name=\"value\""));
  EXPECT_FALSE(ParseExposition("x one\n").ok());
}

TEST(FormatTopTest, RatesQuantilesPendingAndQueues) {
  const std::vector<MetricSample> before = Parse(
      "arbiter_leader 1\n"
      "arbiter_sessions_total 10\n"
      "arbiter_decisions_total{decision=\"bind\"} 100\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"0.001\"} 0\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"0.002\"} 10\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"} 10\n");
  const std::vector<MetricSample> after = Parse(
      "arbiter_leader 1\n"
      "arbiter_sessions_total 30\n"
      "arbiter_decisions_total{decision=\"bind\"} 140\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"0.001\"} 10\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"0.002\"} 30\n"
      "arbiter_session_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"} 30\n"
      "arbiter_pending_jobs{queue=\"ml\",gate=\"Placement\"} 3\n"
      "arbiter_pending_jobs{queue=\"web\",gate=\"Capability\"} 1\n"
      "arbiter_queue_allocated{queue=\"ml\",resource=\"cpu\",unit=\"core\"} 2\n"
      "arbiter_queue_deserved{queue=\"ml\",resource=\"cpu\",unit=\"core\"} 4\n");
  const std::string frame = FormatTop(before, after, 10);
  EXPECT_THAT(frame, HasSubstr("arbiter-scheduler  leading  over the last 10.0s"));
  // 20 sessions in 10 s; 10 of the 20 observations under 1 ms, all under 2 ms.
  EXPECT_THAT(frame, HasSubstr("sessions  2.0/s  p50 1.0ms  p99 2.0ms"));
  EXPECT_THAT(frame, HasSubstr("bind 4.0/s"));
  EXPECT_THAT(frame, HasSubstr("ml                   Placement              3"));
  EXPECT_THAT(frame, HasSubstr("web                  Capability             1"));
  EXPECT_LT(frame.find("Placement"), frame.find("Capability"));  // most first
  EXPECT_THAT(frame, HasSubstr("[##########..........] 50%"));
}

TEST(FormatTopTest, NoSessionsSaysSo) {
  const std::vector<MetricSample> s = Parse("arbiter_leader 0\narbiter_sessions_total 0\n");
  const std::string frame = FormatTop(s, s, 2);
  EXPECT_THAT(frame, HasSubstr("standing by (no sessions)"));
  EXPECT_THAT(frame, HasSubstr("sessions  0.0/s  p50 -  p99 -"));
  EXPECT_THAT(frame, HasSubstr("(none)"));
}

}  // namespace
}  // namespace arbiter::ctl
