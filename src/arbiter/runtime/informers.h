// Informers: the scheduler's watches. One k8s::Reflector per kind, each on a thread of its own,
// feeding a ClusterCache:
//   pods            /api/v1/pods (every namespace, every scheduler: whatever is bound to a node
//                   counts on it; the cache decides which pods are tasks of ours)
//   nodes           /api/v1/nodes
//   namespaces      /api/v1/namespaces (labels, for queues' namespaceSelector)
//   priorityclasses /apis/scheduling.k8s.io/v1/priorityclasses
//   podgroups       /apis/arbiter.dev/v1alpha1/podgroups
//   podgroups of other APIs, while they are served (model/pod_group.h PodGroupDialect):
//                   /apis/scheduling.k8s.io/v1alpha2/podgroups (Kubernetes' gang API),
//                   /apis/scheduling.volcano.sh/v1beta1/podgroups (Volcano),
//                   /apis/scheduling.x-k8s.io/v1alpha1/podgroups (scheduler-plugins)
//   queues          /apis/arbiter.dev/v1alpha1/queues
//   poddisruptionbudgets /apis/policy/v1/poddisruptionbudgets (which victims an eviction would
//                   violate a budget for: preemption chooses them last)
//   resourcequotas  /api/v1/resourcequotas, only arbiter-controller's (a queue's quota caps what
//                   the queue may take: model/resource_quota.h QuotaCap)
//   datasets        /apis/arbiter.dev/v1alpha1/datasets, while served (where jobs' data lives:
//                   model/data_set.h)
//
// HasSynced() is true once every reflector has delivered its first complete LIST: no session may
// run before (ARCHITECTURE.md §3). An object that fails to decode is logged with its name and
// skipped; a failed request is logged and retried by the reflector with backoff; neither is ever
// fatal. `on_new_work` is called (on a reflector thread; it must be quick) when a pending pod of
// this scheduler or a PodGroup appears, so the session loop can run sooner than its period.
//
// Thread safety: Start and Stop from one thread; HasSynced and the counters from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/metrics/metrics.h"

namespace arbiter::k8s {
template <typename T>
struct ReflectorHandlers;  // k8s/reflector.h, kept out of this header (it pulls in simdjson)
}  // namespace arbiter::k8s

namespace arbiter::runtime {

struct InformerOptions {
  std::string scheduler_name = "arbiter";
  std::set<std::string> namespaces;  // empty: every namespace (for on_new_work only)
  std::function<void()> on_new_work = [] {};
  int page_size = 500;
};

class Informers {
 public:
  // `transport` and `cache` must outlive the informers.
  Informers(k8s::HttpTransport& transport, ClusterCache& cache, InformerOptions options);
  ~Informers();  // Stop()
  Informers(const Informers&) = delete;
  Informers& operator=(const Informers&) = delete;

  void Start();
  // Stops every reflector and joins its thread (each returns within about a second).
  void Stop();

  bool HasSynced() const;
  // The kinds that have not synced yet, e.g. "pods,queues" (for logs while waiting).
  std::string NotSynced() const;
  // Objects skipped and requests failed, over all kinds.
  std::uint64_t errors() const { return errors_.load(); }

  // Per kind: LISTs completed (the first included: more means re-lists) and watch streams
  // started (each after the first resumes or restarts one), for the metrics.
  std::vector<metrics::WatchCount> watch_counts() const;

 private:
  // One reflector, type-erased: its thread runs Run(); stop and synced go to the reflector.
  struct Watch {
    std::string kind;
    std::function<void()> run;
    std::function<void()> stop;
    std::function<bool()> synced;
    std::function<metrics::WatchCount()> counts;
    std::shared_ptr<void> reflector;  // owns the Reflector<T>
    std::thread thread;
  };

  template <typename T>
  void Add(std::string kind, std::string path, std::uint64_t seed, k8s::ReflectorHandlers<T> h,
           std::string label_selector = {}, bool optional = false);
  template <typename T>
  void AddPodGroups(std::string kind, std::uint64_t seed);
  void OnError(const std::string& kind, const Status& status);
  bool IsNewWorkPod(const Pod& pod) const;

  k8s::HttpTransport& transport_;
  ClusterCache& cache_;
  const InformerOptions options_;
  std::vector<Watch> watches_;
  std::atomic<std::uint64_t> errors_{0};
  bool started_ = false;
};

}  // namespace arbiter::runtime
