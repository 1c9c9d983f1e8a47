// The scheduler process (runtime::SchedulerRuntime) in-process against the local cluster: it
// binds a pod of ours and says so with a Scheduled event, never touches another scheduler's pod,
// explains a pod that cannot fit (FailedScheduling event and PodScheduled=False condition),
// writes a gang's PodGroup status, creates the default Queue, and schedules under leader
// election. Each test has a namespace of its own and a runtime limited to it.
#include "arbiter/runtime/scheduler_runtime.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "arbiter/base/clock.h"
#include "arbiter/base/log.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/runtime/setup.h"
#include "arbiter/runtime/status_writer.h"

namespace arbiter::runtime {
namespace {

using testing_support::LocalCluster;

// Polls `done` every 50 ms until it holds or `seconds` have passed.
bool WaitUntil(const std::function<bool()>& done, int seconds = 30) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

class SchedulerRuntimeTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    // ARBITER_V=2 shows a line per session while debugging a failure.
    if (const char* v = std::getenv("ARBITER_V")) SetLogVerbosity(std::atoi(v));
    std::optional<LocalCluster> cluster = LocalCluster::FromEnvironment();
    if (!cluster) return;
    crd_error_ = testing_support::ApplyArbiterCrds(*cluster);
  }

  void SetUp() override {
    cluster_ = LocalCluster::FromEnvironment();
    if (!cluster_) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    ASSERT_TRUE(crd_error_.empty()) << crd_error_;
    auto t = k8s::HttpTransport::Create(cluster_->AdminOptions());
    ASSERT_TRUE(t.ok()) << t.status();
    transport_ = std::move(t).value();
    api_ = std::make_unique<k8s::ApiClient>(*transport_);
    ns_ = std::string("rt-") + testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : ns_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Namespaces outlive a run (no namespace controller deletes them): make each run's unique.
    ns_ = ns_.substr(0, 40) + "-" + std::to_string(::getpid());
    nlohmann::json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    StatusOr<std::string> created = api_->Create("/api/v1/namespaces", n.dump());
    ASSERT_TRUE(created.ok()) << created.status();
  }

  void TearDown() override {
    if (runtime_ != nullptr) {
      runtime_->Stop();
      EXPECT_TRUE(runtime_->Wait().ok());
    }
  }

  RuntimeOptions Options() const {
    RuntimeOptions options;
    options.cache.scheduler_name = "arbiter";
    options.cache.namespaces = {ns_};
    options.period = std::chrono::milliseconds(300);
    options.events.reporting_instance = "scheduler-runtime-test";
    return options;
  }

  void StartRuntime(RuntimeOptions options) {
    StatusOr<std::unique_ptr<Scheduler>> scheduler = BuildScheduler("");
    ASSERT_TRUE(scheduler.ok()) << scheduler.status();
    runtime_ = std::make_unique<SchedulerRuntime>(*transport_, std::move(scheduler).value(),
                                                  std::move(options), RealClock::Instance());
    Status started = runtime_->Start();
    ASSERT_TRUE(started.ok()) << started;
    ASSERT_TRUE(WaitUntil([&] { return runtime_->sessions() > 0; }))
        << "no session ran: watches synced=" << runtime_->synced();
  }

  void CreatePod(const std::string& name, const std::string& scheduler, const std::string& cpu,
                 const std::string& group = "") {
    nlohmann::json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", ns_}}},
        {"spec",
         {{"schedulerName", scheduler},
          {"containers",
           {{{"name", "c"},
             {"image", "busybox"},
             {"resources", {{"requests", {{"cpu", cpu}, {"memory", "64Mi"}}}}}}}}}},
    };
    if (!group.empty()) pod["metadata"]["labels"] = {{"arbiter.dev/pod-group", group}};
    StatusOr<std::string> created = api_->Create(PodsPath(), pod.dump());
    ASSERT_TRUE(created.ok()) << created.status();
  }

  nlohmann::json Get(const std::string& path) {
    StatusOr<std::string> body = api_->Get(path);
    if (!body.ok()) return nlohmann::json::object();
    return nlohmann::json::parse(*body);
  }
  nlohmann::json GetPod(const std::string& name) { return Get(PodsPath() + "/" + name); }
  std::string NodeOf(const std::string& name) { return GetPod(name)["spec"].value("nodeName", ""); }

  // The first event in the namespace about `pod` with this reason, or null.
  nlohmann::json FindEvent(const std::string& pod, const std::string& reason) {
    nlohmann::json list = Get("/apis/events.k8s.io/v1/namespaces/" + ns_ + "/events");
    for (const nlohmann::json& event : list.value("items", nlohmann::json::array())) {
      if (event["regarding"].value("name", "") == pod && event.value("reason", "") == reason) {
        return event;
      }
    }
    return nullptr;
  }

  std::string PodsPath() const { return "/api/v1/namespaces/" + ns_ + "/pods"; }

  static inline std::string crd_error_;  // NOLINT(readability-identifier-naming)
  std::optional<LocalCluster> cluster_;
  std::unique_ptr<k8s::HttpTransport> transport_;
  std::unique_ptr<k8s::ApiClient> api_;
  std::unique_ptr<SchedulerRuntime> runtime_;
  std::string ns_;
};

