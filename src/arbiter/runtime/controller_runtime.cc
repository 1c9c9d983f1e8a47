#include "arbiter/runtime/controller_runtime.h"

#include <utility>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "arbiter/base/log.h"
#include "arbiter/controllers/podgroup_upkeep.h"
#include "arbiter/controllers/queue_quota.h"
#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/reflector.h"
#include "arbiter/runtime/bootstrap.h"
#include "arbiter/runtime/flag_values.h"
#include "arbiter/webhook/admission.h"
#include "arbiter/webhook/certificate_secret.h"
#include "arbiter/webhook/tls.h"

namespace arbiter::runtime {

std::string PodGroupCreateJson(const PodGroup& group) {
  nlohmann::json metadata = {{"name", group.meta.name}, {"namespace", group.meta.namespace_name}};
  if (!group.meta.labels.empty()) {
    metadata["labels"] = nlohmann::json::object();
    for (const auto& [k, v] : group.meta.labels) metadata["labels"][k] = v;
  }
  for (const auto& [k, v] : group.meta.annotations) metadata["annotations"][k] = v;
  for (const OwnerReference& ref : group.meta.owner_references) {
    metadata["ownerReferences"].push_back({{"apiVersion", ref.api_version},
                                           {"kind", ref.kind},
                                           {"name", ref.name},
                                           {"uid", ref.uid},
                                           {"controller", ref.controller}});
  }
  nlohmann::json spec = {{"minMember", group.spec.min_member}, {"queue", group.spec.queue}};
  for (const auto& [task, min] : group.spec.min_task_member) spec["minTaskMember"][task] = min;
  if (!group.spec.priority_class_name.empty()) {
    spec["priorityClassName"] = group.spec.priority_class_name;
  }
  if (group.spec.topology.has_value()) {
    spec["topology"] = nlohmann::json::parse(controllers::TopologyJson(group.spec.topology));
  }
  if (group.spec.locality.has_value()) {
    spec["locality"] = nlohmann::json::parse(controllers::LocalityJson(group.spec.locality));
  }
  nlohmann::json body = {{"apiVersion", "arbiter.dev/v1alpha1"},
                         {"kind", "PodGroup"},
                         {"metadata", std::move(metadata)},
                         {"spec", std::move(spec)}};
  return body.dump();
}

ControllerRuntime::ControllerRuntime(k8s::HttpTransport& transport, ControllerOptions options,
                                     const Clock& clock)
    : api_(transport),
      transport_(transport),
      options_(std::move(options)),
      clock_(clock),
      metrics_(options_.metrics != nullptr ? options_.metrics
                                           : std::make_shared<metrics::Metrics>()) {
  if (options_.leader_election) {
    elector_ = std::make_unique<k8s::LeaderElector>(api_, *options_.leader_election, clock_);
  }
  AddWatches();
  AddCollectors();
}

void ControllerRuntime::AddCollectors() {
  metrics_->AddCollector([this](metrics::Families& out) {
    using metrics::AddFamily;
    using metrics::AddSample;
    const auto counter = [&](const char* name, const char* help, std::uint64_t value) {
      AddSample(AddFamily(out, name, help, metrics::kCounter), {}, static_cast<double>(value));
    };
    counter("arbiter_controller_reconciles_total", "Reconciles run (only the leader runs them)",
            reconciles_.load());
    counter("arbiter_controller_podgroups_created_total",
            "PodGroups made for pods that name a group nobody made", groups_created_.load());
    counter("arbiter_controller_batchjob_syncs_total", "BatchJobs planned and synced",
            jobs_synced_.load());
    counter("arbiter_controller_batchjob_writes_total",
            "Writes for BatchJobs: their PodGroups, pods, Services, ConfigMaps and status",
            job_writes_.load());
    counter("arbiter_controller_quota_writes_total",
            "Writes of queues' ResourceQuotas and of Queue status.quota", quota_writes_.load());
    std::vector<metrics::WatchCount> watches;
    watches.reserve(watches_.size());
    for (const Watch& w : watches_) watches.push_back(w.counts());
    metrics::AddWatchFamilies(out, watches);
    metrics::AddLeaderFamily(out, elector_ == nullptr || elector_->IsLeader(),
                             "reconciles and writes");
  });
}

bool ControllerRuntime::LoopEnded() const {
  std::lock_guard lock(mu_);
  return loop_done_;
}

std::optional<std::string> ControllerRuntime::NotReady() const {
  std::string waiting;
  for (const Watch& w : watches_) {
    if (!w.synced()) waiting += (waiting.empty() ? "" : ",") + w.kind;
  }
  if (!waiting.empty()) return "watches not synced: " + waiting;
  if (elector_ != nullptr && !elector_->KnowsRole()) {
    return std::string("the leader election has had no answer from the API server yet");
  }
  return std::nullopt;
}

ControllerRuntime::~ControllerRuntime() {
  Stop();
  Status ignored = Wait();
  static_cast<void>(ignored);
}

bool ControllerRuntime::InScope(const std::string& namespace_name) const {
  return options_.namespaces.empty() || options_.namespaces.contains(namespace_name);
}

namespace {

// metadata.resourceVersion of the object a write returned, or empty.
std::string ResourceVersionOf(const std::string& object_json) {
  const nlohmann::json object = nlohmann::json::parse(object_json, nullptr, false);
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) {
    return {};
  }
  return object["metadata"].value("resourceVersion", "");
}

// The uid of the BatchJob that controls `pod`, or empty.
std::string JobUidOf(const Pod& pod) {
  const OwnerReference* owner = pod.meta.Controller();
  return owner != nullptr && IsBatchJobReference(*owner) ? owner->uid : std::string();
}

}  // namespace

