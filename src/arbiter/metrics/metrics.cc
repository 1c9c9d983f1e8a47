#include "arbiter/metrics/metrics.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

#include "arbiter/base/version.h"

namespace arbiter::metrics {

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {}

void Metrics::AddCollector(Collector collector) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(collector));
}

std::string Metrics::Scrape() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  std::vector<Collector> collectors;
  {
    std::lock_guard lock(mu_);
    collectors = collectors_;
  }
  for (const Collector& collect : collectors) {
    Families out;
    collect(out);
    std::move(out.begin(), out.end(), std::back_inserter(families));
  }
  return prometheus::TextSerializer().Serialize(families);
}

prometheus::MetricFamily& AddFamily(Families& out, std::string name, std::string help,
                                    prometheus::MetricType type) {
  prometheus::MetricFamily& family = out.emplace_back();
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

void AddSample(prometheus::MetricFamily& family, std::vector<Label> labels, double value) {
  prometheus::ClientMetric& sample = family.metric.emplace_back();
  sample.label = std::move(labels);
  if (family.type == prometheus::MetricType::Counter) {
    sample.counter.value = value;
  } else {
    sample.gauge.value = value;
  }
}

void AddWatchFamilies(Families& out, const std::vector<WatchCount>& watches) {
  prometheus::MetricFamily& lists = AddFamily(
      out, "arbiter_watch_lists_total",
      "LISTs completed per watched kind; beyond the first, each is a re-list (the watch fell "
      "too far behind, or the API server expired its resourceVersion)",
      kCounter);
  prometheus::MetricFamily& streams =
      AddFamily(out, "arbiter_watch_streams_total",
                "Watch streams started per watched kind; beyond the first, each resumed or "
                "restarted a watch that ended",
                kCounter);
  for (const WatchCount& w : watches) {
    AddSample(lists, {{"kind", w.kind}}, w.lists);
    AddSample(streams, {{"kind", w.kind}}, w.streams);
  }
}

void AddLeaderFamily(Families& out, bool leading, std::string_view role) {
  AddSample(
      AddFamily(out, "arbiter_leader",
                "1 while this replica leads (" + std::string(role) + "), 0 while it stands by",
                kGauge),
      {}, leading ? 1 : 0);
}

prometheus::Histogram::BucketBoundaries DurationBuckets() {
  prometheus::Histogram::BucketBoundaries buckets;
  for (double b = 0.0001; b < 60; b *= 2) buckets.push_back(b);
  return buckets;
}

ApiMetrics::ApiMetrics(Metrics& metrics)
    : requests_(prometheus::BuildCounter()
                    .Name("arbiter_api_requests_total")
                    .Help("Requests to the Kubernetes API server, by verb and HTTP code (each "
                          "attempt of a retried request; code \"error\": no response)")
                    .Register(metrics.registry())),
      latency_(prometheus::BuildHistogram()
                   .Name("arbiter_api_request_duration_seconds")
                   .Help("Latency of requests to the Kubernetes API server, by verb")
                   .Register(metrics.registry())) {}

std::function<void(const k8s::RequestRecord&)> ApiMetrics::Hook() {
  return [this](const k8s::RequestRecord& record) { Observe(record); };
}

void ApiMetrics::Observe(const k8s::RequestRecord& record) {
  prometheus::Counter* counter = nullptr;
  prometheus::Histogram* histogram = nullptr;
  {
    // Family::Add hashes the labels under the family's lock; a map of what was added is cheaper
    // for the few verbs and codes there are.
    std::lock_guard lock(mu_);
    auto key = std::make_pair(std::string(record.method), record.status);
    auto c = counters_.find(key);
    if (c == counters_.end()) {
      const std::string code = record.status == 0 ? "error" : std::to_string(record.status);
      c = counters_.emplace(key, &requests_.Add({{"verb", key.first}, {"code", code}})).first;
    }
    counter = c->second;
    auto h = histograms_.find(record.method);
    if (h == histograms_.end()) {
      h = histograms_
              .emplace(std::string(record.method),
                       &latency_.Add({{"verb", std::string(record.method)}}, DurationBuckets()))
              .first;
    }
    histogram = h->second;
  }
  counter->Increment();
  histogram->Observe(std::chrono::duration<double>(record.duration).count());
}

void AddBuildInfo(Metrics& metrics, std::string_view binary) {
  prometheus::BuildGauge()
      .Name("arbiter_build_info")
      .Help("1, labelled with the binary, its version and the git commit it was built from")
      .Register(metrics.registry())
      .Add({{"binary", std::string(binary)},
            {"version", std::string(Version())},
            {"revision", std::string(Revision())}})
      .Set(1);
}

}  // namespace arbiter::metrics
