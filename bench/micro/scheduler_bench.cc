// One scheduling session, in process, on the upstream scheduler_perf shapes (ARCHITECTURE.md §7):
// nodes of 4 CPU / 32Gi / 110 pods, pending pods of 100m / 500Mi, all of them fitting. The
// cluster is fed to a ClusterCache as the watches would feed it and one Snapshot is taken, all
// outside the timed loop; every iteration then runs Scheduler::RunSession with
// DefaultSchedulerConfig() on that same snapshot (a session never mutates it), so every iteration
// makes the same decisions.
//
//   BM_Session/nodes:N/gangs:G/size:S/kinds:K
//       G groups of S pods (minMember S; S = 1: pods with no PodGroup) on N nodes. kinds:1, all
//       pods identical; kinds:G, each group (each single pod) asks for its own amount of memory
//       (500Mi plus g bytes), so pods of different groups share no filter or score result.
//       The targets, at 5,000 nodes: gangs:1000/size:10 in < 100 ms; gangs:10000/size:1
//       at >= 100,000 pods/s; gangs:1000/size:3 at <= 30 µs per gang.
//   BM_SessionFilterThreads/nodes:N/gangs:G/size:S/kinds:K/threads:T
//       BM_Session's shapes with filterThreads T (extra threads filtering one task's nodes): what
//       fanning the filter out pays on this machine, T = 0 being the baseline beside it.
//   BM_TakeSnapshot/...
//       ClusterCache::TakeSnapshot of the same cluster (not included in BM_Session) after a change
//       no job or node sees (a namespace's labels): every node, job and task copied over from the
//       previous snapshot, which is still held (before 7b217a3: all of them built again).
//   BM_SnapshotAfterChanges/nodes:N/gangs:G/changed:C/share:S
//       What a session's snapshot costs in a busy cluster: G gangs of 3 placed on N nodes; before
//       each snapshot C pods spread over the cluster change (untimed), each from bound to pending
//       or back, so C jobs and up to C nodes changed; the previous snapshot is held by nobody (as
//       between two sessions). share:1 carries the unchanged jobs and nodes over (the default),
//       share:0 builds them all, the baseline beside it. Freeing what the previous snapshot does
//       not pass on is timed.
//   BM_SessionPreempt/nodes:N/running:R/pending:P
//       Preemption's target shape (issue 13): N full nodes running R low-priority single pods (2
//       CPU each, two per node), and P pending high-priority gangs of 2 pods of 2 CPU that can
//       start only by preempting. A fresh Scheduler per iteration (untimed), since the scheduler
//       remembers what it evicted. Target: under 100 ms at 5,000 nodes, 10,000 running, 100
//       pending. Counter evictions: pods evicted in one session.
//   BM_NaiveScan/nodes:N/pods:P
//       The baseline of ARCHITECTURE.md §8 on the same nodes and pods: for every pod, filter (cpu,
//       memory, pods) and score (least allocated) every node, int64 structure of arrays.
//
// Counters: pods_per_s (pods placed per second); per_gang and per_node_pod are times in seconds,
// printed with SI prefixes (u = µs, n = ns): time / groups and time / (nodes x pods);
// filter_calls, the Filter + Score evaluations one session made (the others were cached).
// Figures and profile: docs/benchmarks.md, "Scheduling session".
//
//   build/bench/scheduler_bench --benchmark_min_time=1 --benchmark_repetitions=3
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/config.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/model/namespace.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;

// scheduler_perf's node and pod (ARCHITECTURE.md §7).
constexpr const char* kNodeCpu = "4";
constexpr const char* kNodeMemory = "32Gi";
constexpr const char* kNodePods = "110";
constexpr const char* kPodCpu = "100m";
constexpr const char* kPodMemory = "500Mi";

std::string Padded(std::int64_t i, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%0*lld", width, static_cast<long long>(i));
  return buffer;
}

// A cluster in a cache, the scheduler that runs on it and one snapshot of it. Built once per
// shape and kept for the whole run (building 5,000 nodes and 10,000 pods takes a while).
struct Workload {
  std::int64_t nodes = 0;
  std::int64_t gangs = 0;
  std::int64_t gang_size = 0;
  std::int64_t kinds = 1;
  std::int64_t pods() const { return gangs * gang_size; }

