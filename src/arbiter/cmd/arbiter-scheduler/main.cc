// arbiter-scheduler: the scheduler for pods whose spec.schedulerName is `arbiter` (or
// --scheduler-name). Parses flags and wires the pieces; the process itself is
// runtime::SchedulerRuntime (src/arbiter/runtime/scheduler_runtime.h).
//
// Exit codes: 0 after SIGTERM/SIGINT (clean stop), 1 when the scheduler cannot run or loses its
// leader lease, 2 for bad flags or configuration.
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
#include "arbiter/framework/config.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/kubeconfig.h"
#include "arbiter/runtime/flag_values.h"
#include "arbiter/runtime/process.h"
#include "arbiter/runtime/scheduler_runtime.h"
#include "arbiter/runtime/setup.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Flags {
  std::string kubeconfig;
  arbiter::cmd::ConnectionPolicyFlags connection_policy;
  std::string context;
  std::string config;
  std::string scheduler_name = "arbiter";
  std::string node_selector;
  std::string namespaces;
  bool leader_elect = false;
  std::string leader_elect_namespace = "kube-system";
  std::string period = "1s";
  std::string min_session_gap = "50ms";
  std::string podgroup_status_hold = "0s";
  std::string forecast_interval = "30s";
  std::string forecast_horizon = "168h";
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  int bind_workers = 4;
  int bind_batch = 32;
  std::string metrics_bind_address;
  int verbosity = 0;
  bool version = false;
};

int Usage(const std::string& message) {
  std::cerr << "arbiter-scheduler: " << message << "\n";
  return kExitUsage;
}

