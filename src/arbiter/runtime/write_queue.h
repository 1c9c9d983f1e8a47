// WriteQueue: runs writes to the API server on a background thread, in order of submission, so
// that the session loop never waits for I/O. Writes are keyed by the object they change: a write
// queued for a key replaces the one still waiting for that key (only the newest status of an
// object is worth sending), keeping its place in line. Lanes order what waits: the first lane (a
// Queue's status: few objects, read by every tenant and by quota) goes before everything and is
// never refused for room, so that thousands of PodGroup statuses cannot hold it back; the soon
// lane (a pod's first reason) goes before the normal lane (refreshes), so that a new pod is told
// why it waits without waiting behind every other pod's update.
//
//   WriteQueue queue("status-writer", 10'000);
//   queue.Enqueue("podgroup ns/g", [&] { return WriteIt(); });
//   ...
//   queue.Flush();   // tests and shutdown: wait until everything queued so far has run
//
// Each write returns a Status; the write itself handles its failure (logs it, forgets a claim):
// the queue only counts it. A write never runs twice at once for the same key, because there is
// one worker thread.
//
// A write whose first step is one API request (a RequestWrite: a status PUT, a pod's condition
// patch) is sent together with the request writes waiting behind it, up to Batching::size at once,
// by the queue's SendAll (ApiClient::Expect2xxAll: streams of one HTTP/2 connection), so that a
// thousand gangs' statuses cost a few dozen round trips, not a thousand one after the other.
// Writes still start in the order of the lanes; a plain Write runs on its own, between batches.
// A request write may be held (Batching::hold) before it joins its lane, so that the statuses an
// object passes through meanwhile (a gang's running count going 1, 2, 3 as its pods start) are
// written once, as the last of them: a fast writer would otherwise send each.
//
// Thread safety: Enqueue, EnqueueRequest, Flush, Stop and the counters from any thread.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/k8s/http_transport.h"

namespace arbiter::runtime {

class WriteQueue {
 public:
  using Write = std::function<Status()>;
  // A write made of one request and what follows its answer. `request` is made on the queue's
  // thread when the batch is sent (a write replaced before then costs little: a status's JSON
  // is written there, not when queued); `then` runs there with the request's result once every
  // request of the batch has been answered, says how the write ended, and may call the API
  // itself (a read and a second write after a conflict).
  struct RequestWrite {
    std::function<k8s::HttpRequest()> request;
    std::function<Status(StatusOr<std::string>)> then;
  };
  // Sends every request at once and calls done(i, result) as request i ends; returns when all
  // have (ApiClient::Expect2xxAll, or a fake in tests).
  using SendAll =
      std::function<void(std::span<const k8s::HttpRequest>,
                         const std::function<void(std::size_t, StatusOr<std::string>)>&)>;

  struct Counts {
    std::uint64_t succeeded = 0;
    std::uint64_t failed = 0;
    std::uint64_t replaced = 0;  // superseded by a newer write for the same key before running
    std::uint64_t dropped = 0;   // refused because the queue was full
  };

  enum class Lane : std::uint8_t { kFirst, kSoon, kNormal };

  struct Batching {
    SendAll send_all;       // a queue without one takes only plain Writes
    std::size_t size = 32;  // requests sent at once, at most
    // How long a held write waits, from when its key was first queued, before it joins its lane.
    std::chrono::nanoseconds hold{0};
  };

  // `name` names the thread in logs; at most `capacity` distinct keys wait at once in the soon
  // and normal lanes (held ones included).
  WriteQueue(std::string name, std::size_t capacity, Batching batching);
  WriteQueue(std::string name, std::size_t capacity);
  ~WriteQueue();  // Stop()
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // False when the queue is full (or stopped) and the write was dropped. A key keeps the lane it
  // was first queued in until it runs.
  bool Enqueue(const std::string& key, Write write, Lane lane = Lane::kNormal);
  // As Enqueue, for a write to be sent in a batch (the queue must have a SendAll), after
  // Batching::hold if `hold` (not in the first lane). A write not to be held that replaces a held
  // one goes to its lane at once.
  bool EnqueueRequest(const std::string& key, RequestWrite write, Lane lane = Lane::kNormal,
                      bool hold = false);
  // Waits until the queue is empty (writes queued meanwhile included); nothing is held while
  // it waits.
  void Flush();
  // Runs what is queued (held writes at once), then ends the thread; later Enqueue calls are
  // refused.
  void Stop();

  Counts counts() const;
  // Writes waiting or running.
  std::size_t pending() const;

 private:
  using Entry = std::variant<Write, RequestWrite>;
  struct Taken {
    std::string key;
    Entry write;
  };
  using Time = std::chrono::steady_clock::time_point;
  struct Held {
    Time until;
    Lane lane;
    std::string key;
  };
  struct Queued {
    Entry write;
    bool held = false;  // its key is in holding_, not in a lane
  };
  bool Add(const std::string& key, Entry write, Lane lane, bool hold);
  // Moves held keys whose time has come (all of them if `all`) to their lanes; with mu_ held.
  void ReleaseLocked(bool all);
  void Loop();
  // Moves the next write out of waiting_ into `taken`, and the request writes right behind it
  // too when it is one (up to Batching::size); with mu_ held, a lane not empty.
  void TakeLocked(std::vector<Taken>& taken);
  // Runs what TakeLocked took: each write's Status, in its place.
  std::vector<Status> Run(std::vector<Taken>& taken);
  // Keys waiting (held ones included), in all lanes or in one (held ones not); with mu_ held.
  std::size_t Waiting() const;
  std::size_t Waiting(Lane lane) const;

  const std::string name_;
  const std::size_t capacity_;
  const Batching batching_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  // Keys by lane (Lane's order), each in the order first queued.
  std::array<std::deque<std::string>, 3> lanes_;
  std::deque<Held> holding_;               // in the order of `until` (one hold for all)
  int flushing_ = 0;                       // Flush calls waiting: nothing is held meanwhile
  std::map<std::string, Queued> waiting_;  // key -> the newest write for it
  std::size_t running_ = 0;                // writes taken by the thread and not yet counted
  bool stopping_ = false;
  bool finished_ = false;  // the thread has ended
  Counts counts_;
  std::mutex join_mu_;  // one Stop() joins
  std::thread thread_;
};

}  // namespace arbiter::runtime
