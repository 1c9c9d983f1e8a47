#include "arbiter/k8s/event_recorder.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbiter/base/clock.h"

namespace arbiter::k8s {
namespace {

constexpr std::size_t kMaxNote = 1024;

}  // namespace

EventAggregator::EventAggregator(EventRecorderOptions options, const Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

std::string EventAggregator::Key(const EventSpec& spec) {
  // The note by its hash: notes run to 1 KiB, and an object may have many within a window (a
  // waiting pod's note quotes figures that change); two notes that collide would share a series.
  return spec.regarding.namespace_name + "/" + spec.regarding.name + "/" + spec.regarding.uid +
         "\n" + spec.type + "\n" + spec.reason + "\n" +
         std::to_string(std::hash<std::string>{}(spec.note));
}

bool EventAggregator::TakeToken(const std::string& object_key) {
  Clock::MonotonicTime now = clock_.MonotonicNow();
  auto [it, inserted] =
      budgets_.try_emplace(object_key, Budget{static_cast<double>(options_.per_object_burst), now});
  Budget& b = it->second;
  double elapsed = std::chrono::duration<double>(now - b.refreshed).count();
  b.tokens = std::min(static_cast<double>(options_.per_object_burst),
                      b.tokens + elapsed * options_.per_object_qps);
  b.refreshed = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

void EventAggregator::Prune(Clock::MonotonicTime now) {
  if (now - last_prune_ < options_.aggregation_window) return;
  last_prune_ = now;
  // An entry past the window would be started afresh by its next occurrence, and a budget that
  // has refilled to the burst is what try_emplace makes: dropping either changes no decision.
  std::erase_if(entries_, [&](const auto& entry) {
    return now - entry.second.first_seen > options_.aggregation_window;
  });
  std::erase_if(budgets_, [&](const auto& entry) {
    const Budget& b = entry.second;
    const double elapsed = std::chrono::duration<double>(now - b.refreshed).count();
    return b.tokens + elapsed * options_.per_object_qps >=
           static_cast<double>(options_.per_object_burst);
  });
}

EventAggregator::Decision EventAggregator::Observe(const EventSpec& spec) {
  Clock::MonotonicTime now = clock_.MonotonicNow();
  Prune(now);
  std::string key = Key(spec);
  // The budget is per object and reason: a pod whose FailedScheduling note changed every session
  // of a long wait must still get its Scheduled event (found by reliability.large_gang_stream: a
  // gang that waited 25 sessions had spent its pods' budgets and got no Scheduled event).
  std::string object_key =
      spec.regarding.namespace_name + "/" + spec.regarding.name + "\n" + spec.reason;
  auto it = entries_.find(key);
  if (it != entries_.end() && now - it->second.first_seen > options_.aggregation_window) {
    entries_.erase(it);
    it = entries_.end();
  }
  if (it == entries_.end()) {
    if (!TakeToken(object_key)) return {Decision::Kind::kSuppress, "", 0};
    char suffix[24];
    std::snprintf(suffix, sizeof(suffix), ".%" PRIx64, ++sequence_);
    std::string name = spec.regarding.name + "." +
                       std::to_string(clock_.Now().time_since_epoch().count()) + suffix;
    entries_[key] = Entry{name, 1, now, now};
    return {Decision::Kind::kCreate, name, 1};
  }
  Entry& e = it->second;
  ++e.count;
  e.last_seen = now;
  if (!TakeToken(object_key)) return {Decision::Kind::kSuppress, e.event_name, e.count};
  return {Decision::Kind::kUpdateSeries, e.event_name, e.count};
}

void EventAggregator::Forget(const EventSpec& spec) { entries_.erase(Key(spec)); }

EventRecorder::EventRecorder(ApiClient& api, EventRecorderOptions options, const Clock& clock)
    : api_(api), options_(std::move(options)), clock_(clock), aggregator_(options_, clock_) {
  thread_ = std::thread([this] { Loop(); });
}

EventRecorder::~EventRecorder() { Stop(); }

std::string EventRecorder::WaitingKey(const EventSpec& spec) {
  return spec.regarding.namespace_name + "/" + spec.regarding.name + "/" + spec.regarding.uid +
         "\n" + spec.type + "\n" + spec.reason;
}

std::uint64_t EventRecorder::coalesced() const {
  std::lock_guard lock(mu_);
  return coalesced_;
}

bool EventRecorder::Record(EventSpec spec) {
  if (spec.note.size() > kMaxNote) spec.note.resize(kMaxNote);
  const Clock::WallTime now = clock_.Now();
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      ++dropped_;
      return false;
    }
    // A newer occurrence for the same object and reason replaces the one still waiting, in its
    // place: only the latest note is worth writing, and the queue stays one entry per object and
    // reason however fast figures in notes change.
    std::string key = WaitingKey(spec);
    if (auto it = waiting_.find(key); it != waiting_.end()) {
      // The same note again is one more occurrence for the series; another note supersedes it.
      Waiting& w = it->second;
      if (w.spec.note == spec.note) {
        ++w.repeats;
      } else {
        w.repeats = 1;
        w.first_observed = now;
      }
      w.last_observed = now;
      w.spec = std::move(spec);
      ++coalesced_;
    } else if (waiting_.size() >= options_.queue_capacity) {
      ++dropped_;
      return false;
    } else {
      std::deque<std::string>& lane = spec.type == "Warning" ? warnings_ : normal_;
      waiting_.emplace(key, Waiting{std::move(spec), 1, now, now});
      lane.push_back(std::move(key));
    }
  }
  changed_.notify_all();
  return true;
}

void EventRecorder::Flush() {
  std::unique_lock lock(mu_);
  changed_.wait(lock,
                [this] { return (normal_.empty() && warnings_.empty() && !busy_) || stopping_; });
}

void EventRecorder::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t EventRecorder::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}
std::uint64_t EventRecorder::written() const {
  std::lock_guard lock(mu_);
  return written_;
}
std::uint64_t EventRecorder::failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

