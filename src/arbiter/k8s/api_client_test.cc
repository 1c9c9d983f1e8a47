#include "arbiter/k8s/api_client.h"

#include <gtest/gtest.h>

namespace arbiter::k8s {
namespace {

HttpResponse Response(long status, std::string body) {  // NOLINT(google-runtime-int)
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

std::string StatusBody(std::string_view reason, int code, std::string_view message) {
  return R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")" +
         std::string(message) + R"(","reason":")" + std::string(reason) + R"(","code":)" +
         std::to_string(code) + "}";
}

TEST(StatusFromResponseTest, KeepsTheServerMessageAndReason) {
  HttpRequest get = HttpRequest::Get("/api/v1/namespaces/a/pods/b");
  Status s = StatusFromResponse(
      get, Response(404, StatusBody("NotFound", 404, R"(pods \"b\" not found)")));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(),
            "GET /api/v1/namespaces/a/pods/b: pods \"b\" not found (reason NotFound, code 404)");
  EXPECT_EQ(ReasonOf(s), "NotFound");
}

TEST(StatusFromResponseTest, MapsReasonsAndCodes) {
  HttpRequest r = HttpRequest::Get("/x");
  EXPECT_EQ(StatusFromResponse(r, Response(409, StatusBody("AlreadyExists", 409, "m"))).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(StatusFromResponse(r, Response(409, StatusBody("Conflict", 409, "m"))).code(),
            StatusCode::kAborted);
  EXPECT_EQ(StatusFromResponse(r, Response(410, StatusBody("Expired", 410, "too old"))).code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(StatusFromResponse(r, Response(422, StatusBody("Invalid", 422, "m"))).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusFromResponse(r, Response(403, StatusBody("Forbidden", 403, "m"))).code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusFromResponse(r, Response(429, StatusBody("TooManyRequests", 429, "m"))).code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusFromResponse(r, Response(503, "")).code(), StatusCode::kUnavailable);
}

TEST(StatusFromResponseTest, NonStatusBodiesAreQuotedShort) {
  Status s = StatusFromResponse(HttpRequest::Get("/x"), Response(502, std::string(1000, 'x')));
  EXPECT_LT(s.message().size(), 300U);
  EXPECT_EQ(ReasonOf(s), "");
  EXPECT_EQ(StatusFromResponse(HttpRequest::Get("/x"), Response(500, "")).message(),
            "GET /x: HTTP 500 (reason Unknown, code 500)");
}

}  // namespace
}  // namespace arbiter::k8s
