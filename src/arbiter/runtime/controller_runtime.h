// ControllerRuntime: the arbiter-controller process, minus flag parsing. It runs three controllers:
//   * Queue quotas (controllers/queue_quota.h): a ResourceQuota per queue in each namespace the
//     queue owns, its finalizer, and status.quota and the QuotaSynced condition of each Queue;
//   * BatchJob (controllers/batchjob_sync.h): each job's PodGroup, pods, headless Service and
//     hosts ConfigMap, restarts by policy, and its status;
//   * PodGroup upkeep (controllers/podgroup_upkeep.h): the PodGroups that pods of this scheduler
//     name but nobody made, so that workloads speaking Volcano's or scheduler-plugins' gang
//     conventions run without a hand-made PodGroup.
//
// It watches pods (only those that name a group are kept), arbiter.dev PodGroups, BatchJobs and
// Queues, namespaces, nodes (for the cluster's allocatable) and the ResourceQuotas it made,
// and every `period` (sooner, after `debounce`, when something it watches changes) it reconciles
// from what it observes: level-triggered, so a restart mid-way ends where an uninterrupted run
// would. What it remembers between reconciles only saves writes, never decides one:
//   * a job whose status it wrote is not planned again until the watch shows that write (or
//     `settle` passes): a plan made from the status before it would undo it;
//   * pods and groups it created, and pods it deleted, are not created or deleted again until
//     the watch shows them (or `settle` passes): AlreadyExists and NotFound are fine anyway;
//   * pods of a job that the watch saw deleted are handed to the job's next plan (which tells a
//     preemption from an eviction by them); a controller that missed the deletion still sees the
//     pod missing from the counts in the job's status.
// A pod whose arbiter.dev/min-member annotation is bad, and an API error creating a job's pod,
// are logged once per message.
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
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/controllers/batchjob_sync.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/leader_election.h"
#include "arbiter/metrics/endpoint_server.h"
#include "arbiter/metrics/metrics.h"
#include "arbiter/model/batch_job.h"
#include "arbiter/model/namespace.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"
#include "arbiter/model/resource_quota.h"
#include "arbiter/webhook/admission.h"
#include "arbiter/webhook/configuration.h"
#include "arbiter/webhook/rules.h"
#include "arbiter/webhook/server.h"

namespace arbiter::runtime {

// The admission webhook (webhook/admission.h), served while bind_address is set.
struct WebhookOptions {
  std::string bind_address;  // "0.0.0.0" in a cluster; "127.0.0.1" for a controller outside it
  int port = 9443;           // 0: any free port
  // Where kube-apiserver calls it; neither url nor service: https://<bind_address>:<port>/validate
  // (127.0.0.1 for 0.0.0.0).
  webhook::WebhookEndpoint endpoint;
  std::string cert_dir;  // tls.crt and tls.key (and ca.crt) from a Secret; empty: made at start
  // Or a Secret (namespace, name) the certificate is kept in, made by the first replica to start
  // and read by the others (webhook/certificate_secret.h); empty: not used.
  std::string cert_secret_namespace;
  std::string cert_secret_name;
};

struct ControllerOptions {
  std::string scheduler_name = "arbiter";  // the pods whose groups it keeps
  std::set<std::string> namespaces;        // empty: all
  std::chrono::nanoseconds period = std::chrono::seconds(1);
  std::chrono::nanoseconds debounce = std::chrono::milliseconds(30);
  // How long a write of ours may stay unseen by the watch before it is no longer waited for.
  std::chrono::nanoseconds settle = std::chrono::seconds(5);
  std::optional<k8s::LeaderElectionConfig> leader_election;  // none: always leading
  int page_size = 500;
  WebhookOptions webhook;
  // Where /metrics, /healthz and /readyz are served (metrics/endpoint_server.h); none: not
  // served. The metrics go to `metrics` (null: the runtime's own).
  std::optional<std::pair<std::string, int>> endpoint;
  std::shared_ptr<metrics::Metrics> metrics;
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
  // The port /metrics, /healthz and /readyz answer on; 0 when not served.
  int endpoint_port() const { return endpoint_port_; }
  std::uint64_t groups_created() const { return groups_created_.load(); }
  std::uint64_t jobs_synced() const { return jobs_synced_.load(); }
  // API writes made for BatchJobs (statuses, PodGroups, Services, ConfigMaps, pods, deletions).
  std::uint64_t job_writes() const { return job_writes_.load(); }
  // API writes made for queue quotas (ResourceQuotas, Queue statuses and finalizers).
  std::uint64_t quota_writes() const { return quota_writes_.load(); }
  // The port the webhook serves on (0 when it does not).
  int webhook_port() const { return webhook_port_; }

 private:
  struct Watch {
    std::string kind;
    std::shared_ptr<void> reflector;
    std::function<metrics::WatchCount()> counts;
    std::function<void()> run;
    std::function<void()> stop;
    std::function<bool()> synced;
    std::thread thread;
  };

