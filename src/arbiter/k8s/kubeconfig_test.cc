#include "arbiter/k8s/kubeconfig.h"

#include <cstdlib>  // mkdtemp
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace arbiter::k8s {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the test's temp dir, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "arbiter-kubeconfig-XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }

  // Writes `content` to `name` (directories created) and returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// "-----BEGIN CERTIFICATE-----\nMIIB\n" and a key, base64-encoded as kubeconfig -data fields are.
constexpr std::string_view kCaPem = "-----BEGIN CERTIFICATE-----\nMIIB\n";
constexpr std::string_view kCaData = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIK";
constexpr std::string_view kKeyPem = "-----BEGIN EC PRIVATE KEY-----\nSECRETKEY\n";
constexpr std::string_view kKeyData = "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tClNFQ1JFVEtFWQo=";

std::string FullConfig() {
  return R"(apiVersion: v1
kind: Config
preferences: {}
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes.default
    proxy-url: http://proxy:3128
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority-data: )" +
         std::string(kCaData) + R"(
users:
- name: dev-user
  user:
    client-certificate: certs/client.crt
    client-key: /abs/client.key
- name: prod-user
  user:
    token: s3cr3t-t0ken
    client-certificate-data: )" +
         std::string(kCaData) + R"(
    client-key-data: )" +
         std::string(kKeyData) + R"(
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
      args: ["--cluster", "prod", "--secret=hunter2"]
      env:
      - name: AWS_PROFILE
        value: very-secret-profile
      provideClusterInfo: true
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: ml}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: exec
  context: {cluster: prod-cluster, user: exec-user}
)";
}

TEST(KubeconfigTest, CurrentContextWithRelativePaths) {
  ScratchDir dir;
  std::string file = dir.Write("kube/config", FullConfig());
  StatusOr<RestConfig> config = LoadKubeconfig({file, ""});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->context_name, "dev");
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->tls_server_name, "kubernetes.default");
  EXPECT_EQ(config->ca_file, dir.Path("kube/certs/ca.crt"));
  EXPECT_EQ(config->client_cert_file, dir.Path("kube/certs/client.crt"));
  EXPECT_EQ(config->client_key_file, "/abs/client.key");
  EXPECT_EQ(config->namespace_name, "ml");
  EXPECT_TRUE(config->bearer_token.empty());
}

TEST(KubeconfigTest, ContextOverrideAndBase64Data) {
  ScratchDir dir;
  std::string file = dir.Write("config", FullConfig());
  StatusOr<RestConfig> config = LoadKubeconfig({file, "prod"});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://prod.example.com");
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_TRUE(config->ca_file.empty());
  EXPECT_EQ(config->client_cert_pem, kCaPem);
  EXPECT_EQ(config->client_key_pem, kKeyPem);
  EXPECT_EQ(config->bearer_token, "s3cr3t-t0ken");
}

TEST(KubeconfigTest, ExecPlugin) {
  ScratchDir dir;
  std::string file = dir.Write("config", FullConfig());
  StatusOr<RestConfig> config = LoadKubeconfig({file, "exec"});
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(config->exec.has_value());
  const ExecConfig exec = config->exec.value_or(ExecConfig{});
  EXPECT_EQ(exec.command, dir.Path("bin/get-token"));
  EXPECT_EQ(exec.args, (std::vector<std::string>{"--cluster", "prod", "--secret=hunter2"}));
  ASSERT_EQ(exec.env.size(), 1U);
  EXPECT_EQ(exec.env[0].first, "AWS_PROFILE");
  EXPECT_EQ(exec.api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(exec.interactive_mode, "IfAvailable");
  EXPECT_TRUE(exec.provide_cluster_info);
}

TEST(KubeconfigTest, BareExecCommandIsLeftForPath) {
  ScratchDir dir;
  std::string file = dir.Write("config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://k:6443"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: aws,
         interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)");
  StatusOr<RestConfig> config = LoadKubeconfig({file, ""});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->exec.value_or(ExecConfig{}).command, "aws");
  EXPECT_EQ(config->exec.value_or(ExecConfig{}).interactive_mode, "Never");
}