TEST_F(SchedulerRuntimeTest, BindsAPodOfOursAndRecordsScheduled) {
  StartRuntime(Options());
  CreatePod("web-0", "arbiter", "100m");
  ASSERT_TRUE(WaitUntil([&] { return !NodeOf("web-0").empty(); })) << GetPod("web-0").dump(2);
  const std::string node = NodeOf("web-0");
  ASSERT_TRUE(WaitUntil([&] { return !FindEvent("web-0", "Scheduled").is_null(); }))
      << "no Scheduled event";
  nlohmann::json event = FindEvent("web-0", "Scheduled");
  EXPECT_EQ(event["type"], "Normal");
  EXPECT_EQ(event["action"], "Binding");
  EXPECT_EQ(event["note"], "Successfully assigned " + ns_ + "/web-0 to " + node);
  EXPECT_EQ(event["reportingController"], "arbiter.dev/scheduler");
  EXPECT_EQ(runtime_->bind_counts().bound, 1U);
}

TEST_F(SchedulerRuntimeTest, NeverBindsAnotherSchedulersPod) {
  StartRuntime(Options());
  CreatePod("theirs", "other-scheduler", "100m");
  CreatePod("ours", "arbiter", "100m");
  ASSERT_TRUE(WaitUntil([&] { return !NodeOf("ours").empty(); }));
  // Several more sessions have seen both pods: still only ours is bound.
  const std::uint64_t seen = runtime_->sessions();
  ASSERT_TRUE(WaitUntil([&] { return runtime_->sessions() >= seen + 3; }));
  EXPECT_EQ(NodeOf("theirs"), "");
  EXPECT_TRUE(FindEvent("theirs", "FailedScheduling").is_null());
  EXPECT_EQ(runtime_->bind_counts().bound, 1U);
}

TEST_F(SchedulerRuntimeTest, ExplainsAPodThatCannotFit) {
  StartRuntime(Options());
  CreatePod("huge", "arbiter", "1000");
  ASSERT_TRUE(WaitUntil([&] {
    for (const nlohmann::json& c :
         GetPod("huge")["status"].value("conditions", nlohmann::json::array())) {
      if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False" &&
          c.value("reason", "") == "Unschedulable" && !c.value("message", "").empty()) {
        return true;
      }
    }
    return false;
  })) << GetPod("huge")["status"].dump(2);
  ASSERT_TRUE(WaitUntil([&] { return !FindEvent("huge", "FailedScheduling").is_null(); }));
  nlohmann::json event = FindEvent("huge", "FailedScheduling");
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["action"], "Scheduling");
  EXPECT_FALSE(event.value("note", "").empty());
  EXPECT_EQ(NodeOf("huge"), "");
  // The condition is written once, not every session: its resourceVersion settles.
  const std::string version = GetPod("huge")["metadata"].value("resourceVersion", "");
  const std::uint64_t seen = runtime_->sessions();
  ASSERT_TRUE(WaitUntil([&] { return runtime_->sessions() >= seen + 3; }));
  runtime_->Flush();
  EXPECT_EQ(GetPod("huge")["metadata"].value("resourceVersion", ""), version);
}

// StatusWriter on its own (its clock a fake one): a pod that already says why it waits gets a new
// message at most every refresh_reasons_every, whereas its first reason is written at once.
TEST_F(SchedulerRuntimeTest, RefreshesAWaitingPodsReasonAtMostEveryTenSeconds) {
  CreatePod("waits", "nobody", "100m");  // no scheduler writes to it but ours below
  const std::string uid = GetPod("waits")["metadata"].value("uid", "");
  ASSERT_FALSE(uid.empty());
  auto message = [&] {
    for (const nlohmann::json& c :
         GetPod("waits")["status"].value("conditions", nlohmann::json::array())) {
      if (c.value("type", "") == "PodScheduled") return c.value("message", "");
    }
    return std::string();
  };
  FakeClock clock;
  StatusWriterOptions options;
  ASSERT_EQ(options.refresh_reasons_every, std::chrono::seconds(10));
  StatusWriter writer(*api_, clock, options);
  PodVerdict verdict{ns_, "waits", uid, "FailedScheduling", "0/4 nodes: 1 cpu free"};

  writer.WriteUnschedulable(verdict, {});
  writer.Flush();
  EXPECT_EQ(message(), "0/4 nodes: 1 cpu free");  // the first reason, at once

  const std::vector<Condition> observed = {
      {"PodScheduled", "False", "Unschedulable", "0/4 nodes: 1 cpu free", std::nullopt}};
  verdict.message = "0/4 nodes: 2 cpu free";
  clock.Advance(std::chrono::seconds(9));
  writer.WriteUnschedulable(verdict, observed);
  writer.Flush();
  EXPECT_EQ(message(), "0/4 nodes: 1 cpu free");  // 9 s later: not yet

  clock.Advance(std::chrono::seconds(2));
  writer.WriteUnschedulable(verdict, observed);
  writer.Flush();
  EXPECT_EQ(message(), "0/4 nodes: 2 cpu free");  // 11 s after the first: refreshed
  writer.Stop();
}

