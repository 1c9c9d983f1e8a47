#include "arbiter/k8s/http_transport.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include <curl/curl.h>
#include <poll.h>
#include <sys/stat.h>

#include "arbiter/base/log.h"
#include "arbiter/k8s/backoff.h"

namespace arbiter::k8s {
namespace {

std::once_flag curl_init_once;

void InitCurl() {
  std::call_once(curl_init_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendToString(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

struct StreamSink {
  const std::function<bool(std::string_view)>* on_data;
  const std::atomic<bool>* cancel;
  bool stopped = false;
};

size_t CallSink(char* data, size_t size, size_t count, void* out) {
  auto* sink = static_cast<StreamSink*>(out);
  if ((sink->cancel != nullptr && sink->cancel->load()) ||
      !(*sink->on_data)(std::string_view(data, size * count))) {
    sink->stopped = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  return size * count;
}

// libcurl calls this about once a second while a transfer is idle: the chance to cancel.
int CheckCancel(void* data, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/,
                curl_off_t /*ulnow*/) {
  auto* sink = static_cast<StreamSink*>(data);
  if (sink->cancel != nullptr && sink->cancel->load()) {
    sink->stopped = true;
    return 1;  // aborts with CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

bool IsRetryableStatus(long status) {  // NOLINT(google-runtime-int)
  return status == 429 || status >= 500;
}

std::string Trim(std::string s) {
  const char* space = " \t\r\n";
  s.erase(0, s.find_first_not_of(space));
  s.erase(s.find_last_not_of(space) + 1);
  return s;
}

// Secrets and TokenRequests carry credentials in their bodies (a key's base64 in data, a token
// in status): their bodies are never logged, whatever the verbosity.
bool MayCarrySecrets(std::string_view path) {
  path = path.substr(0, path.find('?'));
  return path.find("/secrets") != std::string_view::npos || path.ends_with("/token");
}

}  // namespace

StatusOr<std::string> TokenFile::Token() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    return UnauthenticatedError("token file " + path_ + ": cannot read it");
  }
  std::int64_t mtime =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  std::lock_guard lock(mu_);
  if (mtime != mtime_ns_ || token_.empty()) {
    std::ifstream in(path_);
    std::stringstream contents;
    contents << in.rdbuf();
    std::string token = Trim(contents.str());
    if (!in || token.empty()) return UnauthenticatedError("token file " + path_ + ": empty");
    token_ = std::move(token);
    mtime_ns_ = mtime;
  }
  return token_;
}

void TokenFile::Invalidate() {
  std::lock_guard lock(mu_);
  mtime_ns_ = -1;
}

struct HttpTransport::Handle {
  Handle() : easy(curl_easy_init()) {}
  ~Handle() {
    if (headers != nullptr) curl_slist_free_all(headers);
    if (easy != nullptr) curl_easy_cleanup(easy);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  CURL* easy;
  curl_slist* headers = nullptr;
  Clock::MonotonicTime idle_since{};
  char error[CURL_ERROR_SIZE] = {};
};

StatusOr<std::unique_ptr<HttpTransport>> HttpTransport::Create(TransportOptions options) {
  if (options.server.empty()) return InvalidArgumentError("transport: no server address");
  if (!options.server.starts_with("https://") && !options.server.starts_with("http://")) {
    return InvalidArgumentError("transport: server " + options.server +
                                " is not an http:// or https:// URL");
  }
  while (options.server.ends_with("/")) options.server.pop_back();
  if (!options.tls.server_name.empty()) {
    return UnimplementedError("transport: tls-server-name is not supported yet (server " +
                              options.server + ")");
  }
  if (options.tls.client_cert_pem.empty() != options.tls.client_key_pem.empty()) {
    return InvalidArgumentError("transport: a client certificate needs its key and vice versa");
  }
  InitCurl();
  if (options.tls.insecure_skip_verify) {
    std::fprintf(stderr,
                 "WARNING: TLS verification of %s is disabled (insecure-skip-tls-verify); "
                 "anyone on the path can read and change this traffic\n",
                 options.server.c_str());
  }
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(options)));
}

HttpTransport::HttpTransport(TransportOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : RealClock::Instance()),
      limiter_(options_.qps, options_.burst, clock_),
      next_seed_(options_.seed) {}

HttpTransport::~HttpTransport() = default;

namespace {

// Released in time order and reused from the back: the oldest are at the front.
template <typename T>
void MoveExpired(std::vector<std::unique_ptr<T>>& pool, Clock::MonotonicTime cutoff,
                 std::vector<std::unique_ptr<T>>& expired) {
  auto first_kept = pool.begin();
  while (first_kept != pool.end() && (*first_kept)->idle_since < cutoff) ++first_kept;
  expired.insert(expired.end(), std::make_move_iterator(pool.begin()),
                 std::make_move_iterator(first_kept));
  pool.erase(pool.begin(), first_kept);
}

}  // namespace

HttpTransport::Expired::~Expired() = default;

void HttpTransport::TakeExpired(Expired& expired) {
  if (options_.idle_timeout.count() <= 0) return;
  Clock::MonotonicTime cutoff = clock_.MonotonicNow() - options_.idle_timeout;
  MoveExpired(idle_, cutoff, expired.handles);
  MoveExpired(idle_multis_, cutoff, expired.multis);
}

template <typename T>
std::unique_ptr<T> HttpTransport::TakeIdle(std::vector<std::unique_ptr<T>>& pool) {
  Expired expired;  // closed after the lock is released
  std::lock_guard lock(mu_);
  TakeExpired(expired);
  if (pool.empty()) return nullptr;
  std::unique_ptr<T> item = std::move(pool.back());
  pool.pop_back();
  return item;
}

template <typename T>
void HttpTransport::KeepIdle(std::vector<std::unique_ptr<T>>& pool, std::unique_ptr<T> item) {
  Expired expired;
  std::lock_guard lock(mu_);
  TakeExpired(expired);
  if (pool.size() >= options_.max_idle_connections) return;  // closed here, outside the pool
  item->idle_since = clock_.MonotonicNow();
  pool.push_back(std::move(item));
}

std::unique_ptr<HttpTransport::Handle> HttpTransport::Acquire() {
  std::unique_ptr<Handle> h = TakeIdle(idle_);
  return h != nullptr ? std::move(h) : std::make_unique<Handle>();
}

std::size_t HttpTransport::idle_connections() {
  Expired expired;
  std::lock_guard lock(mu_);
  TakeExpired(expired);
  return idle_.size() + idle_multis_.size();
}

void HttpTransport::Release(std::unique_ptr<Handle> handle) { KeepIdle(idle_, std::move(handle)); }

// A curl multi handle and the easy handles it has used: its connection (the multi keeps it
// between calls) is the one DoAll's streams share.
//
// It is driven by curl_multi_socket_action, not curl_multi_perform: perform visits every
// transfer, and each checks its socket with a poll() of its own, so a batch of n streams cost
// n system calls per answer (strace of a 3,000-pod backlog: eight polls per event written);
// socket_action tells curl which socket is ready, and only the transfers on it run.
struct HttpTransport::Multi {
  Multi() : multi(curl_multi_init()) {
    // Multiplexing is curl's default; said here because DoAll is about it.
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    // Over HTTP/1.1 (a proxy that does not speak HTTP/2) each request in flight has its own
    // connection; after the call only one stays open (the one HTTP/2 streams share), so that the
    // pool of multis keeps no more connections than it has multis.
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 1L);
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &Multi::OnSocket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &Multi::OnTimer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
  }
  ~Multi() {
    spare.clear();  // easy handles are cleaned up before the multi they were part of
    if (multi != nullptr) curl_multi_cleanup(multi);
  }
  Multi(const Multi&) = delete;
  Multi& operator=(const Multi&) = delete;

  // What curl asks to be watched for each of its sockets.
  static int OnSocket(CURL* /*easy*/, curl_socket_t socket, int what, void* self,
                      void* /*socket_data*/) {
    std::vector<pollfd>& sockets = static_cast<Multi*>(self)->sockets;
    auto it = std::find_if(sockets.begin(), sockets.end(),
                           [socket](const pollfd& p) { return p.fd == socket; });
    if (what == CURL_POLL_REMOVE) {
      if (it != sockets.end()) sockets.erase(it);
      return 0;
    }
    short events = 0;  // NOLINT(google-runtime-int): poll's type
    if ((what & CURL_POLL_IN) != 0) events |= POLLIN;
    if ((what & CURL_POLL_OUT) != 0) events |= POLLOUT;
    if (it == sockets.end()) {
      sockets.push_back(pollfd{.fd = socket, .events = events, .revents = 0});
    } else {
      it->events = events;
    }
    return 0;
  }
  // When curl wants to be called for its timeouts (-1: not at all).
  static int OnTimer(CURLM* /*multi*/, long timeout_ms, void* self) {  // NOLINT(google-runtime-int)
    auto* m = static_cast<Multi*>(self);
    if (timeout_ms < 0) {
      m->timer.reset();
    } else {
      m->timer = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }
  // Lets curl run what is due: its timeouts, then the sockets ready within `wait`.
  void Run(std::chrono::milliseconds wait) {
    int running = 0;
    if (timer.has_value() && *timer <= std::chrono::steady_clock::now()) {
      timer.reset();
      curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
      return;
    }
    if (timer.has_value()) {
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                                *timer - std::chrono::steady_clock::now()));
    }
    const int ready = ::poll(sockets.data(), sockets.size(),
                             static_cast<int>(std::max<std::int64_t>(wait.count(), 0)));
    if (ready <= 0) return;
    // A socket closed behind curl's back: curl no longer knows it, and poll would report it at
    // once on every turn.
    std::erase_if(sockets, [](const pollfd& p) { return (p.revents & POLLNVAL) != 0; });
    // curl's callbacks change `sockets` while it runs: take the ready ones first.
    std::vector<std::pair<curl_socket_t, int>> actions;
    for (const pollfd& p : sockets) {
      int mask = 0;
      if ((p.revents & POLLIN) != 0) mask |= CURL_CSELECT_IN;
      if ((p.revents & POLLOUT) != 0) mask |= CURL_CSELECT_OUT;
      if ((p.revents & (POLLERR | POLLHUP)) != 0) mask |= CURL_CSELECT_ERR;
      if (mask != 0) actions.emplace_back(p.fd, mask);
    }
    for (const auto& [socket, mask] : actions) {
      curl_multi_socket_action(multi, socket, mask, &running);
    }
  }

  CURLM* multi;
  std::vector<std::unique_ptr<Handle>> spare;
  std::vector<pollfd> sockets;
  std::optional<std::chrono::steady_clock::time_point> timer;
  Clock::MonotonicTime idle_since{};
};

Status HttpTransport::Prepare(Handle& h, const HttpRequest& request) {
  if (h.easy == nullptr) return InternalError("transport: curl_easy_init failed");
  // reset keeps the handle's live connections and TLS sessions, and clears every option.
  curl_easy_reset(h.easy);
  if (h.headers != nullptr) {
    curl_slist_free_all(h.headers);
    h.headers = nullptr;
  }
  std::string url = options_.server + request.path;
  curl_easy_setopt(h.easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h.easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h.easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(h.easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h.easy, CURLOPT_ERRORBUFFER, h.error);
  curl_easy_setopt(h.easy, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(h.easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));  // NOLINT
  h.error[0] = '\0';

  if (request.method == "GET") {
    curl_easy_setopt(h.easy, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h.easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method == "POST") {
      curl_easy_setopt(h.easy, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h.easy, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
  }

  h.headers = curl_slist_append(h.headers, ("Accept: " + request.accept).c_str());
  if (!request.body.empty()) {
    h.headers = curl_slist_append(h.headers, ("Content-Type: " + request.content_type).c_str());
  }
  if (options_.credentials != nullptr) {
    StatusOr<std::string> token = options_.credentials->Token();
    if (!token.ok()) return token.status();
    h.headers = curl_slist_append(h.headers, ("Authorization: Bearer " + *token).c_str());
  }
  curl_easy_setopt(h.easy, CURLOPT_HTTPHEADER, h.headers);

  const TlsOptions& tls = options_.tls;
  curl_easy_setopt(h.easy, CURLOPT_SSL_VERIFYPEER, tls.insecure_skip_verify ? 0L : 1L);
  curl_easy_setopt(h.easy, CURLOPT_SSL_VERIFYHOST, tls.insecure_skip_verify ? 0L : 2L);
  if (!tls.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(tls.ca_pem.data()), tls.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h.easy, CURLOPT_CAINFO_BLOB, &blob);
  } else if (!tls.ca_file.empty()) {
    curl_easy_setopt(h.easy, CURLOPT_CAINFO, tls.ca_file.c_str());
  }
  if (!tls.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(tls.client_cert_pem.data()), tls.client_cert_pem.size(),
                   CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(tls.client_key_pem.data()), tls.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(h.easy, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(h.easy, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(h.easy, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(h.easy, CURLOPT_SSLKEYTYPE, "PEM");
  }
  return Status::Ok();
}

namespace {

Status CurlError(CURLcode code, const char* detail, const HttpRequest& request,
                 const std::string& server) {
  std::string message = request.method + " " + server + request.path + ": " +
                        (detail[0] != '\0' ? std::string(detail) : curl_easy_strerror(code));
  if (code == CURLE_OPERATION_TIMEDOUT) return DeadlineExceededError(message);
  return UnavailableError(message);
}

}  // namespace

StatusOr<std::unique_ptr<HttpTransport::Handle>> HttpTransport::Begin(const HttpRequest& request) {
  std::chrono::nanoseconds wait = limiter_.Reserve();
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
  std::unique_ptr<Handle> h = Acquire();
  Status prepared = Prepare(*h, request);
  if (!prepared.ok()) {
    Release(std::move(h));
    return prepared;
  }
  return h;
}

void HttpTransport::CountConnections(Handle& h) {
  long connects = 0;  // NOLINT(google-runtime-int): libcurl's type
  if (curl_easy_getinfo(h.easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK && connects > 0) {
    connections_opened_.fetch_add(static_cast<std::uint64_t>(connects));
  }
}

void HttpTransport::Arm(Handle& h, const HttpRequest& request, std::string* body) const {
  std::chrono::milliseconds timeout =
      request.timeout.count() > 0 ? request.timeout : options_.timeout;
  curl_easy_setopt(h.easy, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));  // NOLINT
  curl_easy_setopt(h.easy, CURLOPT_WRITEFUNCTION, &AppendToString);
  curl_easy_setopt(h.easy, CURLOPT_WRITEDATA, body);
  if (LogVerbosity() >= 8) {
    // Headers as sent, the credential masked: never a token in a log line.
    ARBITER_VLOG(8) << "request method=" << request.method << " url=" << options_.server
                    << request.path << " accept=" << request.accept
                    << (options_.credentials != nullptr ? " authorization=\"Bearer <masked>\"" : "")
                    << " body_bytes=" << request.body.size();
  }
}

StatusOr<HttpResponse> HttpTransport::Collect(Handle& h, int curl_code, const HttpRequest& request,
                                              std::string body,
                                              std::chrono::steady_clock::time_point started) {
  CountConnections(h);
  const auto code = static_cast<CURLcode>(curl_code);
  if (code != CURLE_OK) {
    Status error = CurlError(code, h.error, request, options_.server);
    if (options_.on_request) {
      options_.on_request({request.method, 0, std::chrono::steady_clock::now() - started});
    }
    ARBITER_VLOG(6) << "request failed: " << error;
    return error;
  }
  HttpResponse response;
  response.body = std::move(body);
  curl_easy_getinfo(h.easy, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  curl_easy_getinfo(h.easy, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type != nullptr) response.content_type = content_type;
  long version = 0;  // NOLINT(google-runtime-int)
  curl_easy_getinfo(h.easy, CURLINFO_HTTP_VERSION, &version);
  response.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(h.easy, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
      retry_after > 0) {
    response.retry_after = std::chrono::seconds(retry_after);
  }
  if (options_.on_request) {
    options_.on_request(
        {request.method, response.status, std::chrono::steady_clock::now() - started});
  }
  ARBITER_VLOG(6) << request.method << " " << options_.server << request.path
                  << " status=" << response.status << " http=" << response.http_version
                  << " bytes=" << response.body.size() << " ms="
                  << std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - started)
                         .count();
  if (LogVerbosity() >= 10) {
    if (MayCarrySecrets(request.path)) {
      ARBITER_VLOG(10) << "response body: <not logged: it may carry a secret>";
    } else {
      ARBITER_VLOG(10) << "response body: " << response.body.substr(0, 1024);
    }
  }
  return response;
}

StatusOr<HttpResponse> HttpTransport::Once(const HttpRequest& request) {
  ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<Handle> h, Begin(request));
  std::string body;
  Arm(*h, request, &body);
  auto started = std::chrono::steady_clock::now();
  CURLcode code = curl_easy_perform(h->easy);
  StatusOr<HttpResponse> response = Collect(*h, code, request, std::move(body), started);
  Release(std::move(h));
  return response;
}

RequestRetries::RequestRetries(const TransportOptions& options, std::uint64_t seed)
    : credentials_(options.credentials.get()),
      max_attempts_(options.max_attempts),
      backoff_(options.initial_backoff, options.max_backoff, 0.5, seed) {}

std::optional<std::chrono::nanoseconds> RequestRetries::After(
    const HttpRequest& request, const StatusOr<HttpResponse>& result) {
  ++attempts_;
  const bool last = attempts_ >= max_attempts_;
  if (!result.ok()) {
    if (!request.retryable || last) return std::nullopt;
    return backoff_.Next();
  }
  if (result->status == 401 && credentials_ != nullptr && !refreshed_credentials_) {
    credentials_->Invalidate();
    refreshed_credentials_ = true;
    return std::chrono::nanoseconds(0);
  }
  const bool retry = result->status == 429 ? request.retry_throttled
                                           : request.retryable && IsRetryableStatus(result->status);
  if (!retry || last) return std::nullopt;
  std::chrono::nanoseconds wait = backoff_.Next();
  if (result->retry_after.has_value()) wait = *result->retry_after;
  return wait;
}

StatusOr<HttpResponse> HttpTransport::Do(const HttpRequest& request) {
  RequestRetries retries(options_, next_seed_.fetch_add(1));
  while (true) {
    StatusOr<HttpResponse> response = Once(request);
    std::optional<std::chrono::nanoseconds> wait = retries.After(request, response);
    if (!wait.has_value()) return response;
    if (wait->count() > 0) std::this_thread::sleep_for(*wait);
  }
}

void HttpTransport::DoAll(std::span<const HttpRequest> requests, const DoneFunction& done,
                          const std::function<bool()>& may_start) {
  if (requests.empty()) return;
  using Steady = std::chrono::steady_clock;
  struct Call {
    RequestRetries retries;
    std::unique_ptr<Handle> handle;  // while an attempt is in flight
    std::string body;
    Steady::time_point due;      // when the next attempt may start
    Steady::time_point started;  // of the attempt in flight
    bool reserved = false;       // the rate limit's token for the next attempt is taken
    bool finished = false;
  };
  std::vector<Call> calls;
  calls.reserve(requests.size());
  const Steady::time_point begun = Steady::now();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    calls.push_back(Call{.retries = RequestRetries(options_, next_seed_.fetch_add(1)),
                         .handle = nullptr,
                         .body = {},
                         .due = begun,
                         .started = begun});
  }
  std::unique_ptr<Multi> m = TakeIdle(idle_multis_);
  if (m == nullptr) m = std::make_unique<Multi>();
  std::size_t unfinished = calls.size();

  // After an attempt: done, or the next attempt scheduled.
  auto settle = [&](std::size_t i, StatusOr<HttpResponse> result) {
    Call& call = calls[i];
    std::optional<std::chrono::nanoseconds> wait = call.retries.After(requests[i], result);
    if (wait.has_value()) {
      call.due = Steady::now() + *wait;
      return;
    }
    call.finished = true;
    --unfinished;
    done(i, std::move(result));
  };
  auto start = [&](std::size_t i) {
    Call& call = calls[i];
    std::unique_ptr<Handle> h;
    if (!m->spare.empty()) {
      h = std::move(m->spare.back());
      m->spare.pop_back();
    } else {
      h = std::make_unique<Handle>();
    }
    Status prepared = Prepare(*h, requests[i]);
    if (!prepared.ok()) {
      m->spare.push_back(std::move(h));
      settle(i, prepared);
      return;
    }
    call.body.clear();
    Arm(*h, requests[i], &call.body);
    // Wait for a connection being set up rather than open another: the streams share it.
    curl_easy_setopt(h->easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(h->easy, CURLOPT_PRIVATE, static_cast<void*>(&call));
    call.started = Steady::now();
    if (CURLMcode added = curl_multi_add_handle(m->multi, h->easy); added != CURLM_OK) {
      m->spare.push_back(std::move(h));
      settle(i, InternalError(std::string("transport: curl_multi_add_handle: ") +
                              curl_multi_strerror(added)));
      return;
    }
    call.handle = std::move(h);
  };

  while (unfinished > 0) {
    Steady::time_point now = Steady::now();
    std::optional<Steady::time_point> next_due;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      Call& call = calls[i];
      if (call.finished || call.handle != nullptr) continue;
      if (call.due > now) {
        next_due = next_due.has_value() ? std::min(*next_due, call.due) : call.due;
        continue;
      }
      if (!call.reserved) {
        call.reserved = true;
        std::chrono::nanoseconds wait = limiter_.Reserve();
        if (wait.count() > 0) {
          call.due = now + wait;
          next_due = next_due.has_value() ? std::min(*next_due, call.due) : call.due;
          continue;
        }
      }
      call.reserved = false;
      if (may_start && !may_start()) {
        call.finished = true;
        --unfinished;
        done(i, CancelledError(requests[i].method + " " + requests[i].path +
                               ": not sent: the caller no longer allows it"));
        continue;
      }
      start(i);
    }
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(m->multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* easy = msg->easy_handle;
      const CURLcode code = msg->data.result;
      void* private_data = nullptr;
      curl_easy_getinfo(easy, CURLINFO_PRIVATE, &private_data);
      const auto i = static_cast<std::size_t>(static_cast<Call*>(private_data) - calls.data());
      curl_multi_remove_handle(m->multi, easy);
      Call& call = calls[i];
      std::unique_ptr<Handle> h = std::move(call.handle);
      StatusOr<HttpResponse> result =
          Collect(*h, code, requests[i], std::move(call.body), call.started);
      m->spare.push_back(std::move(h));
      settle(i, std::move(result));
    }
    if (unfinished == 0) break;
    // Wait for an answer or curl's next timeout, or until the next attempt is due (at most a
    // second).
    std::chrono::milliseconds wait(1000);
    if (next_due.has_value()) {
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                                std::max(*next_due - Steady::now(), Steady::duration(0))));
    }
    m->Run(wait);
  }
  KeepIdle(idle_multis_, std::move(m));
}

// NOLINTNEXTLINE(google-runtime-int): libcurl's type
StatusOr<long> HttpTransport::Stream(const HttpRequest& request,
                                     const std::function<bool(std::string_view)>& on_data,
                                     const std::atomic<bool>* cancel) {
  ARBITER_ASSIGN_OR_RETURN(std::unique_ptr<Handle> h, Begin(request));
  StreamSink sink{&on_data, cancel};
  // A stream lasts as long as the server keeps it (watches end by their timeoutSeconds).
  curl_easy_setopt(h->easy, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(request.timeout.count()));  // NOLINT
  curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, &CallSink);
  curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h->easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h->easy, CURLOPT_XFERINFOFUNCTION, &CheckCancel);
  curl_easy_setopt(h->easy, CURLOPT_XFERINFODATA, &sink);
  CURLcode code = curl_easy_perform(h->easy);
  CountConnections(*h);
  long status = 0;  // NOLINT(google-runtime-int)
  curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
  bool cancelled_here =
      sink.stopped && (code == CURLE_WRITE_ERROR || code == CURLE_ABORTED_BY_CALLBACK);
  if (code != CURLE_OK && !cancelled_here) {
    Status error = CurlError(code, h->error, request, options_.server);
    Release(std::move(h));
    return error;
  }
  Release(std::move(h));
  return status;
}

}  // namespace arbiter::k8s
