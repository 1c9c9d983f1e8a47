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
// Thread safety: Enqueue, Flush, Stop and the counters from any thread.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "arbiter/base/status.h"

namespace arbiter::runtime {

class WriteQueue {
 public:
  using Write = std::function<Status()>;

  struct Counts {
    std::uint64_t succeeded = 0;
    std::uint64_t failed = 0;
    std::uint64_t replaced = 0;  // superseded by a newer write for the same key before running
    std::uint64_t dropped = 0;   // refused because the queue was full
  };

  enum class Lane : std::uint8_t { kFirst, kSoon, kNormal };

  // `name` names the thread in logs; at most `capacity` distinct keys wait at once in the soon
  // and normal lanes.
  WriteQueue(std::string name, std::size_t capacity);
  ~WriteQueue();  // Stop()
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // False when the queue is full (or stopped) and the write was dropped. A key keeps the lane it
  // was first queued in until it runs.
  bool Enqueue(const std::string& key, Write write, Lane lane = Lane::kNormal);
  // Waits until every write queued before the call has run.
  void Flush();
  // Runs what is queued, then ends the thread; later Enqueue calls are refused.
  void Stop();

  Counts counts() const;
  std::size_t pending() const;

 private:
  void Loop();
  // Keys waiting, in all lanes or in one; with mu_ held.
  std::size_t Waiting() const;
  std::size_t Waiting(Lane lane) const;

  const std::string name_;
  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  // Keys by lane (Lane's order), each in the order first queued.
  std::array<std::deque<std::string>, 3> lanes_;
  std::map<std::string, Write> waiting_;  // key -> the newest write for it
  bool busy_ = false;
  bool stopping_ = false;
  bool finished_ = false;  // the thread has ended
  Counts counts_;
  std::mutex join_mu_;  // one Stop() joins
  std::thread thread_;
};

}  // namespace arbiter::runtime
