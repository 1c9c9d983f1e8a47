#include "arbiter/k8s/kubeconfig.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace arbiter::k8s {
namespace {

namespace fs = std::filesystem;

StatusOr<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return InternalError("error reading " + path.string());
  return content.str();
}

// A named entry of one of the three kubeconfig lists, with the file that defined it.
struct Entry {
  YAML::Node body;  // the "cluster", "user" or "context" map
  std::string file;
};

using EntryMap = std::map<std::string, Entry>;

// Typed access to the fields of one YAML map, with errors that name the file and the path.
class Fields {
 public:
  Fields(const YAML::Node& node, std::string file, std::string path)
      : node_(node), file_(std::move(file)), path_(std::move(path)) {}

  Status Error(std::string_view key, std::string_view what) const {
    std::string where = path_;
    if (!key.empty()) where += (where.empty() ? "" : ".") + std::string(key);
    if (!where.empty()) where += ": ";
    return InvalidArgumentError("kubeconfig " + file_ + ": " + where + std::string(what));
  }

  // The field, or an undefined/null node when absent.
  YAML::Node Get(std::string_view key) const {
    if (!node_.IsMap()) return {};
    return node_[std::string(key)];
  }

  static bool Absent(const YAML::Node& n) { return !n.IsDefined() || n.IsNull(); }

  Status String(std::string_view key, std::string& out) const {
    YAML::Node n = Get(key);
    if (Absent(n)) return Status::Ok();
    if (!n.IsScalar()) return Error(key, "expected a string");
    out = n.Scalar();
    return Status::Ok();
  }

  Status Bool(std::string_view key, bool& out) const {
    YAML::Node n = Get(key);
    if (Absent(n)) return Status::Ok();
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, out)) {
      return Error(key, "expected true or false");
    }
    return Status::Ok();
  }

  Status StringList(std::string_view key, std::vector<std::string>& out) const {
    YAML::Node n = Get(key);
    if (Absent(n)) return Status::Ok();
    if (!n.IsSequence()) return Error(key, "expected a list of strings");
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) {
        return Error(std::string(key) + "[" + std::to_string(i) + "]", "expected a string");
      }
      out.push_back(n[i].Scalar());
    }
    return Status::Ok();
  }

  // A *-data field: base64 in the file, bytes in the result.
  Status Base64(std::string_view key, std::string& out) const {
    std::string text;
    ARBITER_RETURN_IF_ERROR(String(key, text));
    if (text.empty()) return Status::Ok();
    StatusOr<std::string> bytes = DecodeBase64(text);
    if (!bytes.ok()) return Error(key, bytes.status().message());
    out = *std::move(bytes);
    return Status::Ok();
  }

  // A path field, resolved against the directory of the file that named it.
  Status Path(std::string_view key, std::string& out) const {
    std::string text;
    ARBITER_RETURN_IF_ERROR(String(key, text));
    if (!text.empty()) out = Resolve(text);
    return Status::Ok();
  }

  std::string Resolve(const std::string& path) const {
    fs::path p(path);
    if (p.is_absolute()) return p.lexically_normal().string();
    std::error_code ignored;
    fs::path base = fs::absolute(fs::path(file_).parent_path(), ignored);
    return (base / p).lexically_normal().string();
  }

  // The fields of `node`, a value found under this map at `step` ("exec", "env[0]").
  Fields Sub(const YAML::Node& node, const std::string& step) const {
    return {node, file_, path_.empty() ? step : path_ + "." + step};
  }

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

