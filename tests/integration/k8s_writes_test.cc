// The scheduler's writes against the real local kube-apiserver: binding (twice), eviction,
// status updates that retry on conflicts or are conditional on a version, deletes with
// preconditions, merge and JSON patches, and the mapping of the API server's failures to Status
// codes.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/writes.h"

namespace arbiter::k8s {
namespace {

using testing_support::LocalCluster;

class WritesTest : public testing::Test {
 protected:
  void SetUp() override {
    std::optional<LocalCluster> cluster = LocalCluster::FromEnvironment();
    if (!cluster) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    StatusOr<std::unique_ptr<HttpTransport>> t = HttpTransport::Create(cluster->AdminOptions());
    ASSERT_TRUE(t.ok()) << t.status();
    transport_ = std::move(t).value();
    api_ = std::make_unique<ApiClient>(*transport_);
    // A namespace per test, so tests never see each other's pods; named by the process (ctest
    // runs each test in its own, two at a time: gtest's random seed, the time in milliseconds,
    // once named two of them alike).
    ns_ = "writes-" + std::to_string(::getpid()) + "-" + std::to_string(next_namespace_++);
    nlohmann::json namespace_object = {
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    StatusOr<std::string> created = api_->Create("/api/v1/namespaces", namespace_object.dump());
    ASSERT_TRUE(created.ok()) << created.status();
    StatusOr<std::string> nodes = api_->Get("/api/v1/nodes?limit=1");
    ASSERT_TRUE(nodes.ok()) << nodes.status();
    node_ = nlohmann::json::parse(*nodes)["items"][0]["metadata"]["name"];
  }

  // A pending pod that no running scheduler owns. Returns its uid.
  std::string CreatePod(const std::string& name) {
    nlohmann::json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"namespace", ns_}}},
        {"spec",
         {{"schedulerName", "nobody"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}},
    };
    StatusOr<std::string> created = api_->Create(PodsPath(), pod.dump());
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? nlohmann::json::parse(*created)["metadata"]["uid"].get<std::string>()
                        : "";
  }

  // Polls the pod's phase until it is `phase` or 30 s have passed.
  bool WaitForPhase(const std::string& name, const std::string& phase) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      StatusOr<std::string> pod = api_->Get(PodPath(name));
      if (pod.ok() && nlohmann::json::parse(*pod)["status"].value("phase", "") == phase) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string PodsPath() const { return "/api/v1/namespaces/" + ns_ + "/pods"; }
  std::string PodPath(const std::string& name) const { return PodsPath() + "/" + name; }

  static inline std::atomic<int> next_namespace_{0};  // NOLINT(readability-identifier-naming)
  std::unique_ptr<HttpTransport> transport_;
  std::unique_ptr<ApiClient> api_;
  std::string ns_;
  std::string node_;
};

TEST_F(WritesTest, BindingTwiceReportsAlreadyAssigned) {
  std::string uid = CreatePod("p");
  StatusOr<BindOutcome> first = Bind(*api_, ns_, "p", uid, node_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, BindOutcome::kBound);
  StatusOr<BindOutcome> second = Bind(*api_, ns_, "p", uid, node_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, BindOutcome::kAlreadyAssigned);
  nlohmann::json pod = nlohmann::json::parse(*api_->Get(PodPath("p")));
  EXPECT_EQ(pod["spec"]["nodeName"], node_);
}

TEST_F(WritesTest, BindingAReplacedPodFailsOnItsUid) {
  CreatePod("p");
  StatusOr<BindOutcome> bound =
      Bind(*api_, ns_, "p", "00000000-0000-0000-0000-000000000000", node_);
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.status().code(), StatusCode::kAborted) << bound.status();
}

