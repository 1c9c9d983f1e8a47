#include "arbiter/webhook/certificate_secret.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace arbiter::webhook {
namespace {

using ::testing::HasSubstr;

TEST(CertificateSecretTest, RoundTrips) {
  const ServingCertificate cert{"CERT\n", "KEY\n", "CA\n"};
  const std::string json = CertificateSecretJson("arbiter-system", "arbiter-webhook-cert", cert);
  const nlohmann::json secret = nlohmann::json::parse(json);
  EXPECT_EQ(secret["type"], "kubernetes.io/tls");
  EXPECT_EQ(secret["metadata"]["namespace"], "arbiter-system");
  StatusOr<ServingCertificate> back = CertificateFromSecretJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cert_pem, "CERT\n");
  EXPECT_EQ(back->key_pem, "KEY\n");
  EXPECT_EQ(back->ca_pem, "CA\n");
}

TEST(CertificateSecretTest, WithoutCaTheCertificateIsItsOwn) {
  nlohmann::json secret =
      nlohmann::json::parse(CertificateSecretJson("ns", "s", {"CERT", "KEY", "CA"}));
  secret["data"].erase("ca.crt");
  StatusOr<ServingCertificate> back = CertificateFromSecretJson(secret.dump());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ca_pem, "CERT");
}

TEST(CertificateSecretTest, AMissingOrBadKeyNamesTheSecretAndTheKey) {
  nlohmann::json secret =
      nlohmann::json::parse(CertificateSecretJson("ns", "s", {"CERT", "KEY", "CA"}));
  secret["data"].erase("tls.key");
  StatusOr<ServingCertificate> missing = CertificateFromSecretJson(secret.dump());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("secret ns/s: data.tls.key is missing"));
  secret["data"]["tls.key"] = "not base64!";
  StatusOr<ServingCertificate> bad = CertificateFromSecretJson(secret.dump());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("secret ns/s: data.tls.key"));
  EXPECT_FALSE(CertificateFromSecretJson("[]").ok());
}

}  // namespace
}  // namespace arbiter::webhook
