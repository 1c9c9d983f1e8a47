// The ValidatingWebhookConfiguration that points kube-apiserver at arbiter-controller's webhook
// (webhook/admission.h), with the CA that signed its serving certificate as caBundle. The
// controller writes it once its webhook serves, and again whenever someone changed it.
//
// Two webhooks, both failurePolicy Fail (an object the controller cannot check is refused, so
// nothing it would refuse slips in while it is down):
//   objects.arbiter.dev  PodGroups, BatchJobs and Queues on CREATE and UPDATE, Queues on DELETE;
//   pods.arbiter.dev     Pods on CREATE, only in namespaces labelled arbiter.dev/admission=enabled
//                        (pods are every workload's: the check is opt-in per namespace).
//
// Pure. Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>

namespace arbiter::webhook {

inline constexpr std::string_view kConfigurationName = "arbiter-controller";
inline constexpr std::string_view kPodAdmissionLabel = "arbiter.dev/admission";

// Where kube-apiserver calls the webhook: a URL (the controller outside the cluster, as in the
// local cluster's tests), or a Service (namespace, name, port) in front of it.
struct WebhookEndpoint {
  std::string url;  // https://127.0.0.1:9443/validate
  std::string service_namespace;
  std::string service_name;
  int service_port = 443;
};

// The whole object (without resourceVersion), for a create or a replace.
std::string WebhookConfigurationJson(const WebhookEndpoint& endpoint, std::string_view ca_pem);

// Base64 of `data` (standard alphabet, padded), as caBundle wants it.
std::string Base64(std::string_view data);

}  // namespace arbiter::webhook
