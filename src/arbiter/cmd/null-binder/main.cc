// null-binder: binds every pending pod whose spec.schedulerName is --scheduler-name to the next
// Ready node, round-robin, with no decision at all (no filter, no score, no capacity check). It
// is the baseline of bench/e2e/run.sh: the pod bindings per second that this API server takes on
// this machine through the project's own client (the same transport, QPS limit, reflector and
// k8s::BindAll as arbiter-scheduler). Not a scheduler: never run it on a real cluster.
//
// It watches Ready nodes and unassigned pods of its scheduler name (a server-side field
// selector, so a bound pod leaves the watch), queues each pod once, and --workers threads bind,
// each up to --batch pods at once over its connection (as arbiter-scheduler's binder does).
//
// Exit codes: 0 after SIGTERM/SIGINT, 2 for bad flags or kubeconfig.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "arbiter/base/clock.h"
#include "arbiter/base/log.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/exec_credential.h"
#include "arbiter/k8s/reflector.h"
#include "arbiter/k8s/writes.h"
#include "arbiter/runtime/process.h"
#include "arbiter/runtime/setup.h"

namespace {

constexpr int kExitUsage = 2;

struct Flags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "null-binder";
  double kube_api_qps = 50;
  int kube_api_burst = 100;
  int workers = 4;
  int batch = 32;
  int verbosity = 0;
};

struct PodRef {
  std::string namespace_name;
  std::string name;
  std::string uid;
};

// The pods to bind, in arrival order. A pod is queued once, until Forget(uid): when it leaves
// the watch (bound or deleted) or its bind failed (a later event of it queues it again).
class BindQueue {
 public:
  void Push(const arbiter::Pod& pod) {
    if (pod.meta.deletion_timestamp || !pod.spec.node_name.empty()) return;
    std::lock_guard lock(mu_);
    if (!known_.insert(pod.meta.uid).second) return;
    queue_.push_back({pod.meta.namespace_name, pod.meta.name, pod.meta.uid});
    changed_.notify_one();
  }
  void Forget(const std::string& uid) {
    std::lock_guard lock(mu_);
    known_.erase(uid);
  }
  // The next pods, at least one and at most `most`; none once stopped.
  std::vector<PodRef> Pop(std::size_t most) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return stopped_ || !queue_.empty(); });
    std::vector<PodRef> pods;
    if (stopped_) return pods;
    while (!queue_.empty() && pods.size() < most) {
      pods.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    return pods;
  }
  void Stop() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<PodRef> queue_;
  std::set<std::string> known_;
  bool stopped_ = false;
};

// The schedulable Ready nodes, sorted by name; Next() goes round-robin over them.
class ReadyNodes {
 public:
  void Set(const std::string& name, bool usable) {
    std::lock_guard lock(mu_);
    auto it = std::lower_bound(names_.begin(), names_.end(), name);
    const bool present = it != names_.end() && *it == name;
    if (usable && !present) names_.insert(it, name);
    if (!usable && present) names_.erase(it);
  }
  std::optional<std::string> Next() {
    std::lock_guard lock(mu_);
    if (names_.empty()) return std::nullopt;
    return names_[next_++ % names_.size()];
  }
  std::size_t size() {
    std::lock_guard lock(mu_);
    return names_.size();
  }

 private:
  std::mutex mu_;
  std::vector<std::string> names_;
  std::size_t next_ = 0;
};

// Runs a reflector on a thread of its own; Stop() stops it and joins.
template <typename T>
class Watch {
 public:
  Watch(arbiter::k8s::HttpTransport& transport, arbiter::k8s::ListWatchOptions options,
        arbiter::k8s::ReflectorHandlers<T> handlers)
      : reflector_(transport, std::move(options), std::move(handlers)),
        thread_([this] { reflector_.Run(); }) {}
  ~Watch() { Stop(); }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  bool synced() const { return reflector_.HasSynced(); }
  void Stop() {
    reflector_.Stop();  // kept if Run() has not started yet: it then returns at once
    if (thread_.joinable()) thread_.join();
  }

