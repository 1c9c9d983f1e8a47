// Every way a kubeconfig can authenticate, against the real local API server: inline token and
// CA data, a second context with a client certificate, token and certificate files named by
// relative paths, and an exec credential plugin (run once, re-run on expiry and after a 401). A
// wrong CA is refused with a clear error, and at the highest log verbosity no token or key
// appears in the log.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "arbiter/base/log.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/exec_credential.h"
#include "arbiter/k8s/kubeconfig.h"

namespace arbiter::k8s {
namespace {

namespace fs = std::filesystem;
using testing_support::ReadFile;

void WriteFile(const fs::path& path, const std::string& text, fs::perms perms = fs::perms(0600)) {
  std::ofstream(path) << text;
  fs::permissions(path, perms);
}

class KubeconfigConnectTest : public testing::Test {
 protected:
  void SetUp() override {
    std::optional<testing_support::LocalCluster> cluster =
        testing_support::LocalCluster::FromEnvironment();
    if (!cluster) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    cluster_dir_ = cluster->dir;
    server_ = cluster->server;
    token_ = cluster->token;
    dir_ = fs::path(testing::TempDir()) / ("kubeconfigs-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "creds");
    fs::copy_file(cluster_dir_ / "ca.crt", dir_ / "creds/ca.crt",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(cluster_dir_ / "admin.crt", dir_ / "creds/admin.crt",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(cluster_dir_ / "admin.key", dir_ / "creds/admin.key",
                  fs::copy_options::overwrite_existing);
    WriteFile(dir_ / "creds/token", token_ + "\n");
    // Everything below runs at the highest verbosity, into a buffer the last test inspects.
    SetLogVerbosity(10);
    SetLogStream(&log_);
  }

  void TearDown() override {
    SetLogStream(nullptr);
    SetLogVerbosity(0);
  }

  // A kubeconfig whose one user is `user_yaml` (indented under `user:`), CA from a relative path.
  fs::path Kubeconfig(const std::string& name, const std::string& user_yaml,
                      const std::string& ca_line = "certificate-authority: creds/ca.crt") {
    std::string text =
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server_ +
        "\n    " + ca_line + "\nusers:\n- name: u\n  user:\n" + user_yaml +
        "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
        "current-context: x\n";
    fs::path path = dir_ / name;
    WriteFile(path, text);
    return path;
  }

  // Loads the kubeconfig, connects, and reads a namespace: the HTTP status (or an error).
  StatusOr<long> Connect(const KubeconfigOptions& options, const Clock& clock,  // NOLINT
                         std::shared_ptr<CredentialSource>* credentials = nullptr) {
    ARBITER_ASSIGN_OR_RETURN(RestConfig config, LoadKubeconfig(options));
    ARBITER_ASSIGN_OR_RETURN(TransportOptions o, TransportOptionsFrom(config, clock));
    o.max_attempts = 1;
    if (credentials != nullptr) *credentials = o.credentials;
    ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> t, HttpTransport::Create(o));
    ARBITER_ASSIGN_OR_RETURN(HttpResponse r, t->Do(HttpRequest::Get("/api/v1/namespaces/default")));
    return r.status;
  }

  // up.sh names the client-certificate context after the cluster: "<name>-cert".
  std::string CertContext() const { return cluster_dir_.filename().string() + "-cert"; }

  fs::path cluster_dir_;
  fs::path dir_;
  std::string server_;
  std::string token_;
  std::ostringstream log_;
};

TEST_F(KubeconfigConnectTest, InlineTokenAndCaData) {
  StatusOr<long> status =  // NOLINT(google-runtime-int)
      Connect({.paths = (cluster_dir_ / "kubeconfig").string(), .context = ""},
              RealClock::Instance());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
}

TEST_F(KubeconfigConnectTest, InlineClientCertificateThroughAnotherContext) {
  StatusOr<long> status =  // NOLINT(google-runtime-int)
      Connect({.paths = (cluster_dir_ / "kubeconfig").string(), .context = CertContext()},
              RealClock::Instance());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
}

TEST_F(KubeconfigConnectTest, TokenFileByRelativePath) {
  fs::path kc = Kubeconfig("token-file.yaml", "    tokenFile: creds/token\n");
  StatusOr<long> status = Connect({.paths = kc.string(), .context = ""},  // NOLINT
                                  RealClock::Instance());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
}

TEST_F(KubeconfigConnectTest, ClientCertificateFilesByRelativePath) {
  fs::path kc = Kubeconfig("cert-files.yaml",
                           "    client-certificate: creds/admin.crt\n"
                           "    client-key: creds/admin.key\n");
  StatusOr<long> status = Connect({.paths = kc.string(), .context = ""},  // NOLINT
                                  RealClock::Instance());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
}

TEST_F(KubeconfigConnectTest, ExecPluginRunsOnceThenOnExpiryAndAfterUnauthorized) {
  // The plugin counts its runs; its first answer is a wrong token, so the first request gets a
  // 401, which must make the client run it again and retry.
  fs::path counter = dir_ / "exec-runs";
  fs::path plugin = dir_ / "plugin.sh";
  WriteFile(plugin,
            "#!/bin/sh\n"
            "n=$(cat '" +
                counter.string() + "' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '" +
                counter.string() +
                "'\n"
                "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 3 ;; esac\n"
                "if [ $n -eq 1 ]; then tok=wrong; else tok='" +
                token_ +
                "'; fi\n"
                "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                "\"ExecCredential\",\"status\":{\"token\":\"%s\",\"expirationTimestamp\":"
                "\"2099-01-01T00:00:00Z\"}}' \"$tok\"\n",
            fs::perms(0700));
  fs::path kc = Kubeconfig("exec.yaml",
                           "    exec:\n"
                           "      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: " +
                               plugin.string() +
                               "\n"
                               "      interactiveMode: Never\n");
  FakeClock clock(RealClock::Instance().Now());
  std::shared_ptr<CredentialSource> credentials;
  StatusOr<long> status = Connect({.paths = kc.string(), .context = ""}, clock,  // NOLINT
                                  &credentials);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
  auto* exec = dynamic_cast<ExecCredentialSource*>(credentials.get());
  ASSERT_NE(exec, nullptr);
  EXPECT_EQ(exec->runs(), 2);  // the wrong token, a 401, then the right one
  ASSERT_TRUE(exec->Token().ok());
  EXPECT_EQ(exec->runs(), 2);  // still valid: no new run
  clock.SetNow(Clock::WallTime(std::chrono::sys_days(std::chrono::year(2099) / 1 / 1)));
  ASSERT_TRUE(exec->Token().ok());
  EXPECT_EQ(exec->runs(), 3);  // expired: run again
}

TEST_F(KubeconfigConnectTest, AFailingExecPluginSaysWhy) {
  fs::path plugin = dir_ / "broken.sh";
  WriteFile(plugin, "#!/bin/sh\necho 'login required: run sso-login' >&2\nexit 4\n",
            fs::perms(0700));
  fs::path kc = Kubeconfig("broken.yaml",
                           "    exec:\n      apiVersion: "
                           "client.authentication.k8s.io/v1\n      command: " +
                               plugin.string() + "\n      interactiveMode: Never\n");
  StatusOr<long> status = Connect({.paths = kc.string(), .context = ""},  // NOLINT
                                  RealClock::Instance());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(status.status().message().find("exited with status 4"), std::string::npos)
      << status.status();
  EXPECT_NE(status.status().message().find("login required"), std::string::npos);
}

TEST_F(KubeconfigConnectTest, AWrongCaIsRefusedClearly) {
  fs::path kc = Kubeconfig("wrong-ca.yaml", "    tokenFile: creds/token\n",
                           "certificate-authority: " + (cluster_dir_ / "client-ca.crt").string());
  StatusOr<long> status = Connect({.paths = kc.string(), .context = ""},  // NOLINT
                                  RealClock::Instance());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(status.status().message().find("SSL certificate problem"), std::string::npos)
      << status.status();
}

TEST_F(KubeconfigConnectTest, HighestVerbosityLogsRequestsButNoSecret) {
  ASSERT_TRUE(Connect({.paths = (cluster_dir_ / "kubeconfig").string(), .context = ""},
                      RealClock::Instance())
                  .ok());
  ASSERT_TRUE(Connect({.paths = (cluster_dir_ / "kubeconfig").string(), .context = CertContext()},
                      RealClock::Instance())
                  .ok());
  std::string log = log_.str();
  EXPECT_NE(log.find("GET " + server_ + "/api/v1/namespaces/default status=200"), std::string::npos)
      << log;
  EXPECT_NE(log.find("Bearer <masked>"), std::string::npos) << log;
  EXPECT_EQ(log.find(token_), std::string::npos) << "the token leaked into the log";
  EXPECT_EQ(log.find("PRIVATE KEY"), std::string::npos) << "a key leaked into the log";
  std::string key = ReadFile(cluster_dir_ / "admin.key");
  std::string key_line = key.substr(key.find('\n') + 1, 40);  // a piece of the key's base64
  EXPECT_EQ(log.find(key_line), std::string::npos) << "a key leaked into the log";
}

}  // namespace
}  // namespace arbiter::k8s
