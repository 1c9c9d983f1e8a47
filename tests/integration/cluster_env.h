// For integration tests: the local cluster that hack/test.sh (hack/cluster/with-cluster.sh)
// started, found through KUBECONFIG, whose directory also holds cluster.env, ca.crt, token,
// admin.crt and admin.key (written by hack/cluster/up.sh).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "arbiter/k8s/http_transport.h"

namespace arbiter::testing_support {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct LocalCluster {
  std::filesystem::path dir;
  std::string server;
  std::string token;

  // The cluster of KUBECONFIG, or nullopt when there is none (the test then skips, saying so).
  static std::optional<LocalCluster> FromEnvironment() {
    const char* kubeconfig = std::getenv("KUBECONFIG");
    if (kubeconfig == nullptr) return std::nullopt;
    LocalCluster c;
    c.dir = std::filesystem::path(kubeconfig).parent_path();
    std::string env = ReadFile(c.dir / "cluster.env");
    const std::string key = "APISERVER_URL=";
    std::size_t at = env.find(key);
    if (at == std::string::npos) return std::nullopt;
    c.server = env.substr(at + key.size(), env.find('\n', at) - at - key.size());
    c.token = ReadFile(c.dir / "token");
    while (!c.token.empty() && (c.token.back() == '\n' || c.token.back() == '\r')) {
      c.token.pop_back();
    }
    return c;
  }

  // Admin access by token, TLS verified against the cluster's CA.
  k8s::TransportOptions AdminOptions() const {
    k8s::TransportOptions o;
    o.server = server;
    o.tls.ca_pem = ReadFile(dir / "ca.crt");
    o.credentials = std::make_shared<k8s::StaticToken>(token);
    return o;
  }
};

}  // namespace arbiter::testing_support
