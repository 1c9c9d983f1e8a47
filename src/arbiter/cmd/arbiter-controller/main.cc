// arbiter-controller: the controllers (queue quotas, BatchJob, PodGroup upkeep) and the admission
// webhook (runtime/controller_runtime.h).
// Parses flags and wires the pieces.
//
// Exit codes: 0 after SIGTERM/SIGINT (clean stop), 1 when it cannot run or loses its leader
// lease, 2 for bad flags.
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "arbiter/base/clock.h"
#include "arbiter/base/log.h"
#include "arbiter/base/status.h"
#include "arbiter/base/version.h"
#include "arbiter/cmd/connection_flags.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/kubeconfig.h"
#include "arbiter/runtime/controller_runtime.h"
#include "arbiter/runtime/flag_values.h"
#include "arbiter/runtime/process.h"
#include "arbiter/runtime/setup.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Flags {
  std::string kubeconfig;
  arbiter::cmd::ConnectionPolicyFlags connection_policy;
  std::string context;
  std::string scheduler_name = "arbiter";
  std::string namespaces;
  bool leader_elect = false;
  std::string leader_elect_namespace = "kube-system";
  std::string period = "1s";
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  int verbosity = 0;
  bool version = false;
  std::string metrics_bind_address;
  std::string webhook_bind_address;
  int webhook_port = 9443;
  std::string webhook_url;
  std::string webhook_service;
  std::string webhook_cert_dir;
  std::string webhook_cert_secret;
};

int Usage(const std::string& message) {
  std::cerr << "arbiter-controller: " << message << "\n";
  return kExitUsage;
}