TEST(KubeconfigTest, FirstFileWinsPerNameAndForCurrentContext) {
  ScratchDir dir;
  std::string first = dir.Write("a/config", R"(
clusters:
- name: shared
  cluster: {server: "https://first:6443", insecure-skip-tls-verify: true}
users:
- name: shared-user
  user: {tokenFile: token}
contexts:
- name: from-a
  context: {cluster: shared, user: shared-user}
)");
  std::string second = dir.Write("b/config", R"(
current-context: from-b
clusters:
- name: shared
  cluster: {server: "https://second:6443"}
- name: only-b
  cluster: {server: "https://only-b:6443"}
users:
- name: shared-user
  user: {token: from-b}
contexts:
- name: from-b
  context: {cluster: shared, user: shared-user, namespace: b}
- name: from-a
  context: {cluster: only-b}
)");
  std::string third = dir.Write("c/config", "current-context: from-a\n");
  std::string paths = first + ":" + dir.Path("missing") + "::" + second + ":" + third;

  // current-context from b (the first file that sets it); cluster and user from a.
  StatusOr<RestConfig> config = LoadKubeconfig({paths, ""});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->context_name, "from-b");
  EXPECT_EQ(config->server, "https://first:6443");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->bearer_token_file, dir.Path("a/token"));
  EXPECT_TRUE(config->bearer_token.empty());  // b's user of the same name is ignored whole
  EXPECT_EQ(config->namespace_name, "b");

  // a's context "from-a" wins over b's.
  StatusOr<RestConfig> from_a = LoadKubeconfig({paths, "from-a"});
  ASSERT_TRUE(from_a.ok()) << from_a.status();
  EXPECT_EQ(from_a->server, "https://first:6443");
}

struct BadConfig {
  std::string name;
  std::string yaml;
  std::string context;
  std::string error;  // after "kubeconfig <file>: "
};

void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

class KubeconfigErrorTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(KubeconfigErrorTest, NamesFileAndField) {
  ScratchDir dir;
  std::string file = dir.Write("config", GetParam().yaml);
  StatusOr<RestConfig> config = LoadKubeconfig({file, GetParam().context});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "kubeconfig " + file + ": " + GetParam().error);
}

constexpr std::string_view kContext = R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
)";

std::string With(const std::string& rest) { return std::string(kContext) + rest; }

