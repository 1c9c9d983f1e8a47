// Events on the real API server: a Scheduled event on a pod, and a repeated FailedScheduling
// aggregated into one Event whose series counts the repeats; a Scheduled recorded behind many
// FailedScheduling is written before them.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/event_recorder.h"

namespace arbiter::k8s {
namespace {

// A client of the local cluster and a namespace of the test's own.
class EventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::optional<testing_support::LocalCluster> cluster =
        testing_support::LocalCluster::FromEnvironment();
    if (!cluster) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    auto transport = HttpTransport::Create(cluster->AdminOptions());
    ASSERT_TRUE(transport.ok()) << transport.status();
    transport_ = std::move(*transport);
    api_ = std::make_unique<ApiClient>(*transport_);
    ns_ =
        "events-" +
        std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()).substr(0, 20) +
        "-" + std::to_string(::getpid());
    std::transform(ns_.begin(), ns_.end(), ns_.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    nlohmann::json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    ASSERT_TRUE(api_->Create("/api/v1/namespaces", n.dump()).ok());
  }

  std::unique_ptr<HttpTransport> transport_;
  std::unique_ptr<ApiClient> api_;
  std::string ns_;
};

TEST_F(EventsTest, ScheduledAndAggregatedFailedSchedulingEvents) {
  ApiClient& api = *api_;
  const std::string& ns = ns_;
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

// The scheduler records a FailedScheduling for every pending pod each session; a pod bound then
// must not wait behind all of them for its Scheduled. The API server's resourceVersions give the
// order the Events were stored in: the writer may already be sending its first batch when the
// Scheduled is recorded, and a batch's writes go at once, so it must be among the first two
// batches, not after the Warnings recorded before it.
TEST_F(EventsTest, AScheduledIsWrittenBeforeTheFailedSchedulingRecordedBeforeIt) {
  ApiClient& api = *api_;
  const std::string& ns = ns_;
  EventRecorderOptions options;
  options.reporting_instance = "test";
  EventRecorder recorder(api, options, RealClock::Instance());
  constexpr int kWaiting = 150;
  for (int i = 0; i < kWaiting; ++i) {
    EventSpec failed;
    failed.regarding = {"v1", "Pod", ns, "wait-" + std::to_string(i), "uid-w" + std::to_string(i)};
    failed.type = "Warning";
    failed.reason = "FailedScheduling";
    failed.action = "Scheduling";
    failed.note = "0/8 nodes are available: 8 Insufficient cpu.";
    ASSERT_TRUE(recorder.Record(failed));
  }
  EventSpec scheduled;
  scheduled.regarding = {"v1", "Pod", ns, "bound", "uid-bound"};
  scheduled.reason = "Scheduled";
  scheduled.action = "Binding";
  scheduled.note = "Successfully assigned " + ns + "/bound to kwok-node-0";
  ASSERT_TRUE(recorder.Record(scheduled));
  recorder.Flush();
  ASSERT_EQ(recorder.failed(), 0U);

  StatusOr<std::string> body = api.Get("/apis/events.k8s.io/v1/namespaces/" + ns + "/events");
  ASSERT_TRUE(body.ok()) << body.status();
  nlohmann::json list = nlohmann::json::parse(*body);
  ASSERT_EQ(list["items"].size(), static_cast<std::size_t>(kWaiting + 1));
  std::vector<std::pair<std::uint64_t, std::string>> stored;
  for (const auto& event : list["items"]) {
    stored.emplace_back(std::stoull(event["metadata"]["resourceVersion"].get<std::string>()),
                        event["reason"].get<std::string>());
  }
  std::sort(stored.begin(), stored.end());
  const auto at = std::find_if(stored.begin(), stored.end(),
                               [](const auto& e) { return e.second == "Scheduled"; });
  ASSERT_NE(at, stored.end());
  EXPECT_LT(at - stored.begin(), static_cast<std::ptrdiff_t>(2 * options.batch))
      << "the Scheduled was stored after " << (at - stored.begin()) << " FailedScheduling";
}

}  // namespace
}  // namespace arbiter::k8s