TEST_F(WritesTest, BindAllBindsEachAndReportsEachOutcomeInItsPlace) {
  // 30 pods to bind at once, among them one bound already and one whose uid is not the pod's.
  constexpr int kPods = 30;
  std::vector<std::string> names;
  std::vector<std::string> uids;
  for (int i = 0; i < kPods; ++i) {
    names.push_back("p" + std::to_string(i));
    uids.push_back(CreatePod(names.back()));
  }
  ASSERT_TRUE(Bind(*api_, ns_, names[3], uids[3], node_).ok());
  const std::string wrong_uid = "00000000-0000-0000-0000-000000000000";
  std::vector<BindTarget> targets;
  for (int i = 0; i < kPods; ++i) {
    targets.push_back({ns_, names[i], i == 7 ? std::string_view(wrong_uid) : uids[i], node_});
  }
  std::vector<std::optional<StatusOr<BindOutcome>>> outcomes(kPods);
  const std::uint64_t connections_before = transport_->connections_opened();
  BindAll(*api_, targets, [&](std::size_t i, StatusOr<BindOutcome> outcome) {
    ASSERT_LT(i, outcomes.size());
    EXPECT_FALSE(outcomes[i].has_value()) << "bind " << i << " reported twice";
    outcomes[i] = std::move(outcome);
  });
  for (int i = 0; i < kPods; ++i) {
    ASSERT_TRUE(outcomes[i].has_value()) << "bind " << i << " not reported";
    const StatusOr<BindOutcome>& outcome = *outcomes[i];
    if (i == 7) {
      ASSERT_FALSE(outcome.ok());
      EXPECT_EQ(outcome.status().code(), StatusCode::kAborted) << outcome.status();
      continue;
    }
    ASSERT_TRUE(outcome.ok()) << names[i] << ": " << outcome.status();
    EXPECT_EQ(*outcome, i == 3 ? BindOutcome::kAlreadyAssigned : BindOutcome::kBound) << names[i];
    nlohmann::json pod = nlohmann::json::parse(*api_->Get(PodPath(names[i])));
    EXPECT_EQ(pod["spec"]["nodeName"], node_) << names[i];
  }
  // One connection carried them all (HTTP/2 streams), not one per bind.
  EXPECT_LE(transport_->connections_opened() - connections_before, 1U);
}

TEST_F(WritesTest, MissingObjectsAreNotFoundWithTheServerReason) {
  StatusOr<std::string> got = api_->Get(PodPath("absent"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReasonOf(got.status()), "NotFound");
  EXPECT_NE(got.status().message().find("pods \"absent\" not found"), std::string::npos)
      << got.status();
}

TEST_F(WritesTest, CreatingTwiceIsAlreadyExists) {
  CreatePod("p");
  nlohmann::json pod = {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", "p"}}},
                        {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
  EXPECT_EQ(api_->Create(PodsPath(), pod.dump()).status().code(), StatusCode::kAlreadyExists);
}

TEST_F(WritesTest, InvalidObjectsAreInvalidArgument) {
  nlohmann::json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "bad"}}}};
  StatusOr<std::string> created = api_->Create(PodsPath(), pod.dump());  // no containers
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument) << created.status();
}

TEST_F(WritesTest, EvictionRemovesThePodAndAMissingPodIsFine) {
  std::string uid = CreatePod("p");
  ASSERT_TRUE(Bind(*api_, ns_, "p", uid, node_).ok());
  Status evicted = Evict(*api_, ns_, "p", uid, 0);
  ASSERT_TRUE(evicted.ok()) << evicted;
  EXPECT_TRUE(Evict(*api_, ns_, "never-existed", "some-uid", 0).ok());
}