void ControllerRuntime::AddWatches() {
  // Only the pods that name a group matter (a BatchJob's do); the others are not kept.
  const auto keep_pod = [this](const Pod& pod) {
    const bool wanted = InScope(pod.meta.namespace_name) &&
                        pod.spec.scheduler_name == options_.scheduler_name &&
                        !PodGroupNameOf(pod).empty();
    bool kick = false;
    {
      std::lock_guard lock(store_mu_);
      created_.erase(pod.meta.Key());
      if (wanted) {
        kick = !groups_.contains(pod.meta.namespace_name + "/" + PodGroupNameOf(pod)) ||
               !JobUidOf(pod).empty();
        pods_[pod.meta.uid] = pod;
      } else {
        pods_.erase(pod.meta.uid);
      }
    }
    if (kick) Kick();
  };
  k8s::ReflectorHandlers<Pod> pods;
  pods.on_add = keep_pod;
  pods.on_update = [keep_pod](const Pod& /*old*/, const Pod& pod) { keep_pod(pod); };
  pods.on_delete = [this](const Pod& pod) {
    const std::string job = JobUidOf(pod);
    {
      std::lock_guard lock(store_mu_);
      pods_.erase(pod.meta.uid);
      deleted_.erase(pod.meta.uid);
      if (!job.empty()) gone_[job].push_back(controllers::GonePod{pod, clock_.Now()});
    }
    if (!job.empty()) Kick();
  };
  pods.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch pods: " << s; };

  k8s::ReflectorHandlers<PodGroup> groups;
  const auto keep_group = [this](const PodGroup& group) {
    {
      std::lock_guard lock(store_mu_);
      groups_[group.meta.Key()] = group;
      created_.erase(group.meta.Key());
    }
    Kick();  // a job's pods wait for its group
  };
  groups.on_add = keep_group;
  groups.on_update = [keep_group](const PodGroup& /*old*/, const PodGroup& group) {
    keep_group(group);
  };
  groups.on_delete = [this](const PodGroup& group) {
    {
      std::lock_guard lock(store_mu_);
      groups_.erase(group.meta.Key());
    }
    Kick();  // its pods may need it again
  };
  groups.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch podgroups: " << s; };

  k8s::ReflectorHandlers<BatchJob> jobs;
  const auto keep_job = [this](const BatchJob& job) {
    if (!InScope(job.meta.namespace_name)) return;
    {
      std::lock_guard lock(store_mu_);
      jobs_[job.meta.Key()] = job;
      auto it = written_.find(job.meta.uid);
      if (it != written_.end() && it->second.first == job.meta.resource_version) {
        written_.erase(it);
      }
    }
    Kick();
  };
  jobs.on_add = keep_job;
  jobs.on_update = [keep_job](const BatchJob& /*old*/, const BatchJob& job) { keep_job(job); };
  jobs.on_delete = [this](const BatchJob& job) {
    std::lock_guard lock(store_mu_);
    jobs_.erase(job.meta.Key());
    written_.erase(job.meta.uid);
    gone_.erase(job.meta.uid);
  };
  jobs.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch batchjobs: " << s; };

  // Queue quotas: every change of what they are computed from asks for a reconcile.
  const auto keeper = [this]<typename T>(std::map<std::string, T>& store, const std::string& kind) {
    k8s::ReflectorHandlers<T> h;
    h.on_add = [this, &store](const T& object) {
      {
        std::lock_guard lock(store_mu_);
        store[object.meta.Key()] = object;
        if constexpr (std::is_same_v<T, Queue>) {
          auto it = queue_written_.find(object.meta.name);
          if (it != queue_written_.end() &&
              it->second.resource_version == object.meta.resource_version) {
            queue_written_.erase(it);
          }
        }
      }
      Kick();
    };
    h.on_update = [add = h.on_add](const T& /*old*/, const T& object) { add(object); };
    if constexpr (std::is_same_v<T, Node>) {
      h.on_update = [this, &store, add = h.on_add](const Node& old, const Node& object) {
        // Heartbeats change nothing the cluster's allocatable is made of.
        if (old.allocatable == object.allocatable && old.unschedulable == object.unschedulable &&
            old.Ready() == object.Ready() &&
            old.meta.deletion_timestamp.has_value() == object.meta.deletion_timestamp.has_value()) {
          std::lock_guard lock(store_mu_);
          store[object.meta.Key()] = object;
          return;
        }
        add(object);
      };
    }
    h.on_delete = [this, &store](const T& object) {
      {
        std::lock_guard lock(store_mu_);
        store.erase(object.meta.Key());
      }
      Kick();
    };
    h.on_error = [kind](const Status& s) {
      ARBITER_LOG(kWarning) << "watch " << kind << ": " << s;
    };
    return h;
  };

  const auto add = [this]<typename T>(std::string path, std::uint64_t seed,
                                      k8s::ReflectorHandlers<T> handlers,
                                      std::string label_selector = {}, bool optional = false) {
    k8s::ListWatchOptions list_watch;
    std::string kind = path.substr(path.rfind('/') + 1);
    // Another API group than ours or the core's: named with it (podgroups.scheduling.k8s.io).
    if (path.starts_with("/apis/") && !path.starts_with("/apis/arbiter.dev/")) {
      kind += "." + path.substr(6, path.find('/', 6) - 6);
    }
    list_watch.path = std::move(path);
    list_watch.optional = optional;
    list_watch.label_selector = std::move(label_selector);
    list_watch.page_size = options_.page_size;
    list_watch.seed = seed;
    auto reflector =
        std::make_shared<k8s::Reflector<T>>(transport_, std::move(list_watch), std::move(handlers));
    Watch watch;
    watch.kind = std::move(kind);
    watch.run = [r = reflector.get()] { r->Run(); };
    watch.stop = [r = reflector.get()] { r->Stop(); };
    watch.synced = [r = reflector.get()] { return r->HasSynced(); };
    watch.counts = [r = reflector.get(), k = watch.kind] {
      return metrics::WatchCount{k, r->lists(), r->watches()};
    };
    watch.reflector = std::move(reflector);
    watches_.push_back(std::move(watch));
  };
  add("/api/v1/pods", 11, std::move(pods));
  add("/apis/arbiter.dev/v1alpha1/podgroups", 12, std::move(groups));
  add("/apis/arbiter.dev/v1alpha1/batchjobs", 13, std::move(jobs));
  // Groups of other APIs (while served): pods that name one need no group of ours.
  // Only their metadata: one the scheduler cannot read still exists (and keeps its pods waiting
  // with the error, rather than given a group of ours).
  const auto foreign = [this]<typename T>(T /*dialect*/) {
    k8s::ReflectorHandlers<T> h;
    h.on_add = [this](const T& group) {
      std::lock_guard lock(store_mu_);
      ++foreign_groups_[group.meta.Key()];
    };
    h.on_delete = [this](const T& group) {
      {
        std::lock_guard lock(store_mu_);
        auto it = foreign_groups_.find(group.meta.Key());
        if (it != foreign_groups_.end() && --it->second <= 0) foreign_groups_.erase(it);
      }
      Kick();  // its pods may need a group of ours now
    };
    h.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch podgroups: " << s; };
    return h;
  };
  add(PodGroupCollectionPath(PodGroupDialect::kKubernetes), 18,
      foreign(DialectPodGroupMeta<PodGroupDialect::kKubernetes>()), {}, true);
  add(PodGroupCollectionPath(PodGroupDialect::kVolcano), 19,
      foreign(DialectPodGroupMeta<PodGroupDialect::kVolcano>()), {}, true);
  add(PodGroupCollectionPath(PodGroupDialect::kSchedulerPlugins), 20,
      foreign(DialectPodGroupMeta<PodGroupDialect::kSchedulerPlugins>()), {}, true);
  add("/apis/arbiter.dev/v1alpha1/queues", 14, keeper(queues_, "queues"));
  add("/api/v1/namespaces", 15, keeper(namespaces_, "namespaces"));
  add("/api/v1/nodes", 16, keeper(nodes_, "nodes"));
  add("/api/v1/resourcequotas", 17, keeper(quotas_, "resourcequotas"),
      std::string(kQuotaLabelSelector));
}

