// What the metrics add to a session (issue 16), beside the session they describe, in one process:
// a cluster of 1,000 nodes x 4 CPU, `queues` queues, and 20,000 single-pod jobs of 1 CPU, so that
// 4,000 are placed and 16,000 stay pending (every pending job is counted by queue and gate).
//
//   BM_Session/queues:Q        Scheduler::RunSession on the snapshot (the default configuration):
//                              the baseline
//   BM_ObserveSession/queues:Q SchedulerMetrics::ObserveSession on that session's result: the
//                              histograms, counters and the gauges of every queue
//   BM_Scrape/queues:Q         Metrics::Scrape after it: the text exposition a Prometheus reads
//
//   build/bench/metrics_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/metrics/metrics.h"
#include "arbiter/metrics/scheduler_metrics.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

constexpr int kJobs = 20'000;

struct Fixture {
  Registry registry;
  std::unique_ptr<Scheduler> scheduler;
  std::shared_ptr<const Snapshot> snapshot;

  explicit Fixture(int queues) {
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
    for (int j = 0; j < kJobs; ++j) {
      const std::string name = "j" + std::to_string(j);
      cache.UpsertPodGroup(testing::MakePodGroup(name)
                               .Queue("q" + std::to_string(j % queues))
                               .MinMember(1)
                               .Created(j)
                               .Build());
      cache.UpsertPod(testing::MakePod(name)
                          .Group(name)
                          .Request("cpu", "1")
                          .Request("memory", "1Gi")
                          .Created(j)
                          .Build());
    }
    snapshot = cache.TakeSnapshot(testing::TestEpoch());
  }
};

void BM_Session(benchmark::State& state) {
  Fixture fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        fixture.scheduler->RunSession(*fixture.snapshot, testing::TestEpoch()));
  }
}
BENCHMARK(BM_Session)->ArgName("queues")->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

void BM_ObserveSession(benchmark::State& state) {
  Fixture fixture(static_cast<int>(state.range(0)));
  const SessionResult result =
      fixture.scheduler->RunSession(*fixture.snapshot, testing::TestEpoch());
  metrics::Metrics registry;
  metrics::SchedulerMetrics observer(registry);
  for (auto _ : state) {
    observer.ObserveSession(*fixture.snapshot, result, {});
  }
  state.counters["pending_series"] = static_cast<double>(result.stats.pending_jobs.size());
}
BENCHMARK(BM_ObserveSession)->ArgName("queues")->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond);

void BM_Scrape(benchmark::State& state) {
  Fixture fixture(static_cast<int>(state.range(0)));
  const SessionResult result =
      fixture.scheduler->RunSession(*fixture.snapshot, testing::TestEpoch());
  metrics::Metrics registry;
  metrics::SchedulerMetrics observer(registry);
  observer.ObserveSession(*fixture.snapshot, result, {});
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = registry.Scrape();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Scrape)->ArgName("queues")->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace arbiter