int Fail(const arbiter::Status& status) {
  std::cerr << "arbiter-scheduler: " << status.message() << "\n";
  return kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{
      "Arbiter: a gang batch scheduler for Kubernetes (schedules pods whose "
      "spec.schedulerName is --scheduler-name)",
      "arbiter-scheduler"};
  app.add_option("--kubeconfig", flags.kubeconfig,
                 "kubeconfig file(s), colon-separated; default: in-cluster configuration, else "
                 "$KUBECONFIG or ~/.kube/config");
  app.add_option("--context", flags.context, "kubeconfig context to use");
  arbiter::cmd::AddConnectionPolicyFlags(app, flags.connection_policy);
  app.add_option("--config", flags.config,
                 "scheduler configuration (YAML: actions and plugin tiers); default: built in");
  app.add_option("--scheduler-name", flags.scheduler_name,
                 "schedule the pods whose spec.schedulerName is this")
      ->capture_default_str();
  app.add_option("--node-selector", flags.node_selector,
                 "only nodes with these labels are in scope, e.g. zone=a,tier=batch");
  app.add_option("--namespaces", flags.namespaces,
                 "schedule pods of these namespaces only (comma-separated; such an instance "
                 "writes no Queue status); default: all");
  app.add_flag("--leader-elect", flags.leader_elect,
               "run sessions only while holding the Lease arbiter-scheduler");
  app.add_option("--leader-elect-namespace", flags.leader_elect_namespace,
                 "namespace of the leader election Lease")
      ->capture_default_str();
  app.add_option("--forecast-interval", flags.forecast_interval,
                 "time between start-time forecasts of waiting PodGroups (their "
                 "status.explanation.estimate); 0 turns them off")
      ->capture_default_str();
  app.add_option("--forecast-horizon", flags.forecast_horizon,
                 "how far ahead a forecast looks; a job that does not start by then has no "
                 "estimated start")
      ->capture_default_str();
  app.add_option("--period", flags.period, "time between sessions, e.g. 1s or 500ms")
      ->capture_default_str();
  app.add_option("--min-session-gap", flags.min_session_gap,
                 "under a stream of new pods, the least time between the starts of two "
                 "sessions (each copies the whole cluster); 0: a session 30ms after each arrival")
      ->capture_default_str();
  app.add_option("--podgroup-status-hold", flags.podgroup_status_hold,
                 "how long an arbiter.dev PodGroup's new status waits before it is written, so "
                 "that the statuses it passes through meanwhile make one write (an admission "
                 "is written at once); 0: every status written at once; below 10s")
      ->capture_default_str();
  app.add_option("--kube-api-qps", flags.kube_api_qps, "API requests per second (client-side)")
      ->capture_default_str();
  app.add_option("--kube-api-burst", flags.kube_api_burst, "API request burst (client-side)")
      ->capture_default_str();
  app.add_option("--bind-workers", flags.bind_workers,
                 "threads sending binds, each over its own HTTP/2 connection")
      ->capture_default_str();
  app.add_option("--bind-batch", flags.bind_batch,
                 "binds one worker sends at once, as streams of its connection")
      ->capture_default_str();
  app.add_option("--metrics-bind-address", flags.metrics_bind_address,
                 "serve /metrics, /healthz and /readyz over HTTP on host:port (e.g. "
                 "127.0.0.1:8080, or :8080 for every address); default: not served");
  app.add_option("-v,--v", flags.verbosity, "log verbosity (2: a line per session)")
      ->capture_default_str();
  app.add_flag("--version", flags.version, "print the version and exit");

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
    std::cout << "arbiter-scheduler " << arbiter::Version() << " (" << arbiter::Revision() << ")\n";
    return 0;
  }

  // Flag values.
  if (flags.verbosity < 0) return Usage("-v: must not be negative");
  if (flags.scheduler_name.empty()) return Usage("--scheduler-name: must not be empty");
  if (!(flags.kube_api_qps > 0)) return Usage("--kube-api-qps: must be positive");
  if (flags.kube_api_burst < 1) return Usage("--kube-api-burst: must be at least 1");
  if (flags.bind_workers < 1 || flags.bind_workers > 256) {
    return Usage("--bind-workers: must be between 1 and 256");
  }
  if (flags.bind_batch < 1 || flags.bind_batch > 1000) {
    return Usage("--bind-batch: must be between 1 and 1000");
  }
  arbiter::StatusOr<std::chrono::nanoseconds> period =
      arbiter::runtime::ParseDuration(flags.period);
  if (!period.ok()) return Usage("--period: " + period.status().message());
  if (period->count() <= 0) return Usage("--period: must be positive");
  arbiter::StatusOr<std::chrono::nanoseconds> min_session_gap =
      arbiter::runtime::ParseDuration(flags.min_session_gap);
  if (!min_session_gap.ok()) {
    return Usage("--min-session-gap: " + min_session_gap.status().message());
  }
  if (min_session_gap->count() < 0) return Usage("--min-session-gap: must not be negative");
  arbiter::StatusOr<std::chrono::nanoseconds> podgroup_status_hold =
      arbiter::runtime::ParseDuration(flags.podgroup_status_hold);
  if (!podgroup_status_hold.ok()) {
    return Usage("--podgroup-status-hold: " + podgroup_status_hold.status().message());
  }
  // A written status is assumed by the cache, and not written again, for 30 s: a status held
  // about as long would be drafted again before it is sent.
  if (podgroup_status_hold->count() < 0 || *podgroup_status_hold >= std::chrono::seconds(10)) {
    return Usage("--podgroup-status-hold: must be at least 0 and below 10s");
  }
  arbiter::StatusOr<std::chrono::nanoseconds> forecast_interval =
      arbiter::runtime::ParseDuration(flags.forecast_interval);
  if (!forecast_interval.ok()) {
    return Usage("--forecast-interval: " + forecast_interval.status().message());
  }
  arbiter::StatusOr<std::chrono::nanoseconds> forecast_horizon =
      arbiter::runtime::ParseDuration(flags.forecast_horizon);
  if (!forecast_horizon.ok()) {
    return Usage("--forecast-horizon: " + forecast_horizon.status().message());
  }
  if (forecast_horizon->count() <= 0) return Usage("--forecast-horizon: must be positive");
  arbiter::StatusOr<arbiter::Labels> node_selector =
      arbiter::runtime::ParseNodeSelector(flags.node_selector);
  if (!node_selector.ok()) return Usage("--node-selector: " + node_selector.status().message());
  arbiter::StatusOr<std::set<std::string>> namespaces =
      arbiter::runtime::ParseNamespaceList(flags.namespaces);
  if (!namespaces.ok()) return Usage("--namespaces: " + namespaces.status().message());
  if (flags.leader_elect && !arbiter::runtime::IsDns1123Label(flags.leader_elect_namespace)) {
    return Usage("--leader-elect-namespace: \"" + flags.leader_elect_namespace +
                 "\" is not a valid namespace name");
  }
  arbiter::StatusOr<std::optional<std::pair<std::string, int>>> endpoint =
      arbiter::runtime::ParseMetricsBindAddress(flags.metrics_bind_address);
  if (!endpoint.ok()) return Usage(endpoint.status().message());
  arbiter::SetLogVerbosity(flags.verbosity);

  // Configuration: the scheduler, and where the API server is.
  arbiter::StatusOr<std::unique_ptr<arbiter::Scheduler>> scheduler =
      arbiter::runtime::BuildScheduler(flags.config);
  if (!scheduler.ok()) return Usage("--config: " + scheduler.status().message());
  // The forecast runs the same configuration (BuildScheduler has checked it).
  arbiter::StatusOr<arbiter::SchedulerConfig> config =
      flags.config.empty()
          ? arbiter::StatusOr<arbiter::SchedulerConfig>(arbiter::DefaultSchedulerConfig())
          : arbiter::LoadSchedulerConfigFile(flags.config);
  if (!config.ok()) return Usage("--config: " + config.status().message());
  const arbiter::Clock& clock = arbiter::RealClock::Instance();
  const arbiter::runtime::DaemonMetrics metrics =
      arbiter::runtime::MakeDaemonMetrics("arbiter-scheduler");
  arbiter::k8s::RestConfig rest;
  arbiter::runtime::ApiConnection connection{
      .kubeconfig = flags.kubeconfig,
      .context = flags.context,
      .qps = flags.kube_api_qps,
      .burst = flags.kube_api_burst,
      .user_agent = "arbiter-scheduler/" + std::string(arbiter::Version()),
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

  arbiter::runtime::RuntimeOptions options;
  options.binder.workers = flags.bind_workers;
  options.binder.batch = flags.bind_batch;
  options.cache.scheduler_name = flags.scheduler_name;
  options.cache.namespaces = *namespaces;
  options.cache.node_selector = *node_selector;
  options.period = *period;
  options.min_session_gap = *min_session_gap;
  options.status_writer.group_hold = *podgroup_status_hold;
  options.forecaster.interval = *forecast_interval;
  options.forecaster.forecast.period =
      std::chrono::duration_cast<std::chrono::milliseconds>(*period);
  options.forecaster.forecast.horizon =
      std::chrono::duration_cast<std::chrono::milliseconds>(*forecast_horizon);
  options.forecaster.forecast.config = *std::move(config);
  options.endpoint = *endpoint;
  options.metrics = metrics.metrics;
  options.events.reporting_instance = arbiter::runtime::Hostname("arbiter-scheduler");
  if (flags.leader_elect) {
    arbiter::k8s::LeaderElectionConfig election;
    election.namespace_name = flags.leader_elect_namespace;
    election.lease_name = "arbiter-scheduler";
    election.identity = arbiter::runtime::LeaderIdentity("arbiter-scheduler");
    // Events name the replica that wrote them as the Lease does, so that who wrote while whom
    // held the Lease can be checked from outside (two replicas may share a host name).
    options.events.reporting_instance = election.identity;
    options.leader_election = election;
  }

  arbiter::runtime::LimitMallocArenas(2);  // see process.h
  // SIGTERM and SIGINT are taken by this thread alone (RunUntilStopped): blocked before any
  // thread starts, so every thread inherits the mask.
  const sigset_t stop_signals = arbiter::runtime::BlockStopSignals();

  arbiter::runtime::SchedulerRuntime runtime(**transport, std::move(*scheduler), std::move(options),
                                             clock);
  if (arbiter::Status started = runtime.Start(); !started.ok()) return Fail(started);
  if (arbiter::Status stopped = arbiter::runtime::RunUntilStopped(runtime, stop_signals);
      !stopped.ok()) {
    return Fail(stopped);
  }
  return 0;
}
