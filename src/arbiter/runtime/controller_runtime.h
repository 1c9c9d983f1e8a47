// ControllerRuntime: the arbiter-controller process, minus flag parsing. Today it runs one
// controller, PodGroup upkeep (controllers/podgroup_upkeep.h): the PodGroups that pods of this
// scheduler name but nobody made are created, so that workloads speaking Volcano's or
// scheduler-plugins' gang conventions run without a hand-made PodGroup.
//
// It watches pods (only those that name a group are kept) and arbiter.dev PodGroups, and every
// `period` (sooner, after `debounce`, when a pod naming a missing group appears) it reconciles
// from what it observes: level-triggered, so a restart mid-way ends where an uninterrupted run
// would. A group it created is remembered until the watch shows it, so a reconcile that runs
// before the watch delivers it does not create it twice (AlreadyExists is fine anyway). A pod
// whose arbiter.dev/min-member annotation is bad is logged once per message, and its group is not
// made until it is fixed.
//
// With leader election (Lease "arbiter-controller"), only the leader writes; losing the lease
// ends the runtime with ABORTED, as the scheduler's does.
//
//   ControllerRuntime runtime(*transport, options, RealClock::Instance());
//   ARBITER_RETURN_IF_ERROR(runtime.Start());
//   ... on SIGTERM: runtime.Stop();
//   Status exit = runtime.Wait();
//
// Ownership: `transport` and `clock` must outlive the runtime. Thread safety: Start and Wait from
// one thread; Stop, done and the counters from any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/leader_election.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"

namespace arbiter::runtime {

struct ControllerOptions {
  std::string scheduler_name = "arbiter";  // the pods whose groups it keeps
  std::set<std::string> namespaces;        // empty: all
  std::chrono::nanoseconds period = std::chrono::seconds(1);
  std::chrono::nanoseconds debounce = std::chrono::milliseconds(30);
  std::optional<k8s::LeaderElectionConfig> leader_election;  // none: always leading
  int page_size = 500;
};

class ControllerRuntime {
 public:
  ControllerRuntime(k8s::HttpTransport& transport, ControllerOptions options, const Clock& clock);
  ~ControllerRuntime();  // Stop() and Wait()
  ControllerRuntime(const ControllerRuntime&) = delete;
  ControllerRuntime& operator=(const ControllerRuntime&) = delete;

  // Checks the CRDs, then starts the watches, the leader election (if configured) and the loop.
  Status Start();
  // Asks everything to stop; returns at once. Idempotent.
  void Stop();
  // Blocks until the loop has ended, then stops the election (releasing the lease) and the
  // watches. OK after Stop(); ABORTED when leadership was lost.
  Status Wait();
  bool done() const;

  std::uint64_t reconciles() const { return reconciles_.load(); }
  std::uint64_t groups_created() const { return groups_created_.load(); }

 private:
  struct Watch {
    std::shared_ptr<void> reflector;
    std::function<void()> run;
    std::function<void()> stop;
    std::function<bool()> synced;
    std::thread thread;
  };

  void AddWatches();
  void Loop();
  bool Synced() const;
  // Waits until a reconcile is due; false when stopping.
  bool WaitForTurn();
  void Reconcile();
  void Kick();
  void OnLeadershipLost();
  bool InScope(const std::string& namespace_name) const;

  k8s::ApiClient api_;
  k8s::HttpTransport& transport_;
  const ControllerOptions options_;
  const Clock& clock_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool loop_started_ = false;
  bool loop_done_ = false;
  bool lost_leadership_ = false;
  std::optional<Clock::MonotonicTime> kick_at_;
  Clock::MonotonicTime next_reconcile_{};

  // What the watches observed (under store_mu_): pods that name a group, by uid; PodGroups.
  mutable std::mutex store_mu_;
  std::map<std::string, Pod> pods_;
  std::set<std::string> groups_;   // namespace/name
  std::set<std::string> created_;  // made by us, not yet seen by the watch

  std::set<std::string> reported_errors_;  // loop thread only
  std::atomic<std::uint64_t> reconciles_{0};
  std::atomic<std::uint64_t> groups_created_{0};

  std::unique_ptr<k8s::LeaderElector> elector_;
  std::thread elector_thread_;
  std::vector<Watch> watches_;
  std::thread loop_thread_;
};

// The JSON body that creates `group` (apiVersion, kind, metadata with labels and owner
// references, spec).
std::string PodGroupCreateJson(const PodGroup& group);

}  // namespace arbiter::runtime
