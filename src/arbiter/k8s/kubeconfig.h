// Where and how to reach the API server: RestConfig, built from kubeconfig files (as kubectl
// reads them) or from the in-cluster service-account environment (as client-go's
// rest.InClusterConfig does). Nothing here opens a connection; the transport consumes RestConfig.
//
// Kubeconfig loading (LoadKubeconfig) follows clientcmd's rules:
//   * KUBECONFIG is a colon-separated list of files; empty entries and files that do not exist
//     are skipped, but a file that exists and cannot be read or parsed is an error;
//   * clusters, users and contexts merge by name, and the first file that defines a name wins
//     (later definitions of that name are ignored whole, not merged field by field);
//   * current-context comes from the first file that sets it; a --context override wins;
//   * relative paths (certificate-authority, client-certificate, client-key, tokenFile, and an
//     exec command that contains a '/') are resolved against the directory of the file that
//     named them; a bare exec command is left for PATH lookup;
//   * *-data fields are base64 and are decoded here (RestConfig holds PEM bytes).
// Validation, as clientcmd's: a server is required; insecure-skip-tls-verify excludes a CA; a file
// and -data form of the same field exclude each other; a client certificate needs a key.
// Errors name the file and the field: `kubeconfig /home/a/.kube/config: users[alice].client-key-
// data: not valid base64`. Unsupported auth (auth-provider, username/password) is an error
// rather than a silent anonymous client.
//
// Secrets: RestConfig may hold a bearer token and a private key. Redacted() and operator<<
// print neither (nor exec env values or args); log only through them.
//
// Thread safety: functions are reentrant; RestConfig is a value type.
//
//   ARBITER_ASSIGN_OR_RETURN(RestConfig config,
//       LoadKubeconfig(KubeconfigOptions{.paths = getenv("KUBECONFIG"), .context = flag}));
//   LOG(info) << "api server: " << config;   // no secrets
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/base/status.h"

namespace arbiter::k8s {

// A client-go credential (exec) plugin: the command prints an ExecCredential with a token or a
// client certificate.
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // name, value; added to the environment
  std::string
      api_version;  // client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never, IfAvailable or Always; empty: the API version's default
  friend bool operator==(const ExecConfig&, const ExecConfig&) = default;
};

struct RestConfig {
  std::string server;  // "https://10.0.0.1:6443" (no trailing slash)
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  // The CA bundle: PEM bytes, or an absolute path (re-read by the transport). At most one is set;
  // neither means the system store.
  std::string ca_pem;
  std::string ca_file;
  // Client certificate authentication (PEM bytes or absolute paths).
  std::string client_cert_pem;
  std::string client_cert_file;
  std::string client_key_pem;
  std::string client_key_file;
  // Bearer token authentication. With a file, its current content wins over bearer_token (the
  // file may rotate).
  std::string bearer_token;
  std::string bearer_token_file;
  std::optional<ExecConfig> exec;
  // The default namespace: the context's namespace, or the service account's in-cluster.
  std::string namespace_name;
  std::string context_name;  // the kubeconfig context used; empty in-cluster

  // One line, with every secret replaced by a marker ("token=<redacted>"): key PEM, token, exec
  // args and env values are never printed; file paths and the CA are (they are not secret).
  std::string Redacted() const;
  friend bool operator==(const RestConfig&, const RestConfig&) = default;
};

// Prints Redacted().
std::ostream& operator<<(std::ostream& os, const RestConfig& config);

struct KubeconfigOptions {
  std::string paths;    // the KUBECONFIG value: one or more files, colon-separated
  std::string context;  // --context: overrides current-context when not empty
};

// The files kubectl would read: $KUBECONFIG, or $HOME/.kube/config when KUBECONFIG is unset or
// empty (empty when HOME is unset too).
std::string KubeconfigPathsFromEnvironment();

// Loads and merges the kubeconfig files and resolves the chosen context (see the header
// comment). NOT_FOUND when no file exists or the context, cluster or user is missing;
// INVALID_ARGUMENT for a malformed file or field.
StatusOr<RestConfig> LoadKubeconfig(const KubeconfigOptions& options);

// The environment in-cluster configuration reads; injectable so tests need no real pod.
struct InClusterEnvironment {
  std::string service_host;  // KUBERNETES_SERVICE_HOST
  std::string service_port;  // KUBERNETES_SERVICE_PORT
  std::string secrets_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// Reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT from the process environment, and
// ARBITER_SERVICE_ACCOUNT_DIR, when set, for where the token, ca.crt and namespace files are
// instead of the standard path (a binary run outside a pod as a ServiceAccount: the e2e tests).
InClusterEnvironment InClusterEnvironmentFromProcess();

// As rest.InClusterConfig: server https://host:port (an IPv6 host bracketed), the CA at
// <secrets_dir>/ca.crt, the token from <secrets_dir>/token (read now to fail early, and kept as a
// file to follow rotation), the namespace from <secrets_dir>/namespace when present.
// FAILED_PRECONDITION when not in a cluster (host or port unset); NOT_FOUND when the token is
// missing.
StatusOr<RestConfig> LoadInClusterConfig(const InClusterEnvironment& env);

// Decodes standard base64 (padding required, line breaks ignored), as Go decodes []byte fields.
StatusOr<std::string> DecodeBase64(std::string_view text);

}  // namespace arbiter::k8s
