// Metrics: what Arbiter's binaries expose at /metrics in the Prometheus text format (the list and
// what to alert on: docs/metrics.md). Built on prometheus-cpp's core (Debian's
// prometheus-cpp-dev): counters and histograms that the code updates as things happen live in its
// Registry; values that another part already keeps (the binder's counts, the reflectors' lists,
// the leader flag, the last session's pending jobs) are read at scrape time by collectors, so
// nothing is counted twice and a series that no longer exists (a deleted queue) disappears.
//
//   Metrics metrics;
//   ApiMetrics api(metrics);                       // TransportOptions::on_request = api.Hook()
//   metrics.AddCollector([&](Families& out) {
//     AddSample(AddFamily(out, "arbiter_leader", "1 while leading", kGauge), {}, leading ? 1 : 0);
//   });
//   std::string body = metrics.Scrape();           // the text exposition format 0.0.4
//
// Thread safety: every member may be called from any thread; collectors run on the scraping
// thread, under no lock of this class.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include "arbiter/k8s/http_transport.h"

namespace arbiter::metrics {

// A deque: a collector keeps references to the families it added while it adds more.
using Families = std::deque<prometheus::MetricFamily>;
using Collector = std::function<void(Families& out)>;
using Label = prometheus::ClientMetric::Label;

inline constexpr prometheus::MetricType kGauge = prometheus::MetricType::Gauge;
inline constexpr prometheus::MetricType kCounter = prometheus::MetricType::Counter;

class Metrics {
 public:
  Metrics();

  prometheus::Registry& registry() { return *registry_; }
  void AddCollector(Collector collector);
  // Every metric, the registry's then the collectors', in the text exposition format.
  std::string Scrape() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  mutable std::mutex mu_;
  std::vector<Collector> collectors_;
};

// For collectors: a new family at the end of `out` (references to earlier ones stay valid), and
// one sample of a family.
prometheus::MetricFamily& AddFamily(Families& out, std::string name, std::string help,
                                    prometheus::MetricType type);
void AddSample(prometheus::MetricFamily& family, std::vector<Label> labels, double value);

// What one watch (a reflector) has done: LISTs completed, watch streams started.
struct WatchCount {
  std::string kind;  // "pods", "queues", ...
  int lists = 0;
  int streams = 0;
};

// For collectors, the families both binaries expose: arbiter_watch_lists_total and
// arbiter_watch_streams_total per kind, and arbiter_leader (`role` says what leading means).
void AddWatchFamilies(Families& out, const std::vector<WatchCount>& watches);
void AddLeaderFamily(Families& out, bool leading, std::string_view role);

// Histogram buckets for durations, in seconds: 100 µs to 52 s, doubling.
prometheus::Histogram::BucketBoundaries DurationBuckets();

// API requests by verb (GET, POST, PUT, PATCH, DELETE) and HTTP code ("error" when no response
// came: a connection that failed or timed out), each attempt of a retried request counted; their
// latency by verb. Watch streams are not requests here (the reflectors' metrics count them).
class ApiMetrics {
 public:
  explicit ApiMetrics(Metrics& metrics);
  // For TransportOptions::on_request.
  std::function<void(const k8s::RequestRecord&)> Hook();
  void Observe(const k8s::RequestRecord& record);

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  std::mutex mu_;
  std::map<std::pair<std::string, long>, prometheus::Counter*>  // NOLINT(google-runtime-int)
      counters_;
  std::map<std::string, prometheus::Histogram*, std::less<>> histograms_;
};

// arbiter_build_info{binary, version, revision} 1.
void AddBuildInfo(Metrics& metrics, std::string_view binary);

}  // namespace arbiter::metrics