Status ControllerRuntime::Start() {
  if (elector_ != nullptr) ARBITER_RETURN_IF_ERROR(elector_->config().Validate());
  if (options_.endpoint) {
    // Before the CRD check and the watches: the probes answer while the process starts.
    ARBITER_ASSIGN_OR_RETURN(
        auto served, metrics::ServeEndpoints(*options_.endpoint,
                                             {.metrics = [this] { return metrics_->Scrape(); },
                                              .live = [this] { return !LoopEnded(); },
                                              .ready = [this] { return NotReady(); }}));
    endpoint_server_ = std::move(served.first);
    endpoint_port_ = served.second;
  }
  ARBITER_RETURN_IF_ERROR(WaitForCrds(api_, kControllerCrds));
  if (!options_.webhook.bind_address.empty()) ARBITER_RETURN_IF_ERROR(StartWebhook());
  ARBITER_LOG(kInfo) << "starting controller scheduler_name=" << options_.scheduler_name
                     << " period=" << FormatDuration(options_.period)
                     << " namespaces=" << options_.namespaces.size()
                     << " leader_elect=" << (elector_ != nullptr);
  for (Watch& w : watches_) w.thread = std::thread(w.run);
  if (elector_ != nullptr) {
    elector_thread_ = std::thread([this] {
      elector_->Run(
          [this] {
            ARBITER_LOG(kInfo) << "became leader lease=" << elector_->config().namespace_name << "/"
                               << elector_->config().lease_name
                               << " identity=" << elector_->config().identity;
            Kick();
          },
          [this] { OnLeadershipLost(); });
    });
  }
  {
    std::lock_guard lock(mu_);
    loop_started_ = true;
  }
  loop_thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void ControllerRuntime::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  wake_.notify_all();
}

bool ControllerRuntime::done() const {
  std::lock_guard lock(mu_);
  return !loop_started_ || loop_done_;
}

Status ControllerRuntime::Wait() {
  if (loop_thread_.joinable()) loop_thread_.join();
  if (webhook_server_ != nullptr) webhook_server_->Stop();
  if (elector_ != nullptr) {
    elector_->Stop();
    if (elector_thread_.joinable()) elector_thread_.join();
  }
  for (Watch& w : watches_) w.stop();
  for (Watch& w : watches_) {
    if (w.thread.joinable()) w.thread.join();
  }
  if (endpoint_server_ != nullptr) endpoint_server_->Stop();
  std::lock_guard lock(mu_);
  if (lost_leadership_) {
    return AbortedError("lost the leader lease " + elector_->config().namespace_name + "/" +
                        elector_->config().lease_name);
  }
  return Status::Ok();
}

void ControllerRuntime::Kick() {
  std::lock_guard lock(mu_);
  if (kick_at_) return;
  kick_at_ = clock_.MonotonicNow() + options_.debounce;
  wake_.notify_all();
}

void ControllerRuntime::OnLeadershipLost() {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  ARBITER_LOG(kError) << "lost leadership lease=" << elector_->config().namespace_name << "/"
                      << elector_->config().lease_name << ": stopping";
  lost_leadership_ = true;
  stopping_ = true;
  wake_.notify_all();
}

bool ControllerRuntime::Synced() const {
  for (const Watch& w : watches_) {
    if (!w.synced()) return false;
  }
  return true;
}

