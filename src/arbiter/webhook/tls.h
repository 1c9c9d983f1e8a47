// The webhook's serving certificate. kube-apiserver calls an admission webhook over TLS only, and
// trusts it through the caBundle of the webhook configuration; arbiter-controller either reads a
// certificate given to it (a Secret mounted as files, cert-manager's or the Helm chart's) or
// makes its own at start-up: a CA, and a serving certificate signed by it for the names and
// addresses the API server will call. ECDSA P-256 keys, SHA-256 signatures (OpenSSL 3).
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"

namespace arbiter::webhook {

struct ServingCertificate {
  std::string cert_pem;  // the serving certificate
  std::string key_pem;   // its private key (PKCS#8)
  std::string ca_pem;    // what the webhook configuration's caBundle holds
};

// A new CA and a serving certificate signed by it, valid from `now` (less a minute of clock skew)
// for `validity`, with these DNS names and IP addresses as subject alternative names.
StatusOr<ServingCertificate> MakeServingCertificate(const std::vector<std::string>& dns_names,
                                                    const std::vector<std::string>& ip_addresses,
                                                    Clock::WallTime now,
                                                    std::chrono::seconds validity);

// Reads tls.crt, tls.key and ca.crt from `dir` (a kubernetes.io/tls Secret as mounted; without
// ca.crt the certificate is taken to be its own CA).
StatusOr<ServingCertificate> ReadServingCertificate(const std::string& dir);

}  // namespace arbiter::webhook
