// HttpTransport: Arbiter's HTTP(S) connection to the Kubernetes API server, over libcurl.
//
// What it guarantees, as client-go does:
//   * TLS is always verified against the configured CA, unless the user asked for
//     insecure_skip_verify (then a warning is printed once per transport);
//   * a client-side rate limit (QPS and burst) on every request;
//   * retries of requests marked retryable: after 429 it waits as Retry-After says (or backs
//     off), after 5xx and connection errors it backs off exponentially with jitter, up to
//     max_attempts; a 401 asks the credential source for a fresh token once;
//   * connections are reused (a pool of keep-alive handles) and HTTP/2 is used when the server
//     offers it; DoAll() sends many requests at once as streams of one HTTP/2 connection, from
//     one thread;
//   * no secret (token, key) appears in any error message or log line.
//
// HTTP error statuses are not transport errors: Do() returns the response and the caller maps
// it (404 -> NOT_FOUND and so on). Transport failures (DNS, TLS, timeout, refused) are
// UNAVAILABLE or DEADLINE_EXCEEDED with the server's address and curl's reason.
//
// Thread safety: Do() and Stream() may be called from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/k8s/backoff.h"
#include "arbiter/k8s/token_bucket.h"

namespace arbiter::k8s {

struct TlsOptions {
  std::string ca_pem;           // PEM bytes of the CA bundle; empty: ca_file or the system store
  std::string ca_file;          // path to a CA bundle
  std::string client_cert_pem;  // client certificate (PEM), for certificate authentication
  std::string client_key_pem;   // its private key (PEM)
  bool insecure_skip_verify = false;
  std::string server_name;  // overrides the name checked in the server's certificate (SNI too)
};

// Where a bearer token comes from. Token() is called before every request, so a source can
// re-read a rotated file or re-run an exec plugin; Invalidate() is called after a 401.
class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  virtual StatusOr<std::string> Token() = 0;
  virtual void Invalidate() {}
};

class StaticToken final : public CredentialSource {
 public:
  explicit StaticToken(std::string token) : token_(std::move(token)) {}
  StatusOr<std::string> Token() override { return token_; }

 private:
  std::string token_;
};

// Reads the token from a file, again whenever the file changes (service-account tokens rotate)
// and after a 401.
class TokenFile final : public CredentialSource {
 public:
  explicit TokenFile(std::string path) : path_(std::move(path)) {}
  StatusOr<std::string> Token() override;
  void Invalidate() override;

 private:
  std::string path_;
  std::mutex mu_;
  std::string token_;
  std::int64_t mtime_ns_ = -1;
};

// One attempt of a request (Do), for metrics: its method, the HTTP status (0 when no response
// came) and how long it took.
struct RequestRecord {
  std::string_view method;
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  std::chrono::nanoseconds duration{0};
};