// Adds the entries of one list ("clusters", with bodies under "cluster") of one file; a name
// already present (from an earlier file, or earlier in this one) is kept.
Status MergeList(const YAML::Node& root, const std::string& file, std::string_view list,
                 std::string_view body_key, EntryMap& out) {
  YAML::Node items = root[std::string(list)];
  if (Fields::Absent(items)) return Status::Ok();
  Fields top(root, file, "");
  if (!items.IsSequence()) return top.Error(list, "expected a list");
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields item(items[i], file, std::string(list) + "[" + std::to_string(i) + "]");
    if (!items[i].IsMap())
      return item.Error("", "expected a map with name and " + std::string(body_key));
    std::string name;
    ARBITER_RETURN_IF_ERROR(item.String("name", name));
    if (name.empty()) return item.Error("name", "missing");
    YAML::Node body = item.Get(body_key);
    if (!Fields::Absent(body) && !body.IsMap()) return item.Error(body_key, "expected a map");
    out.try_emplace(name, Entry{body, file});
  }
  return Status::Ok();
}

struct MergedConfig {
  EntryMap clusters;
  EntryMap users;
  EntryMap contexts;
  std::string current_context;
  std::vector<std::string> files;  // the files that were read, in order
};

Status MergeFile(const std::string& file, MergedConfig& merged) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError("kubeconfig " + file + ": not valid YAML: " + e.what());
  }
  merged.files.push_back(file);
  if (Fields::Absent(root)) return Status::Ok();  // an empty file is an empty config
  Fields top(root, file, "");
  if (!root.IsMap()) return top.Error("", "expected a map at the top level");
  ARBITER_RETURN_IF_ERROR(MergeList(root, file, "clusters", "cluster", merged.clusters));
  ARBITER_RETURN_IF_ERROR(MergeList(root, file, "users", "user", merged.users));
  ARBITER_RETURN_IF_ERROR(MergeList(root, file, "contexts", "context", merged.contexts));
  if (merged.current_context.empty()) {
    ARBITER_RETURN_IF_ERROR(top.String("current-context", merged.current_context));
  }
  return Status::Ok();
}

Status ReadCluster(const std::string& name, const Entry& entry, RestConfig& out) {
  Fields f(entry.body, entry.file, "clusters[" + name + "].cluster");
  ARBITER_RETURN_IF_ERROR(f.String("server", out.server));
  if (out.server.empty()) return f.Error("server", "missing");
  if (out.server.find("://") == std::string::npos) out.server = "https://" + out.server;
  while (out.server.ends_with('/')) out.server.pop_back();
  ARBITER_RETURN_IF_ERROR(f.String("tls-server-name", out.tls_server_name));
  ARBITER_RETURN_IF_ERROR(f.Bool("insecure-skip-tls-verify", out.insecure_skip_tls_verify));
  ARBITER_RETURN_IF_ERROR(f.Path("certificate-authority", out.ca_file));
  ARBITER_RETURN_IF_ERROR(f.Base64("certificate-authority-data", out.ca_pem));
  if (!out.ca_file.empty() && !out.ca_pem.empty()) {
    return f.Error("certificate-authority-data",
                   "certificate-authority and certificate-authority-data are both set; use one");
  }
  if (out.insecure_skip_tls_verify && (!out.ca_file.empty() || !out.ca_pem.empty())) {
    return f.Error("insecure-skip-tls-verify",
                   "cannot be combined with a certificate authority (the CA would be ignored)");
  }
  return Status::Ok();
}

