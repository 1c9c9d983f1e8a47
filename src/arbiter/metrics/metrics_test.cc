#include "arbiter/metrics/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/k8s/http_transport.h"
#include "arbiter/metrics/endpoint_server.h"

namespace arbiter::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, ScrapeHasTheRegistrysAndTheCollectorsFamilies) {
  Metrics metrics;
  prometheus::BuildCounter()
      .Name("arbiter_test_total")
      .Help("a counter")
      .Register(metrics.registry())
      .Add({{"k", "v"}})
      .Increment(3);
  int value = 1;
  metrics.AddCollector([&value](Families& out) {
    AddSample(AddFamily(out, "arbiter_test_gauge", "a gauge read at scrape time", kGauge),
              {{"queue", "q"}}, value);
  });
  std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("# TYPE arbiter_test_total counter\narbiter_test_total{k=\"v\"} 3"));
  EXPECT_THAT(text, HasSubstr("# HELP arbiter_test_gauge a gauge read at scrape time\n"));
  EXPECT_THAT(text, HasSubstr("arbiter_test_gauge{queue=\"q\"} 1\n"));
  value = 7;  // read again at the next scrape
  EXPECT_THAT(metrics.Scrape(), HasSubstr("arbiter_test_gauge{queue=\"q\"} 7\n"));
}

TEST(MetricsTest, ApiRequestsAreCountedByVerbAndCode) {
  Metrics metrics;
  ApiMetrics api(metrics);
  const auto hook = api.Hook();
  hook({"GET", 200, std::chrono::milliseconds(3)});
  hook({"GET", 200, std::chrono::milliseconds(5)});
  hook({"POST", 409, std::chrono::milliseconds(1)});
  hook({"PATCH", 0, std::chrono::seconds(30)});  // no answer
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("arbiter_api_requests_total{code=\"200\",verb=\"GET\"} 2"));
  EXPECT_THAT(text, HasSubstr("arbiter_api_requests_total{code=\"409\",verb=\"POST\"} 1"));
  EXPECT_THAT(text, HasSubstr("arbiter_api_requests_total{code=\"error\",verb=\"PATCH\"} 1"));
  EXPECT_THAT(text, HasSubstr("arbiter_api_request_duration_seconds_count{verb=\"GET\"} 2"));
  EXPECT_THAT(text, HasSubstr("arbiter_api_request_duration_seconds_sum{verb=\"GET\"} 0.008"));
}

TEST(MetricsTest, BuildInfoNamesTheBinaryAndVersion) {
  Metrics metrics;
  AddBuildInfo(metrics, "arbiter-scheduler");
  EXPECT_THAT(metrics.Scrape(),
              HasSubstr("arbiter_build_info{binary=\"arbiter-scheduler\",revision=\""));
}

TEST(ParseBindAddressTest, HostAndPort) {
  EXPECT_EQ(*ParseBindAddress("--f", "127.0.0.1:8080"),
            std::make_pair(std::string("127.0.0.1"), 8080));
  EXPECT_EQ(*ParseBindAddress("--f", ":8080"), std::make_pair(std::string("0.0.0.0"), 8080));
  EXPECT_EQ(*ParseBindAddress("--f", "8080"), std::make_pair(std::string("0.0.0.0"), 8080));
  EXPECT_EQ(*ParseBindAddress("--f", "[::1]:0"), std::make_pair(std::string("::1"), 0));
  for (const char* bad : {"", "host:", "host:x", "host:70000", "host:-1"}) {
    StatusOr<std::pair<std::string, int>> r = ParseBindAddress("--metrics-bind-address", bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("--metrics-bind-address: \"" + std::string(bad)));
  }
}

TEST(EndpointServerTest, ServesMetricsAndProbes) {
  Metrics metrics;
  AddBuildInfo(metrics, "test");
  bool live = true;
  std::optional<std::string> waiting = "watches not synced: pods";
  EndpointServer server({.metrics = [&metrics] { return metrics.Scrape(); },
                         .live = [&live] { return live; },
                         .ready = [&waiting] { return waiting; }});
  StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  k8s::TransportOptions options;
  options.server = "http://127.0.0.1:" + std::to_string(*port);
  options.max_attempts = 1;
  StatusOr<std::unique_ptr<k8s::HttpTransport>> client = k8s::HttpTransport::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  const auto get = [&](const std::string& path) {
    StatusOr<k8s::HttpResponse> r = (*client)->Do(k8s::HttpRequest::Get(path));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : k8s::HttpResponse{};
  };

  k8s::HttpResponse m = get("/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_THAT(m.content_type, HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(m.body, HasSubstr("arbiter_build_info{binary=\"test\""));

  EXPECT_EQ(get("/healthz").status, 200);
  k8s::HttpResponse r = get("/readyz");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, "not ready: watches not synced: pods");
  waiting.reset();
  EXPECT_EQ(get("/readyz").status, 200);
  live = false;
  EXPECT_EQ(get("/healthz").status, 503);
  EXPECT_EQ(get("/nothing").status, 404);
  server.Stop();
}

TEST(EndpointServerTest, StopsRightAfterStart) {
  EndpointServer server({.metrics = [] { return std::string(); },
                         .live = [] { return true; },
                         .ready = [] { return std::optional<std::string>(); }});
  StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  server.Stop();  // returns: the listening thread had begun
}

}  // namespace
}  // namespace arbiter::metrics
