// The HTTP transport against the real local kube-apiserver (hack/cluster/): TLS verified against
// the cluster's CA, token and client-certificate authentication, a wrong CA refused, no secret in
// any error, and a streamed watch. Needs KUBECONFIG pointing into a cluster made by up.sh, whose
// directory also holds ca.crt, admin.crt, admin.key and token (hack/test.sh arranges this).
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster_env.h"
#include <gtest/gtest.h>
#include <unistd.h>

#include "arbiter/base/clock.h"
#include "arbiter/base/log.h"
#include "arbiter/k8s/http_transport.h"

namespace arbiter::k8s {
namespace {

using testing_support::LocalCluster;
using testing_support::ReadFile;

class TransportTest : public testing::Test {
 protected:
  void SetUp() override {
    std::optional<LocalCluster> cluster = LocalCluster::FromEnvironment();
    if (!cluster) GTEST_SKIP() << "KUBECONFIG is not set: run under hack/test.sh";
    dir_ = cluster->dir;
    server_ = cluster->server;
    token_ = cluster->token;
  }

  TransportOptions Options() {
    TransportOptions o;
    o.server = server_;
    o.tls.ca_pem = ReadFile(dir_ / "ca.crt");
    o.max_attempts = 1;
    return o;
  }

  std::unique_ptr<HttpTransport> Make(TransportOptions o) {
    StatusOr<std::unique_ptr<HttpTransport>> t = HttpTransport::Create(std::move(o));
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? std::move(t).value() : nullptr;
  }

