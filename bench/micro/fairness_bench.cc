// Fair share at scale, in process (the queues issue's benchmark): deserved shares of 100 queues by
// water-filling, and the order of 10,000 jobs in 100 queues as a session sees it (proportion +
// drf plugins at session open, then the jobs of each queue sorted and the queues ordered). (The
// incremental DRF sorter and its re-sort baseline were removed with the sorter: the drf plugin
// keeps per-job shares in place, an O(resources) update per placement.)
//
//   BM_ComputeDeserved/queues:Q          fairness::ComputeDeserved, Q queues (10 parents of Q/10
//                                        children when Q >= 10), 4 resources
//   BM_SessionOrder/jobs:J/queues:Q      Session open (proportion and drf compute shares) plus
//                                        sorting J pending single-pod jobs by JobBefore within
//                                        their queue and ordering the Q queues by QueueBefore
//
// Target (issue 6): shares and ordering of 10,000 jobs in 100 queues under 10 ms.
//
//   build/bench/fairness_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/fairness/water_filling.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/framework/session.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

ResourceVector Vec(std::int64_t cpu, std::int64_t memory) {
  ResourceVector v(4);
  v.Set(kCpuId, cpu);
  v.Set(kMemoryId, memory);
  return v;
}

void BM_ComputeDeserved(benchmark::State& state) {
  const auto queues = static_cast<int>(state.range(0));
  std::mt19937_64 rng(1);
  std::vector<fairness::QueueDemand> demands;
  const int parents = queues >= 10 ? 10 : 0;
  for (int p = 0; p < parents; ++p) {
    demands.push_back({"parent-" + std::to_string(p), -1, 1 + p % 3, Vec(0, 0), {}, {}});
  }
  for (int q = parents; q < queues; ++q) {
    fairness::QueueDemand d;
    d.name = "q-" + std::to_string(q);
    d.parent = parents > 0 ? q % parents : -1;
    d.weight = 1 + static_cast<std::int64_t>(rng() % 5);
    d.request = Vec(static_cast<std::int64_t>(rng() % 200'000),
                    static_cast<std::int64_t>(rng() % (std::int64_t{1} << 40)));
    demands.push_back(std::move(d));
  }
  const ResourceVector total = Vec(5'000 * 4'000, std::int64_t{5'000} * (std::int64_t{32} << 30));
  for (auto _ : state) {
    benchmark::DoNotOptimize(fairness::ComputeDeserved(demands, total, 4));
  }
}
BENCHMARK(BM_ComputeDeserved)
    ->ArgName("queues")
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMicrosecond);

// A cluster of 1,000 nodes with `jobs` pending single-pod PodGroups spread over `queues` queues.
struct Fixture {
  Registry registry;
  std::unique_ptr<Scheduler> scheduler;
  std::shared_ptr<const Snapshot> snapshot;

  Fixture(int jobs, int queues) {
    RegisterBuiltinPlugins(registry);
    RegisterBuiltinActions(registry);
    auto created = Scheduler::Create(DefaultSchedulerConfig(), registry);
    ARBITER_CHECK(created.ok()) << created.status();
    scheduler = std::move(*created);
    ClusterCache cache{CacheOptions()};
    for (int n = 0; n < 1000; ++n) {
      cache.UpsertNode(testing::MakeNode("n" + std::to_string(n)).Cpu("4").Memory("32Gi").Build());
    }
    for (int q = 0; q < queues; ++q) {
      cache.UpsertQueue(testing::MakeQueue("q" + std::to_string(q), 1 + q % 4));
    }
    for (int j = 0; j < jobs; ++j) {
      const std::string name = "j" + std::to_string(j);
      const std::string queue = "q" + std::to_string(j % queues);
      cache.UpsertPodGroup(testing::MakePodGroup(name)
                               .Queue(queue)
                               .MinMember(1)
                               .Phase(PodGroupPhase::kInqueue)
                               .Created(j)
                               .Build());
      cache.UpsertPod(testing::MakePod(name)
                          .Group(name)
                          .Request("cpu", "100m")
                          .Request("memory", "500Mi")
                          .Created(j)
                          .Build());
    }
    snapshot = cache.TakeSnapshot(testing::TestEpoch());
  }
};

void BM_SessionOrder(benchmark::State& state) {
  const auto jobs = static_cast<int>(state.range(0));
  const auto queues = static_cast<int>(state.range(1));
  Fixture fixture(jobs, queues);
  for (auto _ : state) {
    Session session(*fixture.snapshot, fixture.scheduler->plugins(), testing::TestEpoch());
    std::vector<std::vector<JobIndex>> by_queue(static_cast<std::size_t>(queues));
    for (JobIndex j : JobIndex::Range(session.job_count())) {
      by_queue[(session.job(j).queue_index).pos()].push_back(j);
    }
    for (auto& q : by_queue) {
      std::sort(q.begin(), q.end(),
                [&](JobIndex a, JobIndex b) { return session.JobBefore(a, b); });
    }
    std::vector<QueueIndex> order;
    order.reserve(static_cast<std::size_t>(queues));
    for (QueueIndex q : QueueIndex::Range(queues)) order.push_back(q);
    std::sort(order.begin(), order.end(),
              [&](QueueIndex a, QueueIndex b) { return session.QueueBefore(a, b); });
    benchmark::DoNotOptimize(order.data());
  }
}
BENCHMARK(BM_SessionOrder)
    ->ArgNames({"jobs", "queues"})
    ->Args({10'000, 100})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace arbiter
