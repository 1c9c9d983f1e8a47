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

// The checkout: the first directory upwards from here that has deploy/crds/, else the one the
// cluster lives in (_output/cluster/NAME/ of a checkout).
inline std::optional<std::filesystem::path> RepositoryRoot(const LocalCluster& cluster) {
  namespace fs = std::filesystem;
  for (fs::path dir = fs::current_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "deploy/crds/arbiter.dev_queues.yaml")) return dir;
    if (dir == dir.parent_path()) break;
  }
  fs::path from_cluster = cluster.dir.parent_path().parent_path().parent_path();
  if (fs::exists(from_cluster / "deploy/crds/arbiter.dev_queues.yaml")) return from_cluster;
  return std::nullopt;
}

// Applies deploy/crds/ to the cluster (with the checkout's kubectl) and waits until the
// PodGroup and Queue kinds are served. Empty when done, else what went wrong.
inline std::string ApplyArbiterCrds(const LocalCluster& cluster) {
  std::optional<std::filesystem::path> root = RepositoryRoot(cluster);
  if (!root) return "cannot find deploy/crds/ from " + std::filesystem::current_path().string();
  const std::string kubectl = (*root / "_output/bin/kubectl").string();
  // kubectl wait fails at once on a CRD whose status has no conditions yet: polled, 60 s at
  // most.
  const std::string apply = kubectl + " apply -f " + (*root / "deploy/crds").string() +
                            " >/dev/null && timeout 60 sh -c 'until " + kubectl +
                            " wait --for condition=Established crd/podgroups.arbiter.dev "
                            "crd/queues.arbiter.dev --timeout=5s >/dev/null 2>&1; "
                            "do sleep 0.25; done'";
  if (std::system(apply.c_str()) != 0) return "could not apply the CRDs: " + apply;
  return "";
}

}  // namespace arbiter::testing_support
