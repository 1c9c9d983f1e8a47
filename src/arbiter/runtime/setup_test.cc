#include "arbiter/runtime/setup.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace arbiter::runtime {
namespace {

namespace fs = std::filesystem;

class SetupTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("arbiter-setup-test-" + std::to_string(::getpid()) + "-" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  // A kubeconfig with two contexts on two servers.
  std::string Kubeconfig() {
    return Write("kubeconfig", R"(apiVersion: v1
kind: Config
current-context: one
clusters:
- name: one
  cluster: {server: "https://one.example:6443", insecure-skip-tls-verify: true}
- name: two
  cluster: {server: "https://two.example:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: secret}
contexts:
- name: one
  context: {cluster: one, user: u}
- name: two
  context: {cluster: two, user: u}
)");
  }

  fs::path dir_;
};

TEST_F(SetupTest, TheKubeconfigFlagWinsAndHonoursTheContext) {
  k8s::InClusterEnvironment in_cluster{.service_host = "10.0.0.1", .service_port = "443"};
  StatusOr<k8s::RestConfig> config = ResolveRestConfig(Kubeconfig(), "two", in_cluster, "");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://two.example:6443");
}

TEST_F(SetupTest, InClusterComesBeforeTheDefaultKubeconfig) {
  k8s::InClusterEnvironment in_cluster{
      .service_host = "10.0.0.1", .service_port = "443", .secrets_dir = (dir_ / "sa").string()};
  StatusOr<k8s::RestConfig> config = ResolveRestConfig("", "", in_cluster, Kubeconfig());
  // No token in the secrets directory: the in-cluster attempt fails and says so.
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("in-cluster"), std::string::npos) << config.status();
}

TEST_F(SetupTest, AContextMeansAKubeconfigEvenInACluster) {
  k8s::InClusterEnvironment in_cluster{.service_host = "10.0.0.1", .service_port = "443"};
  StatusOr<k8s::RestConfig> config = ResolveRestConfig("", "two", in_cluster, Kubeconfig());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://two.example:6443");
}

TEST_F(SetupTest, OutsideAClusterTheDefaultKubeconfigIsUsed) {
  StatusOr<k8s::RestConfig> config = ResolveRestConfig("", "", {}, Kubeconfig());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://one.example:6443");
}

TEST_F(SetupTest, NoSourceAtAllIsNotFound) {
  StatusOr<k8s::RestConfig> config = ResolveRestConfig("", "", {}, "");
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
}

TEST_F(SetupTest, AMissingKubeconfigFileIsNamed) {
  std::string missing = (dir_ / "absent").string();
  StatusOr<k8s::RestConfig> config = ResolveRestConfig(missing, "", {}, "");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find(missing), std::string::npos) << config.status();
}

TEST_F(SetupTest, TheDefaultSchedulerBuilds) {
  StatusOr<std::unique_ptr<Scheduler>> scheduler = BuildScheduler("");
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  EXPECT_NE(*scheduler, nullptr);
}

TEST_F(SetupTest, AConfigFileWithAnUnknownPluginFailsNamingTheFile) {
  std::string path = Write("config.yaml", R"(actions: [allocate]
tiers:
  - plugins:
      - name: no-such-plugin
)");
  StatusOr<std::unique_ptr<Scheduler>> scheduler = BuildScheduler(path);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_NE(scheduler.status().message().find(path), std::string::npos) << scheduler.status();
  EXPECT_NE(scheduler.status().message().find("no-such-plugin"), std::string::npos)
      << scheduler.status();
}

// --- What a daemon accepts of a kubeconfig ---

k8s::RestConfig WithExec(const std::string& command) {
  k8s::RestConfig config;
  config.server = "https://api.example:6443";
  config.exec.emplace();
  config.exec->command = command;
  return config;
}

ApiConnection WithPolicy(CredentialPluginPolicy policy, std::vector<std::string> allowlist) {
  ApiConnection connection;
  connection.plugin_policy = policy;
  connection.plugin_allowlist = std::move(allowlist);
  return connection;
}

TEST(ConnectionPolicyTest, InsecureSkipTlsVerifyNeedsTheFlag) {
  k8s::RestConfig config;
  config.server = "https://api.example:6443";
  config.insecure_skip_tls_verify = true;
  Status refused = CheckConnectionPolicy(config, ApiConnection{}, "/usr/bin");
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("https://api.example:6443"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("insecure-skip-tls-verify"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("--allow-insecure-tls"), std::string::npos) << refused;
  ApiConnection allowed;
  allowed.allow_insecure_tls = true;
  EXPECT_TRUE(CheckConnectionPolicy(config, allowed, "/usr/bin").ok());
}

TEST(ConnectionPolicyTest, PluginsRunByDefaultAndNotWhenDenied) {
  EXPECT_TRUE(CheckConnectionPolicy(WithExec("aws"), ApiConnection{}, "/usr/bin").ok());
  Status denied =
      CheckConnectionPolicy(WithExec("aws"), WithPolicy(CredentialPluginPolicy::kDenyAll, {}), "");
  EXPECT_EQ(denied.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("\"aws\""), std::string::npos) << denied;
  EXPECT_NE(denied.message().find("DenyAll"), std::string::npos) << denied;
}

TEST(ConnectionPolicyTest, TheAllowlistMatchesTheSameFileByPathOrName) {
  // `sh` is on every PATH a test runs with; /bin/sh and sh found on /bin are the same file.
  const ApiConnection by_name = WithPolicy(CredentialPluginPolicy::kAllowlist, {"sh"});
  EXPECT_TRUE(CheckConnectionPolicy(WithExec("/bin/sh"), by_name, "/bin").ok());
  const ApiConnection by_path = WithPolicy(CredentialPluginPolicy::kAllowlist, {"/bin/sh"});
  EXPECT_TRUE(CheckConnectionPolicy(WithExec("sh"), by_path, "/nonexistent:/bin").ok());

  Status other = CheckConnectionPolicy(WithExec("/bin/true"), by_path, "/bin");
  EXPECT_EQ(other.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(other.message().find("/bin/true"), std::string::npos) << other;
  EXPECT_NE(other.message().find("--credential-plugin-allowlist"), std::string::npos) << other;
  // A name that is on no PATH directory matches nothing, not even an entry of the same name.
  const ApiConnection ghost = WithPolicy(CredentialPluginPolicy::kAllowlist, {"no-such-plugin"});
  Status missing = CheckConnectionPolicy(WithExec("no-such-plugin"), ghost, "/bin");
  EXPECT_EQ(missing.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(missing.message().find("not found on PATH"), std::string::npos) << missing;
  // An empty allowlist allows nothing.
  EXPECT_EQ(CheckConnectionPolicy(WithExec("/bin/sh"),
                                  WithPolicy(CredentialPluginPolicy::kAllowlist, {}), "/bin")
                .code(),
            StatusCode::kPermissionDenied);
}

TEST(ConnectionPolicyTest, PolicyNamesParse) {
  EXPECT_EQ(*ParseCredentialPluginPolicy("AllowAll"), CredentialPluginPolicy::kAllowAll);
  EXPECT_EQ(*ParseCredentialPluginPolicy("DenyAll"), CredentialPluginPolicy::kDenyAll);
  EXPECT_EQ(*ParseCredentialPluginPolicy("Allowlist"), CredentialPluginPolicy::kAllowlist);
  StatusOr<CredentialPluginPolicy> bad = ParseCredentialPluginPolicy("allowall");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--credential-plugin-policy"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::runtime