TEST_F(WritesTest, EvictionSparesAPodThatReplacedTheOneDecidedFor) {
  // A job controller recreated the pod under the same name: the pod decided for is gone (OK),
  // and the new one is not evicted.
  std::string uid = CreatePod("p");
  ASSERT_TRUE(Bind(*api_, ns_, "p", uid, node_).ok());
  Status evicted = Evict(*api_, ns_, "p", "uid-of-an-earlier-pod-p", 0);
  ASSERT_TRUE(evicted.ok()) << evicted;
  StatusOr<std::string> pod = api_->Get(PodPath("p"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(nlohmann::json::parse(*pod)["metadata"].count("deletionTimestamp"), 0U) << *pod;
  EXPECT_TRUE(PodGoneOrReplaced(*api_, ns_, "p", "uid-of-an-earlier-pod-p"));
  EXPECT_FALSE(PodGoneOrReplaced(*api_, ns_, "p", uid));
}

TEST_F(WritesTest, EvictionBlockedByABudgetIsResourceExhausted) {
  std::string uid = CreatePod("p");
  ASSERT_TRUE(Bind(*api_, ns_, "p", uid, node_).ok());
  // Budgets protect running pods only (a pending pod is always evictable): wait until kwok has
  // made it Running.
  ASSERT_TRUE(WaitForPhase("p", "Running")) << "pod never became Running";
  nlohmann::json pdb = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "keep-all"}}},
      {"spec", {{"maxUnavailable", 0}, {"selector", nlohmann::json::object()}}},
  };
  ASSERT_TRUE(
      api_->Create("/apis/policy/v1/namespaces/" + ns_ + "/poddisruptionbudgets", pdb.dump()).ok());
  // A dry run hears the same "no" (what the binder asks before a preemption's evictions).
  Status dry_run = Evict(*api_, ns_, "p", uid, 0, /*dry_run=*/true);
  EXPECT_EQ(dry_run.code(), StatusCode::kResourceExhausted) << dry_run;
  Status evicted = Evict(*api_, ns_, "p", uid, 0);
  // Without a disruption controller the budget's status is never computed, so the API server
  // refuses every eviction it covers: exactly the "no" we must surface, not retry.
  EXPECT_EQ(evicted.code(), StatusCode::kResourceExhausted) << evicted;
  EXPECT_TRUE(api_->Get(PodPath("p")).ok());
}