bool ControllerRuntime::WaitForTurn() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    auto due = next_reconcile_;
    if (kick_at_ && *kick_at_ < due) due = *kick_at_;
    if (clock_.MonotonicNow() >= due) break;
    wake_.wait_until(lock, due);
  }
  kick_at_.reset();
  return !stopping_;
}

void ControllerRuntime::Loop() {
  // No reconcile before the first LIST of every watch: a group not seen yet is not missing.
  while (!Synced()) {
    std::unique_lock lock(mu_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(20), [this] { return stopping_; })) break;
  }
  while (WaitForTurn()) {
    {
      std::lock_guard lock(mu_);
      next_reconcile_ = clock_.MonotonicNow() + options_.period;
    }
    if (elector_ != nullptr && !elector_->IsLeader()) continue;
    Reconcile();
  }
  ARBITER_LOG(kInfo) << "controller stopped reconciles=" << reconciles_.load()
                     << " jobs_synced=" << jobs_synced_.load()
                     << " job_writes=" << job_writes_.load()
                     << " quota_writes=" << quota_writes_.load()
                     << " groups_created=" << groups_created_.load();
  std::lock_guard lock(mu_);
  loop_done_ = true;
}

void ControllerRuntime::Reconcile() {
  ++reconciles_;
  {
    // Writes the watch never showed (a lost event, a conflict) are no longer waited for.
    const Clock::MonotonicTime now = clock_.MonotonicNow();
    std::lock_guard lock(store_mu_);
    std::erase_if(created_, [&](const auto& e) { return now - e.second > options_.settle; });
    std::erase_if(deleted_, [&](const auto& e) { return now - e.second > options_.settle; });
    std::erase_if(written_, [&](const auto& e) { return now - e.second.second > options_.settle; });
    std::erase_if(queue_written_,
                  [&](const auto& e) { return now - e.second.when > options_.settle; });
  }
  if (webhook_server_ != nullptr) EnsureWebhookConfiguration();
  // Quotas first: a lowered limit is in place before anything else is written.
  SyncQueueQuotas();
  SyncBatchJobs();
  UpkeepPodGroups();
}

void ControllerRuntime::ReportOnce(const std::string& what, const Status& error) {
  std::string line = what + ": " + error.ToString();
  if (reported_errors_.insert(line).second) ARBITER_LOG(kWarning) << line;
}

void ControllerRuntime::UpkeepPodGroups() {
  std::vector<Pod> pods;
  std::set<std::string> existing;
  {
    std::lock_guard lock(store_mu_);
    pods.reserve(pods_.size());
    for (const auto& [uid, pod] : pods_) pods.push_back(pod);
    for (const auto& [key, group] : groups_) existing.insert(key);
    for (const auto& [key, count] : foreign_groups_) existing.insert(key);
    for (const auto& [key, when] : created_) existing.insert(key);
  }
  std::vector<const Pod*> pointers;
  pointers.reserve(pods.size());
  for (const Pod& p : pods) pointers.push_back(&p);
  const controllers::UpkeepPlan plan =
      controllers::PlanPodGroupUpkeep(pointers, existing, options_.scheduler_name);
  for (const std::string& error : plan.errors) {
    if (reported_errors_.insert(error).second) {
      ARBITER_LOG(kWarning) << "podgroup upkeep: " << error;
    }
  }
  for (const PodGroup& group : plan.create) {
    // Another API's group of that name may exist that the watches do not know yet (its CRD was
    // installed less than a recheck ago): asked once, before a group of ours would shadow it.
    if (ForeignGroupExists(group.meta.namespace_name, group.meta.name)) continue;
    StatusOr<std::string> created = api_.Create(
        "/apis/arbiter.dev/v1alpha1/namespaces/" + group.meta.namespace_name + "/podgroups",
        PodGroupCreateJson(group));
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      ARBITER_LOG(kWarning) << "creating podgroup " << group.meta.Key()
                            << " failed: " << created.status();
      continue;  // the next reconcile tries again
    }
    if (created.ok()) {
      ++groups_created_;
      ARBITER_LOG(kInfo) << "created podgroup " << group.meta.Key()
                         << " min_member=" << group.spec.min_member
                         << " queue=" << group.spec.queue;
    }
    std::lock_guard lock(store_mu_);
    created_[group.meta.Key()] = clock_.MonotonicNow();
  }
}

bool ControllerRuntime::ForeignGroupExists(const std::string& namespace_name,
                                           const std::string& name) {
  for (PodGroupDialect dialect : {PodGroupDialect::kKubernetes, PodGroupDialect::kVolcano,
                                  PodGroupDialect::kSchedulerPlugins}) {
    StatusOr<std::string> got = api_.Get(PodGroupObjectPath(dialect, namespace_name, name));
    if (got.ok()) {
      ARBITER_VLOG(2) << "podgroup " << namespace_name << "/" << name << " is one of "
                      << PodGroupApiVersion(dialect) << ": none of ours is made for it";
      std::lock_guard lock(store_mu_);
      std::string key = namespace_name;
      key += '/';
      key += name;
      created_[key] = clock_.MonotonicNow();  // not asked again soon
      return true;
    }
    // 404: no such object, or the API is not served. Anything else: not known, so not made now.
    if (got.status().code() != StatusCode::kNotFound) return true;
  }
  return false;
}