INSTANTIATE_TEST_SUITE_P(
    Cases, KubeconfigErrorTest,
    ::testing::Values(
        BadConfig{"NoServer", With("clusters: [{name: k, cluster: {}}]\nusers: [{name: u}]"), "",
                  "clusters[k].cluster.server: missing"},
        BadConfig{"BadBase64",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {client-certificate-data: Zm9v, "
                       "client-key-data: 'Zm9v!!!!'}}]"),
                  "",
                  "users[u].user.client-key-data: not valid base64 (unexpected character at 4)"},
        BadConfig{"InsecureWithCa",
                  With("clusters: [{name: k, cluster: {server: s, insecure-skip-tls-verify: true, "
                       "certificate-authority: ca.crt}}]\nusers: [{name: u}]"),
                  "",
                  "clusters[k].cluster.insecure-skip-tls-verify: cannot be combined with a "
                  "certificate authority (the CA would be ignored)"},
        BadConfig{"CertWithoutKey",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {client-certificate: c.crt}}]"),
                  "", "users[u].user.client-key: missing (a client certificate needs its key)"},
        BadConfig{"OldExecApi",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {exec: {command: x, "
                       "apiVersion: client.authentication.k8s.io/v1alpha1}}}]"),
                  "",
                  "users[u].user.exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is "
                  "not supported (want client.authentication.k8s.io/v1 or "
                  "client.authentication.k8s.io/v1beta1)"},
        BadConfig{"ExecV1NeedsInteractiveMode",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {exec: {command: x, "
                       "apiVersion: client.authentication.k8s.io/v1}}}]"),
                  "",
                  "users[u].user.exec.interactiveMode: missing (required by "
                  "client.authentication.k8s.io/v1)"},
        BadConfig{"ExecEnvWithoutName",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {exec: {command: x, env: [{value: v}], "
                       "apiVersion: client.authentication.k8s.io/v1beta1}}}]"),
                  "", "users[u].user.exec.env[0].name: missing"},
        BadConfig{"AuthProvider",
                  With("clusters: [{name: k, cluster: {server: s}}]\n"
                       "users: [{name: u, user: {auth-provider: {name: gcp}}}]"),
                  "", "users[u].user.auth-provider: not supported; use an exec credential plugin"},
        BadConfig{"InsecureNotABool",
                  With("clusters: [{name: k, cluster: {server: s, insecure-skip-tls-verify: "
                       "maybe}}]\nusers: [{name: u}]"),
                  "", "clusters[k].cluster.insecure-skip-tls-verify: expected true or false"},
        BadConfig{"EntryWithoutName", "clusters: [{cluster: {server: s}}]", "",
                  "clusters[0].name: missing"},
        BadConfig{"ClustersNotAList", "clusters: {k: 1}", "", "clusters: expected a list"}),
    [](const ::testing::TestParamInfo<BadConfig>& case_info) { return case_info.param.name; });

TEST(KubeconfigTest, NotValidYamlNamesTheFile) {
  ScratchDir dir;
  std::string file = dir.Write("config", "clusters: [\n");
  StatusOr<RestConfig> config = LoadKubeconfig({file, ""});
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(config.status().message().starts_with("kubeconfig " + file + ": not valid YAML"))
      << config.status();
}

TEST(KubeconfigTest, MissingContextClusterOrUserIsNotFound) {
  ScratchDir dir;
  std::string file = dir.Write("config", FullConfig() + R"(- name: dangling
  context: {cluster: nowhere, user: dev-user}
)");
  StatusOr<RestConfig> no_context = LoadKubeconfig({file, "staging"});
  EXPECT_EQ(no_context.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(no_context.status().message(),
            "kubeconfig: context \"staging\" not found (in " + file + ")");
  StatusOr<RestConfig> no_cluster = LoadKubeconfig({file, "dangling"});
  EXPECT_EQ(no_cluster.status().message(),
            "kubeconfig: cluster \"nowhere\" of context \"dangling\" not found (in " + file + ")");
  StatusOr<RestConfig> no_file = LoadKubeconfig({dir.Path("none") + ":" + dir.Path("nada"), ""});
  EXPECT_EQ(no_file.status().code(), StatusCode::kNotFound);
}

TEST(KubeconfigTest, NoCurrentContext) {
  ScratchDir dir;
  std::string file = dir.Write("config", "clusters: []\n");
  EXPECT_EQ(LoadKubeconfig({file, ""}).status().code(), StatusCode::kNotFound);
}

TEST(RestConfigTest, RedactedNeverShowsSecrets) {
  ScratchDir dir;
  std::string file = dir.Write("config", FullConfig());
  for (std::string context : {"dev", "prod", "exec"}) {
    StatusOr<RestConfig> config = LoadKubeconfig({file, context});
    ASSERT_TRUE(config.ok()) << config.status();
    std::ostringstream printed;
    printed << *config;
    std::string text = printed.str();
    EXPECT_EQ(text, config->Redacted());
    for (std::string_view secret :
         {"s3cr3t-t0ken", "SECRETKEY", "hunter2", "very-secret-profile", "PRIVATE"}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << context << ": " << text;
    }
    EXPECT_NE(text.find("server=https://"), std::string::npos) << text;
  }
  StatusOr<RestConfig> prod = LoadKubeconfig({file, "prod"});
  ASSERT_TRUE(prod.ok());
  EXPECT_EQ(prod->Redacted(),
            "RestConfig{server=https://prod.example.com, context=prod, ca=<33 bytes>, "
            "client-cert=<33 bytes>, client-key=<redacted>, token=<redacted>}");
}

TEST(RestConfigTest, RedactedExec) {
  RestConfig config;
  config.server = "https://k:6443";
  config.exec = ExecConfig{"/bin/tok",
                           {"--password", "pw"},
                           {{"TOKEN", "abc"}},
                           "client.authentication.k8s.io/v1",
                           "",
                           false,
                           "Never"};
  EXPECT_EQ(config.Redacted(),
            "RestConfig{server=https://k:6443, exec={command=/bin/tok "
            "api-version=client.authentication.k8s.io/v1 args=<2 redacted> "
            "env:TOKEN=<redacted>}}");
}

TEST(InClusterConfigTest, ReadsServiceAccountFiles) {
  ScratchDir dir;
  dir.Write("sa/token", "eyJhbGciOiJSUzI1NiJ9.payload.sig");
  dir.Write("sa/ca.crt", std::string(kCaPem));
  dir.Write("sa/namespace", "arbiter-system\n");
  StatusOr<RestConfig> config = LoadInClusterConfig({"10.96.0.1", "443", dir.Path("sa")});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->bearer_token, "eyJhbGciOiJSUzI1NiJ9.payload.sig");
  EXPECT_EQ(config->bearer_token_file, dir.Path("sa/token"));
  EXPECT_EQ(config->ca_file, dir.Path("sa/ca.crt"));
  EXPECT_EQ(config->namespace_name, "arbiter-system");
  EXPECT_EQ(config->Redacted().find("eyJ"), std::string::npos);
}

TEST(InClusterConfigTest, Ipv6HostIsBracketed) {
  ScratchDir dir;
  dir.Write("sa/token", "t");
  StatusOr<RestConfig> config = LoadInClusterConfig({"fd00:10:96::1", "6443", dir.Path("sa")});
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:6443");
  EXPECT_TRUE(config->ca_file.empty());
  EXPECT_TRUE(config->namespace_name.empty());
}

TEST(InClusterConfigTest, NotInClusterOrNoToken) {
  ScratchDir dir;
  EXPECT_EQ(LoadInClusterConfig({"", "443", dir.Path("sa")}).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(LoadInClusterConfig({"10.0.0.1", "", dir.Path("sa")}).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(LoadInClusterConfig({"10.0.0.1", "443", dir.Path("sa")}).status().code(),
            StatusCode::kNotFound);
}

// Sets an environment variable for the life of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(KubeconfigPathsTest, KubeconfigVariableWinsElseHome) {
  ScopedEnv home("HOME", "/home/alice");
  {
    ScopedEnv kubeconfig("KUBECONFIG", "/a:/b");
    EXPECT_EQ(KubeconfigPathsFromEnvironment(), "/a:/b");
  }
  {
    ScopedEnv kubeconfig("KUBECONFIG", "");
    EXPECT_EQ(KubeconfigPathsFromEnvironment(), "/home/alice/.kube/config");
  }
  ScopedEnv kubeconfig("KUBECONFIG", nullptr);
  EXPECT_EQ(KubeconfigPathsFromEnvironment(), "/home/alice/.kube/config");
}

TEST(DecodeBase64Test, StandardAlphabetWithPadding) {
  EXPECT_EQ(*DecodeBase64(""), "");
  EXPECT_EQ(*DecodeBase64("Zg=="), "f");
  EXPECT_EQ(*DecodeBase64("Zm8="), "fo");
  EXPECT_EQ(*DecodeBase64("Zm9v"), "foo");
  EXPECT_EQ(*DecodeBase64("Zm9v\nYmFy\r\n"), "foobar");
  EXPECT_EQ(*DecodeBase64("+/+/"), "\xfb\xff\xbf");
  for (std::string_view bad : {"Zg", "Zg=", "Z===", "Zm9v=", "Zg==Zg==", "Zm-v", "Zm9v YmFy"}) {
    EXPECT_FALSE(DecodeBase64(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace arbiter::k8s
