#include "arbiter/runtime/controller_runtime.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "arbiter/base/log.h"
#include "arbiter/controllers/podgroup_upkeep.h"
#include "arbiter/k8s/reflector.h"
#include "arbiter/runtime/bootstrap.h"
#include "arbiter/runtime/flag_values.h"

namespace arbiter::runtime {

std::string PodGroupCreateJson(const PodGroup& group) {
  nlohmann::json metadata = {{"name", group.meta.name}, {"namespace", group.meta.namespace_name}};
  if (!group.meta.labels.empty()) {
    metadata["labels"] = nlohmann::json::object();
    for (const auto& [k, v] : group.meta.labels) metadata["labels"][k] = v;
  }
  for (const OwnerReference& ref : group.meta.owner_references) {
    metadata["ownerReferences"].push_back({{"apiVersion", ref.api_version},
                                           {"kind", ref.kind},
                                           {"name", ref.name},
                                           {"uid", ref.uid},
                                           {"controller", ref.controller}});
  }
  nlohmann::json spec = {{"minMember", group.spec.min_member}, {"queue", group.spec.queue}};
  if (!group.spec.priority_class_name.empty()) {
    spec["priorityClassName"] = group.spec.priority_class_name;
  }
  nlohmann::json body = {{"apiVersion", "arbiter.dev/v1alpha1"},
                         {"kind", "PodGroup"},
                         {"metadata", std::move(metadata)},
                         {"spec", std::move(spec)}};
  return body.dump();
}

ControllerRuntime::ControllerRuntime(k8s::HttpTransport& transport, ControllerOptions options,
                                     const Clock& clock)
    : api_(transport), transport_(transport), options_(std::move(options)), clock_(clock) {
  if (options_.leader_election) {
    elector_ = std::make_unique<k8s::LeaderElector>(api_, *options_.leader_election, clock_);
  }
  AddWatches();
}

ControllerRuntime::~ControllerRuntime() {
  Stop();
  Status ignored = Wait();
  static_cast<void>(ignored);
}

bool ControllerRuntime::InScope(const std::string& namespace_name) const {
  return options_.namespaces.empty() || options_.namespaces.contains(namespace_name);
}

void ControllerRuntime::AddWatches() {
  // Only the pods that name a group matter; the others are not kept.
  const auto keep_pod = [this](const Pod& pod) {
    const bool wanted = InScope(pod.meta.namespace_name) &&
                        pod.spec.scheduler_name == options_.scheduler_name &&
                        !PodGroupNameOf(pod).empty();
    bool kick = false;
    {
      std::lock_guard lock(store_mu_);
      if (wanted) {
        kick = !groups_.contains(pod.meta.namespace_name + "/" + PodGroupNameOf(pod));
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
    std::lock_guard lock(store_mu_);
    pods_.erase(pod.meta.uid);
  };
  pods.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch pods: " << s; };

  k8s::ReflectorHandlers<PodGroup> groups;
  groups.on_add = [this](const PodGroup& group) {
    std::lock_guard lock(store_mu_);
    groups_.insert(group.meta.Key());
    created_.erase(group.meta.Key());
  };
  groups.on_update = [this](const PodGroup& /*old*/, const PodGroup& group) {
    std::lock_guard lock(store_mu_);
    groups_.insert(group.meta.Key());
    created_.erase(group.meta.Key());
  };
  groups.on_delete = [this](const PodGroup& group) {
    {
      std::lock_guard lock(store_mu_);
      groups_.erase(group.meta.Key());
    }
    Kick();  // its pods may need it again
  };
  groups.on_error = [](const Status& s) { ARBITER_LOG(kWarning) << "watch podgroups: " << s; };

  const auto add = [this]<typename T>(std::string path, std::uint64_t seed,
                                      k8s::ReflectorHandlers<T> handlers) {
    k8s::ListWatchOptions list_watch;
    list_watch.path = std::move(path);
    list_watch.page_size = options_.page_size;
    list_watch.seed = seed;
    auto reflector =
        std::make_shared<k8s::Reflector<T>>(transport_, std::move(list_watch), std::move(handlers));
    Watch watch;
    watch.run = [r = reflector.get()] { r->Run(); };
    watch.stop = [r = reflector.get()] { r->Stop(); };
    watch.synced = [r = reflector.get()] { return r->HasSynced(); };
    watch.reflector = std::move(reflector);
    watches_.push_back(std::move(watch));
  };
  add("/api/v1/pods", 11, std::move(pods));
  add("/apis/arbiter.dev/v1alpha1/podgroups", 12, std::move(groups));
}

Status ControllerRuntime::Start() {
  if (elector_ != nullptr) ARBITER_RETURN_IF_ERROR(elector_->config().Validate());
  ARBITER_RETURN_IF_ERROR(WaitForCrds(api_));
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
  if (elector_ != nullptr) {
    elector_->Stop();
    if (elector_thread_.joinable()) elector_thread_.join();
  }
  for (Watch& w : watches_) w.stop();
  for (Watch& w : watches_) {
    if (w.thread.joinable()) w.thread.join();
  }
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
  std::lock_guard lock(mu_);
  loop_done_ = true;
}

void ControllerRuntime::Reconcile() {
  ++reconciles_;
  std::vector<Pod> pods;
  std::set<std::string> existing;
  {
    std::lock_guard lock(store_mu_);
    pods.reserve(pods_.size());
    for (const auto& [uid, pod] : pods_) pods.push_back(pod);
    existing = groups_;
    existing.insert(created_.begin(), created_.end());
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
    created_.insert(group.meta.Key());
  }
}

}  // namespace arbiter::runtime
