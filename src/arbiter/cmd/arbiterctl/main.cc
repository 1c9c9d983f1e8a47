// arbiterctl: Arbiter's command line (docs/arbiterctl.md), also a kubectl plugin when installed
// as kubectl-arbiter. Subcommands:
//   jobs      the PodGroups and BatchJobs, with why they wait
//   queues    the tree of queues and their shares
//   explain   why a job waits, as the scheduler published it
//   whatif    when a job would start if it were submitted now (a forecast; nothing is written)
//   top       a live view of the scheduler's metrics
//   simulate  run the scheduling code on a simulated cluster with a virtual clock (sim/)
//   generate  write a cluster file and a workload file of a standard shape
//
// Exit codes: 0 success, 1 the simulation, a file or the API server could not be completed,
// written or read, 2 bad flags or bad input files (the message names the file, line and field).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "cluster_commands.h"
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "arbiter/base/status.h"
#include "arbiter/framework/config.h"
#include "arbiter/sim/generate.h"
#include "arbiter/sim/report.h"
#include "arbiter/sim/simulator.h"
#include "arbiter/sim/workload.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int Fail(int code, const std::string& message) {
  std::cerr << "arbiterctl: " << message << "\n";
  return code;
}

arbiter::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return arbiter::InternalError("cannot write " + path);
  return arbiter::Status::Ok();
}

struct SimulateFlags {
  std::string cluster;
  std::string workload;
  std::string config;
  std::uint64_t seed = 1;
  double bind_failure_rate = 0;
  std::int64_t bind_latency_ms = 0;
  std::string report;
  std::string html;
  bool no_performance = false;
  bool no_invariants = false;
  std::int64_t eta_every = 0;
  bool eta_foresee_arrivals = false;
};

std::string Ms(double ms) { return fmt::format("{:.1f} s", ms / 1000); }

