#include "arbiter/webhook/server.h"

#include <utility>

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

namespace arbiter::webhook {
namespace {

// Loads a PEM certificate chain and key into `ctx`; false when either does not parse or they do
// not match.
bool UseCertificate(SSL_CTX& ctx, const ServingCertificate& cert) {
  BIO* cert_bio = BIO_new_mem_buf(cert.cert_pem.data(), static_cast<int>(cert.cert_pem.size()));
  BIO* key_bio = BIO_new_mem_buf(cert.key_pem.data(), static_cast<int>(cert.key_pem.size()));
  X509* x509 =
      cert_bio == nullptr ? nullptr : PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key =
      key_bio == nullptr ? nullptr : PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  const bool ok = x509 != nullptr && key != nullptr &&
                  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION) == 1 &&
                  SSL_CTX_use_certificate(&ctx, x509) == 1 &&
                  SSL_CTX_use_PrivateKey(&ctx, key) == 1 && SSL_CTX_check_private_key(&ctx) == 1;
  X509_free(x509);
  EVP_PKEY_free(key);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  return ok;
}

}  // namespace

struct WebhookServer::Impl {
  ServingCertificate certificate;
  Handler handler;
  std::unique_ptr<httplib::SSLServer> server;
};

WebhookServer::WebhookServer(ServingCertificate certificate, Handler handler)
    : impl_(std::make_unique<Impl>()) {
  impl_->certificate = std::move(certificate);
  impl_->handler = std::move(handler);
}

WebhookServer::~WebhookServer() { Stop(); }

StatusOr<int> WebhookServer::Start(const std::string& host, int port) {
  const ServingCertificate& cert = impl_->certificate;
  impl_->server = std::make_unique<httplib::SSLServer>(
      [&cert](SSL_CTX& ctx) { return UseCertificate(ctx, cert); });
  httplib::SSLServer& server = *impl_->server;
  if (!server.is_valid()) {
    return InvalidArgumentError("webhook: the serving certificate or its key cannot be used");
  }
  const Handler& handler = impl_->handler;
  server.Post("/validate", [&handler](const httplib::Request& req, httplib::Response& res) {
    StatusOr<std::string> answer = handler(req.body);
    if (!answer.ok()) {
      res.status = 400;
      res.set_content(std::string(answer.status().message()), "text/plain");
      return;
    }
    res.set_content(*answer, "application/json");
  });
  server.Get("/healthz", [](const httplib::Request& /*req*/, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  int bound = port;
  if (port == 0) {
    bound = server.bind_to_any_port(host);
    if (bound < 0) return UnavailableError("webhook: cannot bind " + host);
  } else if (!server.bind_to_port(host, port)) {
    return UnavailableError("webhook: cannot bind " + host + ":" + std::to_string(port));
  }
  thread_ = std::thread([&server] { server.listen_after_bind(); });
  return bound;
}

void WebhookServer::Stop() {
  if (impl_->server != nullptr) impl_->server->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace arbiter::webhook
