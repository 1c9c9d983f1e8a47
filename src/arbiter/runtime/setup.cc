#include "arbiter/runtime/setup.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/framework/config.h"
#include "arbiter/framework/registry.h"
#include "arbiter/k8s/exec_credential.h"
#include "arbiter/metrics/endpoint_server.h"
#include "arbiter/plugins/builtin.h"

namespace arbiter::runtime {

StatusOr<k8s::RestConfig> ResolveRestConfig(const std::string& kubeconfig_flag,
                                            const std::string& context,
                                            const k8s::InClusterEnvironment& in_cluster,
                                            const std::string& default_paths) {
  if (!kubeconfig_flag.empty()) {
    StatusOr<k8s::RestConfig> config =
        k8s::LoadKubeconfig(k8s::KubeconfigOptions{.paths = kubeconfig_flag, .context = context});
    if (!config.ok()) return config.status().WithContext("--kubeconfig " + kubeconfig_flag);
    return config;
  }
  if (!in_cluster.service_host.empty() && context.empty()) {
    StatusOr<k8s::RestConfig> config = k8s::LoadInClusterConfig(in_cluster);
    if (!config.ok()) return config.status().WithContext("in-cluster configuration");
    return config;
  }
  if (default_paths.empty()) {
    return NotFoundError(
        "no API server configuration: give --kubeconfig, set KUBECONFIG, or run in a cluster");
  }
  StatusOr<k8s::RestConfig> config =
      k8s::LoadKubeconfig(k8s::KubeconfigOptions{.paths = default_paths, .context = context});
  if (!config.ok()) return config.status().WithContext("kubeconfig " + default_paths);
  return config;
}

StatusOr<CredentialPluginPolicy> ParseCredentialPluginPolicy(std::string_view value) {
  if (value == "AllowAll") return CredentialPluginPolicy::kAllowAll;
  if (value == "DenyAll") return CredentialPluginPolicy::kDenyAll;
  if (value == "Allowlist") return CredentialPluginPolicy::kAllowlist;
  return InvalidArgumentError("--credential-plugin-policy: \"" + std::string(value) +
                              "\" is not one of AllowAll, DenyAll, Allowlist");
}

namespace {

// The file a command names: itself when it has a '/', else the first executable of that name on
// `path`; empty when there is none.
std::filesystem::path Resolve(const std::string& command, std::string_view path) {
  namespace fs = std::filesystem;
  if (command.find('/') != std::string::npos) return {command};
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    fs::path candidate = fs::path(std::string(path.substr(start, end - start))) / fs::path(command);
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

bool SameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  return !a.empty() && !b.empty() && std::filesystem::equivalent(a, b, error) && !error;
}

}  // namespace

Status CheckConnectionPolicy(const k8s::RestConfig& config, const ApiConnection& connection,
                             std::string_view path) {
  if (config.insecure_skip_tls_verify && !connection.allow_insecure_tls) {
    return FailedPreconditionError(
        "API server " + config.server +
        ": the kubeconfig sets insecure-skip-tls-verify, so the server's certificate would not be "
        "checked and anyone on the path could read the credentials; give it the cluster's CA "
        "(certificate-authority), or pass --allow-insecure-tls to accept that");
  }
  if (!config.exec.has_value()) return Status::Ok();
  const std::string& command = config.exec->command;
  switch (connection.plugin_policy) {
    case CredentialPluginPolicy::kAllowAll:
      return Status::Ok();
    case CredentialPluginPolicy::kDenyAll:
      return PermissionDeniedError("the kubeconfig's user runs credential plugin \"" + command +
                                   "\", and --credential-plugin-policy=DenyAll allows none");
    case CredentialPluginPolicy::kAllowlist:
      break;
  }
  const std::filesystem::path resolved = Resolve(command, path);
  for (const std::string& allowed : connection.plugin_allowlist) {
    if (SameFile(resolved, Resolve(allowed, path))) return Status::Ok();
  }
  return PermissionDeniedError(
      "the kubeconfig's user runs credential plugin \"" + command + "\"" +
      (resolved.empty() ? std::string(" (not found on PATH)") : " (" + resolved.string() + ")") +
      ", which --credential-plugin-allowlist does not name");
}

StatusOr<std::unique_ptr<Scheduler>> BuildScheduler(const std::string& config_path) {
  SchedulerConfig config = DefaultSchedulerConfig();
  if (!config_path.empty()) {
    ARBITER_ASSIGN_OR_RETURN(config, LoadSchedulerConfigFile(config_path));
  }
  Registry registry;
  RegisterBuiltinPlugins(registry);
  RegisterBuiltinActions(registry);
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(config, registry);
  if (!scheduler.ok()) {
    return scheduler.status().WithContext(config_path.empty() ? "default scheduler config"
                                                              : config_path);
  }
  return scheduler;
}

StatusOr<std::unique_ptr<k8s::HttpTransport>> ConnectToApiServer(const ApiConnection& connection,
                                                                 const Clock& clock,
                                                                 k8s::RestConfig* config) {
  ARBITER_ASSIGN_OR_RETURN(k8s::RestConfig rest,
                           ResolveRestConfig(connection.kubeconfig, connection.context,
                                             k8s::InClusterEnvironmentFromProcess(),
                                             k8s::KubeconfigPathsFromEnvironment()));
  const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): read at start-up
  ARBITER_RETURN_IF_ERROR(
      CheckConnectionPolicy(rest, connection, path != nullptr ? path : "/usr/bin:/bin"));
  ARBITER_ASSIGN_OR_RETURN(k8s::TransportOptions options, k8s::TransportOptionsFrom(rest, clock));
  options.qps = connection.qps;
  options.burst = connection.burst;
  options.user_agent = connection.user_agent;
  options.on_request = connection.on_request;
  if (config != nullptr) *config = rest;
  return k8s::HttpTransport::Create(options);
}

DaemonMetrics MakeDaemonMetrics(std::string_view binary) {
  DaemonMetrics out;
  out.metrics = std::make_shared<metrics::Metrics>();
  metrics::AddBuildInfo(*out.metrics, binary);
  out.api = std::make_shared<metrics::ApiMetrics>(*out.metrics);
  return out;
}

StatusOr<std::optional<std::pair<std::string, int>>> ParseMetricsBindAddress(
    const std::string& value) {
  if (value.empty()) return std::optional<std::pair<std::string, int>>();
  ARBITER_ASSIGN_OR_RETURN(auto address,
                           metrics::ParseBindAddress("--metrics-bind-address", value));
  return std::optional<std::pair<std::string, int>>(std::move(address));
}

}  // namespace arbiter::runtime