Status ReadExec(const Fields& f, ExecConfig& out) {
  if (!f.node().IsMap()) return f.Error("", "expected a map");
  std::string command;
  ARBITER_RETURN_IF_ERROR(f.String("command", command));
  if (command.empty()) return f.Error("command", "missing");
  // A command with a path separator is a path relative to the file; a bare name is looked up
  // in PATH when it runs.
  bool relative_path = command.find('/') != std::string::npos && !fs::path(command).is_absolute();
  out.command = relative_path ? f.Resolve(command) : command;
  ARBITER_RETURN_IF_ERROR(f.StringList("args", out.args));
  ARBITER_RETURN_IF_ERROR(f.String("apiVersion", out.api_version));
  if (out.api_version != "client.authentication.k8s.io/v1" &&
      out.api_version != "client.authentication.k8s.io/v1beta1") {
    return f.Error("apiVersion", "\"" + out.api_version +
                                     "\" is not supported (want client.authentication.k8s.io/v1 "
                                     "or client.authentication.k8s.io/v1beta1)");
  }
  ARBITER_RETURN_IF_ERROR(f.String("installHint", out.install_hint));
  ARBITER_RETURN_IF_ERROR(f.Bool("provideClusterInfo", out.provide_cluster_info));
  ARBITER_RETURN_IF_ERROR(f.String("interactiveMode", out.interactive_mode));
  if (out.interactive_mode.empty()) {
    // v1 makes the field required; v1beta1 defaults it.
    if (out.api_version.ends_with("/v1")) {
      return f.Error("interactiveMode", "missing (required by client.authentication.k8s.io/v1)");
    }
    out.interactive_mode = "IfAvailable";
  }
  if (out.interactive_mode != "Never" && out.interactive_mode != "IfAvailable" &&
      out.interactive_mode != "Always") {
    return f.Error("interactiveMode",
                   "\"" + out.interactive_mode + "\" is not one of Never, IfAvailable, Always");
  }
  YAML::Node env = f.Get("env");
  if (Fields::Absent(env)) return Status::Ok();
  if (!env.IsSequence()) return f.Error("env", "expected a list of {name, value}");
  for (std::size_t i = 0; i < env.size(); ++i) {
    Fields var = f.Sub(env[i], "env[" + std::to_string(i) + "]");
    if (!env[i].IsMap()) return var.Error("", "expected {name, value}");
    std::string name;
    std::string value;
    ARBITER_RETURN_IF_ERROR(var.String("name", name));
    ARBITER_RETURN_IF_ERROR(var.String("value", value));
    if (name.empty()) return var.Error("name", "missing");
    out.env.emplace_back(std::move(name), std::move(value));
  }
  return Status::Ok();
}

Status ReadUser(const std::string& name, const Entry& entry, RestConfig& out) {
  Fields f(entry.body, entry.file, "users[" + name + "].user");
  ARBITER_RETURN_IF_ERROR(f.String("token", out.bearer_token));
  ARBITER_RETURN_IF_ERROR(f.Path("tokenFile", out.bearer_token_file));
  ARBITER_RETURN_IF_ERROR(f.Path("client-certificate", out.client_cert_file));
  ARBITER_RETURN_IF_ERROR(f.Base64("client-certificate-data", out.client_cert_pem));
  ARBITER_RETURN_IF_ERROR(f.Path("client-key", out.client_key_file));
  ARBITER_RETURN_IF_ERROR(f.Base64("client-key-data", out.client_key_pem));
  if (!out.client_cert_file.empty() && !out.client_cert_pem.empty()) {
    return f.Error("client-certificate-data",
                   "client-certificate and client-certificate-data are both set; use one");
  }
  if (!out.client_key_file.empty() && !out.client_key_pem.empty()) {
    return f.Error("client-key-data", "client-key and client-key-data are both set; use one");
  }
  bool has_cert = !out.client_cert_file.empty() || !out.client_cert_pem.empty();
  bool has_key = !out.client_key_file.empty() || !out.client_key_pem.empty();
  if (has_cert != has_key) {
    return f.Error(has_cert ? "client-key" : "client-certificate",
                   has_cert ? "missing (a client certificate needs its key)"
                            : "missing (a client key needs its certificate)");
  }
  if (!Fields::Absent(f.Get("exec"))) {
    ARBITER_RETURN_IF_ERROR(ReadExec(f.Sub(f.Get("exec"), "exec"), out.exec.emplace()));
  }
  bool has_token = !out.bearer_token.empty() || !out.bearer_token_file.empty();
  if (!has_cert && !has_token && !out.exec.has_value()) {
    if (!Fields::Absent(f.Get("auth-provider"))) {
      return f.Error("auth-provider", "not supported; use an exec credential plugin");
    }
    if (!Fields::Absent(f.Get("username")) || !Fields::Absent(f.Get("password"))) {
      return f.Error("username", "basic authentication is not supported");
    }
  }
  return Status::Ok();
}

