// Decoding a PodList as a re-list returns it: ARCHITECTURE.md §8 sets the bar (simdjson on-demand
// at about 1 GB/s on this kind of machine). The JSON is generated here: N realistic pods of about
// 2 KB each (labels, annotations, two containers with requests and limits, tolerations, a required
// node affinity, status conditions), shaped as kube-apiserver writes them.
//
//   build/bench/decode_bench --benchmark_min_time=1
//
// With ARBITER_CAPTURED_PODLIST=<file> (written by bench/capture-podlist.sh from the real local
// API server), BM_DecodeCapturedPodList/50000 decodes that capture's pods, repeated verbatim to
// 50,000 items: what the API server really sends, managedFields included.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include "arbiter/base/check.h"
#include "arbiter/k8s/decode.h"

namespace arbiter::k8s {
namespace {

std::string PodJson(int i) {
  std::string n = std::to_string(i);
  std::string group = std::to_string(i / 8);
  std::string cpu = std::to_string(100 + (i % 8) * 50) + "m";
  std::string mem = std::to_string(128 + (i % 4) * 128) + "Mi";
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"job-)" + group + "-worker-" + n +
         R"(","namespace":"team-)" + std::to_string(i % 20) +
         R"(","uid":"5b8e0c3a-1f2d-4c6e-9a7b-)" + std::to_string(100000000000 + i) +
         R"(","resourceVersion":")" + std::to_string(1000000 + i) +
         R"(","creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app.kubernetes.io/name":"trainer","app.kubernetes.io/instance":"job-)" +
         group + R"(","arbiter.dev/pod-group":"job-)" + group +
         R"(","arbiter.dev/task":"worker","batch.kubernetes.io/job-completion-index":")" + n +
         R"("},"annotations":{"scheduling.k8s.io/group-name":"job-)" + group +
         R"(","kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"worker\"}}","prometheus.io/scrape":"true"},"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"job-)" +
         group +
         R"(","uid":"0a1b2c3d-4e5f-6789-abcd-ef0123456789","controller":true,"blockOwnerDeletion":true}]},"spec":{"volumes":[{"name":"kube-api-access","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}],"defaultMode":420}}],"containers":[{"name":"worker","image":"registry.example.com/ml/trainer:2.3.1","command":["python","-m","trainer"],"args":["--epochs=10","--batch-size=256"],"ports":[{"name":"metrics","containerPort":9090,"protocol":"TCP"}],"env":[{"name":"RANK","value":")" +
         n +
         R"("},{"name":"WORLD_SIZE","value":"8"}],"resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":")" +
         cpu +
         R"(","memory":")" + mem + R"("}},"volumeMounts":[{"name":"kube-api-access","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"},{"name":"log-shipper","image":"registry.example.com/infra/fluent-bit:3.0","resources":{"limits":{"cpu":"200m","memory":"128Mi"},"requests":{"cpu":"50m","memory":"64Mi"}},"imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","schedulerName":"arbiter","priority":)" + std::to_string(i % 3 * 100) + R"(,"priorityClassName":"batch-normal","nodeSelector":{"kubernetes.io/os":"linux"},"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["m5.2xlarge","m5.4xlarge"]},{"key":"topology.kubernetes.io/zone","operator":"NotIn","values":["us-east-1e"]}]}]}}},"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,"lastTransitionTime":"2024-05-01T10:00:01Z","reason":"Unschedulable","message":"0/5000 nodes are available: 5000 Insufficient cpu."}],"qosClass":"Burstable"}})";
}

std::string PodListJson(int count) {
  std::string json =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"2000000"},"items":[)";
  for (int i = 0; i < count; ++i) {
    if (i > 0) json += ',';
    json += PodJson(i);
  }
  json += "]}";
  return json;
}

