// The status of other APIs' PodGroups as Arbiter writes it back (status_json.h
// ReplacePodGroupStatus with a dialect), and read again by the decoders.
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/runtime/status_json.h"

namespace arbiter::runtime {
namespace {

constexpr std::int64_t kT = 1'700'000'000;  // 2023-11-14T22:13:20Z

Clock::WallTime At(std::int64_t seconds) { return Clock::WallTime(std::chrono::seconds(seconds)); }

Condition MakeCondition(std::string type, std::string status, std::string reason,
                        std::string message, std::int64_t when) {
  return {.type = std::move(type),
          .status = std::move(status),
          .reason = std::move(reason),
          .message = std::move(message),
          .last_transition_time = At(when)};
}

PodGroupStatus Waiting() {
  PodGroupStatus status;
  status.phase = PodGroupPhase::kInqueue;
  status.conditions.push_back(MakeCondition("Unschedulable", "True", "NotEnoughResources",
                                            "1 of 3 pods found no node", kT));
  return status;
}

PodGroupStatus Placed(std::int32_t running) {
  PodGroupStatus status;
  status.phase = PodGroupPhase::kRunning;
  status.scheduled = 3;
  status.running = running;
  status.preemption_count = 1;
  status.conditions.push_back(MakeCondition("Unschedulable", "False", "Scheduled", "", kT + 10));
  status.conditions.push_back(
      MakeCondition("Scheduled", "True", "Scheduled", "minMember 3 reached", kT + 10));
  return status;
}

nlohmann::json Replaced(const std::string& object, const PodGroupStatus& status,
                        PodGroupDialect dialect, std::int32_t min_member = 3) {
  StatusOr<std::string> out = ReplacePodGroupStatus(object, status, dialect, min_member);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? nlohmann::json::parse(*out) : nlohmann::json();
}

template <typename T>
T DecodeBack(const nlohmann::json& object) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(object.dump());
  StatusOr<T> decoded = k8s::DecodeObject<T>(parser, json);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return decoded.ok() ? *decoded : T();
}

TEST(DialectStatusTest, VolcanoGetsItsPhaseCountsAndConditions) {
  const std::string object = R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup",
    "metadata":{"name":"tf","namespace":"ml","resourceVersion":"9"},
    "spec":{"minMember":3,"queue":"research"},"status":{"phase":"Pending"}})";
  nlohmann::json waiting = Replaced(object, Waiting(), PodGroupDialect::kVolcano);
  EXPECT_EQ(waiting["status"]["phase"], "Inqueue");
  EXPECT_EQ(waiting["status"]["conditions"][0]["type"], "Unschedulable");
  EXPECT_EQ(waiting["status"]["conditions"][0]["reason"], "NotEnoughResources");
  EXPECT_FALSE(waiting["status"].contains("explanation"));
  EXPECT_FALSE(waiting["status"].contains("scheduled"));  // not a field of Volcano's
  EXPECT_EQ(waiting["spec"]["queue"], "research");

  nlohmann::json placed = Replaced(object, Placed(3), PodGroupDialect::kVolcano);
  EXPECT_EQ(placed["status"]["phase"], "Running");
  EXPECT_EQ(placed["status"]["running"], 3);
  EXPECT_EQ(placed["status"]["succeeded"], 0);
  EXPECT_EQ(placed["status"]["failed"], 0);
  const auto back = DecodeBack<VolcanoPodGroup>(placed);
  EXPECT_EQ(back.status.phase, PodGroupPhase::kRunning);
  EXPECT_EQ(back.status.conditions, Placed(3).conditions);

  PodGroupStatus failed = Placed(0);
  failed.phase = PodGroupPhase::kFailed;
  EXPECT_EQ(Replaced(object, failed, PodGroupDialect::kVolcano)["status"]["phase"], "Completed");
}

TEST(DialectStatusTest, SchedulerPluginsGetsItsPhasesAndKeepsItsOwnFields) {
  const std::string object = R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
    "metadata":{"name":"web","namespace":"w"},"spec":{"minMember":3},
    "status":{"phase":"Pending","occupiedBy":"w/web","scheduleStartTime":"2026-12-01T10:00:00Z"}})";
  nlohmann::json waiting = Replaced(object, Waiting(), PodGroupDialect::kSchedulerPlugins);
  EXPECT_EQ(waiting["status"]["phase"], "Scheduling");
  EXPECT_EQ(waiting["status"]["occupiedBy"], "w/web");  // another writer's: kept
  EXPECT_EQ(waiting["status"]["scheduleStartTime"], "2026-12-01T10:00:00Z");
  EXPECT_FALSE(waiting["status"].contains("conditions"));  // the API has none
  EXPECT_EQ(Replaced(object, Placed(1), PodGroupDialect::kSchedulerPlugins)["status"]["phase"],
            "Scheduled");
  nlohmann::json running = Replaced(object, Placed(3), PodGroupDialect::kSchedulerPlugins);
  EXPECT_EQ(running["status"]["phase"], "Running");
  EXPECT_EQ(DecodeBack<SchedulerPluginsPodGroup>(running).status.phase, PodGroupPhase::kRunning);
  PodGroupStatus done = Placed(0);
  done.phase = PodGroupPhase::kCompleted;
  EXPECT_EQ(Replaced(object, done, PodGroupDialect::kSchedulerPlugins)["status"]["phase"],
            "Finished");
  done.phase = PodGroupPhase::kFailed;
  EXPECT_EQ(Replaced(object, done, PodGroupDialect::kSchedulerPlugins)["status"]["phase"],
            "Failed");
}