int Fail(const arbiter::Status& status) {
  std::cerr << "arbiter-controller: " << status.message() << "\n";
  return kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{
      "Arbiter's controllers: creates the PodGroups that pods of --scheduler-name name (by "
      "arbiter.dev/pod-group, scheduling.k8s.io/group-name or scheduling.x-k8s.io/pod-group) "
      "when nobody made them",
      "arbiter-controller"};
  app.add_option("--kubeconfig", flags.kubeconfig,
                 "kubeconfig file(s), colon-separated; default: in-cluster configuration, else "
                 "$KUBECONFIG or ~/.kube/config");
  app.add_option("--context", flags.context, "kubeconfig context to use");
  arbiter::cmd::AddConnectionPolicyFlags(app, flags.connection_policy);
  app.add_option("--scheduler-name", flags.scheduler_name,
                 "keep the groups of the pods whose spec.schedulerName is this")
      ->capture_default_str();
  app.add_option("--namespaces", flags.namespaces,
                 "watch these namespaces only (comma-separated); default: all");
  app.add_flag("--leader-elect", flags.leader_elect,
               "write only while holding the Lease arbiter-controller");
  app.add_option("--leader-elect-namespace", flags.leader_elect_namespace,
                 "namespace of the leader election Lease")
      ->capture_default_str();
  app.add_option("--period", flags.period, "time between reconciles, e.g. 1s or 500ms")
      ->capture_default_str();
  app.add_option("--kube-api-qps", flags.kube_api_qps, "API requests per second (client-side)")
      ->capture_default_str();
  app.add_option("--kube-api-burst", flags.kube_api_burst, "API request burst (client-side)")
      ->capture_default_str();
  app.add_option("-v,--v", flags.verbosity, "log verbosity")->capture_default_str();
  app.add_flag("--version", flags.version, "print the version and exit");
  app.add_option("--metrics-bind-address", flags.metrics_bind_address,
                 "serve /metrics, /healthz and /readyz over HTTP on host:port (e.g. "
                 "127.0.0.1:8080, or :8080 for every address); default: not served");
  app.add_option("--webhook-bind-address", flags.webhook_bind_address,
                 "serve the admission webhook on this address (0.0.0.0 in a cluster); default: "
                 "no webhook");
  app.add_option("--webhook-port", flags.webhook_port, "the webhook's port; 0: any free port")
      ->capture_default_str();
  app.add_option(
      "--webhook-url", flags.webhook_url,
      "where kube-apiserver calls the webhook (written to the "
      "ValidatingWebhookConfiguration); default: https://<bind address>:<port>/validate");
  app.add_option("--webhook-service", flags.webhook_service,
                 "or the Service in front of it, as namespace/name[:port]");
  app.add_option("--webhook-cert-dir", flags.webhook_cert_dir,
                 "tls.crt, tls.key and ca.crt of the webhook (a mounted Secret); default: a CA and "
                 "certificate made at start-up");
  app.add_option("--webhook-cert-secret", flags.webhook_cert_secret,
                 "namespace/name of a Secret to keep the webhook's certificate in: the first "
                 "replica makes it, every replica serves it (two replicas behind one Service)");

  std::vector<std::string> args = arbiter::runtime::NormalizeArgs(argc, argv);
  std::vector<char*> arg_pointers;
  arg_pointers.reserve(args.size());
  for (std::string& arg : args) arg_pointers.push_back(arg.data());
  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Usage(std::string(e.what()) + " (see --help)");
  }

  if (flags.version) {
    std::cout << "arbiter-controller " << arbiter::Version() << " (" << arbiter::Revision()
              << ")\n";
    return 0;
  }
  if (flags.verbosity < 0) return Usage("-v: must not be negative");
  if (flags.scheduler_name.empty()) return Usage("--scheduler-name: must not be empty");
  if (!(flags.kube_api_qps > 0)) return Usage("--kube-api-qps: must be positive");
  if (flags.kube_api_burst < 1) return Usage("--kube-api-burst: must be at least 1");
  arbiter::StatusOr<std::chrono::nanoseconds> period =
      arbiter::runtime::ParseDuration(flags.period);
  if (!period.ok()) return Usage("--period: " + period.status().message());
  if (period->count() <= 0) return Usage("--period: must be positive");
  arbiter::StatusOr<std::set<std::string>> namespaces =
      arbiter::runtime::ParseNamespaceList(flags.namespaces);
  if (!namespaces.ok()) return Usage("--namespaces: " + namespaces.status().message());
  if (flags.leader_elect && !arbiter::runtime::IsDns1123Label(flags.leader_elect_namespace)) {
    return Usage("--leader-elect-namespace: \"" + flags.leader_elect_namespace +
                 "\" is not a valid namespace name");
  }
  if (flags.webhook_port < 0 || flags.webhook_port > 65535) {
    return Usage("--webhook-port: must be 0 to 65535");
  }
  if (!flags.webhook_url.empty() && !flags.webhook_url.starts_with("https://")) {
    return Usage(
        "--webhook-url: must start with https:// (kube-apiserver calls webhooks over TLS)");
  }
  arbiter::runtime::WebhookOptions webhook;
  webhook.bind_address = flags.webhook_bind_address;
  webhook.port = flags.webhook_port;
  webhook.endpoint.url = flags.webhook_url;
  webhook.cert_dir = flags.webhook_cert_dir;
  if (!flags.webhook_cert_secret.empty()) {
    const std::size_t slash = flags.webhook_cert_secret.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == flags.webhook_cert_secret.size() ||
        !arbiter::runtime::IsDns1123Label(flags.webhook_cert_secret.substr(0, slash))) {
      return Usage("--webhook-cert-secret: want namespace/name, got \"" +
                   flags.webhook_cert_secret + "\"");
    }
    if (!flags.webhook_cert_dir.empty()) {
      return Usage("--webhook-cert-secret and --webhook-cert-dir: give one of them");
    }
    webhook.cert_secret_namespace = flags.webhook_cert_secret.substr(0, slash);
    webhook.cert_secret_name = flags.webhook_cert_secret.substr(slash + 1);
  }
  if (!flags.webhook_service.empty()) {
    std::string service = flags.webhook_service;
    const std::size_t slash = service.find('/');
    const std::size_t colon = service.find(':');
    if (slash == std::string::npos || slash == 0 || slash + 1 >= std::min(colon, service.size())) {
      return Usage("--webhook-service: want namespace/name[:port], got \"" + service + "\"");
    }
    webhook.endpoint.service_namespace = service.substr(0, slash);
    webhook.endpoint.service_name = service.substr(slash + 1, colon - slash - 1);
    if (colon != std::string::npos) {
      try {
        webhook.endpoint.service_port = std::stoi(service.substr(colon + 1));
      } catch (const std::exception&) {
        return Usage("--webhook-service: the port of \"" + service + "\" is not a number");
      }
    }
  }
  if (webhook.bind_address.empty() &&
      (!flags.webhook_url.empty() || !flags.webhook_service.empty())) {
    return Usage("--webhook-url and --webhook-service need --webhook-bind-address");
  }
  arbiter::StatusOr<std::optional<std::pair<std::string, int>>> endpoint =
      arbiter::runtime::ParseMetricsBindAddress(flags.metrics_bind_address);
  if (!endpoint.ok()) return Usage(endpoint.status().message());
  arbiter::SetLogVerbosity(flags.verbosity);

  const arbiter::Clock& clock = arbiter::RealClock::Instance();
  const arbiter::runtime::DaemonMetrics metrics =
      arbiter::runtime::MakeDaemonMetrics("arbiter-controller");
  arbiter::k8s::RestConfig rest;
  arbiter::runtime::ApiConnection connection{
      .kubeconfig = flags.kubeconfig,
      .context = flags.context,
      .qps = flags.kube_api_qps,
      .burst = flags.kube_api_burst,
      .user_agent = "arbiter-controller/" + std::string(arbiter::Version()),
      .on_request = metrics.api->Hook()};
  if (arbiter::Status applied =
          arbiter::cmd::ApplyConnectionPolicyFlags(flags.connection_policy, connection);
      !applied.ok()) {
    return Usage(applied.message());
  }
  arbiter::StatusOr<std::unique_ptr<arbiter::k8s::HttpTransport>> transport =
      arbiter::runtime::ConnectToApiServer(connection, clock, &rest);
  if (!transport.ok()) return Usage(transport.status().message());
  ARBITER_LOG(kInfo) << "api server: " << rest;

  arbiter::runtime::ControllerOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.namespaces = *namespaces;
  options.period = *period;
  options.webhook = webhook;
  options.endpoint = *endpoint;
  options.metrics = metrics.metrics;
  if (flags.leader_elect) {
    arbiter::k8s::LeaderElectionConfig election;
    election.namespace_name = flags.leader_elect_namespace;
    election.lease_name = "arbiter-controller";
    election.identity = arbiter::runtime::LeaderIdentity("arbiter-controller");
    options.leader_election = election;
  }

  arbiter::runtime::LimitMallocArenas(2);  // see process.h
  // SIGTERM and SIGINT are taken by this thread alone (RunUntilStopped): blocked before any
  // thread starts, so every thread inherits the mask.
  const sigset_t stop_signals = arbiter::runtime::BlockStopSignals();

  arbiter::runtime::ControllerRuntime runtime(**transport, std::move(options), clock);
  if (arbiter::Status started = runtime.Start(); !started.ok()) return Fail(started);
  if (arbiter::Status stopped = arbiter::runtime::RunUntilStopped(runtime, stop_signals);
      !stopped.ok()) {
    return Fail(stopped);
  }
  return 0;
}