int RunSimulate(const SimulateFlags& flags) {
  arbiter::StatusOr<arbiter::sim::ClusterSpec> cluster =
      arbiter::sim::LoadClusterFile(flags.cluster);
  if (!cluster.ok()) return Fail(kExitUsage, cluster.status().message());
  arbiter::StatusOr<arbiter::sim::Workload> workload =
      arbiter::sim::LoadWorkloadFile(flags.workload, flags.seed);
  if (!workload.ok()) return Fail(kExitUsage, workload.status().message());
  arbiter::sim::SimulationOptions options;
  options.seed = flags.seed;
  options.check_invariants = !flags.no_invariants;
  options.eta_every = flags.eta_every;
  options.eta_foresee_arrivals = flags.eta_foresee_arrivals;
  options.bind_faults.failure_rate = flags.bind_failure_rate;
  options.bind_faults.latency = std::chrono::milliseconds(flags.bind_latency_ms);
  options.bind_faults.seed = flags.seed;
  if (!flags.config.empty()) {
    arbiter::StatusOr<arbiter::SchedulerConfig> config =
        arbiter::LoadSchedulerConfigFile(flags.config);
    if (!config.ok()) return Fail(kExitUsage, config.status().message());
    options.config = *std::move(config);
  }
  options.progress = [](const arbiter::sim::SimulationProgress& p) {
    std::cerr << fmt::format(
        "  at {} virtual: {} sessions, jobs arrived {} started {} finished {}, last session "
        "{:.1f} ms\n",
        Ms(static_cast<double>(p.t_ms)), p.sessions, p.jobs_arrived, p.jobs_started,
        p.jobs_finished, p.last_session_ms);
  };
  std::cerr << fmt::format("simulating {} jobs ({} pods) on {} nodes...\n", workload->jobs.size(),
                           workload->pod_count(), cluster->nodes.size());
  arbiter::StatusOr<arbiter::sim::SimulationReport> report =
      arbiter::sim::Simulate(*cluster, *workload, options);
  if (!report.ok()) return Fail(kExitUsage, report.status().message());

  const arbiter::sim::SimulationReport& r = *report;
  const arbiter::sim::Performance& p = r.performance;
  std::cout << fmt::format(
      "nodes {}  jobs {}  pods {}  seed {}\n"
      "ended: {} at {} virtual ({} sessions, {} binds)\n"
      "jobs started {}  finished {}  partial gangs {}\n"
      "makespan {}  wait p50 {} p99 {}  gang wait p50 {} p99 {}\n"
      "mean utilisation cpu {:.1f} %  memory {:.1f} %  Jain's index {:.3f}\n"
      "session time p50 {:.2f} ms  p99 {:.2f} ms  max {:.2f} ms (snapshot p50 {:.2f} ms  p99 "
      "{:.2f} ms)\n"
      "decisions {:.0f}/s  wall {:.1f} s  peak memory {:.0f} MiB\n",
      r.nodes, r.jobs, r.pods, r.seed, r.end_reason, Ms(static_cast<double>(r.end_ms)), r.sessions,
      r.binds, r.jobs_started, r.jobs_finished, r.partial_gangs,
      Ms(static_cast<double>(r.makespan_ms)), Ms(r.wait_ms.p50), Ms(r.wait_ms.p99),
      Ms(r.gang_wait_ms.p50), Ms(r.gang_wait_ms.p99), 100 * r.mean_cpu_utilisation,
      100 * r.mean_memory_utilisation, r.jain_index, p.session.p50, p.session.p99, p.session.max,
      p.snapshot.p50, p.snapshot.p99, p.decisions_per_second, p.wall_seconds,
      static_cast<double>(p.peak_rss_bytes) / (1 << 20));
  std::string actions;
  for (const auto& [name, ms] : p.action_ms) {
    actions += fmt::format("{}{} {:.1f} ms", actions.empty() ? "" : ", ", name, ms);
  }
  std::string plugins;
  for (const auto& [name, ms] : p.plugin_ms) {
    plugins += fmt::format("{}{} {:.1f} ms", plugins.empty() ? "" : ", ", name, ms);
  }
  std::cout << "time in actions: " << actions << "\n"
            << "time in plugins' session open and close: " << plugins << "\n";
  if (r.bind_faults.failure_rate > 0 || r.bind_faults.latency.count() > 0) {
    std::cout << fmt::format("bind faults: {} failed binds (rate {}), latency {} ms\n",
                             r.bind_failures, r.bind_faults.failure_rate,
                             r.bind_faults.latency.count());
  }
  if (r.eta.estimated > 0) {
    const arbiter::sim::EtaAccuracy& e = r.eta;
    std::cout << fmt::format(
        "start estimates: {} jobs, {} compared, {} missed; error p50 {} p90 {}; relative to the "
        "wait (jobs waiting >= {}) p50 {:.1f} % p90 {:.1f} % ({} jobs); forecasting took {:.1f} "
        "s\n",
        e.estimated, e.compared, e.missed, Ms(e.error_ms.p50), Ms(e.error_ms.p90),
        Ms(static_cast<double>(arbiter::sim::EtaAccuracy::kMinWaitMs)), 100 * e.relative_error.p50,
        100 * e.relative_error.p90, e.relative_error.count, e.forecast_seconds);
  }
  if (r.invariants_checked) {
    std::cout << fmt::format("invariant violations: {}\n", r.invariant_violations);
    for (const std::string& v : r.violations) std::cout << "  " << v << "\n";
  }
  for (const arbiter::sim::QueueOutcome& q : r.queues) {
    std::cout << fmt::format("queue {} (weight {}): mean allocated {:.2f} cpu, deserved {:.2f}\n",
                             q.name, q.weight, q.mean_allocated_millicores / 1000,
                             q.mean_deserved_millicores / 1000);
  }
  if (!flags.report.empty()) {
    arbiter::Status s = WriteFile(flags.report, arbiter::sim::ReportJson(r, !flags.no_performance));
    if (!s.ok()) return Fail(kExitFailure, s.message());
  }
  if (!flags.html.empty()) {
    arbiter::Status s = WriteFile(flags.html, arbiter::sim::ReportHtml(r));
    if (!s.ok()) return Fail(kExitFailure, s.message());
  }
  return r.partial_gangs == 0 && r.invariant_violations == 0 ? 0 : kExitFailure;
}