  std::filesystem::path dir_;
  std::string server_;
  std::string token_;
};

TEST_F(TransportTest, TokenAuthReadsTheServerVersion) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  auto t = Make(o);
  StatusOr<HttpResponse> r = t->Do(HttpRequest::Get("/version"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->http_version, 2);  // the API server offers HTTP/2 over TLS
  EXPECT_NE(r->body.find("\"gitVersion\": \"v1."), std::string::npos) << r->body;
  // An admin may list namespaces.
  StatusOr<HttpResponse> ns = t->Do(HttpRequest::Get("/api/v1/namespaces"));
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_EQ(ns->status, 200);
}

// A burst of concurrent requests opens a connection each; once it is over, at most
// max_idle_connections stay open for the next requests (the rest are closed).
TEST_F(TransportTest, KeepsAtMostMaxIdleConnectionsAfterABurst) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  o.max_idle_connections = 3;
  auto t = Make(o);
  ASSERT_NE(t, nullptr);
  std::vector<std::thread> burst;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    burst.emplace_back([&] {
      // A watch that ends by its own timeout keeps each connection busy for a second, so that
      // the 8 overlap.
      StatusOr<HttpResponse> r =
          t->Do(HttpRequest::Get("/api/v1/namespaces?watch=true&timeoutSeconds=1"));
      if (r.ok() && r->status == 200) ++ok;
    });
  }
  for (std::thread& th : burst) th.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(t->idle_connections(), 3U);
  // The kept ones serve the next requests.
  StatusOr<HttpResponse> r = t->Do(HttpRequest::Get("/version"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(t->idle_connections(), 3U);
}

// After a burst the pool does not stay at its peak: a connection left idle longer than
// idle_timeout is closed, while the ones in steady use are kept.
TEST_F(TransportTest, ClosesConnectionsIdleLongerThanTheTimeout) {
  FakeClock clock;
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  o.max_idle_connections = 3;
  o.idle_timeout = std::chrono::seconds(90);
  o.clock = &clock;
  auto t = Make(o);
  ASSERT_NE(t, nullptr);
  std::vector<std::thread> burst;
  for (int i = 0; i < 3; ++i) {
    burst.emplace_back(
        [&] { (void)t->Do(HttpRequest::Get("/api/v1/namespaces?watch=true&timeoutSeconds=1")); });
  }
  for (std::thread& th : burst) th.join();
  ASSERT_EQ(t->idle_connections(), 3U);

  clock.Advance(std::chrono::seconds(60));
  StatusOr<HttpResponse> r = t->Do(HttpRequest::Get("/version"));  // reuses the newest
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(t->idle_connections(), 3U);  // none idle for 90 s yet

  clock.Advance(std::chrono::seconds(31));
  EXPECT_EQ(t->idle_connections(),
            1U);  // the two unused for 91 s closed; the one used at 60 s kept
  r = t->Do(HttpRequest::Get("/version"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(t->idle_connections(), 1U);

  clock.Advance(std::chrono::seconds(91));
  EXPECT_EQ(t->idle_connections(), 0U);
}

// DoAll sends its requests at once as streams of one HTTP/2 connection, reports each in its
// place (a 404 among 200s), and leaves the connection for the next call.
TEST_F(TransportTest, DoAllSendsEveryRequestOverOneConnection) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  auto t = Make(o);
  ASSERT_NE(t, nullptr);
  constexpr std::size_t kRequests = 40;
  constexpr std::size_t kMissing = 17;
  std::vector<HttpRequest> requests;
  for (std::size_t i = 0; i < kRequests; ++i) {
    requests.push_back(HttpRequest::Get(i == kMissing ? "/api/v1/namespaces/no-such-namespace"
                                                      : "/api/v1/namespaces/default"));
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<std::optional<StatusOr<HttpResponse>>> results(kRequests);
    t->DoAll(requests, [&](std::size_t i, StatusOr<HttpResponse> r) {
      ASSERT_LT(i, kRequests);
      EXPECT_FALSE(results[i].has_value()) << "request " << i << " reported twice";
      results[i] = std::move(r);
    });
    for (std::size_t i = 0; i < kRequests; ++i) {
      ASSERT_TRUE(results[i].has_value()) << "request " << i << " not reported";
      ASSERT_TRUE(results[i]->ok()) << results[i]->status();
      const HttpResponse& r = **results[i];
      EXPECT_EQ(r.status, i == kMissing ? 404 : 200) << "request " << i;
      EXPECT_EQ(r.http_version, 2);
      if (i != kMissing) {
        EXPECT_NE(r.body.find("\"name\":\"default\""), std::string::npos);
      }
    }
    // The first round opened the one connection; the second reused it.
    EXPECT_EQ(t->connections_opened(), 1U) << "round " << round;
  }
  EXPECT_EQ(t->idle_connections(), 1U);
}

// DoAll asks before each request is sent; once told no, the rest end CANCELLED, unsent.
TEST_F(TransportTest, DoAllSendsNothingMoreOnceTheCallerSaysNo) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  auto t = Make(o);
  ASSERT_NE(t, nullptr);
  std::vector<HttpRequest> requests(10, HttpRequest::Get("/version"));
  int asked = 0;
  std::vector<std::optional<StatusOr<HttpResponse>>> results(requests.size());
  t->DoAll(
      requests, [&](std::size_t i, StatusOr<HttpResponse> r) { results[i] = std::move(r); },
      [&] { return asked++ < 4; });
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(results[i].has_value()) << "request " << i << " not reported";
    if (i < 4) {
      ASSERT_TRUE(results[i]->ok()) << results[i]->status();
      EXPECT_EQ((*results[i])->status, 200);
    } else {
      ASSERT_FALSE(results[i]->ok()) << "request " << i << " was sent";
      EXPECT_EQ(results[i]->status().code(), StatusCode::kCancelled);
    }
  }
}

TEST_F(TransportTest, TokenFileIsReadAndUsed) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<TokenFile>((dir_ / "token").string());
  StatusOr<HttpResponse> r = Make(o)->Do(HttpRequest::Get("/api/v1/namespaces/default"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
}

TEST_F(TransportTest, ClientCertificateAuthenticates) {
  TransportOptions o = Options();
  o.tls.client_cert_pem = ReadFile(dir_ / "admin.crt");
  o.tls.client_key_pem = ReadFile(dir_ / "admin.key");
  StatusOr<HttpResponse> r = Make(o)->Do(HttpRequest::Get("/api/v1/namespaces/default"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 200);
}

TEST_F(TransportTest, WithoutCredentialsTheServerRefuses) {
  StatusOr<HttpResponse> r = Make(Options())->Do(HttpRequest::Get("/api/v1/namespaces/default"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->status == 401 || r->status == 403) << r->status;
}

TEST_F(TransportTest, WrongCaIsRefusedWithAClearErrorAndNoSecret) {
  TransportOptions o = Options();
  o.tls.ca_pem = ReadFile(dir_ / "client-ca.crt");  // a real CA, but not the server's
  o.credentials = std::make_shared<StaticToken>(token_);
  StatusOr<HttpResponse> r = Make(o)->Do(HttpRequest::Get("/version"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("GET " + server_ + "/version"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("certificate"), std::string::npos) << r.status();
  EXPECT_EQ(r.status().message().find(token_), std::string::npos);
}

// At the highest verbosity every response's body is logged, but never a Secret's: its data is a
// key or a token (the controller keeps the webhook's key in one).
TEST_F(TransportTest, ASecretsBodyIsNeverLogged) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  auto t = Make(o);
  const std::string name = "transport-test-" + std::to_string(::getpid());
  const std::string data = "c2VjcmV0LWJ5dGVzLW9mLWEta2V5";  // base64 of "secret-bytes-of-a-key"
  HttpRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/default/secrets";
  create.body = R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": ")" + name +
                R"("}, "data": {"tls.key": ")" + data + R"("}})";
  std::ostringstream log;
  SetLogStream(&log);
  SetLogVerbosity(10);
  StatusOr<HttpResponse> created = t->Do(create);
  StatusOr<HttpResponse> read = t->Do(HttpRequest::Get(create.path + "/" + name));
  StatusOr<HttpResponse> other = t->Do(HttpRequest::Get("/api/v1/namespaces/default"));
  SetLogVerbosity(0);
  SetLogStream(nullptr);
  HttpRequest remove = HttpRequest::Get(create.path + "/" + name);
  remove.method = "DELETE";
  (void)t->Do(remove);

  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_EQ(created->status, 201) << created->body;
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_NE(read->body.find(data), std::string::npos);  // the data was there to be logged
  EXPECT_EQ(log.str().find(data), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("response body: <not logged: it may carry a secret>"), std::string::npos)
      << log.str();
  // Other bodies still are.
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(log.str().find(R"(response body: {"kind":"Namespace")"), std::string::npos)
      << log.str();
}

TEST_F(TransportTest, StreamsAWatchUntilTheCallerStops) {
  TransportOptions o = Options();
  o.credentials = std::make_shared<StaticToken>(token_);
  auto t = Make(o);
  std::string received;
  StatusOr<long> status = t->Stream(  // NOLINT(google-runtime-int)
      HttpRequest::Get("/api/v1/namespaces?watch=true&timeoutSeconds=30"),
      [&received](std::string_view chunk) {
        received.append(chunk);
        // Stop once the first event (the ADDED of an existing namespace) has arrived whole.
        return received.find('\n') == std::string::npos;
      });
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
  EXPECT_EQ(received.rfind("{\"type\":\"ADDED\"", 0), 0U) << received.substr(0, 200);
}

TEST_F(TransportTest, ConnectionRefusedIsUnavailable) {
  TransportOptions o = Options();
  o.server = "https://127.0.0.1:1";
  StatusOr<HttpResponse> r = Make(o)->Do(HttpRequest::Get("/version"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace arbiter::k8s