void ControllerRuntime::SyncBatchJobs() {
  // A copy of what is observed, so that the watches go on while the writes are made.
  std::vector<BatchJob> jobs;
  std::map<std::string, std::vector<Pod>> pods;  // by job uid
  std::map<std::string, PodGroup> groups;
  std::map<std::string, std::vector<controllers::GonePod>> gone;
  std::set<std::string> pending_pods;  // created or deleted by us, unseen yet
  {
    std::lock_guard lock(store_mu_);
    jobs.reserve(jobs_.size());
    for (const auto& [key, job] : jobs_) {
      if (written_.contains(job.meta.uid)) continue;  // our last status is not seen yet
      jobs.push_back(job);
      if (auto it = groups_.find(key); it != groups_.end()) groups.emplace(key, it->second);
      if (auto it = gone_.find(job.meta.uid); it != gone_.end()) {
        gone.emplace(job.meta.uid, std::move(it->second));
        gone_.erase(it);
      }
    }
    for (const auto& [uid, pod] : pods_) {
      const std::string job = JobUidOf(pod);
      if (!job.empty()) pods[job].push_back(pod);
    }
    for (const auto& [key, when] : created_) pending_pods.insert(key);
    for (const auto& [uid, when] : deleted_) pending_pods.insert(uid);
  }
  for (const BatchJob& job : jobs) {
    controllers::JobObservation obs;
    obs.job = &job;
    obs.now = clock_.Now();
    obs.scheduler_name = options_.scheduler_name;
    for (const Pod& p : pods[job.meta.uid]) obs.pods.push_back(&p);
    if (auto it = groups.find(job.meta.Key()); it != groups.end()) obs.group = &it->second;
    if (auto it = gone.find(job.meta.uid); it != gone.end()) obs.gone = std::move(it->second);
    controllers::JobPlan plan = controllers::PlanBatchJob(obs);
    ++jobs_synced_;
    // Writes the watch has not shown yet are not made twice.
    std::erase_if(plan.create_pods, [&](const controllers::PodToCreate& c) {
      return pending_pods.contains(job.meta.namespace_name + "/" + c.name);
    });
    std::erase_if(plan.delete_pods,
                  [&](const controllers::PodToDelete& d) { return pending_pods.contains(d.uid); });
    if (plan.create_group && pending_pods.contains(job.meta.Key())) plan.create_group.reset();
    if (LogVerbosity() >= 2 && job.status.phase == BatchJobPhase::kRestarting &&
        plan.delete_pods.empty() && !plan.status.has_value()) {
      // What a restart that does not move on waits for (a pod of an earlier attempt still there).
      std::string waits;
      for (const Pod* p : obs.pods) {
        auto attempt = p->meta.labels.find(std::string(controllers::kJobAttemptLabel));
        waits += " " + p->meta.name + "(attempt " +
                 (attempt != p->meta.labels.end() ? attempt->second : "?") + ", " +
                 std::string(PodPhaseName(p->status.phase)) +
                 (p->meta.deletion_timestamp.has_value() ? ", deleting" : "") +
                 (pending_pods.contains(p->meta.uid) ? ", deleted by us" : "") + ")";
      }
      ARBITER_VLOG(2) << "batchjob " << job.meta.Key() << ": restarting (attempt "
                      << job.status.attempt << "), pods:" << waits;
    }
    ApplyJobPlan(job, plan);
  }
}

void ControllerRuntime::ApplyJobPlan(const BatchJob& job, const controllers::JobPlan& plan) {
  const std::string key = job.meta.Key();
  const std::string ns = job.meta.namespace_name;
  const std::string job_path =
      "/apis/arbiter.dev/v1alpha1/namespaces/" + ns + "/batchjobs/" + job.meta.name;
  for (const std::string& note : plan.notes)
    ARBITER_LOG(kInfo) << "batchjob " << key << ": " << note;
  // The status first: what the pods are about to become is recorded before they change.
  if (plan.status.has_value()) {
    StatusOr<std::string> written =
        Writer().Patch(job_path + "/status", controllers::JobStatusPatchJson(job, *plan.status),
                       k8s::PatchType::kMerge);
    if (!written.ok()) {
      // A conflict: the job changed since it was observed; the next plan starts from that.
      if (written.status().code() != StatusCode::kAborted &&
          written.status().code() != StatusCode::kNotFound) {
        ARBITER_LOG(kWarning) << "batchjob " << key << ": writing status: " << written.status();
      }
      return;
    }
    const std::string rv = ResourceVersionOf(*written);
    std::lock_guard lock(store_mu_);
    // The watch may have shown the write before the response came back.
    auto seen = jobs_.find(key);
    const bool shown = seen != jobs_.end() && seen->second.meta.resource_version == rv;
    if (!rv.empty() && !shown) written_[job.meta.uid] = {rv, clock_.MonotonicNow()};
  }
  if (plan.delete_job) {
    k8s::DeleteOptions options;
    options.precondition_uid = job.meta.uid;
    options.propagation_policy = "Background";
    Status deleted = Writer().Delete(job_path, options);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      ARBITER_LOG(kWarning) << "batchjob " << key << ": deleting after its TTL: " << deleted;
    }
    return;
  }
  if (plan.create_group.has_value()) {
    StatusOr<std::string> created =
        Writer().Create("/apis/arbiter.dev/v1alpha1/namespaces/" + ns + "/podgroups",
                        PodGroupCreateJson(*plan.create_group));
    if (created.ok() || created.status().code() == StatusCode::kAlreadyExists) {
      std::lock_guard lock(store_mu_);
      created_[key] = clock_.MonotonicNow();
    } else {
      ReportOnce("batchjob " + key + ": creating its podgroup", created.status());
    }
  }
  if (plan.set_group_topology.has_value()) {
    StatusOr<std::string> patched = Writer().Patch(
        "/apis/arbiter.dev/v1alpha1/namespaces/" + ns + "/podgroups/" + job.meta.name,
        controllers::PodGroupTopologyPatchJson(*plan.set_group_topology), k8s::PatchType::kMerge);
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      ReportOnce("batchjob " + key + ": giving its podgroup the new topology", patched.status());
    }
  }
  if (plan.set_group_locality.has_value()) {
    StatusOr<std::string> patched = Writer().Patch(
        "/apis/arbiter.dev/v1alpha1/namespaces/" + ns + "/podgroups/" + job.meta.name,
        controllers::PodGroupLocalityPatchJson(*plan.set_group_locality), k8s::PatchType::kMerge);
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      ReportOnce("batchjob " + key + ": giving its podgroup where its data is", patched.status());
    }
  }
  if ((plan.ensure_service || plan.ensure_hosts) && !aux_made_.contains(job.meta.uid)) {
    StatusOr<std::string> service =
        Writer().Create("/api/v1/namespaces/" + ns + "/services", controllers::JobServiceJson(job));
    StatusOr<std::string> hosts = Writer().Create("/api/v1/namespaces/" + ns + "/configmaps",
                                                  controllers::JobHostsConfigMapJson(job));
    const auto fine = [](const StatusOr<std::string>& r) {
      return r.ok() || r.status().code() == StatusCode::kAlreadyExists;
    };
    if (!fine(service)) ReportOnce("batchjob " + key + ": creating its service", service.status());
    if (!fine(hosts))
      ReportOnce("batchjob " + key + ": creating its hosts configmap", hosts.status());
    if (fine(service) && fine(hosts)) aux_made_.insert(job.meta.uid);
  }
  for (const controllers::PodToDelete& d : plan.delete_pods) {
    k8s::DeleteOptions options;
    options.precondition_uid = d.uid;
    Status deleted = Writer().Delete("/api/v1/namespaces/" + ns + "/pods/" + d.name, options);
    ARBITER_VLOG(2) << "batchjob " << key << ": deleted pod " << d.name << " uid=" << d.uid
                    << " result=" << deleted;
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound &&
        deleted.code() != StatusCode::kAborted) {
      ARBITER_LOG(kWarning) << "batchjob " << key << ": deleting pod " << d.name << ": " << deleted;
      continue;
    }
    std::lock_guard lock(store_mu_);
    deleted_[d.uid] = clock_.MonotonicNow();
  }
  for (const controllers::PodToCreate& c : plan.create_pods) {
    StatusOr<std::string> created = Writer().Create("/api/v1/namespaces/" + ns + "/pods", c.json);
    ARBITER_VLOG(2) << "batchjob " << key << ": created pod " << c.name
                    << " result=" << created.status();
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      ReportOnce("batchjob " + key + ": creating pod " + c.name, created.status());
      continue;
    }
    std::lock_guard lock(store_mu_);
    created_[ns + "/" + c.name] = clock_.MonotonicNow();
  }
}