TEST_F(SchedulerRuntimeTest, WritesTheStatusOfAGang) {
  nlohmann::json group = {
      {"apiVersion", "arbiter.dev/v1alpha1"},
      {"kind", "PodGroup"},
      {"metadata", {{"name", "gang"}, {"namespace", ns_}}},
      {"spec", {{"minMember", 2}}},
  };
  const std::string groups = "/apis/arbiter.dev/v1alpha1/namespaces/" + ns_ + "/podgroups";
  StatusOr<std::string> created = api_->Create(groups, group.dump());
  ASSERT_TRUE(created.ok()) << created.status();
  StartRuntime(Options());
  CreatePod("gang-0", "arbiter", "100m", "gang");
  CreatePod("gang-1", "arbiter", "100m", "gang");
  ASSERT_TRUE(WaitUntil([&] { return !NodeOf("gang-0").empty() && !NodeOf("gang-1").empty(); }));
  ASSERT_TRUE(WaitUntil([&] {
    nlohmann::json status = Get(groups + "/gang").value("status", nlohmann::json::object());
    return status.value("phase", "") == "Running" && status.value("scheduled", 0) == 2;
  })) << Get(groups + "/gang").dump(2);
}

TEST_F(SchedulerRuntimeTest, CreatesTheDefaultQueue) {
  StartRuntime(Options());
  ASSERT_TRUE(WaitUntil([&] {
    return !Get("/apis/arbiter.dev/v1alpha1/queues/default")
                .value("metadata", nlohmann::json())
                .is_null();
  }));
  EXPECT_GE(Get("/apis/arbiter.dev/v1alpha1/queues/default")["spec"].value("weight", 0), 1);
}

// On a cluster without the default Queue, the scheduler creates it and waits for its watch to
// deliver it before the first session: a pod already waiting is bound and never told that its
// queue does not exist.
TEST_F(SchedulerRuntimeTest, APodWaitingBeforeTheDefaultQueueExistsIsNotFailedForIt) {
  // Other tests' schedulers create it again at once; they find it missing for a moment at most.
  Status deleted = api_->Delete("/apis/arbiter.dev/v1alpha1/queues/default");
  ASSERT_TRUE(deleted.ok() || deleted.code() == StatusCode::kNotFound) << deleted;
  ASSERT_TRUE(WaitUntil([&] {
    return !api_->Get("/apis/arbiter.dev/v1alpha1/queues/default").ok();
  })) << "the default Queue was not deleted";
  CreatePod("early", "arbiter", "100m");
  StartRuntime(Options());
  ASSERT_TRUE(WaitUntil([&] { return !NodeOf("early").empty(); }));
  EXPECT_TRUE(FindEvent("early", "FailedScheduling").is_null())
      << FindEvent("early", "FailedScheduling").dump();
}

TEST_F(SchedulerRuntimeTest, SchedulesWhileHoldingTheLeaderLease) {
  RuntimeOptions options = Options();
  k8s::LeaderElectionConfig election;
  election.namespace_name = ns_;
  election.lease_name = "arbiter-scheduler";
  election.identity = "scheduler-runtime-test";
  election.lease_duration = std::chrono::milliseconds(3000);
  election.renew_deadline = std::chrono::milliseconds(2000);
  election.retry_period = std::chrono::milliseconds(500);
  options.leader_election = election;
  StartRuntime(std::move(options));
  EXPECT_TRUE(runtime_->leading());
  CreatePod("led", "arbiter", "100m");
  ASSERT_TRUE(WaitUntil([&] { return !NodeOf("led").empty(); }));
  nlohmann::json lease =
      Get("/apis/coordination.k8s.io/v1/namespaces/" + ns_ + "/leases/arbiter-scheduler");
  EXPECT_EQ(lease["spec"].value("holderIdentity", ""), "scheduler-runtime-test");
  runtime_->Stop();
  EXPECT_TRUE(runtime_->Wait().ok());
  runtime_.reset();
  // Released on a clean stop, so a successor need not wait out the lease.
  lease = Get("/apis/coordination.k8s.io/v1/namespaces/" + ns_ + "/leases/arbiter-scheduler");
  EXPECT_NE(lease["spec"].value("holderIdentity", ""), "scheduler-runtime-test");
}

}  // namespace
}  // namespace arbiter::runtime
