// The resource arithmetic every decode and every fit check pays: Quantity::Parse on the forms
// pod specs use, and ResourceList Add and FitsIn on lists of 3 resources (cpu, memory, pods) and
// 6 (plus ephemeral-storage, hugepages-2Mi, nvidia.com/gpu). Figures: docs/benchmarks.md.
//
//   build/bench/quantity_bench --benchmark_min_time=1 --benchmark_repetitions=3
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <benchmark/benchmark.h>

#include "arbiter/base/check.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter {
namespace {

// The mix of a typical pod spec: millicores, binary and decimal suffixes, plain and fractional.
constexpr std::array<std::string_view, 6> kTypicalQuantities = {"500m", "1Gi",   "2",
                                                                "1.5",  "100Mi", "0.25"};

// One iteration parses all six, so items/s counts single parses.
void BM_QuantityParseMix(benchmark::State& state) {
  for (auto _ : state) {
    for (std::string_view text : kTypicalQuantities) {
      StatusOr<Quantity> q = Quantity::Parse(text);
      benchmark::DoNotOptimize(q);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kTypicalQuantities.size()));
}
BENCHMARK(BM_QuantityParseMix);

// Each on its own, to show which forms cost more.
void BM_QuantityParse(benchmark::State& state) {
  const std::string_view text = kTypicalQuantities.at(static_cast<std::size_t>(state.range(0)));
  state.SetLabel(std::string(text));
  for (auto _ : state) {
    StatusOr<Quantity> q = Quantity::Parse(text);
    benchmark::DoNotOptimize(q);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_QuantityParse)->DenseRange(0, kTypicalQuantities.size() - 1);

// A pod's request and a node's free resources with `state.range(0)` resources (3 or 6).
ResourceList Request(std::int64_t resources) {
  if (resources == 3) return {{"cpu", 500}, {"memory", 1LL << 30}, {"pods", 1}};
  return {{"cpu", 500},          {"ephemeral-storage", 1LL << 30},
          {"hugepages-2Mi", 0},  {"memory", 1LL << 30},
          {"nvidia.com/gpu", 1}, {"pods", 1}};
}

ResourceList NodeFree(std::int64_t resources) {
  if (resources == 3) return {{"cpu", 32000}, {"memory", 128LL << 30}, {"pods", 110}};
  return {{"cpu", 32000},        {"ephemeral-storage", 500LL << 30},
          {"hugepages-2Mi", 0},  {"memory", 128LL << 30},
          {"nvidia.com/gpu", 8}, {"pods", 110}};
}

// Adding a pod's request to a running total with the same resources (a node's or a queue's
// allocation): the steady state, no entry is inserted. The total is reset every 2^20 additions so
// that it never overflows; the reset is outside the timed region.
void BM_ResourceListAdd(benchmark::State& state) {
  const ResourceList request = Request(state.range(0));
  ResourceList total = Request(state.range(0));
  std::int64_t added = 0;
  for (auto _ : state) {
    Status status = total.Add(request);
    benchmark::DoNotOptimize(status);
    if (++added == (1 << 20)) {
      state.PauseTiming();
      total = Request(state.range(0));
      added = 0;
      state.ResumeTiming();
    }
  }
  ARBITER_CHECK(total.Has("cpu"));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ResourceListAdd)->Arg(3)->Arg(6);

// Whether a pod's request fits a node's free resources: the predicate run for every node in a
// scheduling cycle. It fits, so every resource is compared.
void BM_ResourceListFitsIn(benchmark::State& state) {
  const ResourceList request = Request(state.range(0));
  const ResourceList free = NodeFree(state.range(0));
  for (auto _ : state) {
    bool fits = request.FitsIn(free);
    benchmark::DoNotOptimize(fits);
  }
  ARBITER_CHECK(request.FitsIn(free));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ResourceListFitsIn)->Arg(3)->Arg(6);

}  // namespace
}  // namespace arbiter
