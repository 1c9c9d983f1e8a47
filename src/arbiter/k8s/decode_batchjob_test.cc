// Decoding of BatchJob (arbiter.dev/v1alpha1): spec with tasks, templates kept as JSON text,
// policies, status; and the errors that name the field.
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::Decode;

constexpr std::string_view kJob = R"json({
  "apiVersion": "arbiter.dev/v1alpha1", "kind": "BatchJob",
  "metadata": {"name": "tf", "namespace": "ml", "uid": "u1", "generation": 2},
  "spec": {
    "queue": "research", "priorityClassName": "high", "maxRetry": 1,
    "ttlSecondsAfterFinished": 30, "activeDeadlineSeconds": 600, "suspend": false,
    "tasks": [
      {"name": "ps", "replicas": 1,
       "template": {"metadata": {"labels": {"app": "ps"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox",
                                             "resources": {"requests": {"cpu": "1"}}}]}}},
      {"name": "worker", "replicas": 3, "minAvailable": 2,
       "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
       "dependsOn": [{"task": "ps", "condition": "Ready"}],
       "policies": [{"event": "PodFailed", "exitCodes": {"operator": "In", "values": [3, 4]},
                     "action": "RestartTask"}]}
    ],
    "policies": [{"event": "Unschedulable", "action": "FailJob", "timeoutSeconds": 60}],
    "successPolicy": {"operator": "Any", "tasks": ["worker"]}
  },
  "status": {"phase": "Restarting", "attempt": 2, "retryCount": 1, "preemptionCount": 1,
             "running": 3, "minAvailable": 3, "observedGeneration": 2,
             "tasks": {"ps": {"running": 1}, "worker": {"pending": 1, "running": 2, "attempt": 1}},
             "startTime": "2026-12-01T10:00:00Z",
             "conditions": [{"type": "Running", "status": "True", "reason": "MinAvailable",
                             "observedGeneration": 2}]}
})json";

TEST(DecodeBatchJobTest, ReadsSpecAndStatus) {
  StatusOr<BatchJob> job = Decode<BatchJob>(kJob);
  ASSERT_TRUE(job.ok()) << job.status();
  const BatchJobSpec& spec = job->spec;
  EXPECT_EQ(job->meta.Key(), "ml/tf");
  EXPECT_EQ(spec.queue, "research");
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.max_retry, 1);
  EXPECT_EQ(spec.ttl_seconds_after_finished, 30);
  EXPECT_EQ(spec.active_deadline_seconds, 600);
  ASSERT_EQ(spec.tasks.size(), 2U);
  EXPECT_EQ(spec.tasks[0].MinAvailable(), 1);
  EXPECT_EQ(spec.tasks[1].MinAvailable(), 2);
  EXPECT_EQ(spec.MinAvailable(), 3);
  EXPECT_EQ(spec.Replicas(), 4);
  ASSERT_EQ(spec.tasks[1].depends_on.size(), 1U);
  EXPECT_EQ(spec.tasks[1].depends_on[0], (TaskDependency{"ps", DependencyCondition::kReady}));
  ASSERT_EQ(spec.tasks[1].policies.size(), 1U);
  EXPECT_EQ(spec.tasks[1].policies[0].action, JobAction::kRestartTask);
  EXPECT_EQ(spec.tasks[1].policies[0].exit_codes, (ExitCodeRule{true, {3, 4}}));
  ASSERT_EQ(spec.policies.size(), 1U);
  EXPECT_EQ(spec.policies[0].event, JobEvent::kUnschedulable);
  EXPECT_EQ(spec.policies[0].timeout_seconds, 60);
  EXPECT_TRUE(spec.success_policy.any);
  EXPECT_EQ(spec.success_policy.tasks, std::vector<std::string>{"worker"});

  // The template is the JSON text as written, every field of it.
  nlohmann::json tmpl = nlohmann::json::parse(spec.tasks[0].template_json);
  EXPECT_EQ(tmpl["metadata"]["labels"]["app"], "ps");
  EXPECT_EQ(tmpl["spec"]["containers"][0]["image"], "busybox");

  const BatchJobStatus& status = job->status;
  EXPECT_EQ(status.phase, BatchJobPhase::kRestarting);
  EXPECT_EQ(status.attempt, 2);
  EXPECT_EQ(status.retry_count, 1);
  EXPECT_EQ(status.preemption_count, 1);
  EXPECT_EQ(status.tasks.at("worker"), (TaskCounts{1, 2, 0, 0, 1}));
  EXPECT_TRUE(status.start_time.has_value());
  ASSERT_EQ(status.conditions.size(), 1U);
  EXPECT_EQ(status.conditions[0].condition.reason, "MinAvailable");
  EXPECT_EQ(status.conditions[0].observed_generation, 2);
}

