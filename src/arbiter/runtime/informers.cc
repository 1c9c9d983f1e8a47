#include "arbiter/runtime/informers.h"

#include <chrono>
#include <memory>
#include <utility>

#include "arbiter/base/log.h"
#include "arbiter/k8s/reflector.h"

namespace arbiter::runtime {

Informers::Informers(k8s::HttpTransport& transport, ClusterCache& cache, InformerOptions options)
    : transport_(transport), cache_(cache), options_(std::move(options)) {
  k8s::ReflectorHandlers<Pod> pods;
  // The cache keeps the reflector's own copy of each pod: decoded once, copied never.
  pods.on_store = [this](const std::shared_ptr<const Pod>& pod, bool added) {
    cache_.UpsertPod(pod);
    if (added && IsNewWorkPod(*pod)) options_.on_new_work();
  };
  pods.on_delete = [this](const Pod& pod) { cache_.DeletePod(pod); };
  Add<Pod>("pods", "/api/v1/pods", 1, std::move(pods));

  k8s::ReflectorHandlers<Node> nodes;
  nodes.on_add = [this](const Node& node) { cache_.UpsertNode(node); };
  nodes.on_update = [this](const Node& /*old*/, const Node& node) { cache_.UpsertNode(node); };
  nodes.on_delete = [this](const Node& node) { cache_.DeleteNode(node.meta.name); };
  Add<Node>("nodes", "/api/v1/nodes", 2, std::move(nodes));

  k8s::ReflectorHandlers<Namespace> namespaces;
  namespaces.on_add = [this](const Namespace& ns) { cache_.UpsertNamespace(ns); };
  namespaces.on_update = [this](const Namespace& /*old*/, const Namespace& ns) {
    cache_.UpsertNamespace(ns);
  };
  namespaces.on_delete = [this](const Namespace& ns) { cache_.DeleteNamespace(ns.meta.name); };
  Add<Namespace>("namespaces", "/api/v1/namespaces", 3, std::move(namespaces));

  k8s::ReflectorHandlers<PriorityClass> classes;
  classes.on_add = [this](const PriorityClass& pc) { cache_.UpsertPriorityClass(pc); };
  classes.on_update = [this](const PriorityClass& /*old*/, const PriorityClass& pc) {
    cache_.UpsertPriorityClass(pc);
  };
  classes.on_delete = [this](const PriorityClass& pc) { cache_.DeletePriorityClass(pc.meta.name); };
  Add<PriorityClass>("priorityclasses", "/apis/scheduling.k8s.io/v1/priorityclasses", 4,
                     std::move(classes));

  AddPodGroups<PodGroup>("podgroups", 5);
  AddPodGroups<KubernetesPodGroup>("podgroups.scheduling.k8s.io", 9);
  AddPodGroups<VolcanoPodGroup>("podgroups.scheduling.volcano.sh", 10);
  AddPodGroups<SchedulerPluginsPodGroup>("podgroups.scheduling.x-k8s.io", 11);

  k8s::ReflectorHandlers<Queue> queues;
  queues.on_add = [this](const Queue& queue) { cache_.UpsertQueue(queue); };
  queues.on_update = [this](const Queue& /*old*/, const Queue& queue) {
    cache_.UpsertQueue(queue);
  };
  queues.on_delete = [this](const Queue& queue) { cache_.DeleteQueue(queue.meta.name); };
  Add<Queue>("queues", "/apis/arbiter.dev/v1alpha1/queues", 6, std::move(queues));

  k8s::ReflectorHandlers<PodDisruptionBudget> pdbs;
  pdbs.on_add = [this](const PodDisruptionBudget& pdb) { cache_.UpsertPodDisruptionBudget(pdb); };
  pdbs.on_update = [this](const PodDisruptionBudget& /*old*/, const PodDisruptionBudget& pdb) {
    cache_.UpsertPodDisruptionBudget(pdb);
  };
  pdbs.on_delete = [this](const PodDisruptionBudget& pdb) {
    cache_.DeletePodDisruptionBudget(pdb);
  };
  Add<PodDisruptionBudget>("poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets", 7,
                           std::move(pdbs));

  k8s::ReflectorHandlers<ResourceQuota> quotas;
  quotas.on_add = [this](const ResourceQuota& rq) { cache_.UpsertResourceQuota(rq); };
  quotas.on_update = [this](const ResourceQuota& /*old*/, const ResourceQuota& rq) {
    cache_.UpsertResourceQuota(rq);
  };
  quotas.on_delete = [this](const ResourceQuota& rq) { cache_.DeleteResourceQuota(rq); };
  Add<ResourceQuota>("resourcequotas", "/api/v1/resourcequotas", 8, std::move(quotas),
                     std::string(kQuotaLabelSelector));

  k8s::ReflectorHandlers<DataSet> data_sets;
  data_sets.on_add = [this](const DataSet& d) { cache_.UpsertDataSet(d); };
  data_sets.on_update = [this](const DataSet& /*old*/, const DataSet& d) {
    cache_.UpsertDataSet(d);
  };
  data_sets.on_delete = [this](const DataSet& d) { cache_.DeleteDataSet(d); };
  // Optional: a cluster whose DataSet CRD is not installed (yet) still schedules, with the
  // PodGroups' own hints.
  Add<DataSet>("datasets", "/apis/arbiter.dev/v1alpha1/datasets", 12, std::move(data_sets), {},
               /*optional=*/true);
}

Informers::~Informers() { Stop(); }

// The PodGroups of one API; another API's are watched only while it is served (its CRD
// installed, or the Kubernetes alpha API enabled).
template <typename T>
void Informers::AddPodGroups(std::string kind, std::uint64_t seed) {
  const PodGroupDialect dialect = T().dialect;
  k8s::ReflectorHandlers<T> groups;
  groups.on_add = [this](const T& group) {
    cache_.UpsertPodGroup(group);
    options_.on_new_work();
  };
  groups.on_update = [this](const T& /*old*/, const T& group) { cache_.UpsertPodGroup(group); };
  groups.on_delete = [this](const T& group) { cache_.DeletePodGroup(group); };
  // -v 1: arbiterctl's views run these informers too, and print what they log.
  groups.on_served = [kind, dialect](bool served) {
    if (served) {
      ARBITER_VLOG(1) << "watching " << kind << ": API " << PodGroupApiVersion(dialect)
                      << " is served";
    } else {
      ARBITER_VLOG(1) << "not watching " << kind << ": API " << PodGroupApiVersion(dialect)
                      << " is not served (looked for again every 30s)";
    }
  };
  Add<T>(std::move(kind), PodGroupCollectionPath(dialect), seed, std::move(groups), {},
         /*optional=*/dialect != PodGroupDialect::kArbiter);
}

template <typename T>
void Informers::Add(std::string kind, std::string path, std::uint64_t seed,
                    k8s::ReflectorHandlers<T> handlers, std::string label_selector, bool optional) {
  handlers.on_error = [this, kind](const Status& status) { OnError(kind, status); };
  k8s::ListWatchOptions list_watch;
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
}

std::vector<metrics::WatchCount> Informers::watch_counts() const {
  std::vector<metrics::WatchCount> out;
  out.reserve(watches_.size());
  for (const Watch& w : watches_) out.push_back(w.counts());
  return out;
}

void Informers::Start() {
  if (started_) return;
  started_ = true;
  for (Watch& w : watches_) {
    w.thread = std::thread(w.run);
  }
}

void Informers::Stop() {
  for (Watch& w : watches_) w.stop();  // all at once: they wind down in parallel
  for (Watch& w : watches_) {
    if (!w.thread.joinable()) continue;
    w.thread.join();  // a Stop() before Run() started is kept: Run() then returns at once
  }
}

bool Informers::HasSynced() const {
  for (const Watch& w : watches_) {
    if (!w.synced()) return false;
  }
  return true;
}

std::string Informers::NotSynced() const {
  std::string out;
  for (const Watch& w : watches_) {
    if (w.synced()) continue;
    if (!out.empty()) out += ',';
    out += w.kind;
  }
  return out;
}

void Informers::OnError(const std::string& kind, const Status& status) {
  ++errors_;
  // The reflector's errors name the object (decoding) or the request (I/O); it carries on.
  ARBITER_LOG(kWarning) << "watch error kind=" << kind << " error=" << status;
}

bool Informers::IsNewWorkPod(const Pod& pod) const {
  if (pod.spec.scheduler_name != options_.scheduler_name || !pod.spec.node_name.empty()) {
    return false;
  }
  if (pod.meta.deletion_timestamp) return false;
  return options_.namespaces.empty() || options_.namespaces.contains(pod.meta.namespace_name);
}

}  // namespace arbiter::runtime
