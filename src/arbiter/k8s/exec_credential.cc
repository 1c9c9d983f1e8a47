#include "arbiter/k8s/exec_credential.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arbiter/k8s/decode.h"  // ParseRfc3339

namespace arbiter::k8s {
namespace {

// Tokens are refreshed this long before they expire, so no request carries a token that
// expires on the way.
constexpr std::chrono::seconds kExpiryMargin{10};

std::string Tail(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

StatusOr<std::string> ReadWholeFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgumentError(std::string(what) + " " + path + ": cannot read it");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

ExecCredentialSource::ExecCredentialSource(ExecConfig config, const Clock& clock,
                                           std::chrono::seconds timeout)
    : config_(std::move(config)), clock_(clock), timeout_(timeout) {}

int ExecCredentialSource::runs() const {
  std::lock_guard lock(mu_);
  return runs_;
}

void ExecCredentialSource::Invalidate() {
  std::lock_guard lock(mu_);
  token_.clear();
  expires_.reset();
}

StatusOr<std::string> ExecCredentialSource::Token() {
  std::lock_guard lock(mu_);
  bool fresh = !token_.empty() && (!expires_ || clock_.Now() + kExpiryMargin < *expires_);
  if (fresh) return token_;
  ++runs_;
  ARBITER_ASSIGN_OR_RETURN(std::string output, RunPlugin());
  const std::string who = "exec plugin " + config_.command;
  nlohmann::json credential = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (!credential.is_object() || credential.value("kind", "") != "ExecCredential") {
    return UnauthenticatedError(who + ": did not print an ExecCredential on stdout");
  }
  const nlohmann::json& status = credential["status"];
  if (!status.is_object()) return UnauthenticatedError(who + ": ExecCredential has no status");
  if (!status.contains("token") || !status["token"].is_string() ||
      status["token"].get<std::string>().empty()) {
    if (status.contains("clientCertificateData")) {
      return UnimplementedError(who +
                                ": client certificates from exec plugins are not "
                                "supported yet; return status.token");
    }
    return UnauthenticatedError(who + ": ExecCredential has no status.token");
  }
  std::optional<Clock::WallTime> expires;
  if (status.contains("expirationTimestamp") && status["expirationTimestamp"].is_string()) {
    StatusOr<Clock::WallTime> t = ParseRfc3339(status["expirationTimestamp"].get<std::string>());
    if (!t.ok()) return t.status().WithContext(who + ": status.expirationTimestamp");
    expires = *t;
  }
  token_ = status["token"].get<std::string>();
  expires_ = expires;
  return token_;
}

StatusOr<std::string> ExecCredentialSource::RunPlugin() const {
  const std::string who = "exec plugin " + config_.command;
  std::string api_version = config_.api_version.empty()
                                ? std::string("client.authentication.k8s.io/v1")
                                : config_.api_version;
  nlohmann::json info = {
      {"apiVersion", api_version}, {"kind", "ExecCredential"}, {"spec", {{"interactive", false}}}};

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const auto& [name, value] : config_.env) {
    std::string entry = name;
    entry += '=';
    entry += value;
    env_strings.push_back(std::move(entry));
  }
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + info.dump());
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {config_.command};
  arg_strings.insert(arg_strings.end(), config_.args.begin(), config_.args.end());
  std::vector<char*> argv;
  argv.reserve(arg_strings.size() + 1);
  for (std::string& a : arg_strings) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return InternalError(who + ": pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  int spawned =
      posix_spawnp(&pid, config_.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (spawned != 0) {
    close(out[0]);
    close(err[0]);
    std::string hint = config_.install_hint.empty() ? "" : " (" + config_.install_hint + ")";
    return UnauthenticatedError(who + ": cannot start it: " + std::strerror(spawned) + hint);
  }

  std::string stdout_text;
  std::string stderr_text;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  bool timed_out = false;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (pollfd& fd : fds) {
      if (fd.fd < 0 || (fd.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[4096];
      ssize_t n = read(fd.fd, buf, sizeof(buf));
      if (n > 0) {
        (fd.fd == out[0] ? stdout_text : stderr_text).append(buf, static_cast<std::size_t>(n));
      } else {
        close(fd.fd);
        fd.fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  if (timed_out) kill(pid, SIGKILL);
  int wait_status = 0;
  waitpid(pid, &wait_status, 0);
  if (timed_out) {
    return DeadlineExceededError(who + ": no answer within " + std::to_string(timeout_.count()) +
                                 " s");
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    std::string how = WIFEXITED(wait_status)
                          ? "exited with status " + std::to_string(WEXITSTATUS(wait_status))
                          : "was killed by signal " + std::to_string(WTERMSIG(wait_status));
    return UnauthenticatedError(who + ": " + how + ": " + Tail(stderr_text, 300));
  }
  return stdout_text;
}

StatusOr<TransportOptions> TransportOptionsFrom(const RestConfig& config, const Clock& clock) {
  TransportOptions o;
  o.server = config.server;
  o.clock = &clock;
  o.tls.insecure_skip_verify = config.insecure_skip_tls_verify;
  o.tls.server_name = config.tls_server_name;
  o.tls.ca_pem = config.ca_pem;
  if (o.tls.ca_pem.empty() && !config.ca_file.empty()) {
    ARBITER_ASSIGN_OR_RETURN(o.tls.ca_pem, ReadWholeFile(config.ca_file, "certificate-authority"));
  }
  o.tls.client_cert_pem = config.client_cert_pem;
  if (o.tls.client_cert_pem.empty() && !config.client_cert_file.empty()) {
    ARBITER_ASSIGN_OR_RETURN(o.tls.client_cert_pem,
                             ReadWholeFile(config.client_cert_file, "client-certificate"));
  }
  o.tls.client_key_pem = config.client_key_pem;
  if (o.tls.client_key_pem.empty() && !config.client_key_file.empty()) {
    ARBITER_ASSIGN_OR_RETURN(o.tls.client_key_pem,
                             ReadWholeFile(config.client_key_file, "client-key"));
  }
  // As client-go: a token file wins over a token read once, because it is re-read when it
  // rotates (in-cluster service-account tokens do, hourly).
  if (!config.bearer_token_file.empty()) {
    o.credentials = std::make_shared<TokenFile>(config.bearer_token_file);
  } else if (!config.bearer_token.empty()) {
    o.credentials = std::make_shared<StaticToken>(config.bearer_token);
  } else if (config.exec) {
    o.credentials = std::make_shared<ExecCredentialSource>(*config.exec, clock);
  }
  return o;
}

}  // namespace arbiter::k8s
