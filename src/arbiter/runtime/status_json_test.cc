#include "arbiter/runtime/status_json.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "arbiter/k8s/decode.h"

namespace arbiter::runtime {
namespace {

// 2023-11-14T22:13:20Z, plus some fraction of a second.
Clock::WallTime At(std::int64_t seconds, std::int64_t nanos = 0) {
  return Clock::WallTime(std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos));
}
constexpr std::int64_t kT = 1'700'000'000;

PodGroupStatus RunningStatus() {
  PodGroupStatus status;
  status.phase = PodGroupPhase::kRunning;
  status.scheduled = 3;
  status.running = 2;
  status.succeeded = 1;
  Condition scheduled;
  scheduled.type = "Scheduled";
  scheduled.status = "True";
  scheduled.reason = "GangScheduled";
  scheduled.message = "3/3 pods placed";
  scheduled.last_transition_time = At(kT, 999'999'999);
  status.conditions.push_back(scheduled);
  return status;
}

// The status written as JSON, read back as the scheduler reads a PodGroup.
StatusOr<PodGroup> ReadBack(const std::string& status_json) {
  const std::string object =
      R"({"metadata": {"name": "g", "namespace": "team"}, "spec": {"minMember": 1}, "status": )" +
      status_json + "}";
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(object);
  return k8s::DecodeObject<PodGroup>(parser, padded);
}

TEST(FormatRfc3339Test, IsUtcWithWholeSeconds) {
  EXPECT_EQ(FormatRfc3339(At(kT)), "2023-11-14T22:13:20Z");
  EXPECT_EQ(FormatRfc3339(At(kT, 999'999'999)), "2023-11-14T22:13:20Z");
  EXPECT_EQ(FormatRfc3339(At(0)), "1970-01-01T00:00:00Z");
}

TEST(PodGroupStatusJsonTest, SpellsTheCrdFields) {
  nlohmann::json json = nlohmann::json::parse(PodGroupStatusJson(RunningStatus()));
  EXPECT_EQ(json, nlohmann::json::parse(R"({
    "phase": "Running", "scheduled": 3, "running": 2, "succeeded": 1, "failed": 0,
    "conditions": [{"type": "Scheduled", "status": "True", "reason": "GangScheduled",
                    "message": "3/3 pods placed", "lastTransitionTime": "2023-11-14T22:13:20Z"}]
  })"));
}

TEST(PodGroupStatusJsonTest, TheExplanationComesBackAsItWasWritten) {
  PodGroupStatus status;
  PendingExplanation& e = status.explanation.emplace();
  e.gate = "Placement";
  e.reason = "NotEnoughResources";
  e.needs.Set("cpu", 1500);
  e.queue = "ml";
  e.queue_allocated.Set("cpu", 2000);
  e.queue_deserved.Set("cpu", 4000);
  e.queue_capability.Set("cpu", 8000);
  e.queue_room.Set("cpu", 6000);
  e.pod = "team/job-0";
  e.nodes = 3;
  e.excluded = {{"Insufficient cpu", 2}, {"node(s) had untolerated taint {gpu: true}", 1}};
  e.shortfall.Set("cpu", 500);
  NodeClassRoom& room = e.node_classes.emplace_back();
  room.instance_type = "m5.xlarge";
  room.nodes = 3;
  room.allocatable.Set("cpu", 4000);
  room.most_free.Set("cpu", 0);
  e.position = 2;
  e.ahead = {"team/first"};
  StartEstimate& estimate = e.estimate.emplace();
  estimate.start = Clock::WallTime(std::chrono::seconds(1'750'000'600));
  estimate.as_of = Clock::WallTime(std::chrono::seconds(1'750'000'000));
  estimate.confidence = "High";
  estimate.assumptions = "after 1 job end (1 by run-for)";
  const std::string json = PodGroupStatusJson(status);
  const nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["explanation"]["needs"]["cpu"], "1500m");
  EXPECT_EQ(parsed["explanation"]["queue"]["room"]["cpu"], "6");
  StatusOr<PodGroup> group = ReadBack(json);
  ASSERT_TRUE(group.ok()) << group.status();
  ASSERT_TRUE(group->status.explanation.has_value());
  EXPECT_EQ(*group->status.explanation, e);
}

TEST(PodGroupStatusJsonTest, TheReservationComesBackAsItWasWritten) {
  for (const bool known_start : {true, false}) {
    PodGroupStatus status;
    GangReservationStatus& r = status.reservation.emplace();
    r.nodes = {"n1", "n2"};
    r.since = Clock::WallTime(std::chrono::seconds(1'750'000'000));
    if (known_start) r.estimated_start = Clock::WallTime(std::chrono::seconds(1'750'000'050));
    const std::string json = PodGroupStatusJson(status);
    const nlohmann::json parsed = nlohmann::json::parse(json);
    EXPECT_EQ(parsed["reservation"]["nodes"], nlohmann::json({"n1", "n2"}));
    EXPECT_EQ(parsed["reservation"].contains("estimatedStart"), known_start);
    StatusOr<PodGroup> group = ReadBack(json);
    ASSERT_TRUE(group.ok()) << group.status();
    EXPECT_EQ(group->status.reservation, status.reservation);
  }
}

TEST(PodGroupStatusJsonTest, TheLocalityComesBackAsItWasWritten) {
  PodGroupStatus status;
  status.locality = LocalityStatus{3, 1, 2};
  const std::string json = PodGroupStatusJson(status);
  EXPECT_EQ(nlohmann::json::parse(json)["locality"],
            nlohmann::json({{"nodeLocal", 3}, {"rackLocal", 1}, {"remote", 2}}));
  StatusOr<PodGroup> group = ReadBack(json);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->status.locality, status.locality);
  EXPECT_FALSE(nlohmann::json::parse(PodGroupStatusJson(PodGroupStatus{})).contains("locality"));
}

TEST(PodGroupStatusJsonTest, EveryPhaseHasItsName) {
  const std::pair<PodGroupPhase, const char*> phases[] = {
      {PodGroupPhase::kPending, "Pending"}, {PodGroupPhase::kInqueue, "Inqueue"},
      {PodGroupPhase::kRunning, "Running"}, {PodGroupPhase::kCompleted, "Completed"},
      {PodGroupPhase::kFailed, "Failed"},
  };
  for (const auto& [phase, name] : phases) {
    PodGroupStatus status;
    status.phase = phase;
    EXPECT_EQ(nlohmann::json::parse(PodGroupStatusJson(status))["phase"], name);
  }
}

TEST(PodGroupStatusJsonTest, LeavesOutEmptyFieldsOfAConditionAndCutsLongMessages) {
  PodGroupStatus status;
  Condition c;
  c.type = "Unschedulable";
  c.status = "True";
  c.message = std::string(40'000, 'x');
  status.conditions.push_back(c);
  nlohmann::json json = nlohmann::json::parse(PodGroupStatusJson(status))["conditions"][0];
  EXPECT_FALSE(json.contains("reason"));
  EXPECT_FALSE(json.contains("lastTransitionTime"));
  EXPECT_EQ(json["message"].get<std::string>().size(), 32U * 1024U);
}

TEST(ReplacePodGroupStatusTest, ReplacesOnlyTheStatus) {
  std::string object = R"({"apiVersion":"arbiter.dev/v1alpha1","kind":"PodGroup",
    "metadata":{"name":"g","namespace":"ns","resourceVersion":"42"},
    "spec":{"minMember":3,"queue":"default"},"status":{"phase":"Pending"}})";
  StatusOr<std::string> replaced = ReplacePodGroupStatus(object, RunningStatus());
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  nlohmann::json json = nlohmann::json::parse(*replaced);
  EXPECT_EQ(json["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(json["spec"]["minMember"], 3);
  EXPECT_EQ(json["status"], nlohmann::json::parse(PodGroupStatusJson(RunningStatus())));
}

TEST(ReplacePodGroupStatusTest, ReturnsTheInputWhenTheStatusIsAlreadyThere) {
  nlohmann::json object = {{"metadata", {{"name", "g"}, {"resourceVersion", "7"}}},
                           {"status", nlohmann::json::parse(PodGroupStatusJson(RunningStatus()))}};
  // Spacing differs from our own dump: equality is on the JSON values, not the text.
  std::string text = object.dump(2);
  StatusOr<std::string> replaced = ReplacePodGroupStatus(text, RunningStatus());
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(*replaced, text);
}

TEST(ReplacePodGroupStatusTest, RejectsWhatIsNotAnObject) {
  EXPECT_EQ(ReplacePodGroupStatus("[1]", RunningStatus()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReplacePodGroupStatus("{", RunningStatus()).status().code(),
            StatusCode::kInvalidArgument);
}

Condition PodScheduled(std::string status, std::string reason, std::string message,
                       Clock::WallTime when) {
  Condition c;
  c.type = "PodScheduled";
  c.status = std::move(status);
  c.reason = std::move(reason);
  c.message = std::move(message);
  c.last_transition_time = when;
  return c;
}

TEST(UnschedulableConditionTest, IsPresentOnlyWithTheSameMessage) {
  std::vector<Condition> observed = {
      PodScheduled("False", "Unschedulable", "0/3 nodes are available", At(kT))};
  EXPECT_TRUE(HasUnschedulableCondition(observed, "0/3 nodes are available"));
  EXPECT_FALSE(HasUnschedulableCondition(observed, "0/4 nodes are available"));
  EXPECT_FALSE(HasUnschedulableCondition({}, "0/3 nodes are available"));
  observed[0].status = "True";
  EXPECT_FALSE(HasUnschedulableCondition(observed, "0/3 nodes are available"));
}

TEST(UnschedulablePatchTest, SetsTheConditionWithTheUidAsGuard) {
  nlohmann::json patch =
      nlohmann::json::parse(UnschedulablePatch("uid-1", "0/3 nodes are available", {}, At(kT)));
  EXPECT_EQ(patch, nlohmann::json::parse(R"({
    "metadata": {"uid": "uid-1"},
    "status": {"conditions": [{"type": "PodScheduled", "status": "False",
                               "reason": "Unschedulable", "message": "0/3 nodes are available",
                               "lastTransitionTime": "2023-11-14T22:13:20Z",
                               "lastProbeTime": null}]}
  })"));
}

TEST(DisruptionTargetPatchTest, MarksThePodPreemptedTwiceOverWithTheUidAsGuard) {
  // arbiter.dev/Preempted survives the Eviction API, which rewrites DisruptionTarget's reason.
  nlohmann::json patch = nlohmann::json::parse(
      DisruptionTargetPatch("uid-1", "PreemptionByScheduler", "preempted by ns/high", At(kT)));
  EXPECT_EQ(patch, nlohmann::json::parse(R"({
    "metadata": {"uid": "uid-1"},
    "status": {"conditions": [
      {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
       "message": "preempted by ns/high", "lastTransitionTime": "2023-11-14T22:13:20Z"},
      {"type": "arbiter.dev/Preempted", "status": "True", "reason": "PreemptionByScheduler",
       "message": "preempted by ns/high", "lastTransitionTime": "2023-11-14T22:13:20Z"}]}
  })"));
}

TEST(UnschedulablePatchTest, KeepsTheTransitionTimeWhileTheConditionStaysFalse) {
  std::vector<Condition> observed = {PodScheduled("False", "Unschedulable", "old", At(kT - 60))};
  nlohmann::json patch =
      nlohmann::json::parse(UnschedulablePatch("uid-1", "new", observed, At(kT)));
  EXPECT_EQ(patch["status"]["conditions"][0]["lastTransitionTime"], "2023-11-14T22:12:20Z");
}

TEST(UnschedulablePatchTest, TakesNowWhenTheConditionTransitions) {
  std::vector<Condition> observed = {PodScheduled("True", "", "", At(kT - 60))};
  nlohmann::json patch =
      nlohmann::json::parse(UnschedulablePatch("uid-1", "new", observed, At(kT)));
  EXPECT_EQ(patch["status"]["conditions"][0]["lastTransitionTime"], "2023-11-14T22:13:20Z");
}

TEST(TruncateUtf8Test, NeverSplitsACharacter) {
  EXPECT_EQ(TruncateUtf8("abc", 5), "abc");
  EXPECT_EQ(TruncateUtf8("abc", 2), "ab");
  // "é" is two bytes (C3 A9): cutting after its first byte drops it whole.
  EXPECT_EQ(TruncateUtf8("a\xC3\xA9", 2), "a");
  EXPECT_EQ(TruncateUtf8("a\xC3\xA9", 3), "a\xC3\xA9");
}

}  // namespace
}  // namespace arbiter::runtime

namespace arbiter::runtime {
namespace {

TEST(QueueStatusJsonTest, QuantitiesAsKubernetesPrintsThem) {
  QueueStatus status;
  status.deserved = ResourceList({{"cpu", 6000}, {"memory", std::int64_t{12} << 30}});
  status.allocated = ResourceList({{"cpu", 1500}});
  status.pending = 1;
  status.running = 2;
  EXPECT_EQ(nlohmann::json::parse(QueueStatusJson(status)),
            nlohmann::json::parse(R"({"deserved":{"cpu":"6","memory":"12Gi"},
                                      "allocated":{"cpu":"1500m"},"used":{},
                                      "pending":1,"inqueue":0,"running":2})"));
}

TEST(ReplaceQueueStatusTest, UnchangedStatusWritesNothing) {
  QueueStatus status;
  status.allocated = ResourceList({{"cpu", 1000}});
  const std::string object =
      R"({"metadata":{"name":"q","resourceVersion":"7"},"spec":{"weight":1},"status":)" +
      QueueStatusJson(status) + "}";
  StatusOr<std::string> same = ReplaceQueueStatus(object, status);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, object);
  status.running = 1;
  StatusOr<std::string> changed = ReplaceQueueStatus(object, status);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(nlohmann::json::parse(*changed)["status"]["running"], 1);
  EXPECT_EQ(nlohmann::json::parse(*changed)["metadata"]["resourceVersion"], "7");
}

}  // namespace
}  // namespace arbiter::runtime
