// ExecCredentialSource: bearer tokens from a kubeconfig `exec` credential plugin
// (client.authentication.k8s.io v1 or v1beta1), as kubectl runs them: the plugin is started with
// the configured args and env plus KUBERNETES_EXEC_INFO, prints an ExecCredential on stdout, and
// its token is used until its expirationTimestamp (or until the API server answers 401), then the
// plugin runs again.
//
// Errors name the plugin and say why (not found, exit status with the end of its stderr, a
// malformed ExecCredential, a timeout); they never contain the token.
// Thread safety: Token() and Invalidate() may be called from any thread.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "arbiter/base/clock.h"
#include "arbiter/k8s/http_transport.h"
#include "arbiter/k8s/kubeconfig.h"

namespace arbiter::k8s {

class ExecCredentialSource final : public CredentialSource {
 public:
  ExecCredentialSource(ExecConfig config, const Clock& clock,
                       std::chrono::seconds timeout = std::chrono::seconds(60));

  StatusOr<std::string> Token() override;
  void Invalidate() override;

  // How many times the plugin has run (tests).
  int runs() const;

 private:
  StatusOr<std::string> RunPlugin() const;

  const ExecConfig config_;
  const Clock& clock_;
  const std::chrono::seconds timeout_;
  mutable std::mutex mu_;
  std::string token_;
  std::optional<Clock::WallTime> expires_;
  int runs_ = 0;
};

// Transport options for a RestConfig (from a kubeconfig or in-cluster): server, CA, client
// certificate, and the credential source its user names (token, token file or exec plugin).
// Files are read now; errors name the file.
StatusOr<TransportOptions> TransportOptionsFrom(const RestConfig& config, const Clock& clock);

}  // namespace arbiter::k8s
