// The start-up decisions of the daemons that are more than reading a flag, kept out of
// main() so that they can be tested: which API server configuration to use, and the Scheduler
// built from the configuration file (or the default one) with the built-in plugins and actions.
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/kubeconfig.h"
#include "arbiter/metrics/metrics.h"

namespace arbiter::runtime {

// Where the API server configuration comes from, in order:
//   1. `kubeconfig_flag` (--kubeconfig), when given: those files, with `context` if not empty;
//   2. the in-cluster service account, when `in_cluster` names a service host and no context
//      was asked for (a context only exists in kubeconfig files);
//   3. `default_paths` ($KUBECONFIG, else ~/.kube/config: k8s::KubeconfigPathsFromEnvironment()).
// Errors say which source was tried and why it failed.
StatusOr<k8s::RestConfig> ResolveRestConfig(const std::string& kubeconfig_flag,
                                            const std::string& context,
                                            const k8s::InClusterEnvironment& in_cluster,
                                            const std::string& default_paths);

// Which credential (exec) plugins a kubeconfig may run, as kubectl's kuberc says it
// (credentialPluginPolicy): every one (the default, as client-go), none, or those listed.
enum class CredentialPluginPolicy : std::uint8_t { kAllowAll, kDenyAll, kAllowlist };
StatusOr<CredentialPluginPolicy> ParseCredentialPluginPolicy(std::string_view value);

// How a daemon reaches the API server: its --kubeconfig, --context, --kube-api-qps and
// --kube-api-burst, and the user agent it sends; and what it accepts of a kubeconfig that someone
// else may have written: --allow-insecure-tls (a cluster with insecure-skip-tls-verify is refused
// without it) and --credential-plugin-policy / --credential-plugin-allowlist.
struct ApiConnection {
  std::string kubeconfig;
  std::string context;
  double qps = 50;
  int burst = 100;
  std::string user_agent;
  std::function<void(const k8s::RequestRecord&)> on_request;  // TransportOptions::on_request
  bool allow_insecure_tls = false;
  CredentialPluginPolicy plugin_policy = CredentialPluginPolicy::kAllowAll;
  // With kAllowlist: the commands allowed, as absolute paths or names looked up on PATH; a plugin
  // is allowed when its command is the same file as one of them.
  std::vector<std::string> plugin_allowlist{};
};

// Whether the configuration may be used as `connection` says: FAILED_PRECONDITION for
// insecure-skip-tls-verify without allow_insecure_tls, PERMISSION_DENIED for a credential plugin
// the policy does not allow (the message names the command and the flag). `path` is how a bare
// command is looked up ($PATH).
Status CheckConnectionPolicy(const k8s::RestConfig& config, const ApiConnection& connection,
                             std::string_view path);

// The transport of a daemon (the configuration as ResolveRestConfig finds it, from this process's
// environment), and the configuration for its logs. Errors say what was wrong.
StatusOr<std::unique_ptr<k8s::HttpTransport>> ConnectToApiServer(const ApiConnection& connection,
                                                                 const Clock& clock,
                                                                 k8s::RestConfig* config);

// What a daemon's /metrics start with: its build info, and the API requests' counters (their
// Hook() is ApiConnection::on_request).
struct DaemonMetrics {
  std::shared_ptr<metrics::Metrics> metrics;
  std::shared_ptr<metrics::ApiMetrics> api;
};
DaemonMetrics MakeDaemonMetrics(std::string_view binary);

// --metrics-bind-address as the runtimes take it: none when empty; errors name the flag.
StatusOr<std::optional<std::pair<std::string, int>>> ParseMetricsBindAddress(
    const std::string& value);

// The scheduler of the YAML file at `config_path`, or of DefaultSchedulerConfig() when the path is
// empty, with every built-in plugin and action available. INVALID_ARGUMENT (naming the file and
// the key) for a configuration that does not parse or names an unknown plugin or argument.
StatusOr<std::unique_ptr<Scheduler>> BuildScheduler(const std::string& config_path);

}  // namespace arbiter::runtime
