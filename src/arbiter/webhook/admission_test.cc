// The AdmissionReview protocol around the rules, and the webhook's TLS server end to end on
// 127.0.0.1 (a real TLS handshake against the CA it made).
#include "arbiter/webhook/admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arbiter/k8s/http_transport.h"
#include "arbiter/testing/builders.h"
#include "arbiter/webhook/server.h"
#include "arbiter/webhook/tls.h"

namespace arbiter::webhook {
namespace {

using ::testing::HasSubstr;
using testing::MakeQueue;

ContextSource Context() {
  return [](std::string_view /*kind*/, std::string_view /*operation*/, Freshness /*freshness*/) {
    AdmissionContext ctx;
    Queue closed = MakeQueue("closed");
    closed.spec.state = QueueState::kClosed;
    ctx.queues = {{"default", MakeQueue("default")}, {"closed", closed}};
    return ctx;
  };
}

nlohmann::json Request(const std::string& kind, const std::string& operation, nlohmann::json object,
                       nlohmann::json old = nullptr) {
  nlohmann::json request = {
      {"uid", "u-1"},
      {"kind", {{"group", kind == "Pod" ? "" : "arbiter.dev"}, {"version", "v1"}, {"kind", kind}}},
      {"operation", operation},
      {"name", object["metadata"].value("name", "")},
      {"namespace", object["metadata"].value("namespace", "")}};
  if (operation == "DELETE") {
    request["oldObject"] = std::move(object);
  } else {
    request["object"] = std::move(object);
  }
  if (!old.is_null()) request["oldObject"] = std::move(old);
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

nlohmann::json Answer(const nlohmann::json& review) {
  StatusOr<std::string> out = Review(review.dump(), Context());
  EXPECT_TRUE(out.ok()) << out.status();
  return nlohmann::json::parse(out.ok() ? *out : "{}")["response"];
}

nlohmann::json GroupJson(const std::string& queue) {
  return {{"apiVersion", "arbiter.dev/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", "g"}, {"namespace", "ns"}}},
          {"spec", {{"minMember", 1}, {"queue", queue}}}};
}

TEST(ReviewTest, AllowsAndEchoesTheUid) {
  const nlohmann::json response = Answer(Request("PodGroup", "CREATE", GroupJson("default")));
  EXPECT_EQ(response["uid"], "u-1");
  EXPECT_EQ(response["allowed"], true);
}

TEST(ReviewTest, RefusesWithTheObjectAndTheField) {
  const nlohmann::json response = Answer(Request("PodGroup", "CREATE", GroupJson("closed")));
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["code"], 403);
  EXPECT_THAT(response["status"]["message"].get<std::string>(),
              HasSubstr("podgroup ns/g: spec.queue: queue \"closed\" is Closed"));
}

TEST(ReviewTest, ARefusalOfTheCachedContextIsDecidedAgainOnAFreshOne) {
  // The watch has not delivered queue "new" yet; the API server has it.
  std::vector<Freshness> asked;
  const ContextSource lagging = [&asked](std::string_view, std::string_view, Freshness freshness) {
    asked.push_back(freshness);
    AdmissionContext ctx;
    ctx.queues = {{"default", MakeQueue("default")}};
    if (freshness == Freshness::kFromServer) ctx.queues.emplace("new", MakeQueue("new"));
    return ctx;
  };
  StatusOr<std::string> out =
      Review(Request("PodGroup", "CREATE", GroupJson("new")).dump(), lagging);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(nlohmann::json::parse(*out)["response"]["allowed"], true);
  EXPECT_EQ(asked, (std::vector<Freshness>{Freshness::kCached, Freshness::kFromServer}));

  // Allowed from the cache: the API server is not asked.
  asked.clear();
  out = Review(Request("PodGroup", "CREATE", GroupJson("default")).dump(), lagging);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(asked, std::vector<Freshness>{Freshness::kCached});

  // Missing on the server too: refused.
  out = Review(Request("PodGroup", "CREATE", GroupJson("nope")).dump(), lagging);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(nlohmann::json::parse(*out)["response"]["allowed"], false);
}

TEST(ReviewTest, AnObjectThatDoesNotDecodeIsRefusedWithTheDecodersMessage) {
  nlohmann::json group = GroupJson("default");
  group["spec"]["minMember"] = 0;
  const nlohmann::json response = Answer(Request("PodGroup", "CREATE", group));
  EXPECT_EQ(response["allowed"], false);
  EXPECT_THAT(response["status"]["message"].get<std::string>(),
              HasSubstr("podgroup ns/g: spec.minMember"));
}

