// The API server's protobuf encoding of a PodList against its JSON (issue 19, Deliver 3: measure
// it as an option). Parses a LIST response captured by bench/capture-podlist.sh
// (_output/bench/podlist.pb) with the C++ code protoc generates from k8s.io/api's own .proto
// files; bench/proto/run.sh builds it and runs decode_bench's JSON case beside it.
//
// The capture's items are repeated to 50,000, as decode_bench does with the JSON capture: a
// protobuf message's repeated field concatenates, so the PodList body written N times is one
// list of N times the items (its ListMeta merged, the same each time).
//
// What is timed is protobuf's parse alone, into its generated classes: building Arbiter's model
// from them (a Pod, its ResourceLists...) would come on top. Two cases: an arena per list (one
// block freed at once, as a re-list's objects could be), and the default heap allocation.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "k8s.io/api/core/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb.h"
#include <benchmark/benchmark.h>
#include <google/protobuf/arena.h>

namespace {

using PodList = k8s::io::api::core::v1::PodList;

// The API server's protobuf responses start with these four bytes, then a runtime.Unknown that
// wraps the object's own encoding.
constexpr std::string_view kMagic{"k8s\0", 4};

struct Input {
  std::string list;  // a PodList body of `pods` items
  int pods = 0;
};

Input Load(const std::string& path, int want) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string data = text.str();
  if (data.size() < kMagic.size() || std::string_view(data).substr(0, 4) != kMagic) {
    std::cerr << path << ": not a Kubernetes protobuf response (no k8s\\0 prefix)\n";
    std::exit(2);
  }
  k8s::io::apimachinery::pkg::runtime::Unknown envelope;
  PodList one;
  if (!envelope.ParseFromArray(data.data() + 4, static_cast<int>(data.size() - 4)) ||
      !one.ParseFromString(envelope.raw()) || one.items_size() == 0) {
    std::cerr << path << ": not a PodList with items\n";
    std::exit(2);
  }
  Input input;
  const int copies = (want + one.items_size() - 1) / one.items_size();
  for (int i = 0; i < copies; ++i) input.list += envelope.raw();
  input.pods = copies * one.items_size();
  return input;
}

const Input& Captured() {
  static const Input input = [] {
    const char* path = std::getenv("ARBITER_CAPTURED_PODLIST_PB");
    if (path == nullptr || *path == '\0') {
      std::cerr << "set ARBITER_CAPTURED_PODLIST_PB to a capture (bench/capture-podlist.sh)\n";
      std::exit(2);
    }
    return Load(path, 50000);
  }();
  return input;
}

void Report(benchmark::State& state, const Input& input) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(input.list.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * input.pods);
  state.counters["bytes_per_pod"] = static_cast<double>(input.list.size()) / input.pods;
  state.counters["pods"] = input.pods;
}

void BM_ParseCapturedPodListProtobufArena(benchmark::State& state) {
  const Input& input = Captured();
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* list = google::protobuf::Arena::CreateMessage<PodList>(&arena);
    if (!list->ParseFromString(input.list) || list->items_size() != input.pods) {
      state.SkipWithError("parse failed");
      return;
    }
    benchmark::DoNotOptimize(list);
  }
  Report(state, input);
}
BENCHMARK(BM_ParseCapturedPodListProtobufArena)->Unit(benchmark::kMillisecond);

void BM_ParseCapturedPodListProtobufHeap(benchmark::State& state) {
  const Input& input = Captured();
  for (auto _ : state) {
    PodList list;
    if (!list.ParseFromString(input.list) || list.items_size() != input.pods) {
      state.SkipWithError("parse failed");
      return;
    }
    benchmark::DoNotOptimize(list);
  }
  Report(state, input);
}
BENCHMARK(BM_ParseCapturedPodListProtobufHeap)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