  Registry registry;
  std::unique_ptr<ClusterCache> cache;
  std::unique_ptr<Scheduler> scheduler;
  std::shared_ptr<const Snapshot> snapshot;
  std::int64_t generation_bumps = 0;
};

Workload& GetWorkload(const benchmark::State& state) {
  const std::int64_t nodes = state.range(0);
  const std::int64_t gangs = state.range(1);
  const std::int64_t gang_size = state.range(2);
  const std::int64_t kinds = state.range(3);
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  static std::map<Key, std::unique_ptr<Workload>> built;
  std::unique_ptr<Workload>& slot = built[Key{nodes, gangs, gang_size, kinds}];
  if (slot != nullptr) return *slot;
  slot = std::make_unique<Workload>();
  Workload& w = *slot;
  w.nodes = nodes;
  w.gangs = gangs;
  w.gang_size = gang_size;
  w.kinds = kinds;
  const std::int64_t pod_memory = testing::Canonical("memory", kPodMemory);
  RegisterBuiltinPlugins(w.registry);
  RegisterBuiltinActions(w.registry);
  auto scheduler = Scheduler::Create(DefaultSchedulerConfig(), w.registry);
  ARBITER_CHECK(scheduler.ok()) << scheduler.status();
  w.scheduler = std::move(*scheduler);
  w.cache = std::make_unique<ClusterCache>(CacheOptions());
  w.cache->UpsertQueue(MakeQueue("default"));
  for (std::int64_t n = 0; n < nodes; ++n) {
    w.cache->UpsertNode(
        MakeNode("node-" + Padded(n, 5)).Cpu(kNodeCpu).Memory(kNodeMemory).Pods(kNodePods).Build());
  }
  for (std::int64_t g = 0; g < gangs; ++g) {
    const std::string group = "job-" + Padded(g, 5);
    if (gang_size > 1) {
      w.cache->UpsertPodGroup(
          MakePodGroup(group).MinMember(static_cast<std::int32_t>(gang_size)).Created(g).Build());
    }
    for (std::int64_t i = 0; i < gang_size; ++i) {
      testing::PodBuilder pod = MakePod(group + "-" + Padded(i, 3));
      pod.Request("cpu", kPodCpu).Request("memory", std::to_string(pod_memory + g % kinds));
      pod.Created(g);
      if (gang_size > 1) pod.Group(group);
      w.cache->UpsertPod(pod.Build());
    }
  }
  w.snapshot = w.cache->TakeSnapshot(testing::TestEpoch());
  // Every pod fits: check once, outside any timing, that the session places them all.
  SessionResult first = w.scheduler->RunSession(*w.snapshot);
  ARBITER_CHECK(static_cast<std::int64_t>(first.binds.size()) == w.pods())
      << first.binds.size() << " of " << w.pods() << " placed";
  return w;
}

void SetSessionCounters(benchmark::State& state, const Workload& w, std::int64_t filtered) {
  using benchmark::Counter;
  const auto pods = static_cast<double>(w.pods());
  state.counters["pods_per_s"] = Counter(pods, Counter::kIsIterationInvariantRate);
  state.counters["per_gang"] =
      Counter(static_cast<double>(w.gangs), Counter::kIsIterationInvariantRate | Counter::kInvert);
  state.counters["per_node_pod"] = Counter(static_cast<double>(w.nodes) * pods,
                                           Counter::kIsIterationInvariantRate | Counter::kInvert);
  state.counters["filter_calls"] = static_cast<double>(filtered);
}

// One session on the prepared snapshot: the session's working state, every action, Finish()
// (binds, verdicts, PodGroup statuses) and freeing the result. The snapshot is not rebuilt.
void BM_Session(benchmark::State& state) {
  Workload& w = GetWorkload(state);
  std::int64_t filtered = 0;
  for (auto _ : state) {
    SessionResult result = w.scheduler->RunSession(*w.snapshot);
    filtered = result.stats.nodes_filtered;
    benchmark::DoNotOptimize(result);
  }
  SetSessionCounters(state, w, filtered);
}