void DecodePodList(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const simdjson::padded_string json(PodListJson(count));
  simdjson::ondemand::parser parser;
  state.SetLabel(std::string(DecodeKernelName(ActiveDecodeKernel())));
  for (auto _ : state) {
    StatusOr<ObjectList<Pod>> list = DecodeList<Pod>(parser, json);
    ARBITER_CHECK(list.ok() && list->items.size() == static_cast<std::size_t>(count) &&
                  list->errors.empty())
        << list.status();
    benchmark::DoNotOptimize(list);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
  state.counters["bytes_per_pod"] = static_cast<double>(json.size()) / count;
}

// With the readers this CPU gets (decode.h DecodeKernel; the label says which).
void BM_DecodePodList(benchmark::State& state) { DecodePodList(state); }
BENCHMARK(BM_DecodePodList)->Arg(1000)->Arg(50000)->Unit(benchmark::kMillisecond);

// The same with the portable build of the readers: the baseline for the AVX2 build, in the same
// process.
void BM_DecodePodListPortable(benchmark::State& state) {
  const DecodeKernel before = ActiveDecodeKernel();
  ARBITER_CHECK(SetDecodeKernel(DecodeKernel::kPortable));
  DecodePodList(state);
  SetDecodeKernel(before);
}
BENCHMARK(BM_DecodePodListPortable)->Arg(1000)->Arg(50000)->Unit(benchmark::kMillisecond);

// The same, with the previous list freed outside the timed region (BM_DecodePodList pays for
// destroying the last result too, as a reflector replacing its cache would). glibc defers part
// of that cost (fastbin consolidation) to the next large allocation, so some of it remains.
void BM_DecodePodListExcludingFree(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const simdjson::padded_string json(PodListJson(count));
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    StatusOr<ObjectList<Pod>> list = DecodeList<Pod>(parser, json);
    ARBITER_CHECK(list.ok() && list->items.size() == static_cast<std::size_t>(count));
    state.PauseTiming();
    { StatusOr<ObjectList<Pod>> discard = std::move(list); }
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
}
BENCHMARK(BM_DecodePodListExcludingFree)->Arg(1000)->Arg(50000)->Unit(benchmark::kMillisecond);

// The floor: simdjson walking the same document without building anything (every item's
// metadata.name read, so that the whole input is scanned).
void BM_ScanPodListOnly(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const simdjson::padded_string json(PodListJson(count));
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    simdjson::ondemand::document doc = parser.iterate(json);
    std::size_t names = 0;
    for (auto item : doc["items"]) {
      std::string_view name = item["metadata"]["name"].get_string().value();
      names += name.size();
    }
    benchmark::DoNotOptimize(names);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
}
BENCHMARK(BM_ScanPodListOnly)->Arg(1000)->Arg(50000)->Unit(benchmark::kMillisecond);

// The captured list's items, repeated in order until there are `count`, as one PodList.
std::string RepeatCapturedItems(const std::string& path, int count) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  simdjson::padded_string json(text.str());
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc = parser.iterate(json);
  std::vector<std::string> items;
  for (auto item : doc["items"].get_array()) {
    std::string_view raw;
    ARBITER_CHECK(simdjson::to_json_string(item).get(raw) == simdjson::SUCCESS)
        << "bad item in " << path;
    items.emplace_back(raw);
  }
  ARBITER_CHECK(!items.empty()) << "no items in " << path;
  std::string out =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)";
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    out += items[static_cast<std::size_t>(i) % items.size()];
  }
  out += "]}";
  return out;
}

void BM_DecodeCapturedPodList(benchmark::State& state, const std::string& path) {
  auto count = static_cast<int>(state.range(0));
  simdjson::padded_string json(RepeatCapturedItems(path, count));
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    StatusOr<ObjectList<Pod>> list = DecodeList<Pod>(parser, json);
    ARBITER_CHECK(list.ok() && list->items.size() == static_cast<std::size_t>(count))
        << list.status();
    benchmark::DoNotOptimize(list);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
  state.counters["bytes_per_pod"] = static_cast<double>(json.size()) / count;
}

// Registered only when a capture is given, so the benchmark runs anywhere without one.
const bool kCapturedRegistered = [] {
  const char* path = std::getenv("ARBITER_CAPTURED_PODLIST");
  if (path == nullptr || *path == '\0') return false;
  benchmark::RegisterBenchmark("BM_DecodeCapturedPodList", BM_DecodeCapturedPodList,
                               std::string(path))
      ->Arg(50000)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace arbiter::k8s