void ControllerRuntime::SyncQueueQuotas() {
  controllers::QuotaObservation obs;
  std::vector<Node> nodes;
  {
    std::lock_guard lock(store_mu_);
    obs.queues.reserve(queues_.size());
    for (const auto& [name, queue] : queues_) {
      obs.queues.push_back(queue);
      // A status of ours the watch has not shown yet is what the queue has now.
      if (auto it = queue_written_.find(name); it != queue_written_.end()) {
        obs.queues.back().status = it->second.status;
      }
    }
    for (const auto& [name, ns] : namespaces_) {
      if (InScope(name)) obs.namespaces.push_back(ns);
    }
    nodes.reserve(nodes_.size());
    for (const auto& [name, node] : nodes_) nodes.push_back(node);
    for (const auto& [key, quota] : quotas_) {
      if (InScope(quota.meta.namespace_name)) obs.quotas.push_back(quota);
    }
  }
  obs.cluster = controllers::ClusterAllocatable(nodes);
  obs.now = clock_.Now();
  const controllers::QuotaPlan plan = controllers::PlanQueueQuotas(obs);

  // Conflicts, AlreadyExists and NotFound mean the object changed since it was observed: the
  // next plan starts from what the watch shows.
  const auto quiet = [](const Status& s) {
    return s.ok() || s.code() == StatusCode::kAborted || s.code() == StatusCode::kAlreadyExists ||
           s.code() == StatusCode::kNotFound;
  };
  for (const controllers::QuotaWrite& w : plan.writes) {
    ++quota_writes_;
    const std::string collection = "/api/v1/namespaces/" + w.namespace_name + "/resourcequotas";
    const std::string body = controllers::ResourceQuotaJson(w);
    StatusOr<std::string> written = w.resource_version.empty()
                                        ? api_.Create(collection, body)
                                        : api_.Update(collection + "/" + w.name, body);
    if (!quiet(written.status())) {
      ReportOnce("queue " + w.queue + ": writing resourcequota " + w.namespace_name + "/" + w.name,
                 written.status());
    } else if (written.ok()) {
      ARBITER_LOG(kInfo) << "queue " << w.queue << ": resourcequota " << w.namespace_name << "/"
                         << w.name << " generation=" << w.generation
                         << (w.resource_version.empty() ? " created" : " updated");
    }
  }
  for (const controllers::QuotaDelete& d : plan.deletes) {
    ++quota_writes_;
    k8s::DeleteOptions options;
    options.precondition_uid = d.uid;
    Status deleted = api_.Delete(
        "/api/v1/namespaces/" + d.namespace_name + "/resourcequotas/" + d.name, options);
    if (!quiet(deleted)) {
      ReportOnce("deleting resourcequota " + d.namespace_name + "/" + d.name, deleted);
    } else if (deleted.ok()) {
      ARBITER_LOG(kInfo) << "deleted resourcequota " << d.namespace_name << "/" << d.name;
    }
  }
  std::map<std::string, const Queue*> by_name;
  for (const Queue& q : obs.queues) by_name.emplace(q.meta.name, &q);
  for (const controllers::QueueQuotaUpdate& u : plan.queues) {
    const Queue& queue = *by_name.at(u.queue);
    const std::string path = "/apis/arbiter.dev/v1alpha1/queues/" + u.queue;
    // The finalizer first: it is conditional on the resourceVersion observed, which a status
    // write would change.
    if (u.add_finalizer || u.remove_finalizer) {
      ++quota_writes_;
      std::vector<std::string> finalizers = queue.meta.finalizers;
      if (u.add_finalizer) finalizers.emplace_back(controllers::kQuotaFinalizer);
      if (u.remove_finalizer) std::erase(finalizers, std::string(controllers::kQuotaFinalizer));
      StatusOr<std::string> patched =
          api_.Patch(path, controllers::FinalizersPatch(finalizers, queue.meta.resource_version),
                     k8s::PatchType::kMerge);
      if (!quiet(patched.status())) {
        ReportOnce("queue " + u.queue + ": writing finalizers", patched.status());
      } else if (patched.ok() && u.remove_finalizer) {
        ARBITER_LOG(kInfo) << "queue " << u.queue << ": quotas removed, finalizer released";
      }
    }
    if (u.status) {
      ++quota_writes_;
      StatusOr<std::string> written =
          api_.Patch(path + "/status", controllers::QueueQuotaStatusPatch(queue.status, *u.status),
                     k8s::PatchType::kMerge);
      if (!quiet(written.status())) {
        ReportOnce("queue " + u.queue + ": writing status", written.status());
      } else if (written.ok()) {
        const std::string rv = ResourceVersionOf(*written);
        std::lock_guard lock(store_mu_);
        auto seen = queues_.find(u.queue);
        if (!rv.empty() && (seen == queues_.end() || seen->second.meta.resource_version != rv)) {
          queue_written_[u.queue] = {rv, *u.status, clock_.MonotonicNow()};
        }
      }
    }
  }
}

