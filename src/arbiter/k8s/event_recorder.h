// EventRecorder: records events.k8s.io/v1 Events ("Scheduled", "FailedScheduling", ...) on
// objects, for users to read with kubectl describe (R20), without ever blocking or slowing the
// scheduler:
//
//   * Record() only queues (a bounded queue; when it is full the event is dropped and counted);
//     a background thread writes; an event for an object and reason that is still waiting is
//     replaced by the newer one, in its place (coalesced), so the queue holds at most one event
//     per object and reason; Normal events (a change: Scheduled, Preempted) are written before
//     Warnings (why something still waits, rewritten as its figures change), so that a pod's
//     Scheduled does not queue behind every pending pod's newest FailedScheduling;
//   * the same event (object, type, reason, note) repeated within the aggregation window becomes
//     one Event whose `series` count and lastObservedTime are updated, not a new object each time;
//   * each object may cause at most `burst` writes per reason, refilled at `per_object_qps`, so a
//     pod that fails every second does not flood the API server (aggregated counts still go out
//     later), and a flood of one reason never silences another (a long wait's FailedScheduling
//     does not cost the pod its Scheduled);
//   * all writes share the transport's client-side rate limit;
//   * an Event's eventTime (and a series' lastObservedTime) is when Record() was called, not when
//     the writer got to it: a Scheduled event says when the pod was bound even if the writer
//     trailed by seconds.
//
// Thread safety: Record() from any thread; Flush() and Stop() from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/k8s/api_client.h"

namespace arbiter::k8s {

struct ObjectReference {
  std::string api_version = "v1";
  std::string kind = "Pod";
  std::string namespace_name;
  std::string name;
  std::string uid;
};

struct EventSpec {
  ObjectReference regarding;
  std::string type = "Normal";  // Normal or Warning
  std::string reason;           // e.g. Scheduled, FailedScheduling
  std::string action;           // e.g. Binding, Scheduling
  std::string note;             // the message shown to the user (at most 1 KiB is kept)
};

struct EventRecorderOptions {
  std::string reporting_controller = "arbiter.dev/scheduler";
  std::string reporting_instance;  // e.g. the pod name of this replica
  std::size_t queue_capacity = 10'000;
  std::chrono::minutes aggregation_window{10};
  int per_object_burst = 25;
  double per_object_qps = 1.0 / 300;  // one more write per object every 5 minutes
  // Events written at once, as streams of one HTTP/2 connection (HttpTransport::DoAll): one at a
  // time, the writer trailed a burst of binds by seconds.
  std::size_t batch = 32;
};

// The decision for one recorded event, separated from I/O so it can be tested alone.
class EventAggregator {
 public:
  struct Decision {
    enum class Kind : std::uint8_t { kCreate, kUpdateSeries, kSuppress } kind;
    std::string event_name;  // the Event object to create or update
    std::int32_t count = 1;  // occurrences so far, for a series
  };

  EventAggregator(EventRecorderOptions options, const Clock& clock);
  // What to write for this occurrence. A create gets a fresh name; later occurrences within the
  // window update that event's series; when the object's budget is spent they are suppressed
  // (counted, and written with the next allowed update).
  Decision Observe(const EventSpec& spec);
  // After a failed create the next occurrence starts afresh.
  void Forget(const EventSpec& spec);
  // How many events and objects it remembers: what was seen within about two windows (older
  // entries are dropped as occurrences go on), so memory follows the event rate, not the number
  // of objects ever seen.
  std::size_t remembered() const { return entries_.size() + budgets_.size(); }

 private:
  struct Entry {
    std::string event_name;
    std::int32_t count = 0;
    Clock::MonotonicTime first_seen;
    Clock::MonotonicTime last_seen;
  };
  struct Budget {
    double tokens;
    Clock::MonotonicTime refreshed;
  };
  static std::string Key(const EventSpec& spec);
  bool TakeToken(const std::string& object_key);
  // At most once per window: drops the entries and budgets that no longer change a decision.
  void Prune(Clock::MonotonicTime now);

  EventRecorderOptions options_;
  const Clock& clock_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, Budget> budgets_;
  std::uint64_t sequence_ = 0;
  Clock::MonotonicTime last_prune_{};
};

// The request that writes one decision: a create stamped `observed` as its eventTime, or a
// series update with `observed` as lastObservedTime.
HttpRequest EventRequest(const EventSpec& spec, const EventAggregator::Decision& decision,
                         Clock::WallTime observed, const EventRecorderOptions& options);

class EventRecorder {
 public:
  EventRecorder(ApiClient& api, EventRecorderOptions options, const Clock& clock);
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Never blocks on I/O. False when the queue was full and the event was dropped.
  bool Record(EventSpec spec);
  // Waits until everything recorded so far has been written (or given up on). For tests and
  // shutdown.
  void Flush();
  void Stop();

  std::uint64_t dropped() const;
  std::uint64_t coalesced() const;  // replaced by a newer one before it was written
  std::uint64_t written() const;
  std::uint64_t failed() const;

 private:
  struct Write {
    const EventSpec* spec;
    EventAggregator::Decision decision;
    Clock::WallTime observed;
  };
  void Loop();
  // Sends the writes at once; the specs whose creation failed.
  std::vector<const EventSpec*> WriteAll(const std::vector<Write>& writes);
  static std::string WaitingKey(const EventSpec& spec);

  ApiClient& api_;
  const EventRecorderOptions options_;
  const Clock& clock_;
  EventAggregator aggregator_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  // Keys of waiting_, in the order first recorded: Normal events, then Warnings.
  std::deque<std::string> normal_;
  std::deque<std::string> warnings_;
  struct Waiting {
    EventSpec spec;                  // the newest
    std::int32_t repeats = 1;        // occurrences of its note while it waited
    Clock::WallTime first_observed;  // of the first of those occurrences
    Clock::WallTime last_observed;
  };
  std::map<std::string, Waiting> waiting_;  // object and reason -> the newest event
  bool busy_ = false;
  bool stopping_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t coalesced_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t failed_ = 0;
  std::thread thread_;
};

}  // namespace arbiter::k8s
