// The webhook's HTTPS server: POST /validate takes an AdmissionReview and answers with the
// handler's response; GET /healthz answers "ok". One thread accepts, a small pool serves (the API
// server calls it at most a few times per object write).
//
//   WebhookServer server(certificate, [&](std::string_view body) { return Review(body, ...); });
//   ARBITER_ASSIGN_OR_RETURN(int port, server.Start("127.0.0.1", 9443));  // 0: any free port
//   ...
//   server.Stop();
//
// Thread safety: Start and Stop from one thread; the handler is called from the pool's threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "arbiter/base/status.h"
#include "arbiter/webhook/tls.h"

namespace arbiter::webhook {

class WebhookServer {
 public:
  using Handler = std::function<StatusOr<std::string>(std::string_view body)>;

  WebhookServer(ServingCertificate certificate, Handler handler);
  ~WebhookServer();  // Stop()
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Binds and starts serving; returns the port (the one chosen when `port` is 0). Fails when the
  // certificate or key cannot be used or the address cannot be bound.
  StatusOr<int> Start(const std::string& host, int port);
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
};

}  // namespace arbiter::webhook
