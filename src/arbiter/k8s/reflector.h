// Reflector<T>: keeps a local copy of one kind of Kubernetes object (pods, nodes, podgroups, ...)
// equal to the API server's, as client-go's reflector and informer do, and tells handlers what
// changed.
//
//   1. LIST, in pages (limit/continue), then replace the store: objects that vanished since the
//      last LIST are delivered as deletes, so nothing lingers;
//   2. WATCH from the LIST's resourceVersion, with bookmarks; each event updates the store and
//      calls a handler: on_add, on_update(old, new), on_delete;
//   3. a watch that ends normally (the server's timeout) resumes from the last resourceVersion
//      without a LIST; "410 Gone" (an HTTP status or an ERROR event: the version was compacted
//      away) forces a fresh LIST; other failures back off exponentially with jitter;
//   4. a malformed object is skipped with an error naming it, and never stops the stream;
//   5. an optional API (a CRD that may not be installed) that answers 404 is an empty list,
//      looked for again every ListWatchOptions::absent_recheck.
//
// Handlers run on the Run() thread, one at a time, in the order the API server sent the events,
// so the events of one object arrive in order. HasSynced() turns true after the first complete
// LIST has been delivered, and stays true. Each Stop() ends one Run(): the one running (within
// about a second, even on an idle watch), or else the next one, which then returns at once, so a
// Stop() that comes before the thread runs is never lost. Run() may be called again after it
// returned and goes on from where it stopped.
//
// Thread safety: Run() on one thread; Stop(), HasSynced(), List(), Get() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "arbiter/base/status.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/backoff.h"
#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/http_transport.h"

namespace arbiter::k8s {

struct ListWatchOptions {
  std::string path;  // the collection, e.g. "/api/v1/pods" or "/apis/arbiter.dev/v1alpha1/queues"
  std::string label_selector;
  std::string field_selector;
  int page_size = 500;
  std::chrono::seconds min_watch_timeout{300};  // each watch lasts a random time in [min, 2*min)
  std::uint64_t seed = 1;                       // that randomness, and the backoff's
  // The API may not be served (a CRD not installed, an alpha API not enabled): a LIST answered
  // 404 then counts as an empty list (synced, and what was stored is deleted), and the LIST is
  // tried again every `absent_recheck` until the API appears.
  bool optional = false;
  std::chrono::seconds absent_recheck{30};
};

template <typename T>
struct ReflectorHandlers {
  std::function<void(const T&)> on_add = [](const T&) {};
  std::function<void(const T& old_object, const T& new_object)> on_update = [](const T&, const T&) {
  };
  std::function<void(const T&)> on_delete = [](const T&) {};
  // When set, called instead of on_add and on_update with the object as the reflector stores it,
  // to keep without a copy (it is never changed; a newer version replaces the pointer); `added`
  // is true when no object of that key was stored.
  std::function<void(const std::shared_ptr<const T>& object, bool added)> on_store;
  // A skipped object or a failed request, for logs and metrics.
  std::function<void(const Status&)> on_error = [](const Status&) {};
  // An optional API was found served (true) or not served (false): on the first LIST, then on
  // each change.
  std::function<void(bool served)> on_served = [](bool) {};
};

template <typename T>
class Reflector {
 public:
  Reflector(HttpTransport& transport, ListWatchOptions options, ReflectorHandlers<T> handlers)
      : transport_(transport),
        options_(std::move(options)),
        handlers_(std::move(handlers)),
        rng_(options_.seed),
        backoff_(std::chrono::milliseconds(200), std::chrono::seconds(30), 0.5, options_.seed) {}

  void Run();
  void Stop() { stop_ = true; }
  bool HasSynced() const { return synced_.load(); }

  // The store's objects, by key ("namespace/name"): a copy.
  std::vector<T> List() const {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    out.reserve(store_.size());
    for (const auto& [key, object] : store_) out.push_back(*object);
    return out;
  }
  std::optional<T> Get(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = store_.find(key);
    if (it == store_.end()) return std::nullopt;
    return *it->second;
  }
  // The resourceVersion of the stored object with this key; empty when there is none.
  std::string StoredVersion(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = store_.find(key);
    return it == store_.end() ? std::string() : it->second->meta.resource_version;
  }
  std::string last_resource_version() const {
    std::lock_guard lock(mu_);
    return resource_version_;
  }
  // How many LISTs have completed, and how many watches were started (tests use them to see a
  // re-list, or a watch resumed without one).
  int lists() const { return lists_.load(); }
  int watches() const { return watches_.load(); }

 private:
  enum class WatchEnd : std::uint8_t { kResume, kRelist, kBackoff, kStopped };

