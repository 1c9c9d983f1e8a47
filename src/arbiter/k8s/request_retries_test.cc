// RequestRetries: when Do() and DoAll() try a request again, and after how long.
#include <chrono>
#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "arbiter/k8s/http_transport.h"

namespace arbiter::k8s {
namespace {

using std::chrono::nanoseconds;
using std::chrono::seconds;

class CountingCredentials final : public CredentialSource {
 public:
  StatusOr<std::string> Token() override { return std::string("t"); }
  void Invalidate() override { ++invalidated; }
  int invalidated = 0;
};

TransportOptions Options(int max_attempts) {
  TransportOptions o;
  o.max_attempts = max_attempts;
  o.initial_backoff = std::chrono::milliseconds(200);
  o.max_backoff = std::chrono::milliseconds(800);
  return o;
}

StatusOr<HttpResponse> Answer(long status,  // NOLINT(google-runtime-int): libcurl's type
                              std::optional<seconds> retry_after = std::nullopt) {
  HttpResponse r;
  r.status = status;
  r.retry_after = retry_after;
  return r;
}

HttpRequest Post(bool retryable) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/api/v1/namespaces/ns/pods/p/binding";
  r.retryable = retryable;
  return r;
}

TEST(RequestRetriesTest, ASuccessOrAClientErrorIsFinal) {
  RequestRetries retries(Options(5), 1);
  EXPECT_FALSE(retries.After(HttpRequest::Get("/x"), Answer(200)).has_value());
  RequestRetries again(Options(5), 1);
  EXPECT_FALSE(again.After(HttpRequest::Get("/x"), Answer(404)).has_value());
  EXPECT_FALSE(again.After(HttpRequest::Get("/x"), Answer(409)).has_value());
}

TEST(RequestRetriesTest, ServerErrorsBackOffUntilTheLastAttempt) {
  RequestRetries retries(Options(3), 1);
  const HttpRequest get = HttpRequest::Get("/x");
  std::optional<nanoseconds> first = retries.After(get, Answer(503));
  ASSERT_TRUE(first.has_value());
  // 200 ms with up to half again of jitter, then doubled.
  EXPECT_GE(*first, std::chrono::milliseconds(200));
  EXPECT_LT(*first, std::chrono::milliseconds(300));
  std::optional<nanoseconds> second = retries.After(get, UnavailableError("connection reset"));
  ASSERT_TRUE(second.has_value());
  EXPECT_GE(*second, std::chrono::milliseconds(400));
  EXPECT_LT(*second, std::chrono::milliseconds(600));
  EXPECT_FALSE(retries.After(get, Answer(503)).has_value());  // the third and last attempt
  EXPECT_EQ(retries.attempts(), 3);
}

TEST(RequestRetriesTest, ARequestNotSafeToRepeatIsNotRepeatedAfterAFailure) {
  RequestRetries retries(Options(5), 1);
  EXPECT_FALSE(retries.After(Post(false), UnavailableError("timeout")).has_value());
  RequestRetries again(Options(5), 1);
  EXPECT_FALSE(again.After(Post(false), Answer(500)).has_value());
}

TEST(RequestRetriesTest, ThrottlingWaitsAsRetryAfterSaysUnlessTheCallerSaysNo) {
  // A 429 was not acted on by the server, so even a create is sent again.
  RequestRetries retries(Options(5), 1);
  EXPECT_EQ(retries.After(Post(false), Answer(429, seconds(2))), nanoseconds(seconds(2)));
  std::optional<nanoseconds> no_header = retries.After(Post(false), Answer(429));
  ASSERT_TRUE(no_header.has_value());
  EXPECT_GT(*no_header, nanoseconds(0));
  // An eviction's 429 is a disruption budget's answer.
  HttpRequest eviction = Post(true);
  eviction.retry_throttled = false;
  RequestRetries budget(Options(5), 1);
  EXPECT_FALSE(budget.After(eviction, Answer(429, seconds(2))).has_value());
}

TEST(RequestRetriesTest, AnUnauthorisedAnswerRefreshesTheTokenOnceAndRetriesAtOnce) {
  TransportOptions o = Options(1);
  auto credentials = std::make_shared<CountingCredentials>();
  o.credentials = credentials;
  RequestRetries retries(o, 1);
  // Even on the last attempt: a rotated token is not a reason to fail.
  EXPECT_EQ(retries.After(HttpRequest::Get("/x"), Answer(401)), nanoseconds(0));
  EXPECT_EQ(credentials->invalidated, 1);
  EXPECT_FALSE(retries.After(HttpRequest::Get("/x"), Answer(401)).has_value());
  EXPECT_EQ(credentials->invalidated, 1);
  // Without credentials there is nothing to refresh.
  RequestRetries anonymous(Options(5), 1);
  EXPECT_FALSE(anonymous.After(HttpRequest::Get("/x"), Answer(401)).has_value());
}

}  // namespace
}  // namespace arbiter::k8s