void BM_SessionFilterThreads(benchmark::State& state) {
  Workload& w = GetWorkload(state);
  SchedulerConfig config = DefaultSchedulerConfig();
  config.filter_threads = static_cast<int>(state.range(4));
  auto scheduler = Scheduler::Create(config, w.registry);
  ARBITER_CHECK(scheduler.ok()) << scheduler.status();
  std::int64_t filtered = 0;
  for (auto _ : state) {
    SessionResult result = (*scheduler)->RunSession(*w.snapshot);
    filtered = result.stats.nodes_filtered;
    benchmark::DoNotOptimize(result);
  }
  SetSessionCounters(state, w, filtered);
}

// ClusterCache::TakeSnapshot of the same cluster after an unrelated namespace update (untimed),
// which moves the cache's generation but no job or node: everything is copied over from the
// previous snapshot, which is still held and freed outside the timing.
void BM_TakeSnapshot(benchmark::State& state) {
  Workload& w = GetWorkload(state);
  std::shared_ptr<const Snapshot> current = w.cache->TakeSnapshot(testing::TestEpoch());
  std::shared_ptr<const Snapshot> previous;
  for (auto _ : state) {
    state.PauseTiming();
    previous = current;  // frees the one before, untimed
    Namespace ns;
    ns.meta.name = "bench";
    ns.meta.labels["bump"] = std::to_string(++w.generation_bumps);
    w.cache->UpsertNamespace(ns);
    state.ResumeTiming();
    current = w.cache->TakeSnapshot(testing::TestEpoch());
    benchmark::DoNotOptimize(current.get());
  }
  ARBITER_CHECK(current != previous);
  ARBITER_CHECK(static_cast<std::int64_t>(current->tasks.size()) == w.pods());
  state.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(w.pods()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SnapshotAfterChanges(benchmark::State& state) {
  const std::int64_t nodes = state.range(0);
  const std::int64_t gangs = state.range(1);
  const std::int64_t changed = state.range(2);
  CacheOptions options;
  options.share_unchanged = state.range(3) != 0;
  // Whether a pod bound again goes to another node, as a new pod does (its node looked up anew),
  // rather than back to the node the cache remembers for it.
  const bool elsewhere = state.range(4) != 0;
  ClusterCache cache(options);
  cache.UpsertQueue(MakeQueue("default"));
  for (std::int64_t n = 0; n < nodes; ++n) {
    cache.UpsertNode(
        MakeNode("node-" + Padded(n, 5)).Cpu(kNodeCpu).Memory(kNodeMemory).Pods(kNodePods).Build());
  }
  // Every pod unbound and bound (on two nodes when `elsewhere`), so that a change costs no
  // building inside the loop.
  struct Versions {
    Pod pending;
    std::array<Pod, 2> bound;
  };
  std::vector<Versions> pods;
  pods.reserve(static_cast<std::size_t>(gangs * 3));
  for (std::int64_t g = 0; g < gangs; ++g) {
    const std::string group = "job-" + Padded(g, 5);
    cache.UpsertPodGroup(MakePodGroup(group).MinMember(3).Created(g).Build());
    for (std::int64_t i = 0; i < 3; ++i) {
      testing::PodBuilder pod = MakePod(group + "-" + Padded(i, 3));
      pod.Request("cpu", kPodCpu).Request("memory", kPodMemory).Created(g).Group(group);
      Pod pending = pod.Build();
      const std::int64_t n = g * 3 + i;
      Pod bound = pod.OnNode("node-" + Padded(n % nodes, 5)).Phase(PodPhase::kRunning).Build();
      Pod moved = elsewhere ? pod.OnNode("node-" + Padded((n + 1) % nodes, 5)).Build() : Pod(bound);
      cache.UpsertPod(bound);
      pods.push_back({std::move(pending), {std::move(bound), std::move(moved)}});
    }
  }
  std::shared_ptr<const Snapshot> snapshot = cache.TakeSnapshot(testing::TestEpoch());
  std::vector<bool> bound(pods.size(), true);
  std::vector<std::uint8_t> binds(pods.size(), 0);  // how often each was bound again
  std::size_t next = 0;
  // Spread over the cluster, as binds and finishes are (a prime stride).
  const std::size_t stride = 7919;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::int64_t c = 0; c < changed; ++c) {
      next = (next + stride) % pods.size();
      cache.UpsertPod(bound[next] ? pods[next].pending : pods[next].bound[++binds[next] % 2]);
      bound[next] = !bound[next];
    }
    snapshot.reset();
    state.ResumeTiming();
    snapshot = cache.TakeSnapshot(testing::TestEpoch());
    benchmark::DoNotOptimize(snapshot.get());
  }
  ARBITER_CHECK(static_cast<std::int64_t>(snapshot->tasks.size()) == gangs * 3);
  state.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(gangs * 3),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// Preemption on a full cluster (the shape in the header comment).
void BM_SessionPreempt(benchmark::State& state) {
  const std::int64_t nodes = state.range(0);
  const std::int64_t running = state.range(1);
  const std::int64_t pending = state.range(2);
  static std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>,
                  std::pair<std::unique_ptr<ClusterCache>, std::shared_ptr<const Snapshot>>>
      built;
  auto& [cache, snapshot] = built[{nodes, running, pending}];
  if (cache == nullptr) {
    cache = std::make_unique<ClusterCache>(CacheOptions());
    cache->UpsertQueue(MakeQueue("default"));
    cache->UpsertPriorityClass(testing::MakePriorityClass("high", 1000));
    for (std::int64_t n = 0; n < nodes; ++n) {
      cache->UpsertNode(MakeNode("node-" + Padded(n, 5))
                            .Cpu(kNodeCpu)
                            .Memory(kNodeMemory)
                            .Pods(kNodePods)
                            .Build());
    }
    for (std::int64_t i = 0; i < running; ++i) {
      cache->UpsertPod(MakePod("low-" + Padded(i, 5))
                           .Priority(10)
                           .Request("cpu", "2")
                           .Request("memory", kPodMemory)
                           .OnNode("node-" + Padded(i % nodes, 5))
                           .Created(i)
                           .Build());
    }
    for (std::int64_t g = 0; g < pending; ++g) {
      const std::string group = "high-" + Padded(g, 3);
      cache->UpsertPodGroup(MakePodGroup(group).MinMember(2).PriorityClass("high").Build());
      for (int i = 0; i < 2; ++i) {
        cache->UpsertPod(MakePod(group + "-" + std::to_string(i))
                             .Group(group)
                             .Request("cpu", "2")
                             .Request("memory", kPodMemory)
                             .Build());
      }
    }
    // After the last low-priority pod started, as for pods that run: each has run for a time of
    // its own (the victims' cost), none ahead of the scheduler's clock.
    snapshot = cache->TakeSnapshot(testing::TestEpoch() + std::chrono::seconds(running));
  }
  Registry registry;
  RegisterBuiltinPlugins(registry);
  RegisterBuiltinActions(registry);
  std::int64_t evictions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto scheduler = Scheduler::Create(DefaultSchedulerConfig(), registry);
    ARBITER_CHECK(scheduler.ok()) << scheduler.status();
    state.ResumeTiming();
    SessionResult result = (*scheduler)->RunSession(*snapshot);
    evictions = static_cast<std::int64_t>(result.evictions.size());
    benchmark::DoNotOptimize(result);
  }
  // Every pending gang preempts: one 2-CPU victim per pod of 2 CPU.
  ARBITER_CHECK(evictions == std::min(running, 2 * pending)) << evictions << " evictions";
  state.counters["evictions"] = static_cast<double>(evictions);
}