  Status ListAll();
  Status NotServed(const HttpRequest& request, const HttpResponse& response);
  void SetServed(bool served) {
    if (served_ == served) return;
    served_ = served;
    handlers_.on_served(served);
  }
  WatchEnd WatchOnce();
  void Upsert(T object);
  void Remove(const T& object);
  std::string Query() const;
  void Pause(std::chrono::nanoseconds d) {
    auto until = std::chrono::steady_clock::now() + d;
    while (!stop_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  HttpTransport& transport_;
  const ListWatchOptions options_;
  const ReflectorHandlers<T> handlers_;
  std::mt19937_64 rng_;
  Backoff backoff_;
  simdjson::ondemand::parser parser_;

  mutable std::mutex mu_;
  // Shared with on_store's receiver: a watch event's object is decoded once and copied never.
  std::map<std::string, std::shared_ptr<const T>> store_;
  std::string resource_version_;

  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::atomic<int> lists_{0};
  std::atomic<int> watches_{0};
  std::optional<bool> served_;  // optional APIs: as last seen (Run() thread only)
};

// ---- implementation ----

template <typename T>
std::string Reflector<T>::Query() const {
  std::string q;
  auto add = [&q](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    q += q.empty() ? '?' : '&';
    q += key;
    q += '=';
    // Selectors are the only free text here; they need only these escapes in a query.
    for (char c : value) {
      switch (c) {
        case '&':
          q += "%26";
          break;
        case '=':
          q += "%3D";
          break;
        case ' ':
          q += "%20";
          break;
        case '!':
          q += "%21";
          break;
        case '+':
          q += "%2B";
          break;
        case '#':
          q += "%23";
          break;
        default:
          q += c;
      }
    }
  };
  add("labelSelector", options_.label_selector);
  add("fieldSelector", options_.field_selector);
  return q;
}

template <typename T>
void Reflector<T>::Upsert(T object) {
  auto stored = std::make_shared<const T>(std::move(object));
  std::shared_ptr<const T> old;
  {
    std::lock_guard lock(mu_);
    old = std::exchange(store_[stored->meta.Key()], stored);
  }
  if (handlers_.on_store) {
    handlers_.on_store(stored, old == nullptr);
  } else if (old) {
    handlers_.on_update(*old, *stored);
  } else {
    handlers_.on_add(*stored);
  }
}

template <typename T>
void Reflector<T>::Remove(const T& object) {
  std::shared_ptr<const T> last;
  {
    std::lock_guard lock(mu_);
    auto it = store_.find(object.meta.Key());
    if (it == store_.end()) return;
    last = std::move(it->second);
    store_.erase(it);
  }
  // The deleted object's final state as the server sent it, when it sent one.
  handlers_.on_delete(object.meta.resource_version.empty() ? *last : object);
}

template <typename T>
Status Reflector<T>::ListAll() {
  std::map<std::string, T> fresh;
  std::string continue_token;
  std::string version;
  const std::string query = Query();
  do {
    std::string path = options_.path + query + (query.empty() ? '?' : '&') +
                       "limit=" + std::to_string(options_.page_size);
    if (!continue_token.empty()) path += "&continue=" + continue_token;
    HttpRequest request = HttpRequest::Get(path);
    ARBITER_ASSIGN_OR_RETURN(HttpResponse response, transport_.Do(request));
    if (response.status == 410 && !continue_token.empty()) {
      // The continue token expired mid-way: start the LIST again from the first page.
      fresh.clear();
      continue_token.clear();
      continue;
    }
    if (response.status == 404 && options_.optional) return NotServed(request, response);
    if (response.status != 200) return StatusFromResponse(request, response);
    simdjson::padded_string json(response.body);
    ARBITER_ASSIGN_OR_RETURN(ObjectList<T> page, DecodeList<T>(parser_, json));
    for (const Status& skipped : page.errors) handlers_.on_error(skipped);
    for (T& item : page.items) {
      std::string key = item.meta.Key();
      fresh.insert_or_assign(std::move(key), std::move(item));
    }
    continue_token = page.continue_token;
    version = page.resource_version;
  } while (!continue_token.empty() && !stop_);
  if (stop_) return CancelledError("stopped during LIST of " + options_.path);

  // Replace the store: vanished objects are deletes, others adds or updates (unchanged objects,
  // same resourceVersion, are not delivered again).
  std::vector<std::shared_ptr<const T>> vanished;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, object] : store_) {
      if (!fresh.contains(key)) vanished.push_back(object);
    }
  }
  for (const auto& object : vanished) Remove(*object);
  for (auto& [key, object] : fresh) {
    if (StoredVersion(key) == object.meta.resource_version) continue;  // unchanged
    Upsert(std::move(object));
  }
  {
    std::lock_guard lock(mu_);
    resource_version_ = version;
  }
  ++lists_;
  synced_ = true;
  if (options_.optional) SetServed(true);
  return Status::Ok();
}

