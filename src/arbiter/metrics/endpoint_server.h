// EndpointServer: the plain-HTTP port where a binary answers its operators (docs/metrics.md):
//
//   GET /metrics   the Prometheus text exposition format (Metrics::Scrape)
//   GET /healthz   200 "ok" while the process's main loop is alive (the liveness probe), else 503
//   GET /readyz    200 "ok" once its watches have synced and it knows whether it leads (the
//                  readiness probe), else 503 with what it waits for
//
// Off unless a bind address is given; the manifests bind it to the pod's address, and nothing on
// it is secret (no object contents, only counts and names of queues).
//
//   EndpointServer server({.metrics = ..., .live = ..., .ready = ...});
//   ARBITER_ASSIGN_OR_RETURN(int port, server.Start("127.0.0.1", 8080));  // 0: any free port
//
// Thread safety: Start and Stop from one thread; the callbacks run on the server's threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "arbiter/base/status.h"

namespace arbiter::metrics {

struct Endpoints {
  std::function<std::string()> metrics;
  std::function<bool()> live;
  // nullopt: ready; else what it still waits for.
  std::function<std::optional<std::string>()> ready;
};

class EndpointServer {
 public:
  explicit EndpointServer(Endpoints endpoints);
  ~EndpointServer();  // Stop()
  EndpointServer(const EndpointServer&) = delete;
  EndpointServer& operator=(const EndpointServer&) = delete;

  // Binds and starts serving; returns the port (the one chosen when `port` is 0).
  StatusOr<int> Start(const std::string& host, int port);
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
};

// Starts serving `endpoints` on `address` (host, port; 0: any free port) and logs where; the server
// and the port it bound.
StatusOr<std::pair<std::unique_ptr<EndpointServer>, int>> ServeEndpoints(
    const std::pair<std::string, int>& address, Endpoints endpoints);

// "host:port" (":8080" and "8080" bind every address; "[::1]:8080" for IPv6) as a host and port;
// INVALID_ARGUMENT naming `flag` otherwise.
StatusOr<std::pair<std::string, int>> ParseBindAddress(const std::string& flag,
                                                       const std::string& value);

}  // namespace arbiter::metrics
