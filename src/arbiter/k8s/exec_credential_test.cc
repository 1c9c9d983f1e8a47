#include "arbiter/k8s/exec_credential.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace arbiter::k8s {
namespace {

namespace fs = std::filesystem;

fs::path TempPath(const std::string& name) {
  return fs::path(testing::TempDir()) / (name + "-" + std::to_string(::getpid()));
}

TEST(TransportOptionsFromTest, PrefersTheTokenFileSoRotationIsSeen) {
  fs::path file = TempPath("sa-token");
  std::ofstream(file) << "first\n";
  RestConfig config;
  config.server = "https://10.96.0.1:443";
  config.bearer_token = "first";
  config.bearer_token_file = file.string();
  StatusOr<TransportOptions> o = TransportOptionsFrom(config, RealClock::Instance());
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_NE(o->credentials, nullptr);
  EXPECT_EQ(*o->credentials->Token(), "first");
  // The kubelet rotates the projected token: the next request must carry the new one.
  std::ofstream(file) << "second\n";
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  EXPECT_EQ(*o->credentials->Token(), "second");
}

TEST(TransportOptionsFromTest, ReadsCertificateFilesAndNamesAMissingOne) {
  RestConfig config;
  config.server = "https://127.0.0.1:6443";
  config.ca_file = TempPath("no-such-ca").string();
  StatusOr<TransportOptions> o = TransportOptionsFrom(config, RealClock::Instance());
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("certificate-authority " + config.ca_file), std::string::npos)
      << o.status();
}

TEST(ExecCredentialSourceTest, MissingPluginSaysHowToInstallIt) {
  ExecConfig exec;
  exec.command = "no-such-credential-plugin";
  exec.install_hint = "install it with: apt-get install cloud-login";
  ExecCredentialSource source(exec, RealClock::Instance());
  StatusOr<std::string> token = source.Token();
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), StatusCode::kUnauthenticated);
  EXPECT_NE(token.status().message().find("install it with"), std::string::npos) << token.status();
}

TEST(ExecCredentialSourceTest, AnswerWithoutTokenIsRejected) {
  ExecConfig exec;
  exec.command = "sh";
  exec.args = {"-c", R"(echo '{"kind":"ExecCredential","status":{}}')"};
  ExecCredentialSource source(exec, RealClock::Instance());
  EXPECT_EQ(source.Token().status().message(),
            "exec plugin sh: ExecCredential has no status.token");
}

TEST(ExecCredentialSourceTest, HangingPluginTimesOut) {
  ExecConfig exec;
  exec.command = "sleep";
  exec.args = {"30"};
  ExecCredentialSource source(exec, RealClock::Instance(), std::chrono::seconds(1));
  EXPECT_EQ(source.Token().status().code(), StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace arbiter::k8s