 private:
  arbiter::k8s::Reflector<T> reflector_;
  std::thread thread_;
};

struct Counts {
  std::atomic<std::uint64_t> bound{0};
  std::atomic<std::uint64_t> already_assigned{0};
  std::atomic<std::uint64_t> failed{0};
};

void BindLoop(arbiter::k8s::ApiClient& api, BindQueue& queue, ReadyNodes& nodes, Counts& counts,
              std::size_t batch) {
  for (std::vector<PodRef> pods = queue.Pop(batch); !pods.empty(); pods = queue.Pop(batch)) {
    std::vector<std::string> node_names;
    std::vector<arbiter::k8s::BindTarget> targets;
    std::vector<const PodRef*> without_node;
    node_names.reserve(pods.size());  // targets view these strings
    for (const PodRef& pod : pods) {
      std::optional<std::string> node = nodes.Next();
      if (!node) {
        without_node.push_back(&pod);
        continue;
      }
      node_names.push_back(std::move(*node));
      targets.push_back({pod.namespace_name, pod.name, pod.uid, node_names.back()});
    }
    auto finish = [&](const arbiter::k8s::BindTarget& target,
                      const arbiter::StatusOr<arbiter::k8s::BindOutcome>& outcome) {
      if (outcome.ok() && *outcome == arbiter::k8s::BindOutcome::kBound) {
        ++counts.bound;
        ARBITER_VLOG(2) << "bound pod=" << target.namespace_name << "/" << target.pod_name
                        << " node=" << target.node_name;
      } else if (outcome.ok()) {
        ++counts.already_assigned;
      } else {
        ++counts.failed;
        queue.Forget(std::string(target.uid));
        ARBITER_LOG(kWarning) << "bind failed pod=" << target.namespace_name << "/"
                              << target.pod_name << " error=" << outcome.status();
      }
    };
    for (const PodRef* pod : without_node) {
      finish({pod->namespace_name, pod->name, pod->uid, ""},
             arbiter::UnavailableError("no Ready node"));
    }
    arbiter::k8s::BindAll(
        api, targets,
        [&](std::size_t i, const arbiter::StatusOr<arbiter::k8s::BindOutcome>& outcome) {
          finish(targets[i], outcome);
        });
  }
}

// True when SIGTERM or SIGINT arrived within `wait` (less than a second).
bool StopRequested(const sigset_t& signals, std::chrono::milliseconds wait) {
  timespec timeout{0, static_cast<decltype(timespec::tv_nsec)>(wait.count() * 1'000'000)};
  const int signal = sigtimedwait(&signals, nullptr, &timeout);
  return signal == SIGTERM || signal == SIGINT;
}

