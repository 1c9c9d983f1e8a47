#include "arbiter/webhook/certificate_secret.h"

#include <nlohmann/json.hpp>

#include "arbiter/k8s/kubeconfig.h"
#include "arbiter/webhook/configuration.h"

namespace arbiter::webhook {

std::string CertificateSecretJson(const std::string& namespace_name, const std::string& name,
                                  const ServingCertificate& certificate) {
  const nlohmann::json secret = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", name},
        {"namespace", namespace_name},
        {"labels", {{"app.kubernetes.io/managed-by", "arbiter-controller"}}}}},
      {"type", "kubernetes.io/tls"},
      {"data",
       {{"tls.crt", Base64(certificate.cert_pem)},
        {"tls.key", Base64(certificate.key_pem)},
        {"ca.crt", Base64(certificate.ca_pem)}}}};
  return secret.dump();
}

StatusOr<ServingCertificate> CertificateFromSecretJson(std::string_view json) {
  const nlohmann::json secret = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!secret.is_object()) return InvalidArgumentError("secret: not a JSON object");
  std::string who = "secret";
  if (secret.contains("metadata") && secret["metadata"].is_object()) {
    who += " " + secret["metadata"].value("namespace", "") + "/" +
           secret["metadata"].value("name", "");
  }
  const nlohmann::json data = secret.value("data", nlohmann::json::object());
  const auto field = [&](const char* key) -> StatusOr<std::string> {
    if (!data.is_object() || !data.contains(key) || !data[key].is_string()) {
      return NotFoundError(who + ": data." + key + " is missing");
    }
    StatusOr<std::string> decoded = k8s::DecodeBase64(data[key].get<std::string>());
    if (!decoded.ok()) {
      return InvalidArgumentError(who + ": data." + key + ": " + decoded.status().message());
    }
    return decoded;
  };
  ServingCertificate out;
  StatusOr<std::string> cert = field("tls.crt");
  if (!cert.ok()) return InvalidArgumentError(cert.status().message());
  StatusOr<std::string> key = field("tls.key");
  if (!key.ok()) return InvalidArgumentError(key.status().message());
  out.cert_pem = std::move(*cert);
  out.key_pem = std::move(*key);
  StatusOr<std::string> ca = field("ca.crt");
  if (ca.ok()) {
    out.ca_pem = std::move(*ca);
  } else if (ca.status().code() == StatusCode::kNotFound) {
    out.ca_pem = out.cert_pem;
  } else {
    return ca.status();
  }
  return out;
}

}  // namespace arbiter::webhook
