// Shared by the reflector integration tests: a namespace of their own on the local cluster, pod
// helpers, an event log of what the reflector delivered, and the fresh LIST to compare with.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/reflector.h"
#include "arbiter/model/pod.h"

namespace arbiter::k8s {

// What handlers saw, in order: "add a", "update a", "delete b".
class EventLog {
 public:
  template <typename T>
  ReflectorHandlers<T> Handlers() {
    ReflectorHandlers<T> h;
    h.on_add = [this](const T& o) { Record("add " + o.meta.name); };
    h.on_update = [this](const T&, const T& o) { Record("update " + o.meta.name); };
    h.on_delete = [this](const T& o) { Record("delete " + o.meta.name); };
    h.on_error = [this](const Status& s) { Record("error " + s.ToString()); };
    return h;
  }
  void Record(std::string e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
  }
  std::vector<std::string> Events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  // The events about one object, in order.
  std::vector<std::string> About(const std::string& name) {
    std::vector<std::string> out;
    for (const std::string& e : Events()) {
      if (e.size() > name.size() && e.ends_with(" " + name)) out.push_back(e);
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> events_;
};

// Polls `done` every 20 ms for up to `seconds`.
inline bool WaitUntil(const std::function<bool()>& done, int seconds = 30) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// Runs a reflector on a thread of its own until Stop() or the end of the scope (also when an
// assertion returns early).
template <typename T>
class Running {
 public:
  explicit Running(Reflector<T>& r) : reflector_(r), thread_([&r] { r.Run(); }) {}
  ~Running() { Stop(); }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
  void Stop() {
    if (!thread_.joinable()) return;
    reflector_.Stop();
    thread_.join();
  }

 private:
  Reflector<T>& reflector_;
  std::thread thread_;
};

class ReflectorTestBase : public testing::Test {
 protected:
  void SetUp() override {
    cluster_ = testing_support::LocalCluster::FromEnvironment();
    if (!cluster_) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    cluster_dir_ = cluster_->dir;
    auto t = HttpTransport::Create(cluster_->AdminOptions());
    ASSERT_TRUE(t.ok()) << t.status();
    transport_ = std::move(t).value();
    api_ = std::make_unique<ApiClient>(*transport_);
    ns_ = std::string("refl-") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : ns_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Namespaces outlive a run (no namespace controller deletes them): make each run's unique.
    ns_ += "-" + std::to_string(::getpid());
    nlohmann::json n = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    ASSERT_TRUE(api_->Create("/api/v1/namespaces", n.dump()).ok());
  }

  std::string PodsPath() const { return "/api/v1/namespaces/" + ns_ + "/pods"; }

  void CreatePod(const std::string& name) {
    nlohmann::json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"schedulerName", "nobody"},
          {"containers",
           {{{"name", "c"},
             {"image", "busybox"},
             {"resources", {{"requests", {{"cpu", "250m"}, {"memory", "64Mi"}}}}}}}}}},
    };
    StatusOr<std::string> created = api_->Create(PodsPath(), pod.dump());
    ASSERT_TRUE(created.ok()) << created.status();
  }

  void LabelPod(const std::string& name, const std::string& value) {
    ASSERT_TRUE(api_->Patch(PodsPath() + "/" + name,
                            R"({"metadata":{"labels":{"step":")" + value + R"("}}})",
                            PatchType::kMerge)
                    .ok());
  }

  void DeletePod(const std::string& name) {
    DeleteOptions now;
    now.grace_period_seconds = 0;
    ASSERT_TRUE(api_->Delete(PodsPath() + "/" + name, now).ok());
  }

  // name -> resourceVersion, from a fresh LIST and from the reflector's store.
  std::map<std::string, std::string> FreshList() {
    StatusOr<std::string> body = api_->Get(PodsPath());
    EXPECT_TRUE(body.ok()) << body.status();
    std::map<std::string, std::string> out;
    nlohmann::json list = nlohmann::json::parse(*body);
    for (const auto& item : list["items"]) {
      out[item["metadata"]["name"]] = item["metadata"]["resourceVersion"];
    }
    return out;
  }
  static std::map<std::string, std::string> Store(const Reflector<Pod>& r) {
    std::map<std::string, std::string> out;
    for (const Pod& p : r.List()) out[p.meta.name] = p.meta.resource_version;
    return out;
  }

  std::optional<testing_support::LocalCluster> cluster_;
  std::filesystem::path cluster_dir_;
  std::unique_ptr<HttpTransport> transport_;
  std::unique_ptr<ApiClient> api_;
  std::string ns_;
};

}  // namespace arbiter::k8s
