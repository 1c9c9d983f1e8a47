#include "arbiter/runtime/setup.h"

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
