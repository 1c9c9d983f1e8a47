#include "arbiter/webhook/configuration.h"

#include <vector>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

namespace arbiter::webhook {

std::string Base64(std::string_view data) {
  std::vector<unsigned char> out(4 * ((data.size() + 2) / 3) + 1);
  const int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  return {reinterpret_cast<const char*>(out.data()), static_cast<std::size_t>(n)};
}

std::string WebhookConfigurationJson(const WebhookEndpoint& endpoint, std::string_view ca_pem) {
  nlohmann::json client = {{"caBundle", Base64(ca_pem)}};
  if (!endpoint.url.empty()) {
    client["url"] = endpoint.url;
  } else {
    client["service"] = {{"namespace", endpoint.service_namespace},
                         {"name", endpoint.service_name},
                         {"path", "/validate"},
                         {"port", endpoint.service_port}};
  }
  const auto webhook = [&](std::string name, nlohmann::json rules) {
    return nlohmann::json{{"name", std::move(name)},     {"admissionReviewVersions", {"v1"}},
                          {"sideEffects", "None"},       {"failurePolicy", "Fail"},
                          {"matchPolicy", "Equivalent"}, {"timeoutSeconds", 5},
                          {"clientConfig", client},      {"rules", std::move(rules)}};
  };
  nlohmann::json objects =
      webhook("objects.arbiter.dev", {{{"apiGroups", {"arbiter.dev"}},
                                       {"apiVersions", {"v1alpha1"}},
                                       {"operations", {"CREATE", "UPDATE"}},
                                       {"resources", {"podgroups", "batchjobs", "queues"}},
                                       {"scope", "*"}},
                                      {{"apiGroups", {"arbiter.dev"}},
                                       {"apiVersions", {"v1alpha1"}},
                                       {"operations", {"DELETE"}},
                                       {"resources", {"queues"}},
                                       {"scope", "Cluster"}}});
  nlohmann::json pods = webhook("pods.arbiter.dev", {{{"apiGroups", {""}},
                                                      {"apiVersions", {"v1"}},
                                                      {"operations", {"CREATE"}},
                                                      {"resources", {"pods"}},
                                                      {"scope", "Namespaced"}}});
  pods["namespaceSelector"] = {{"matchLabels", {{kPodAdmissionLabel, "enabled"}}}};
  const nlohmann::json body = {
      {"apiVersion", "admissionregistration.k8s.io/v1"},
      {"kind", "ValidatingWebhookConfiguration"},
      {"metadata",
       {{"name", kConfigurationName},
        {"labels", {{"app.kubernetes.io/managed-by", "arbiter-controller"}}}}},
      {"webhooks", {std::move(objects), std::move(pods)}}};
  return body.dump();
}

}  // namespace arbiter::webhook