namespace {

// The host of an https URL ("https://127.0.0.1:9443/validate" -> "127.0.0.1").
std::string UrlHost(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (rest.starts_with('[')) return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

bool IsIpAddress(const std::string& host) {
  return !host.empty() && (host.find(':') != std::string::npos ||
                           host.find_first_not_of("0123456789.") == std::string::npos);
}

}  // namespace

Status ControllerRuntime::StartWebhook() {
  const WebhookOptions& w = options_.webhook;
  webhook::WebhookEndpoint endpoint = w.endpoint;
  std::vector<std::string> dns_names;
  std::vector<std::string> addresses;
  if (!endpoint.service_name.empty()) {
    const std::string svc = endpoint.service_name + "." + endpoint.service_namespace + ".svc";
    dns_names = {svc, svc + ".cluster.local"};
  }
  const std::string local = w.bind_address == "0.0.0.0" ? "127.0.0.1" : w.bind_address;
  webhook::ServingCertificate certificate;
  if (!w.cert_dir.empty()) {
    ARBITER_ASSIGN_OR_RETURN(certificate, webhook::ReadServingCertificate(w.cert_dir));
  }
  const int port = w.port;
  if (endpoint.url.empty() && endpoint.service_name.empty()) {
    endpoint.url = "https://" + local + ":" + std::to_string(port) + "/validate";
  }
  const std::string host = endpoint.url.empty() ? std::string() : UrlHost(endpoint.url);
  if (IsIpAddress(host)) {
    addresses.push_back(host);
  } else if (!host.empty()) {
    dns_names.push_back(host);
  }
  if (IsIpAddress(local) && std::ranges::find(addresses, local) == addresses.end()) {
    addresses.push_back(local);
  }
  if (!w.cert_secret_name.empty()) {
    ARBITER_ASSIGN_OR_RETURN(certificate, SharedCertificate(dns_names, addresses));
  } else if (w.cert_dir.empty()) {
    ARBITER_ASSIGN_OR_RETURN(certificate,
                             webhook::MakeServingCertificate(dns_names, addresses, clock_.Now(),
                                                             std::chrono::hours(24 * 365)));
  }
  webhook_server_ =
      std::make_unique<webhook::WebhookServer>(certificate, [this](std::string_view body) {
        return webhook::Review(body, [this](std::string_view kind, std::string_view operation,
                                            webhook::Freshness freshness) {
          return AdmissionContextFor(kind, operation, freshness);
        });
      });
  ARBITER_ASSIGN_OR_RETURN(webhook_port_, webhook_server_->Start(w.bind_address, port));
  if (w.endpoint.url.empty() && w.endpoint.service_name.empty()) {
    endpoint.url = "https://" + local + ":" + std::to_string(webhook_port_) + "/validate";
  }
  webhook_configuration_ = webhook::WebhookConfigurationJson(endpoint, certificate.ca_pem);
  ARBITER_LOG(kInfo) << "admission webhook serving on " << w.bind_address << ":" << webhook_port_
                     << " endpoint="
                     << (endpoint.url.empty()
                             ? endpoint.service_namespace + "/" + endpoint.service_name
                             : endpoint.url)
                     << " certificate="
                     << (!w.cert_secret_name.empty()
                             ? "secret " + w.cert_secret_namespace + "/" + w.cert_secret_name
                         : w.cert_dir.empty() ? std::string("made at start")
                                              : w.cert_dir);
  return Status::Ok();
}

void ControllerRuntime::EnsureWebhookConfiguration() {
  // Once the watches have synced (the rules read them), then every 10 s: someone may have
  // edited or deleted it.
  const Clock::MonotonicTime now = clock_.MonotonicNow();
  if (webhook_checked_ && now - *webhook_checked_ < std::chrono::seconds(10)) return;
  webhook_checked_ = now;
  const std::string collection =
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  const std::string path = collection + "/" + std::string(webhook::kConfigurationName);
  nlohmann::json wanted = nlohmann::json::parse(webhook_configuration_);
  StatusOr<std::string> current = api_.Get(path);
  if (!current.ok() && current.status().code() == StatusCode::kNotFound) {
    StatusOr<std::string> created = api_.Create(collection, webhook_configuration_);
    if (!created.ok()) {
      webhook_checked_.reset();
      ReportOnce("creating the webhook configuration", created.status());
    } else {
      ARBITER_LOG(kInfo) << "created validatingwebhookconfiguration "
                         << webhook::kConfigurationName;
    }
    return;
  }
  if (!current.ok()) {
    webhook_checked_.reset();
    ReportOnce("reading the webhook configuration", current.status());
    return;
  }
  // The API server fills defaults in; what matters is where it calls and what it trusts.
  const nlohmann::json have = nlohmann::json::parse(*current, nullptr, false);
  bool same = have.is_object() && have.contains("webhooks") && have["webhooks"].is_array() &&
              have["webhooks"].size() == wanted["webhooks"].size();
  for (std::size_t i = 0; same && i < wanted["webhooks"].size(); ++i) {
    const nlohmann::json& a = have["webhooks"][i];
    const nlohmann::json& b = wanted["webhooks"][i];
    same = a.value("name", "") == b.value("name", "") && a.contains("clientConfig") &&
           a["clientConfig"] == b["clientConfig"] &&
           a.value("rules", nlohmann::json()) == b["rules"];
  }
  if (same) return;
  wanted["metadata"]["resourceVersion"] = have["metadata"].value("resourceVersion", "");
  StatusOr<std::string> updated = api_.Update(path, wanted.dump());
  if (!updated.ok()) {
    webhook_checked_.reset();
    ReportOnce("updating the webhook configuration", updated.status());
  } else {
    ARBITER_LOG(kInfo) << "updated validatingwebhookconfiguration " << webhook::kConfigurationName;
  }
}

webhook::AdmissionContext ControllerRuntime::AdmissionContextFor(std::string_view kind,
                                                                 std::string_view operation,
                                                                 webhook::Freshness freshness) {
  webhook::AdmissionContext ctx;
  ctx.scheduler_name = options_.scheduler_name;
  std::optional<std::vector<Queue>> listed;
  if (freshness == webhook::Freshness::kFromServer) {
    // Outside the lock: the watches keep delivering while the API server answers.
    listed = ListQueues();
  }
  std::lock_guard lock(store_mu_);
  if (listed) {
    for (Queue& queue : *listed) ctx.queues.emplace(queue.meta.name, std::move(queue));
  } else {
    for (const auto& [name, queue] : queues_) ctx.queues.emplace(name, queue);
  }
  for (const auto& [name, ns] : namespaces_) ctx.namespaces.emplace(name, ns.meta.labels);
  if (kind == "Queue" && operation == "DELETE") {
    for (const auto& [key, group] : groups_) {
      if (group.status.phase != PodGroupPhase::kCompleted &&
          group.status.phase != PodGroupPhase::kFailed) {
        ctx.jobs.push_back({"PodGroup", key, group.spec.queue});
      }
    }
    for (const auto& [key, job] : jobs_) {
      if (job.status.phase != BatchJobPhase::kCompleted &&
          job.status.phase != BatchJobPhase::kFailed) {
        ctx.jobs.push_back({"BatchJob", key, job.spec.queue});
      }
    }
  }
  if (kind == "Pod") {
    for (const auto& [key, group] : groups_) ctx.group_queues.emplace(key, group.spec.queue);
  }
  return ctx;
}

std::optional<std::vector<Queue>> ControllerRuntime::ListQueues() {
  // Queues are few (tens, not thousands): one page.
  StatusOr<std::string> body = api_.Get("/apis/arbiter.dev/v1alpha1/queues");
  if (!body.ok()) {
    ARBITER_LOG(kWarning) << "admission: reading queues from the API server: " << body.status()
                          << "; deciding on the watched ones";
    return std::nullopt;
  }
  simdjson::ondemand::parser parser;
  const simdjson::padded_string text(*body);
  StatusOr<k8s::ObjectList<Queue>> list = k8s::DecodeList<Queue>(parser, text);
  if (!list.ok()) {
    ARBITER_LOG(kWarning) << "admission: decoding the queue list: " << list.status()
                          << "; deciding on the watched ones";
    return std::nullopt;
  }
  // A queue that does not decode is left out here as the watch leaves it out.
  return std::move(list->items);
}

StatusOr<webhook::ServingCertificate> ControllerRuntime::SharedCertificate(
    const std::vector<std::string>& dns_names, const std::vector<std::string>& addresses) {
  const WebhookOptions& w = options_.webhook;
  const std::string collection = "/api/v1/namespaces/" + w.cert_secret_namespace + "/secrets";
  const std::string path = collection + "/" + w.cert_secret_name;
  StatusOr<std::string> existing = api_.Get(path);
  if (!existing.ok() && existing.status().code() == StatusCode::kNotFound) {
    ARBITER_ASSIGN_OR_RETURN(webhook::ServingCertificate made,
                             webhook::MakeServingCertificate(dns_names, addresses, clock_.Now(),
                                                             std::chrono::hours(24 * 365)));
    StatusOr<std::string> created = api_.Create(
        collection,
        webhook::CertificateSecretJson(w.cert_secret_namespace, w.cert_secret_name, made));
    if (created.ok()) {
      ARBITER_LOG(kInfo) << "webhook certificate made and kept in secret "
                         << w.cert_secret_namespace << "/" << w.cert_secret_name;
      return made;
    }
    // Another replica created it first: serve the one it made.
    if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
    existing = api_.Get(path);
  }
  if (!existing.ok()) return existing.status().WithContext("webhook certificate");
  return webhook::CertificateFromSecretJson(*existing);
}

}  // namespace arbiter::runtime