// An optional API that is not served: its objects are gone (an uninstalled CRD takes them along),
// and that is all there is to sync.
template <typename T>
Status Reflector<T>::NotServed(const HttpRequest& request, const HttpResponse& response) {
  std::vector<std::shared_ptr<const T>> vanished;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, object] : store_) vanished.push_back(object);
    resource_version_.clear();
  }
  for (const auto& object : vanished) Remove(*object);
  synced_ = true;  // not counted as a LIST: rechecks every absent_recheck are no re-lists
  SetServed(false);
  return StatusFromResponse(request, response);
}

template <typename T>
typename Reflector<T>::WatchEnd Reflector<T>::WatchOnce() {
  std::uniform_int_distribution<std::int64_t> spread(0, options_.min_watch_timeout.count() - 1);
  std::int64_t timeout = options_.min_watch_timeout.count() + spread(rng_);
  std::string query = Query();
  std::string path =
      options_.path + query + (query.empty() ? '?' : '&') +
      "watch=true&allowWatchBookmarks=true&resourceVersion=" + last_resource_version() +
      "&timeoutSeconds=" + std::to_string(timeout);
  HttpRequest request = HttpRequest::Get(path);
  ++watches_;
  std::string pending;  // a partial line carried over between chunks
  WatchEnd end = WatchEnd::kResume;
  bool got_event = false;
  std::string error_body;  // the message of a Status streamed instead of events
  auto on_line = [&](std::string_view line) -> bool {
    simdjson::padded_string json(line);
    StatusOr<WatchEvent<T>> event = DecodeWatchEvent<T>(parser_, json);
    if (!event.ok()) {
      // A refused watch (429, 403...) streams its Status as the body: it is the reason for the
      // HTTP status reported below, not a malformed event.
      if (std::optional<std::string> message = StatusMessageOf(line)) {
        error_body = std::move(*message);
        return true;
      }
      handlers_.on_error(event.status().WithContext("watch " + options_.path));
      return true;  // skip it, keep the stream
    }
    got_event = true;
    switch (event->type) {
      case WatchEventType::kAdded:
      case WatchEventType::kModified:
        Upsert(event->object);
        break;
      case WatchEventType::kDeleted:
        Remove(event->object);
        break;
      case WatchEventType::kBookmark:
        break;
      case WatchEventType::kError:
        if (event->error.code == 410) {
          end = WatchEnd::kRelist;
        } else {
          handlers_.on_error(
              UnavailableError("watch " + options_.path + ": " + event->error.message));
          end = WatchEnd::kBackoff;
        }
        return false;
    }
    if (!event->resource_version.empty()) {
      std::lock_guard lock(mu_);
      resource_version_ = event->resource_version;
    }
    return true;
  };
  StatusOr<long> status = transport_.Stream(  // NOLINT(google-runtime-int)
      request,
      [&](std::string_view chunk) {
        pending.append(chunk);
        std::size_t start = 0;
        for (std::size_t nl = pending.find('\n'); nl != std::string::npos;
             nl = pending.find('\n', start)) {
          std::string_view line(pending.data() + start, nl - start);
          start = nl + 1;
          if (!line.empty() && !on_line(line)) return false;
        }
        pending.erase(0, start);
        return true;
      },
      &stop_);
  if (stop_) return WatchEnd::kStopped;
  if (!status.ok()) {
    handlers_.on_error(status.status());
    return WatchEnd::kBackoff;
  }
  if (*status == 410) return WatchEnd::kRelist;
  if (*status == 404 && options_.optional) return WatchEnd::kRelist;  // the API went away
  if (*status != 200) {
    // The body went through the line handler: a Status gave error_body, anything else that is
    // not an event was reported there.
    handlers_.on_error(UnavailableError("watch " + options_.path + ": HTTP " +
                                        std::to_string(*status) +
                                        (error_body.empty() ? "" : ": " + error_body)));
    return WatchEnd::kBackoff;
  }
  if (!error_body.empty()) {
    handlers_.on_error(UnavailableError("watch " + options_.path + ": " + error_body));
  }
  if (got_event) backoff_.Reset();
  return end;
}

template <typename T>
void Reflector<T>::Run() {
  bool need_list = last_resource_version().empty();
  while (!stop_) {
    if (need_list) {
      Status listed = ListAll();
      if (!listed.ok() && options_.optional && served_ == false && !stop_) {
        Pause(options_.absent_recheck);
        continue;
      }
      if (!listed.ok()) {
        if (stop_) break;
        handlers_.on_error(listed);
        Pause(backoff_.Next());
        continue;
      }
      backoff_.Reset();
      need_list = false;
    }
    switch (WatchOnce()) {
      case WatchEnd::kResume:
        break;
      case WatchEnd::kRelist:
        need_list = true;
        break;
      case WatchEnd::kBackoff:
        Pause(backoff_.Next());
        break;
      case WatchEnd::kStopped:
        stop_ = false;  // this Stop() is spent: the next Run() runs
        return;
    }
  }
  stop_ = false;
}

}  // namespace arbiter::k8s