struct TransportOptions {
  std::string server;  // https://host:port
  TlsOptions tls;
  std::shared_ptr<CredentialSource> credentials;  // null: no bearer token
  double qps = 50;
  int burst = 100;
  std::chrono::milliseconds timeout{30'000};  // whole request, unless the request sets its own
  std::chrono::milliseconds connect_timeout{10'000};
  int max_attempts = 5;
  // Connections kept open between requests; one beyond that is closed when its request ends (a
  // burst of requests, such as binds waiting out a 429, would otherwise leave the pool at its
  // peak for good: the soak saw descriptors step up after such rounds).
  std::size_t max_idle_connections = 16;
  // A connection left unused this long is closed (Go's IdleConnTimeout, which client-go keeps at
  // 90 s): a burst (binds waiting out 429s) opens a connection per request in flight, and without
  // this the pool would stay at that peak while steady traffic uses only its newest handles (each
  // costs three descriptors: the socket and curl's wake-up socket pair). 0: never.
  std::chrono::milliseconds idle_timeout{90'000};
  std::chrono::milliseconds initial_backoff{200};
  std::chrono::milliseconds max_backoff{10'000};
  std::uint64_t seed = 1;  // jitter
  std::string user_agent = "arbiter/0.1";
  const Clock* clock = nullptr;  // null: RealClock
  // Called after every attempt of Do(), on the calling thread; must be quick and thread-safe.
  std::function<void(const RequestRecord&)> on_request;
};

struct HttpRequest {
  static HttpRequest Get(std::string path) {
    HttpRequest r;
    r.path = std::move(path);
    return r;
  }

  std::string method = "GET";
  std::string path;  // with its query string, e.g. "/api/v1/pods?limit=500"
  std::string body;
  std::string content_type = "application/json";
  std::string accept = "application/json";
  std::chrono::milliseconds timeout{0};  // 0: the transport's
  bool retryable = true;                 // safe to send again after a failure
  // 429 is retried unless this is false: an eviction's 429 is a PodDisruptionBudget's "no",
  // not the server asking to slow down.
  bool retry_throttled = true;
};

struct HttpResponse {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  std::string body;
  std::string content_type;
  std::optional<std::chrono::seconds> retry_after;
  int http_version = 1;  // 1 (HTTP/1.x) or 2
};

// One request's retries, as Do() and DoAll() make them: after each attempt, how long to wait
// before the next one, or none when the attempt's result is the request's. Not thread-safe: one
// per request.
class RequestRetries {
 public:
  RequestRetries(const TransportOptions& options, std::uint64_t seed);
  // The wait before the next attempt; nullopt when `result` is final (a success, an error not
  // worth repeating, or the last attempt). A 401 asks the credentials for a fresh token once and
  // is retried at once, even after the last attempt.
  std::optional<std::chrono::nanoseconds> After(const HttpRequest& request,
                                                const StatusOr<HttpResponse>& result);
  int attempts() const { return attempts_; }

 private:
  CredentialSource* credentials_;
  int max_attempts_;
  Backoff backoff_;
  int attempts_ = 0;
  bool refreshed_credentials_ = false;
};

class HttpTransport {
 public:
  static StatusOr<std::unique_ptr<HttpTransport>> Create(TransportOptions options);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  StatusOr<HttpResponse> Do(const HttpRequest& request);

  // Sends every request at once, each with Do()'s rate limit and retries, over one connection of
  // HTTP/2 streams (kept for the next call; over HTTP/1.1, a connection per request in flight),
  // and calls done(i, result) on the calling thread as request i ends, in the order they end.
  // Returns when all have. One thread waits for all of them: a session's binds cost one wake-up
  // per answer, not a thread and a connection per bind in flight.
  // `done` runs on the loop that drives the other requests: it must not block (no request of its
  // own). `may_start`, if given, is asked before each attempt; once it says no, the request ends
  // CANCELLED, unsent (a scheduler that lost its lease sends nothing it decided before).
  using DoneFunction = std::function<void(std::size_t, StatusOr<HttpResponse>)>;
  void DoAll(std::span<const HttpRequest> requests, const DoneFunction& done,
             const std::function<bool()>& may_start = {});

  // Connections opened so far (each TLS handshake), over Do, DoAll and Stream: for tests and
  // metrics.
  std::uint64_t connections_opened() const { return connections_opened_.load(); }

  // Sends the request and hands the response body to `on_data` as it arrives, until the server
  // closes the stream, an error occurs, or on_data returns false (then the result is OK). Returns
  // the HTTP status. Not retried: the caller (a reflector) decides what to do.
  // `cancel`, if given, is polled about once a second (and on every chunk): once true the
  // stream ends, OK, even when the server sends nothing.
  // NOLINTNEXTLINE(google-runtime-int): libcurl's type
  StatusOr<long> Stream(const HttpRequest& request,
                        const std::function<bool(std::string_view)>& on_data,
                        const std::atomic<bool>* cancel = nullptr);

  const std::string& server() const { return options_.server; }

  // Connections kept open for the next requests (Do's handles and DoAll's multi handles, each
  // with at most one), those idle too long closed first.
  std::size_t idle_connections();

 private:
  explicit HttpTransport(TransportOptions options);
  struct Handle;
  struct Multi;
  // An idle handle (or multi handle) from `pool`, null when it has none; and back into `pool`,
  // unless it is full (then closed).
  template <typename T>
  std::unique_ptr<T> TakeIdle(std::vector<std::unique_ptr<T>>& pool);
  template <typename T>
  void KeepIdle(std::vector<std::unique_ptr<T>>& pool, std::unique_ptr<T> item);
  std::unique_ptr<Handle> Acquire();
  void Release(std::unique_ptr<Handle> handle);
  // Handles and multi handles idle longer than idle_timeout, moved out of the pools to be closed
  // outside the lock.
  struct Expired {
    std::vector<std::unique_ptr<Handle>> handles;
    std::vector<std::unique_ptr<Multi>> multis;
    ~Expired();
  };
  // Requires mu_.
  void TakeExpired(Expired& expired);
  Status Prepare(Handle& handle, const HttpRequest& request);
  // Adds the connections a finished transfer opened to connections_opened_.
  void CountConnections(Handle& handle);
  // Sets the request's timeout and where the response body goes.
  void Arm(Handle& handle, const HttpRequest& request, std::string* body) const;
  // The response of a finished transfer (or the transport error), reported to on_request.
  StatusOr<HttpResponse> Collect(Handle& handle, int curl_code, const HttpRequest& request,
                                 std::string body, std::chrono::steady_clock::time_point started);
  // Waits for the rate limit, then a prepared handle for the request.
  StatusOr<std::unique_ptr<Handle>> Begin(const HttpRequest& request);
  StatusOr<HttpResponse> Once(const HttpRequest& request);

  TransportOptions options_;
  const Clock& clock_;
  TokenBucket limiter_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Handle>> idle_;
  std::vector<std::unique_ptr<Multi>> idle_multis_;
  std::atomic<std::uint64_t> next_seed_;
  std::atomic<std::uint64_t> connections_opened_{0};
};

}  // namespace arbiter::k8s
