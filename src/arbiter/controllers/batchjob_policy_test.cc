#include "arbiter/controllers/batchjob_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace arbiter::controllers {
namespace {

using ::testing::HasSubstr;

LifecyclePolicy On(JobEvent event, JobAction action) {
  LifecyclePolicy p;
  p.event = event;
  p.action = action;
  return p;
}

LifecyclePolicy OnExitCodes(bool in, std::vector<std::int32_t> codes, JobAction action) {
  LifecyclePolicy p;
  p.exit_codes = ExitCodeRule{in, std::move(codes)};
  p.action = action;
  return p;
}

Occurrence Failed(std::int32_t code) { return {JobEvent::kPodFailed, code}; }

TEST(BatchJobPolicy, DefaultsWhenNothingMatches) {
  const auto d = [](JobEvent e) { return DecidePolicy({}, {}, "worker", {e, std::nullopt}); };
  EXPECT_EQ(d(JobEvent::kPodFailed).action, JobAction::kRestartJob);
  EXPECT_TRUE(d(JobEvent::kPodFailed).uses_retry);
  EXPECT_EQ(d(JobEvent::kPodEvicted).action, JobAction::kRestartJob);
  EXPECT_FALSE(d(JobEvent::kPodEvicted).uses_retry);
  EXPECT_EQ(d(JobEvent::kPodPreempted).action, JobAction::kRestartJob);
  EXPECT_FALSE(d(JobEvent::kPodPreempted).uses_retry);
  EXPECT_EQ(d(JobEvent::kTaskFailed).action, JobAction::kFailJob);
  EXPECT_FALSE(d(JobEvent::kTaskFailed).uses_retry);
  EXPECT_EQ(d(JobEvent::kTaskSucceeded).action, JobAction::kIgnore);
  EXPECT_EQ(d(JobEvent::kUnschedulable).action, JobAction::kIgnore);
  EXPECT_EQ(d(JobEvent::kPodFailed).rule, "default");
}

TEST(BatchJobPolicy, TheTasksPoliciesComeFirstThenTheJobsFirstMatchWins) {
  const std::vector<LifecyclePolicy> job = {
      On(JobEvent::kPodFailed, JobAction::kFailJob),
      On(JobEvent::kPodFailed, JobAction::kIgnore),
  };
  const std::vector<LifecyclePolicy> task = {On(JobEvent::kPodFailed, JobAction::kRestartTask)};
  const PolicyDecision by_task = DecidePolicy(task, job, "worker", Failed(1));
  EXPECT_EQ(by_task.action, JobAction::kRestartTask);
  EXPECT_TRUE(by_task.uses_retry);
  EXPECT_EQ(by_task.rule, "task worker policy 0");
  const PolicyDecision by_job = DecidePolicy({}, job, "worker", Failed(1));
  EXPECT_EQ(by_job.action, JobAction::kFailJob);
  EXPECT_EQ(by_job.rule, "job policy 0");
}

TEST(BatchJobPolicy, ExitCodesInAndNotIn) {
  const std::vector<LifecyclePolicy> job = {
      OnExitCodes(true, {42}, JobAction::kCompleteJob),
      OnExitCodes(false, {0, 1}, JobAction::kFailJob),
  };
  EXPECT_EQ(DecidePolicy({}, job, "w", Failed(42)).action, JobAction::kCompleteJob);
  EXPECT_EQ(DecidePolicy({}, job, "w", Failed(137)).action, JobAction::kFailJob);
  // 1 is in neither rule's reach: the default applies.
  const PolicyDecision one = DecidePolicy({}, job, "w", Failed(1));
  EXPECT_EQ(one.action, JobAction::kRestartJob);
  EXPECT_EQ(one.rule, "default");
}

TEST(BatchJobPolicy, ExitCodeRulesNeverMatchWhatHasNoExitCode) {
  const std::vector<LifecyclePolicy> job = {OnExitCodes(false, {0}, JobAction::kFailJob)};
  const PolicyDecision d = DecidePolicy({}, job, "w", {JobEvent::kPodPreempted, std::nullopt});
  EXPECT_EQ(d.action, JobAction::kRestartJob);
  EXPECT_EQ(d.rule, "default");
}

TEST(BatchJobPolicy, APreemptionNeverUsesARetryWhateverThePolicy) {
  const std::vector<LifecyclePolicy> job = {On(JobEvent::kPodPreempted, JobAction::kRestartJob)};
  const PolicyDecision d = DecidePolicy({}, job, "w", {JobEvent::kPodPreempted, std::nullopt});
  EXPECT_EQ(d.action, JobAction::kRestartJob);
  EXPECT_FALSE(d.uses_retry);
}

TEST(BatchJobPolicy, TheTimeoutOfTheMatchingPolicyIsReturned) {
  LifecyclePolicy p = On(JobEvent::kUnschedulable, JobAction::kFailJob);
  p.timeout_seconds = 600;
  const PolicyDecision d = DecidePolicy({}, {p}, "w", {JobEvent::kUnschedulable, std::nullopt});
  EXPECT_EQ(d.action, JobAction::kFailJob);
  EXPECT_EQ(d.timeout_seconds, 600);
}

TEST(BatchJobPolicy, NamesParseAndPrint) {
  for (const char* name : {"PodFailed", "PodEvicted", "PodPreempted", "TaskSucceeded", "TaskFailed",
                           "Unschedulable"}) {
    StatusOr<JobEvent> e = ParseJobEvent(name);
    ASSERT_TRUE(e.ok()) << name;
    EXPECT_EQ(JobEventName(*e), name);
  }
  for (const char* name : {"RestartJob", "RestartTask", "FailJob", "CompleteJob", "Ignore"}) {
    StatusOr<JobAction> a = ParseJobAction(name);
    ASSERT_TRUE(a.ok()) << name;
    EXPECT_EQ(JobActionName(*a), name);
  }
  EXPECT_THAT(ParseJobAction("AbortJob").status().message(),
              HasSubstr("unknown action \"AbortJob\" (known: RestartJob, RestartTask, FailJob, "
                        "CompleteJob, Ignore)"));
  EXPECT_FALSE(ParseJobEvent("podfailed").ok());
}

}  // namespace
}  // namespace arbiter::controllers