struct GenerateFlags {
  arbiter::sim::GenerateOptions options;
  std::string cluster_out;
  std::string workload_out;
};

int RunGenerate(const GenerateFlags& flags) {
  arbiter::StatusOr<arbiter::sim::GeneratedFiles> files = arbiter::sim::Generate(flags.options);
  if (!files.ok()) return Fail(kExitUsage, files.status().message());
  for (const auto& [path, text] : {std::pair{flags.cluster_out, files->cluster_yaml},
                                   std::pair{flags.workload_out, files->workload_yaml}}) {
    arbiter::Status s = WriteFile(path, text);
    if (!s.ok()) return Fail(kExitFailure, s.message());
    std::cerr << "wrote " << path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"arbiterctl: Arbiter's command line", "arbiterctl"};
  app.require_subcommand(1);

  arbiterctl::ClusterFlags cluster;
  const auto cluster_flags = [&](CLI::App* command, bool list) {
    command->add_option("--kubeconfig", cluster.kubeconfig,
                        "kubeconfig file(s), colon-separated; default: $KUBECONFIG, else "
                        "~/.kube/config, else the pod's service account");
    command->add_option("--context", cluster.context, "kubeconfig context to use");
    arbiter::cmd::AddConnectionPolicyFlags(*command, cluster.connection_policy);
    command->add_option("-n,--namespace", cluster.namespace_name,
                        "namespace; default: the context's, else default");
    if (list) {
      command->add_flag("-A,--all-namespaces", cluster.all_namespaces, "every namespace");
    }
    command->add_option("-o,--output", cluster.output, "wide, json or yaml");
  };
  CLI::App* jobs = app.add_subcommand(
      "jobs", "List PodGroups and BatchJobs: queue, phase, running/min, time waiting, reason.");
  cluster_flags(jobs, true);
  CLI::App* queues = app.add_subcommand(
      "queues",
      "Show the tree of queues: weight, deserved, allocated, capability, guarantee, "
      "jobs, and a bar of allocated against deserved.");
  cluster_flags(queues, false);
  std::string explain_target;
  CLI::App* explain = app.add_subcommand(
      "explain",
      "Say why a job waits, as the scheduler's last session found it: the gate that holds it and "
      "the numbers behind it.");
  explain
      ->add_option("job", explain_target,
                   "NAME (a PodGroup, or the BatchJob it runs), podgroup/NAME, batchjob/NAME "
                   "or pod/NAME")
      ->required();
  cluster_flags(explain, false);
  arbiterctl::WhatIfFlags whatif_flags;
  CLI::App* whatif = app.add_subcommand(
      "whatif",
      "Estimate when a job would start if it were submitted now: the cluster is read as the "
      "scheduler reads it and the scheduling code is run forward with the job added. Nothing is "
      "written.");
  whatif
      ->add_option("file", whatif_flags.file,
                   "YAML or JSON: a PodGroup and its Pods, one Pod, or a BatchJob ('-': stdin)")
      ->required();
  whatif
      ->add_option("--scheduler-name", whatif_flags.scheduler_name,
                   "the scheduler whose pods and decisions to forecast")
      ->capture_default_str();
  whatif->add_option("--config", whatif_flags.config,
                     "the scheduler's configuration file (default: the built-in one)");
  whatif->add_option("--horizon", whatif_flags.horizon, "how far ahead to look")
      ->capture_default_str();
  cluster_flags(whatif, false);
  arbiterctl::TopFlags top_flags;
  CLI::App* top = app.add_subcommand(
      "top",
      "A live view of the scheduler, from its /metrics: sessions per second and their duration, "
      "decisions, binds, API requests, pending jobs by queue and gate, queues' CPU against "
      "their share.");
  cluster_flags(top, false);
  top->add_option("--metrics-url", top_flags.metrics_url,
                  "the scheduler's /metrics URL, e.g. http://127.0.0.1:8080/metrics; default: "
                  "through the API server's proxy to the Helm chart's Service");
  top->add_option("--service-namespace", top_flags.service_namespace,
                  "namespace of the scheduler's metrics Service")
      ->capture_default_str();
  top->add_option("--service", top_flags.service, "the metrics Service, NAME:PORT")
      ->capture_default_str();
  top->add_option("--interval", top_flags.interval, "time between two frames, e.g. 2s")
      ->capture_default_str();
  top->add_flag("--once", top_flags.once, "print one frame (after one interval) and exit");

  SimulateFlags sim;
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Run Arbiter's scheduling code (cache, sessions, actions, plugins) on a simulated cluster "
      "with a virtual clock and report what happened. Formats: docs/simulator.md. Exit code 1 "
      "if a gang was ever partially placed.");
  simulate->add_option("--cluster", sim.cluster, "cluster file (nodes, queues, priority classes)")
      ->required();
  simulate->add_option("--workload", sim.workload, "workload file (jobs, arrivals, durations)")
      ->required();
  simulate->add_option("--config", sim.config,
                       "scheduler configuration (YAML actions and tiers); default: built in");
  simulate->add_option("--seed", sim.seed, "seed of the workload's random times")
      ->capture_default_str();
  simulate
      ->add_option("--bind-failure-rate", sim.bind_failure_rate,
                   "fail this fraction of binds (0 to below 1), drawn from --seed: the pods stay "
                   "assumed until the failed-bind ttl (30 s), then are placed again")
      ->check(CLI::Range(0.0, 0.999));
  simulate
      ->add_option("--bind-latency-ms", sim.bind_latency_ms,
                   "a bind takes effect this long after the session that decided it")
      ->check(CLI::NonNegativeNumber);
  simulate->add_option("--report", sim.report, "write the report as JSON to this file");
  simulate->add_option("--html", sim.html, "write the report as one HTML page to this file");
  simulate->add_flag("--no-performance", sim.no_performance,
                     "leave the measured figures (times, memory) out of the JSON report, so that "
                     "two runs can be compared byte for byte");
  simulate
      ->add_option("--eta-every", sim.eta_every,
                   "estimate the start of every Nth job at its arrival by a forecast with "
                   "exact run times, and report the estimates' error (0: none)")
      ->check(CLI::NonNegativeNumber);
  simulate->add_flag("--eta-foresee-arrivals", sim.eta_foresee_arrivals,
                     "with --eta-every, let the forecasts know every job still to arrive and "
                     "when (no scheduler can: it measures how much of the error that is)");
  simulate->add_flag("--no-invariants", sim.no_invariants,
                     "do not check the scheduler's invariants after every session (each check "
                     "passes over every pod; the report then says they were not checked)");

  GenerateFlags gen;
  std::string shapes;
  for (const std::string& s : arbiter::sim::GeneratorShapes()) {
    shapes.append(shapes.empty() ? s : ", " + s);
  }
  CLI::App* generate = app.add_subcommand(
      "generate", "Write a cluster file and a workload file of a standard shape: " + shapes);
  generate->add_option("shape", gen.options.shape, "the shape")->required();
  generate->add_option("--nodes", gen.options.nodes, "nodes (default: the shape's)");
  generate->add_option("--jobs", gen.options.jobs, "jobs (default: the shape's)");
  generate->add_option("--cluster-out", gen.cluster_out, "where to write the cluster file")
      ->required();
  generate->add_option("--workload-out", gen.workload_out, "where to write the workload file")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (jobs->parsed()) return arbiterctl::RunJobs(cluster);
  if (queues->parsed()) return arbiterctl::RunQueues(cluster);
  if (explain->parsed()) return arbiterctl::RunExplain(cluster, explain_target);
  if (top->parsed()) return arbiterctl::RunTop(cluster, top_flags);
  if (whatif->parsed()) return arbiterctl::RunWhatIf(cluster, whatif_flags);
  if (simulate->parsed()) return RunSimulate(sim);
  return RunGenerate(gen);
}