  void AddWatches();
  void AddCollectors();
  std::optional<std::string> NotReady() const;
  bool LoopEnded() const;
  void Loop();
  bool Synced() const;
  // Waits until a reconcile is due; false when stopping.
  bool WaitForTurn();
  void Reconcile();
  void UpkeepPodGroups();
  // Whether a PodGroup of another API has this namespace/name (a GET of each; true too when
  // that cannot be known now).
  bool ForeignGroupExists(const std::string& namespace_name, const std::string& name);
  void SyncBatchJobs();
  void SyncQueueQuotas();
  // Makes or reads the serving certificate and binds the webhook's port.
  Status StartWebhook();
  // Writes the ValidatingWebhookConfiguration when it is missing or differs (leader only).
  void EnsureWebhookConfiguration();
  // What the admission rules of a request of `kind` need, from what the watches observed; with
  // kFromServer the queues are read again from the API server (webhook/admission.h says why).
  webhook::AdmissionContext AdmissionContextFor(std::string_view kind, std::string_view operation,
                                                webhook::Freshness freshness);
  // The certificate of WebhookOptions::cert_secret_*: read, or made and created when missing.
  StatusOr<webhook::ServingCertificate> SharedCertificate(
      const std::vector<std::string>& dns_names, const std::vector<std::string>& addresses);
  // Every queue as the API server has it now; nullopt (logged) when it cannot be read.
  std::optional<std::vector<Queue>> ListQueues();
  void ApplyJobPlan(const BatchJob& job, const controllers::JobPlan& plan);
  // Reports `error` for `what` unless the same message was reported before.
  void ReportOnce(const std::string& what, const Status& error);
  // The client, for one BatchJob write (counted).
  k8s::ApiClient& Writer() {
    ++job_writes_;
    return api_;
  }
  void Kick();
  void OnLeadershipLost();
  bool InScope(const std::string& namespace_name) const;

  k8s::ApiClient api_;
  k8s::HttpTransport& transport_;
  const ControllerOptions options_;
  const Clock& clock_;
  std::shared_ptr<metrics::Metrics> metrics_;
  std::unique_ptr<metrics::EndpointServer> endpoint_server_;
  int endpoint_port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool loop_started_ = false;
  bool loop_done_ = false;
  bool lost_leadership_ = false;
  std::optional<Clock::MonotonicTime> kick_at_;
  Clock::MonotonicTime next_reconcile_{};

  // What the watches observed (under store_mu_): pods that name a group, by uid; PodGroups and
  // BatchJobs by namespace/name; pods of jobs seen deleted, by the job's uid.
  mutable std::mutex store_mu_;
  std::map<std::string, Pod> pods_;
  std::map<std::string, PodGroup> groups_;
  std::map<std::string, int> foreign_groups_;  // other APIs' PodGroups: objects by ns/name
  std::map<std::string, BatchJob> jobs_;
  std::map<std::string, std::vector<controllers::GonePod>> gone_;
  // Writes of ours not yet seen by the watch, and when they were made: groups and pods created
  // (namespace/name), pods deleted (uid), job statuses written (job uid -> resourceVersion).
  std::map<std::string, Clock::MonotonicTime> created_;
  std::map<std::string, Clock::MonotonicTime> deleted_;
  std::map<std::string, std::pair<std::string, Clock::MonotonicTime>> written_;
  // For queue quotas: Queues by name, namespaces by name, nodes by name, our ResourceQuotas by
  // namespace/name; and Queue statuses written but not yet seen by the watch (name ->
  // resourceVersion written, the status, when), which the next plan starts from instead.
  std::map<std::string, Queue> queues_;
  std::map<std::string, Namespace> namespaces_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, ResourceQuota> quotas_;
  struct WrittenQueueStatus {
    std::string resource_version;
    QueueStatus status;
    Clock::MonotonicTime when;
  };
  std::map<std::string, WrittenQueueStatus> queue_written_;

  // Loop thread only.
  std::set<std::string> reported_errors_;
  std::set<std::string> aux_made_;  // job uids whose Service and ConfigMap exist
  std::atomic<std::uint64_t> reconciles_{0};
  std::atomic<std::uint64_t> groups_created_{0};
  std::atomic<std::uint64_t> jobs_synced_{0};
  std::atomic<std::uint64_t> job_writes_{0};
  std::atomic<std::uint64_t> quota_writes_{0};

  std::unique_ptr<webhook::WebhookServer> webhook_server_;
  int webhook_port_ = 0;
  std::string webhook_configuration_;  // the desired object's JSON
  std::optional<Clock::MonotonicTime> webhook_checked_;

  std::unique_ptr<k8s::LeaderElector> elector_;
  std::thread elector_thread_;
  std::vector<Watch> watches_;
  std::thread loop_thread_;
};

// The JSON body that creates `group` (apiVersion, kind, metadata with labels and owner
// references, spec with minTaskMember).
std::string PodGroupCreateJson(const PodGroup& group);

}  // namespace arbiter::runtime