std::vector<std::string> SplitPaths(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string Describe(std::string_view what, const std::string& pem, const std::string& file) {
  if (!file.empty()) return std::string(what) + "=" + file;
  if (!pem.empty()) return std::string(what) + "=<" + std::to_string(pem.size()) + " bytes>";
  return "";
}

}  // namespace

StatusOr<std::string> DecodeBase64(std::string_view text) {
  auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string symbols;
  symbols.reserve(text.size());
  for (char c : text) {
    if (c != '\n' && c != '\r') symbols.push_back(c);
  }
  if (symbols.size() % 4 != 0) return InvalidArgumentError("not valid base64 (length)");
  std::string out;
  out.reserve(symbols.size() / 4 * 3);
  for (std::size_t i = 0; i < symbols.size(); i += 4) {
    std::array<int, 4> v{};
    int padding = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      char c = symbols[i + j];
      bool last_group = i + 4 == symbols.size();
      if (c == '=' && last_group && j >= 2) {
        ++padding;
        v.at(j) = 0;
        continue;
      }
      v.at(j) = value_of(c);
      if (v.at(j) < 0 || padding > 0) {
        return InvalidArgumentError("not valid base64 (unexpected character at " +
                                    std::to_string(i + j) + ")");
      }
    }
    unsigned bits = (static_cast<unsigned>(v[0]) << 18U) | (static_cast<unsigned>(v[1]) << 12U) |
                    (static_cast<unsigned>(v[2]) << 6U) | static_cast<unsigned>(v[3]);
    out.push_back(static_cast<char>((bits >> 16U) & 0xFFU));
    if (padding < 2) out.push_back(static_cast<char>((bits >> 8U) & 0xFFU));
    if (padding < 1) out.push_back(static_cast<char>(bits & 0xFFU));
  }
  return out;
}

StatusOr<RestConfig> LoadKubeconfig(const KubeconfigOptions& options) {
  MergedConfig merged;
  for (const std::string& file : SplitPaths(options.paths)) {
    std::error_code error;
    if (!fs::exists(file, error)) continue;  // as kubectl: missing files are skipped
    ARBITER_RETURN_IF_ERROR(MergeFile(file, merged));
  }
  if (merged.files.empty()) {
    return NotFoundError("kubeconfig: no file found in \"" + options.paths + "\"");
  }
  std::string where = " (in " + options.paths + ")";

  RestConfig config;
  config.context_name = options.context.empty() ? merged.current_context : options.context;
  if (config.context_name.empty()) {
    return NotFoundError("kubeconfig: no current-context set and no --context given" + where);
  }
  auto context = merged.contexts.find(config.context_name);
  if (context == merged.contexts.end()) {
    return NotFoundError("kubeconfig: context \"" + config.context_name + "\" not found" + where);
  }
  Fields ctx(context->second.body, context->second.file,
             "contexts[" + config.context_name + "].context");
  std::string cluster_name;
  std::string user_name;
  ARBITER_RETURN_IF_ERROR(ctx.String("cluster", cluster_name));
  ARBITER_RETURN_IF_ERROR(ctx.String("user", user_name));
  ARBITER_RETURN_IF_ERROR(ctx.String("namespace", config.namespace_name));
  if (cluster_name.empty()) return ctx.Error("cluster", "missing");

  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    return NotFoundError("kubeconfig: cluster \"" + cluster_name + "\" of context \"" +
                         config.context_name + "\" not found" + where);
  }
  ARBITER_RETURN_IF_ERROR(ReadCluster(cluster_name, cluster->second, config));

  if (!user_name.empty()) {
    auto user = merged.users.find(user_name);
    if (user == merged.users.end()) {
      return NotFoundError("kubeconfig: user \"" + user_name + "\" of context \"" +
                           config.context_name + "\" not found" + where);
    }
    ARBITER_RETURN_IF_ERROR(ReadUser(user_name, user->second, config));
  }
  return config;
}

