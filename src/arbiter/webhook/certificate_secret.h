// The webhook's serving certificate kept in a Secret, so that every replica of arbiter-controller
// serves the same one: the webhook's Service sends the API server to any replica, and the
// configuration's caBundle (written by the leader) must vouch for all of them. The first replica
// to start makes the certificate and creates the Secret; the others, and later restarts, read it.
//
// A kubernetes.io/tls Secret: data tls.crt, tls.key and ca.crt (base64), labelled as managed by
// arbiter-controller. These functions only translate; the runtime does the GET and the POST.
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>

#include "arbiter/base/status.h"
#include "arbiter/webhook/tls.h"

namespace arbiter::webhook {

// The Secret `namespace_name`/`name` holding `certificate`.
std::string CertificateSecretJson(const std::string& namespace_name, const std::string& name,
                                  const ServingCertificate& certificate);

// The certificate in a Secret as the API server returns it; INVALID_ARGUMENT naming the Secret
// and the key when tls.crt or tls.key is missing or not base64 (without ca.crt the certificate is
// taken to be its own CA, as ReadServingCertificate does).
StatusOr<ServingCertificate> CertificateFromSecretJson(std::string_view json);

}  // namespace arbiter::webhook
