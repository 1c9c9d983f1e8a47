#include "arbiter/metrics/endpoint_server.h"

#include <charconv>
#include <chrono>
#include <utility>

#include <httplib.h>

#include "arbiter/base/log.h"

namespace arbiter::metrics {

struct EndpointServer::Impl {
  Endpoints endpoints;
  std::unique_ptr<httplib::Server> server;
};

EndpointServer::EndpointServer(Endpoints endpoints) : impl_(std::make_unique<Impl>()) {
  impl_->endpoints = std::move(endpoints);
}

EndpointServer::~EndpointServer() { Stop(); }

StatusOr<int> EndpointServer::Start(const std::string& host, int port) {
  impl_->server = std::make_unique<httplib::Server>();
  httplib::Server& server = *impl_->server;
  const Endpoints& e = impl_->endpoints;
  server.Get("/metrics", [&e](const httplib::Request& /*req*/, httplib::Response& res) {
    res.set_content(e.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/healthz", [&e](const httplib::Request& /*req*/, httplib::Response& res) {
    const bool live = e.live();
    res.status = live ? 200 : 503;
    res.set_content(live ? "ok" : "the main loop has ended", "text/plain");
  });
  server.Get("/readyz", [&e](const httplib::Request& /*req*/, httplib::Response& res) {
    const std::optional<std::string> waiting = e.ready();
    res.status = waiting ? 503 : 200;
    res.set_content(waiting ? "not ready: " + *waiting : "ok", "text/plain");
  });
  int bound = port;
  if (port == 0) {
    bound = server.bind_to_any_port(host);
    if (bound < 0) return UnavailableError("metrics: cannot bind " + host);
  } else if (!server.bind_to_port(host, port)) {
    return UnavailableError("metrics: cannot bind " + host + ":" + std::to_string(port));
  }
  thread_ = std::thread([&server] { server.listen_after_bind(); });
  // httplib's stop() does nothing to a server not yet listening, and its listen would then never
  // return: Stop() must not come before the thread has begun.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!server.is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return bound;
}

void EndpointServer::Stop() {
  if (impl_->server != nullptr) impl_->server->stop();
  if (thread_.joinable()) thread_.join();
}

StatusOr<std::pair<std::unique_ptr<EndpointServer>, int>> ServeEndpoints(
    const std::pair<std::string, int>& address, Endpoints endpoints) {
  auto server = std::make_unique<EndpointServer>(std::move(endpoints));
  ARBITER_ASSIGN_OR_RETURN(int port, server->Start(address.first, address.second));
  ARBITER_LOG(kInfo) << "serving /metrics /healthz /readyz on " << address.first << ":" << port;
  return std::make_pair(std::move(server), port);
}

StatusOr<std::pair<std::string, int>> ParseBindAddress(const std::string& flag,
                                                       const std::string& value) {
  const auto bad = [&](const std::string& why) {
    return InvalidArgumentError(flag + ": \"" + value + "\" " + why +
                                " (want host:port, e.g. 127.0.0.1:8080 or :8080)");
  };
  const std::size_t colon = value.rfind(':');
  std::string host = colon == std::string::npos ? std::string() : value.substr(0, colon);
  const std::string port_text = colon == std::string::npos ? value : value.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  int port = -1;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    return bad("has no valid port");
  }
  return std::make_pair(host, port);
}

}  // namespace arbiter::metrics
