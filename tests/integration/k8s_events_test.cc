// Events on the real API server: a Scheduled event on a pod, and a repeated FailedScheduling
// aggregated into one Event whose series counts the repeats.
#include <memory>
#include <string>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/event_recorder.h"

namespace arbiter::k8s {
namespace {

TEST(EventsTest, ScheduledAndAggregatedFailedSchedulingEvents) {
  std::optional<testing_support::LocalCluster> cluster =
      testing_support::LocalCluster::FromEnvironment();
  if (!cluster) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
  auto transport = HttpTransport::Create(cluster->AdminOptions());
  ASSERT_TRUE(transport.ok()) << transport.status();
  ApiClient api(**transport);
  std::string ns = "events-" + std::to_string(::getpid());
  nlohmann::json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
  ASSERT_TRUE(api.Create("/api/v1/namespaces", n.dump()).ok());

  EventRecorderOptions options;
  options.reporting_instance = "test";
  EventRecorder recorder(api, options, RealClock::Instance());
  EventSpec scheduled;
  scheduled.regarding = {"v1", "Pod", ns, "web-0", "uid-1"};
  scheduled.reason = "Scheduled";
  scheduled.action = "Binding";
  scheduled.note = "Successfully assigned " + ns + "/web-0 to kwok-node-0";
  EXPECT_TRUE(recorder.Record(scheduled));
  EventSpec failed = scheduled;
  failed.regarding.name = "web-1";
  failed.type = "Warning";
  failed.reason = "FailedScheduling";
  failed.action = "Scheduling";
  failed.note = "0/8 nodes are available: 8 Insufficient cpu.";
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(recorder.Record(failed));
  recorder.Flush();
  EXPECT_EQ(recorder.failed(), 0U);

  StatusOr<std::string> body = api.Get("/apis/events.k8s.io/v1/namespaces/" + ns + "/events");
  ASSERT_TRUE(body.ok()) << body.status();
  nlohmann::json list = nlohmann::json::parse(*body);
  ASSERT_EQ(list["items"].size(), 2U) << list.dump(2);
  for (const auto& event : list["items"]) {
    if (event["reason"] == "Scheduled") {
      EXPECT_EQ(event["regarding"]["name"], "web-0");
      EXPECT_EQ(event["type"], "Normal");
      EXPECT_EQ(event["reportingController"], "arbiter.dev/scheduler");
      EXPECT_EQ(event["note"], scheduled.note);
    } else {
      EXPECT_EQ(event["reason"], "FailedScheduling");
      EXPECT_EQ(event["type"], "Warning");
      EXPECT_EQ(event["series"]["count"], 3);
    }
  }
}

}  // namespace
}  // namespace arbiter::k8s