TEST_F(WritesTest, ADryRunEvictionLeavesThePod) {
  std::string uid = CreatePod("p");
  ASSERT_TRUE(Bind(*api_, ns_, "p", uid, node_).ok());
  ASSERT_TRUE(WaitForPhase("p", "Running")) << "pod never became Running";
  Status dry_run = Evict(*api_, ns_, "p", uid, 0, /*dry_run=*/true);
  ASSERT_TRUE(dry_run.ok()) << dry_run;
  StatusOr<std::string> pod = api_->Get(PodPath("p"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(nlohmann::json::parse(*pod)["metadata"].count("deletionTimestamp"), 0U) << *pod;
}

TEST_F(WritesTest, DeleteHonoursPreconditions) {
  std::string uid = CreatePod("p");
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(api_->Delete(PodPath("p"), wrong_uid).code(), StatusCode::kAborted);
  DeleteOptions right;
  right.precondition_uid = uid;
  right.grace_period_seconds = 0;
  ASSERT_TRUE(api_->Delete(PodPath("p"), right).ok());
}

TEST_F(WritesTest, MergeAndJsonPatches) {
  CreatePod("p");
  ASSERT_TRUE(
      api_->Patch(PodPath("p"), R"({"metadata":{"labels":{"a":"1"}}})", PatchType::kMerge).ok());
  ASSERT_TRUE(api_->Patch(PodPath("p"), R"([{"op":"add","path":"/metadata/labels/b","value":"2"}])",
                          PatchType::kJson)
                  .ok());
  nlohmann::json pod = nlohmann::json::parse(*api_->Get(PodPath("p")));
  EXPECT_EQ(pod["metadata"]["labels"], (nlohmann::json{{"a", "1"}, {"b", "2"}}));
}

TEST_F(WritesTest, StatusUpdateRetriesAfterAConflict) {
  CreatePod("p");
  int calls = 0;
  Status updated = UpdateStatus(*api_, PodPath("p"), [&](const std::string& current) {
    nlohmann::json pod = nlohmann::json::parse(current);
    if (++calls == 1) {
      // Someone else writes between our read and our write: our write must conflict.
      EXPECT_TRUE(
          api_->Patch(PodPath("p"), R"({"metadata":{"labels":{"x":"y"}}})", PatchType::kMerge)
              .ok());
    }
    pod["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
    return StatusOr<std::string>(pod.dump());
  });
  ASSERT_TRUE(updated.ok()) << updated;
  EXPECT_EQ(calls, 2);
  nlohmann::json pod = nlohmann::json::parse(*api_->Get(PodPath("p")));
  EXPECT_EQ(pod["status"]["conditions"][0]["reason"], "Unschedulable");
  EXPECT_EQ(pod["metadata"]["labels"]["x"], "y");
}

TEST_F(WritesTest, StatusReplacedAtAVersionOnlyWhileTheObjectIsAtIt) {
  ASSERT_EQ(testing_support::ApplyArbiterCrds(*LocalCluster::FromEnvironment()), "");
  const std::string groups = "/apis/arbiter.dev/v1alpha1/namespaces/" + ns_ + "/podgroups";
  nlohmann::json group = {{"apiVersion", "arbiter.dev/v1alpha1"},
                          {"kind", "PodGroup"},
                          {"metadata", {{"name", "g"}, {"labels", {{"team", "a"}}}}},
                          {"spec", {{"minMember", 2}}}};
  StatusOr<std::string> created = api_->Create(groups, group.dump());
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string path = groups + "/g";
  ObjectMeta meta;
  meta.namespace_name = ns_;
  meta.name = "g";
  meta.resource_version = nlohmann::json::parse(*created)["metadata"]["resourceVersion"];
  const std::string created_at = meta.resource_version;
  const auto replace = [&](const std::string& at, std::string_view status) {
    meta.resource_version = at;
    return ReplaceStatusAt(*api_, path, "arbiter.dev/v1alpha1", "PodGroup", meta, status);
  };

  Status replaced = replace(created_at, R"({"phase":"Inqueue","running":1})");
  ASSERT_TRUE(replaced.ok()) << replaced;
  nlohmann::json read = nlohmann::json::parse(*api_->Get(path));
  EXPECT_EQ(read["status"], (nlohmann::json{{"phase", "Inqueue"}, {"running", 1}}));
  const std::string replaced_at = read["metadata"]["resourceVersion"];
  EXPECT_NE(replaced_at, created_at);

  // Written at the version the caller saw before: refused, and nothing changes.
  Status stale = replace(created_at, R"({"phase":"Running"})");
  EXPECT_EQ(stale.code(), StatusCode::kAborted) << stale;
  read = nlohmann::json::parse(*api_->Get(path));
  EXPECT_EQ(read["status"]["phase"], "Inqueue");
  EXPECT_EQ(read["metadata"]["resourceVersion"], replaced_at);

  // The whole status is replaced: a key the new one leaves out is gone.
  replaced = replace(replaced_at, R"({"phase":"Running"})");
  ASSERT_TRUE(replaced.ok()) << replaced;
  read = nlohmann::json::parse(*api_->Get(path));
  EXPECT_EQ(read["status"], (nlohmann::json{{"phase", "Running"}}));
  // The status subresource leaves the rest alone: the body had no spec and no labels.
  EXPECT_EQ(read["spec"]["minMember"], 2);
  EXPECT_EQ(read["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(read["apiVersion"], "arbiter.dev/v1alpha1");

  meta.name = "missing";
  EXPECT_EQ(
      ReplaceStatusAt(*api_, groups + "/missing", "arbiter.dev/v1alpha1", "PodGroup", meta, "{}")
          .code(),
      StatusCode::kNotFound);
}

}  // namespace
}  // namespace arbiter::k8s