TEST(ReviewTest, AnUpdateThatKeepsTheSpecIsAllowed) {
  // A finalizer on a group of a queue closed since: nothing the rules read changed.
  nlohmann::json group = GroupJson("closed");
  nlohmann::json old = group;
  group["metadata"]["finalizers"] = nlohmann::json::array({"x"});
  EXPECT_EQ(Answer(Request("PodGroup", "UPDATE", group, old))["allowed"], true);
}

TEST(ReviewTest, QueueDeletionReadsTheOldObject) {
  const nlohmann::json queue = {{"metadata", {{"name", "default"}}},
                                {"spec", nlohmann::json::object()}};
  const nlohmann::json response = Answer(Request("Queue", "DELETE", queue));
  EXPECT_EQ(response["allowed"], false);
  EXPECT_THAT(response["status"]["message"].get<std::string>(),
              HasSubstr("queue default: metadata.name: queue \"default\" cannot be deleted"));
}

TEST(ReviewTest, OtherKindsAreAllowed) {
  nlohmann::json review = Request("PodGroup", "CREATE", GroupJson("closed"));
  review["request"]["kind"]["kind"] = "Secret";
  review["request"]["kind"]["group"] = "";
  EXPECT_EQ(Answer(review)["allowed"], true);
}

TEST(ReviewTest, NotAnAdmissionReviewIsAnError) {
  EXPECT_FALSE(Review("{\"kind\": \"Pod\"}", Context()).ok());
  EXPECT_FALSE(Review("not json", Context()).ok());
}

TEST(ServingCertificateTest, CoversTheNamesAndAddressesAsked) {
  StatusOr<ServingCertificate> cert =
      MakeServingCertificate({"arbiter-webhook.arbiter-system.svc"}, {"127.0.0.1"},
                             RealClock::Instance().Now(), std::chrono::hours(24));
  ASSERT_TRUE(cert.ok()) << cert.status();
  EXPECT_THAT(cert->cert_pem, HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_THAT(cert->key_pem, HasSubstr("PRIVATE KEY"));
  EXPECT_THAT(cert->ca_pem, HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_NE(cert->ca_pem, cert->cert_pem);
}

TEST(WebhookServerTest, ServesReviewsOverTls) {
  StatusOr<ServingCertificate> cert = MakeServingCertificate(
      {"localhost"}, {"127.0.0.1"}, RealClock::Instance().Now(), std::chrono::hours(1));
  ASSERT_TRUE(cert.ok()) << cert.status();
  WebhookServer server(*cert, [](std::string_view body) { return Review(body, Context()); });
  StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  // The API server's side: TLS verified against the CA, the address checked against the SANs.
  k8s::TransportOptions options;
  options.server = "https://127.0.0.1:" + std::to_string(*port);
  options.tls.ca_pem = cert->ca_pem;
  options.max_attempts = 1;
  StatusOr<std::unique_ptr<k8s::HttpTransport>> client = k8s::HttpTransport::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  k8s::HttpRequest post;
  post.method = "POST";
  post.path = "/validate";
  post.body = Request("PodGroup", "CREATE", GroupJson("closed")).dump();
  StatusOr<k8s::HttpResponse> answer = (*client)->Do(post);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->status, 200);
  EXPECT_THAT(answer->body, HasSubstr("is Closed"));
  post.body = "not a review";
  StatusOr<k8s::HttpResponse> bad = (*client)->Do(post);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->status, 400);
  client->reset();  // its keep-alive connection would hold Stop() until the server's idle timeout
  server.Stop();

  // Another CA's client refuses the server.
  StatusOr<ServingCertificate> other = MakeServingCertificate(
      {"localhost"}, {"127.0.0.1"}, RealClock::Instance().Now(), std::chrono::hours(1));
  ASSERT_TRUE(other.ok());
  WebhookServer second(*cert, [](std::string_view body) { return Review(body, Context()); });
  StatusOr<int> port2 = second.Start("127.0.0.1", 0);
  ASSERT_TRUE(port2.ok());
  options.server = "https://127.0.0.1:" + std::to_string(*port2);
  options.tls.ca_pem = other->ca_pem;
  StatusOr<std::unique_ptr<k8s::HttpTransport>> stranger = k8s::HttpTransport::Create(options);
  ASSERT_TRUE(stranger.ok());
  EXPECT_FALSE((*stranger)->Do(post).ok());
}

}  // namespace
}  // namespace arbiter::webhook