void EventRecorder::Loop() {
  const std::size_t batch = std::max<std::size_t>(options_.batch, 1);
  while (true) {
    std::vector<Waiting> taken;
    {
      std::unique_lock lock(mu_);
      busy_ = false;
      changed_.notify_all();
      changed_.wait(lock, [this] { return !normal_.empty() || !warnings_.empty() || stopping_; });
      if (stopping_) return;
      for (std::deque<std::string>* lane : {&normal_, &warnings_}) {
        while (!lane->empty() && taken.size() < batch) {
          auto it = waiting_.find(lane->front());
          taken.push_back(std::move(it->second));
          waiting_.erase(it);
          lane->pop_front();
        }
      }
      busy_ = true;
    }
    // Each occurrence counts; what is written is the Event's creation, if one of them made it,
    // and then the series as it stands after all of them. Creations and lone updates go out at
    // once, as streams of one connection; an update that follows its creation goes after it.
    std::vector<Write> first;
    std::vector<Write> then;
    for (Waiting& w : taken) {
      std::optional<EventAggregator::Decision> create;
      std::optional<EventAggregator::Decision> update;
      for (std::int32_t i = 0; i < w.repeats; ++i) {
        EventAggregator::Decision decision = aggregator_.Observe(w.spec);
        if (decision.kind == EventAggregator::Decision::Kind::kCreate) {
          create = decision;
          update.reset();
        } else if (decision.kind == EventAggregator::Decision::Kind::kUpdateSeries) {
          update = decision;
        }
      }
      if (create) first.push_back({&w.spec, *create, w.first_observed});
      if (update) (create ? then : first).push_back({&w.spec, *update, w.last_observed});
    }
    // A series update of an Event whose creation failed would only be refused (404).
    const std::vector<const EventSpec*> not_created = WriteAll(first);
    std::erase_if(then, [&](const Write& w) {
      return std::find(not_created.begin(), not_created.end(), w.spec) != not_created.end();
    });
    WriteAll(then);
  }
}

HttpRequest EventRequest(const EventSpec& spec, const EventAggregator::Decision& decision,
                         Clock::WallTime observed, const EventRecorderOptions& options) {
  const std::string when = FormatMicroTime(observed);
  const std::string collection =
      "/apis/events.k8s.io/v1/namespaces/" + spec.regarding.namespace_name + "/events";
  if (decision.kind == EventAggregator::Decision::Kind::kCreate) {
    nlohmann::json event = {
        {"apiVersion", "events.k8s.io/v1"},
        {"kind", "Event"},
        {"metadata", {{"name", decision.event_name}, {"namespace", spec.regarding.namespace_name}}},
        {"eventTime", when},
        {"reportingController", options.reporting_controller},
        {"reportingInstance", options.reporting_instance},
        {"action", spec.action},
        {"reason", spec.reason},
        {"type", spec.type},
        {"note", spec.note},
        {"regarding",
         {{"apiVersion", spec.regarding.api_version},
          {"kind", spec.regarding.kind},
          {"namespace", spec.regarding.namespace_name},
          {"name", spec.regarding.name},
          {"uid", spec.regarding.uid}}},
    };
    return ApiClient::CreateRequest(collection, event.dump());
  }
  nlohmann::json patch = {
      {"series", {{"count", decision.count}, {"lastObservedTime", when}}},
  };
  return ApiClient::PatchRequest(collection + "/" + decision.event_name, patch.dump(),
                                 PatchType::kMerge);
}

std::vector<const EventSpec*> EventRecorder::WriteAll(const std::vector<Write>& writes) {
  std::vector<const EventSpec*> not_created;
  if (writes.empty()) return not_created;
  std::vector<HttpRequest> requests;
  requests.reserve(writes.size());
  for (const Write& write : writes) {
    requests.push_back(EventRequest(*write.spec, write.decision, write.observed, options_));
  }
  std::uint64_t written = 0;
  std::uint64_t failed = 0;
  api_.Expect2xxAll(requests, [&](std::size_t i, const StatusOr<std::string>& result) {
    if (result.ok()) {
      ++written;
      return;
    }
    ++failed;
    if (writes[i].decision.kind == EventAggregator::Decision::Kind::kCreate) {
      aggregator_.Forget(*writes[i].spec);
      not_created.push_back(writes[i].spec);
    }
  });
  std::lock_guard lock(mu_);
  written_ += written;
  failed_ += failed;
  return not_created;
}

}  // namespace arbiter::k8s