arbiter::StatusOr<std::unique_ptr<arbiter::k8s::HttpTransport>> MakeTransport(const Flags& flags) {
  ARBITER_ASSIGN_OR_RETURN(
      arbiter::k8s::RestConfig rest,
      arbiter::runtime::ResolveRestConfig(flags.kubeconfig, flags.context,
                                          arbiter::k8s::InClusterEnvironmentFromProcess(),
                                          arbiter::k8s::KubeconfigPathsFromEnvironment()));
  ARBITER_ASSIGN_OR_RETURN(
      arbiter::k8s::TransportOptions options,
      arbiter::k8s::TransportOptionsFrom(rest, arbiter::RealClock::Instance()));
  options.qps = flags.kube_api_qps;
  options.burst = flags.kube_api_burst;
  options.user_agent = "null-binder/0.1";
  return arbiter::k8s::HttpTransport::Create(std::move(options));
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{
      "Binds pending pods round-robin over the Ready nodes, deciding nothing (the "
      "baseline of bench/e2e)",
      "null-binder"};
  app.add_option("--kubeconfig", flags.kubeconfig, "kubeconfig file(s), colon-separated");
  app.add_option("--context", flags.context, "kubeconfig context to use");
  app.add_option("--scheduler-name", flags.scheduler_name,
                 "bind the pods whose spec.schedulerName is this")
      ->capture_default_str();
  app.add_option("--kube-api-qps", flags.kube_api_qps, "API requests per second (client-side)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--kube-api-burst", flags.kube_api_burst, "API request burst (client-side)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--workers", flags.workers, "threads binding, each over its own connection")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--batch", flags.batch, "binds one worker sends at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("-v,--v", flags.verbosity, "log verbosity (2: a line per bind)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "null-binder: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }
  arbiter::SetLogVerbosity(flags.verbosity);
  arbiter::StatusOr<std::unique_ptr<arbiter::k8s::HttpTransport>> transport = MakeTransport(flags);
  if (!transport.ok()) {
    std::cerr << "null-binder: " << transport.status().message() << "\n";
    return kExitUsage;
  }

  // SIGTERM and SIGINT go to sigtimedwait on this thread: block them before any thread starts.
  const sigset_t stop_signals = arbiter::runtime::BlockStopSignals();

  BindQueue queue;
  ReadyNodes nodes;
  auto log_error = [](const arbiter::Status& s) { ARBITER_LOG(kWarning) << "watch error=" << s; };
  arbiter::k8s::ReflectorHandlers<arbiter::Node> node_handlers;
  auto usable = [](const arbiter::Node& n) { return n.Ready() && !n.unschedulable; };
  node_handlers.on_add = [&](const arbiter::Node& n) { nodes.Set(n.meta.name, usable(n)); };
  node_handlers.on_update = [&](const arbiter::Node&, const arbiter::Node& n) {
    nodes.Set(n.meta.name, usable(n));
  };
  node_handlers.on_delete = [&](const arbiter::Node& n) { nodes.Set(n.meta.name, false); };
  node_handlers.on_error = log_error;
  arbiter::k8s::ReflectorHandlers<arbiter::Pod> pod_handlers;
  pod_handlers.on_add = [&](const arbiter::Pod& p) { queue.Push(p); };
  pod_handlers.on_update = [&](const arbiter::Pod&, const arbiter::Pod& p) { queue.Push(p); };
  pod_handlers.on_delete = [&](const arbiter::Pod& p) { queue.Forget(p.meta.uid); };
  pod_handlers.on_error = log_error;
  arbiter::k8s::ListWatchOptions node_watch;
  node_watch.path = "/api/v1/nodes";
  arbiter::k8s::ListWatchOptions pod_watch;
  pod_watch.path = "/api/v1/pods";
  pod_watch.field_selector = "spec.schedulerName=" + flags.scheduler_name + ",spec.nodeName=";
  Watch<arbiter::Node> node_reflector(**transport, node_watch, std::move(node_handlers));
  Watch<arbiter::Pod> pod_reflector(**transport, pod_watch, std::move(pod_handlers));

  bool stopping = false;
  while (!stopping && !(node_reflector.synced() && pod_reflector.synced())) {
    stopping = StopRequested(stop_signals, std::chrono::milliseconds(20));
  }
  ARBITER_LOG(kInfo) << "synced scheduler=" << flags.scheduler_name
                     << " ready_nodes=" << nodes.size() << " workers=" << flags.workers
                     << " batch=" << flags.batch;

  arbiter::k8s::ApiClient api(**transport);
  Counts counts;
  std::vector<std::thread> workers;
  for (int i = 0; !stopping && i < flags.workers; ++i) {
    workers.emplace_back(
        [&] { BindLoop(api, queue, nodes, counts, static_cast<std::size_t>(flags.batch)); });
  }
  while (!stopping) stopping = StopRequested(stop_signals, std::chrono::milliseconds(200));

  pod_reflector.Stop();
  node_reflector.Stop();
  queue.Stop();
  for (std::thread& worker : workers) worker.join();
  ARBITER_LOG(kInfo) << "stopped bound=" << counts.bound
                     << " already_assigned=" << counts.already_assigned
                     << " failed=" << counts.failed;
  return 0;
}