std::string KubeconfigPathsFromEnvironment() {
  const char* paths = std::getenv("KUBECONFIG");
  if (paths != nullptr && *paths != '\0') return paths;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return (fs::path(home) / ".kube" / "config").string();
}

InClusterEnvironment InClusterEnvironmentFromProcess() {
  InClusterEnvironment env;
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST")) env.service_host = host;
  if (const char* port = std::getenv("KUBERNETES_SERVICE_PORT")) env.service_port = port;
  if (const char* dir = std::getenv("ARBITER_SERVICE_ACCOUNT_DIR");
      dir != nullptr && *dir != '\0') {
    env.secrets_dir = dir;
  }
  return env;
}

StatusOr<RestConfig> LoadInClusterConfig(const InClusterEnvironment& env) {
  if (env.service_host.empty() || env.service_port.empty()) {
    return FailedPreconditionError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "set");
  }
  RestConfig config;
  bool ipv6 = env.service_host.find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + env.service_host + "]" : env.service_host) + ":" +
                  env.service_port;
  fs::path dir(env.secrets_dir);
  config.bearer_token_file = (dir / "token").string();
  StatusOr<std::string> token = ReadWholeFile(config.bearer_token_file);
  if (!token.ok()) {
    return NotFoundError("in-cluster config: service account token: " + token.status().message());
  }
  config.bearer_token = *std::move(token);
  std::error_code error;
  if (fs::exists(dir / "ca.crt", error)) config.ca_file = (dir / "ca.crt").string();
  StatusOr<std::string> ns = ReadWholeFile(dir / "namespace");
  if (ns.ok()) {
    std::string_view text = *ns;
    constexpr std::string_view kSpace = " \t\r\n";
    std::size_t first = text.find_first_not_of(kSpace);
    if (first != std::string_view::npos) {
      config.namespace_name = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
    }
  }
  return config;
}

std::string RestConfig::Redacted() const {
  std::vector<std::string> parts;
  parts.push_back("server=" + server);
  if (!context_name.empty()) parts.push_back("context=" + context_name);
  if (!namespace_name.empty()) parts.push_back("namespace=" + namespace_name);
  if (!tls_server_name.empty()) parts.push_back("tls-server-name=" + tls_server_name);
  if (insecure_skip_tls_verify) parts.emplace_back("insecure-skip-tls-verify=true");
  if (std::string ca = Describe("ca", ca_pem, ca_file); !ca.empty()) parts.push_back(ca);
  if (std::string cert = Describe("client-cert", client_cert_pem, client_cert_file);
      !cert.empty()) {
    parts.push_back(cert);
  }
  if (!client_key_file.empty()) parts.push_back("client-key=" + client_key_file);
  if (!client_key_pem.empty()) parts.emplace_back("client-key=<redacted>");
  if (!bearer_token.empty()) parts.emplace_back("token=<redacted>");
  if (!bearer_token_file.empty()) parts.push_back("token-file=" + bearer_token_file);
  if (exec.has_value()) {
    std::string e = "exec={command=" + exec->command + " api-version=" + exec->api_version;
    if (!exec->args.empty()) e += " args=<" + std::to_string(exec->args.size()) + " redacted>";
    for (const auto& [name, value] : exec->env) e += " env:" + name + "=<redacted>";
    e += "}";
    parts.push_back(std::move(e));
  }
  std::string out = "RestConfig{";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out + "}";
}

std::ostream& operator<<(std::ostream& os, const RestConfig& config) {
  return os << config.Redacted();
}

}  // namespace arbiter::k8s
