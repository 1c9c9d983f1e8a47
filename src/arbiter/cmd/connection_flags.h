// The flags with which the binaries (arbiter-scheduler, arbiter-controller, arbiterctl) say what
// they accept of a kubeconfig: --allow-insecure-tls, --credential-plugin-policy and
// --credential-plugin-allowlist (runtime::CheckConnectionPolicy applies them).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "arbiter/base/status.h"
#include "arbiter/runtime/setup.h"

namespace arbiter::cmd {

struct ConnectionPolicyFlags {
  bool allow_insecure_tls = false;
  std::string plugin_policy = "AllowAll";
  std::vector<std::string> plugin_allowlist;
};

inline void AddConnectionPolicyFlags(CLI::App& app, ConnectionPolicyFlags& flags) {
  app.add_flag("--allow-insecure-tls", flags.allow_insecure_tls,
               "accept a kubeconfig whose cluster sets insecure-skip-tls-verify (the API "
               "server's certificate is then not checked; a warning is logged)");
  app.add_option("--credential-plugin-policy", flags.plugin_policy,
                 "which exec credential plugins a kubeconfig may run: AllowAll, DenyAll or "
                 "Allowlist (those of --credential-plugin-allowlist)")
      ->capture_default_str();
  app.add_option("--credential-plugin-allowlist", flags.plugin_allowlist,
                 "with --credential-plugin-policy=Allowlist: the commands allowed, absolute paths "
                 "or names looked up on PATH (comma-separated or repeated)")
      ->delimiter(',');
}

// Fills the policy fields of `connection`; INVALID_ARGUMENT names the flag.
inline Status ApplyConnectionPolicyFlags(const ConnectionPolicyFlags& flags,
                                         runtime::ApiConnection& connection) {
  ARBITER_ASSIGN_OR_RETURN(connection.plugin_policy,
                           runtime::ParseCredentialPluginPolicy(flags.plugin_policy));
  if (!flags.plugin_allowlist.empty() &&
      connection.plugin_policy != runtime::CredentialPluginPolicy::kAllowlist) {
    return InvalidArgumentError(
        "--credential-plugin-allowlist: only with --credential-plugin-policy=Allowlist");
  }
  connection.allow_insecure_tls = flags.allow_insecure_tls;
  connection.plugin_allowlist = flags.plugin_allowlist;
  return Status::Ok();
}

}  // namespace arbiter::cmd