TEST(DialectStatusTest, KubernetesGetsTheConditionsKubeSchedulerWrites) {
  const std::string fresh = R"({"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup",
    "metadata":{"name":"mpi","namespace":"hpc","generation":4},
    "spec":{"schedulingPolicy":{"gang":{"minCount":3}}},
    "status":{"conditions":[{"type":"Other","status":"True","reason":"Theirs","message":"",
                             "lastTransitionTime":"2026-12-01T10:00:00Z"}]}})";
  nlohmann::json waiting = Replaced(fresh, Waiting(), PodGroupDialect::kKubernetes);
  const nlohmann::json& conditions = waiting["status"]["conditions"];
  ASSERT_EQ(conditions.size(), 2U);
  EXPECT_EQ(conditions[0]["type"], "Other");  // another writer's: kept
  EXPECT_EQ(conditions[1], nlohmann::json::parse(R"({"type":"PodGroupScheduled","status":"False",
              "reason":"Unschedulable","message":"NotEnoughResources: 1 of 3 pods found no node",
              "lastTransitionTime":"2023-11-14T22:13:20Z","observedGeneration":4})"));
  EXPECT_FALSE(waiting["status"].contains("phase"));  // the API has none

  nlohmann::json placed = Replaced(waiting.dump(), Placed(3), PodGroupDialect::kKubernetes);
  EXPECT_EQ(placed["status"]["conditions"][1]["status"], "True");
  EXPECT_EQ(placed["status"]["conditions"][1]["reason"], "Scheduled");
  EXPECT_EQ(placed["status"]["conditions"][1]["lastTransitionTime"], "2023-11-14T22:13:30Z");
  const auto back = DecodeBack<KubernetesPodGroup>(placed);
  EXPECT_EQ(back.status.phase, PodGroupPhase::kRunning);

  // Never back to False once it was True (kube-scheduler's rule: extra pods failing later do not
  // unschedule the group).
  nlohmann::json again = Replaced(placed.dump(), Waiting(), PodGroupDialect::kKubernetes);
  EXPECT_EQ(again["status"]["conditions"][1]["status"], "True");

  // Preempted: DisruptionTarget, as kube-scheduler says it.
  PodGroupStatus preempted = Placed(3);
  preempted.conditions.push_back(MakeCondition("Preempted", "True", "PreemptionByScheduler",
                                               "2 pod(s) evicted for hpc/big (preempt)", kT + 20));
  nlohmann::json disrupted = Replaced(placed.dump(), preempted, PodGroupDialect::kKubernetes);
  ASSERT_EQ(disrupted["status"]["conditions"].size(), 3U);
  EXPECT_EQ(disrupted["status"]["conditions"][2]["type"], "DisruptionTarget");
  EXPECT_EQ(disrupted["status"]["conditions"][2]["reason"], "PreemptionByScheduler");
}

TEST(DialectStatusTest, NothingNewWritesNothing) {
  const std::string object = R"({"metadata":{"name":"mpi","namespace":"hpc","generation":1},
    "spec":{"schedulingPolicy":{"gang":{"minCount":3}}}})";
  // No condition of Kubernetes' to set yet: the object is left as it is.
  PodGroupStatus admitted;
  admitted.phase = PodGroupPhase::kInqueue;
  StatusOr<std::string> unchanged =
      ReplacePodGroupStatus(object, admitted, PodGroupDialect::kKubernetes, 3);
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(*unchanged, object);
  // The same status written twice: the second time returns its input.
  for (PodGroupDialect d : {PodGroupDialect::kKubernetes, PodGroupDialect::kVolcano,
                            PodGroupDialect::kSchedulerPlugins}) {
    StatusOr<std::string> once = ReplacePodGroupStatus(object, Placed(3), d, 3);
    ASSERT_TRUE(once.ok());
    StatusOr<std::string> twice = ReplacePodGroupStatus(*once, Placed(3), d, 3);
    ASSERT_TRUE(twice.ok());
    EXPECT_EQ(*twice, *once) << PodGroupApiVersion(d);
  }
}

}  // namespace
}  // namespace arbiter::runtime