TEST(DecodeBatchJobTest, DefaultsApplyWhenAbsent) {
  StatusOr<BatchJob> job = Decode<BatchJob>(
      R"({"metadata": {"name": "j"}, "spec": {"tasks": [{"name": "a", "replicas": 2}]}})");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->spec.queue, "default");
  EXPECT_EQ(job->spec.max_retry, 3);
  EXPECT_EQ(job->spec.MinAvailable(), 2);
  EXPECT_FALSE(job->spec.success_policy.any);
  EXPECT_TRUE(job->spec.tasks[0].template_json.empty());
  EXPECT_EQ(job->status.phase, BatchJobPhase::kPending);
}

struct BadJob {
  std::string spec;
  std::string error;
};

class DecodeBadBatchJobTest : public testing::TestWithParam<BadJob> {};

TEST_P(DecodeBadBatchJobTest, NamesTheJobAndTheField) {
  StatusOr<BatchJob> job = Decode<BatchJob>(
      R"({"metadata": {"name": "j", "namespace": "ns"}, "spec": )" + GetParam().spec + "}");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(job.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeBadBatchJobTest,
    testing::Values(
        BadJob{R"({"tasks": [{"name": "a", "replicas": 2, "minAvailable": 3}]})",
               "batchjob ns/j: spec.tasks[0].minAvailable: must be at most replicas (2), got 3"},
        BadJob{R"({"minAvailable": 5, "tasks": [{"name": "a", "replicas": 2}]})",
               "batchjob ns/j: spec.minAvailable: must be at most the sum of the tasks' replicas "
               "(2), got 5"},
        BadJob{R"({"tasks": [{"name": "a"}, {"name": "a"}]})",
               "batchjob ns/j: spec.tasks[1].name: duplicate task \"a\""},
        BadJob{R"({"tasks": [{"name": "a", "dependsOn": [{"task": "b"}]}]})",
               "batchjob ns/j: spec.tasks[0].dependsOn[0].task: no other task \"b\""},
        BadJob{R"({"tasks": [{"replicas": 1}]})", "batchjob ns/j: spec.tasks[0].name: missing"},
        BadJob{R"({"tasks": [{"name": "a", "replicas": -1}]})",
               "batchjob ns/j: spec.tasks[0].replicas: must not be negative, got -1"},
        BadJob{R"({"policies": [{"event": "PodLost", "action": "Ignore"}]})",
               "batchjob ns/j: spec.policies[0].event: unknown event \"PodLost\" (known: "
               "PodFailed, PodEvicted, PodPreempted, TaskSucceeded, TaskFailed, Unschedulable)"},
        BadJob{R"({"policies": [{"exitCodes": {"operator": "Gt", "values": [1]}}]})",
               "batchjob ns/j: spec.policies[0].exitCodes.operator: unknown operator \"Gt\" "
               "(want In or NotIn)"},
        BadJob{R"({"tasks": [{"name": "a", "template": []}]})",
               "batchjob ns/j: spec.tasks[0].template: expected an object (a PodTemplateSpec), got "
               "array"},
        BadJob{R"({"successPolicy": {"tasks": ["x"]}, "tasks": [{"name": "a"}]})",
               "batchjob ns/j: spec.successPolicy.tasks[0]: no task \"x\""}));

TEST(DecodePodStatusTest, ReadsReasonAndExitCode) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p"}, "status": {
      "phase": "Failed", "reason": "Evicted",
      "containerStatuses": [
        {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
        {"name": "b", "state": {"terminated": {"exitCode": 137, "reason": "Error"}}},
        {"name": "c", "state": {"terminated": {"exitCode": 2}}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->status.reason, "Evicted");
  EXPECT_EQ(pod->status.exit_code, 137);

  StatusOr<Pod> running = Decode<Pod>(R"({"metadata": {"name": "p"}, "status": {
      "phase": "Running", "containerStatuses": [{"name": "a", "state": {"running": {}}}]}})");
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_FALSE(running->status.exit_code.has_value());
  EXPECT_FALSE(running->status.finished_at.has_value());
}

// How long a finished pod ran (the straggler plugin's input): its last container's finishedAt.
TEST(DecodePodStatusTest, ReadsWhenTheLastContainerFinished) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p"}, "status": {
      "phase": "Succeeded", "startTime": "2026-12-04T10:00:00Z",
      "containerStatuses": [
        {"name": "a", "state": {"terminated": {"exitCode": 0,
                                               "finishedAt": "2026-12-04T10:05:00Z"}}},
        {"name": "b", "state": {"terminated": {"exitCode": 0,
                                               "finishedAt": "2026-12-04T10:07:30Z"}}},
        {"name": "c", "state": {"terminated": {"exitCode": 0, "finishedAt": null}}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  ASSERT_TRUE(pod->status.finished_at.has_value());
  ASSERT_TRUE(pod->status.start_time.has_value());
  EXPECT_EQ(*pod->status.finished_at - *pod->status.start_time, std::chrono::seconds(450));

  StatusOr<Pod> bad = Decode<Pod>(R"({"metadata": {"name": "p", "namespace": "ns"}, "status": {
      "containerStatuses": [{"name": "a", "state": {"terminated": {"finishedAt": "soon"}}}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "pod ns/p: status.containerStatuses[0].state.terminated.finishedAt"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace arbiter::k8s