// The naive full scan of ARCHITECTURE.md §8, on the same nodes and pods: for each pod in turn,
// every node is filtered (cpu, memory and pod count fit) and scored (kube-scheduler's
// least-allocated: the mean over cpu and memory of (allocatable - requested) * 100 / allocatable,
// in int64), the best taken (first by index on a tie) and its free resources reduced. No gangs,
// no reasons, no equivalence classes. Resetting the free arrays (3 x nodes int64) is timed.
void BM_NaiveScan(benchmark::State& state) {
  const std::int64_t nodes = state.range(0);
  const std::int64_t pods = state.range(1);
  const std::int64_t node_cpu = testing::Canonical("cpu", kNodeCpu);
  const std::int64_t node_memory = testing::Canonical("memory", kNodeMemory);
  const std::int64_t node_pods = testing::Canonical("pods", kNodePods);
  const std::int64_t pod_cpu = testing::Canonical("cpu", kPodCpu);
  const std::int64_t pod_memory = testing::Canonical("memory", kPodMemory);
  const auto n = static_cast<std::size_t>(nodes);
  const std::vector<std::int64_t> alloc_cpu(n, node_cpu);
  const std::vector<std::int64_t> alloc_memory(n, node_memory);
  std::vector<std::int64_t> free_cpu(n);
  std::vector<std::int64_t> free_memory(n);
  std::vector<std::int64_t> free_pods(n);
  std::vector<std::int32_t> placement(static_cast<std::size_t>(pods));
  for (auto _ : state) {
    free_cpu.assign(n, node_cpu);
    free_memory.assign(n, node_memory);
    free_pods.assign(n, node_pods);
    for (std::int64_t p = 0; p < pods; ++p) {
      std::int64_t best_score = -1;
      std::int32_t best = -1;
      for (std::size_t i = 0; i < n; ++i) {
        if (free_cpu[i] < pod_cpu || free_memory[i] < pod_memory || free_pods[i] < 1) continue;
        const std::int64_t cpu_left = free_cpu[i] - pod_cpu;
        const std::int64_t memory_left = free_memory[i] - pod_memory;
        const std::int64_t score =
            (cpu_left * 100 / alloc_cpu[i] + memory_left * 100 / alloc_memory[i]) / 2;
        if (score > best_score) {
          best_score = score;
          best = static_cast<std::int32_t>(i);
        }
      }
      placement[static_cast<std::size_t>(p)] = best;
      if (best < 0) continue;
      const auto b = static_cast<std::size_t>(best);
      free_cpu[b] -= pod_cpu;
      free_memory[b] -= pod_memory;
      free_pods[b] -= 1;
    }
    benchmark::DoNotOptimize(placement.data());
    benchmark::ClobberMemory();
  }
  for (std::int32_t b : placement) ARBITER_CHECK(b >= 0);
  using benchmark::Counter;
  state.counters["pods_per_s"] =
      Counter(static_cast<double>(pods), Counter::kIsIterationInvariantRate);
  state.counters["per_node_pod"] = Counter(static_cast<double>(nodes * pods),
                                           Counter::kIsIterationInvariantRate | Counter::kInvert);
}

void SessionArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "gangs", "size", "kinds"});
  for (std::int64_t nodes : {1000, 5000, 10000}) {
    b->Args({nodes, 1000, 10, 1});  // 10,000 identical pods in gangs of 10
    b->Args({nodes, 10000, 1, 1});  // 10,000 identical single pods
    b->Args({nodes, 1000, 3, 1});   // 3,000 identical pods in gangs of 3
  }
}

// The same shapes, every gang (every single pod) with its own request.
void DistinctArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"nodes", "gangs", "size", "kinds"});
  for (std::int64_t nodes : {1000, 5000}) {
    b->Args({nodes, 1000, 10, 1000});
    b->Args({nodes, 10000, 1, 10000});
    b->Args({nodes, 1000, 3, 1000});
  }
}

BENCHMARK(BM_Session)->Apply(SessionArgs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Session)->Apply(DistinctArgs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionFilterThreads)
    ->ArgNames({"nodes", "gangs", "size", "kinds", "threads"})
    ->ArgsProduct({{5000}, {1000}, {3}, {1, 1000}, {0, 1}})
    ->ArgsProduct({{5000}, {10000}, {1}, {1, 10000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TakeSnapshot)->Apply(SessionArgs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SnapshotAfterChanges)
    ->ArgNames({"nodes", "gangs", "changed", "share", "elsewhere"})
    ->ArgsProduct({{1000}, {1000}, {30}, {0, 1}, {0, 1}})
    ->ArgsProduct({{10000}, {50000}, {300}, {0, 1}, {0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionPreempt)
    ->ArgNames({"nodes", "running", "pending"})
    ->Args({1000, 2000, 100})
    ->Args({5000, 10000, 100})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveScan)
    ->ArgNames({"nodes", "pods"})
    ->Args({1000, 10000})
    ->Args({1000, 3000})
    ->Args({5000, 10000})
    ->Args({5000, 3000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace arbiter
