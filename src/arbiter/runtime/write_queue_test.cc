#include "arbiter/runtime/write_queue.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

// Holds the writer thread inside a write until released, so a test can queue behind it.
class Gate {
 public:
  void Enter() {
    std::unique_lock lock(mu_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  void WaitEntered() {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return entered_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  bool entered_ = false;
  bool open_ = false;
};

class Log {
 public:
  WriteQueue::Write Append(std::string entry, const Status& result = Status::Ok()) {
    return [this, entry = std::move(entry), result] {
      std::lock_guard lock(mu_);
      entries_.push_back(entry);
      return result;
    };
  }
  void Add(std::string entry) {
    std::lock_guard lock(mu_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() {
    std::lock_guard lock(mu_);
    return entries_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> entries_;
};

TEST(WriteQueueTest, RunsWritesInOrder) {
  Log log;
  WriteQueue queue("test", 10);
  ASSERT_TRUE(queue.Enqueue("a", log.Append("a1")));
  ASSERT_TRUE(queue.Enqueue("b", log.Append("b1")));
  queue.Flush();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"a1", "b1"}));
  EXPECT_EQ(queue.counts().succeeded, 2U);
}

TEST(WriteQueueTest, ANewerWriteReplacesTheWaitingOneInItsPlace) {
  Log log;
  Gate gate;
  WriteQueue queue("test", 10);
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  ASSERT_TRUE(queue.Enqueue("a", log.Append("a1")));
  ASSERT_TRUE(queue.Enqueue("b", log.Append("b1")));
  ASSERT_TRUE(queue.Enqueue("a", log.Append("a2")));
  gate.Open();
  queue.Flush();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"a2", "b1"}));
  EXPECT_EQ(queue.counts().replaced, 1U);
}

TEST(WriteQueueTest, DropsNewKeysWhenFullButStillReplaces) {
  Log log;
  Gate gate;
  WriteQueue queue("test", 2);
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  EXPECT_TRUE(queue.Enqueue("a", log.Append("a1")));
  EXPECT_TRUE(queue.Enqueue("b", log.Append("b1")));
  EXPECT_FALSE(queue.Enqueue("c", log.Append("c1")));
  EXPECT_TRUE(queue.Enqueue("a", log.Append("a2")));
  gate.Open();
  queue.Flush();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"a2", "b1"}));
  EXPECT_EQ(queue.counts().dropped, 1U);
}

// Found with 10,000 PodGroups (tests/security/pathological_test.sh): their statuses filled the
// queue and a Queue's status waited minutes behind them, or was dropped.
TEST(WriteQueueTest, TheFirstLaneGoesAheadAndIsNeverRefusedForRoom) {
  Log log;
  Gate gate;
  WriteQueue queue("test", 2);
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  EXPECT_TRUE(queue.Enqueue("a", log.Append("a1")));
  EXPECT_TRUE(queue.Enqueue("b", log.Append("b1")));
  EXPECT_FALSE(queue.Enqueue("c", log.Append("c1")));  // the normal lane is full
  EXPECT_TRUE(queue.Enqueue("q", log.Append("q1"), WriteQueue::Lane::kFirst));
  EXPECT_TRUE(queue.Enqueue("r", log.Append("r1"), WriteQueue::Lane::kFirst));
  EXPECT_TRUE(queue.Enqueue("q", log.Append("q2"), WriteQueue::Lane::kFirst));
  EXPECT_EQ(queue.pending(), 5U);
  gate.Open();
  queue.Flush();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"q2", "r1", "a1", "b1"}));
  EXPECT_EQ(queue.counts().dropped, 1U);
}

// A pod's first reason (the soon lane) goes before other pods' refreshes, within the room.
TEST(WriteQueueTest, TheSoonLaneGoesBeforeTheNormalOne) {
  Log log;
  Gate gate;
  WriteQueue queue("test", 3);
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  EXPECT_TRUE(queue.Enqueue("old", log.Append("old1")));
  EXPECT_TRUE(queue.Enqueue("new", log.Append("new1"), WriteQueue::Lane::kSoon));
  EXPECT_TRUE(queue.Enqueue("q", log.Append("q1"), WriteQueue::Lane::kFirst));
  EXPECT_TRUE(queue.Enqueue("other", log.Append("other1")));
  EXPECT_FALSE(queue.Enqueue("late", log.Append("late1"), WriteQueue::Lane::kSoon));  // full
  gate.Open();
  queue.Flush();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"q1", "new1", "old1", "other1"}));
}

TEST(WriteQueueTest, CountsFailures) {
  Log log;
  WriteQueue queue("test", 10);
  ASSERT_TRUE(queue.Enqueue("a", log.Append("a1", UnavailableError("down"))));
  queue.Flush();
  EXPECT_EQ(queue.counts().failed, 1U);
  EXPECT_EQ(queue.counts().succeeded, 0U);
}

TEST(WriteQueueTest, StopRunsWhatIsQueuedThenRefuses) {
  Log log;
  Gate gate;
  WriteQueue queue("test", 10);
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  ASSERT_TRUE(queue.Enqueue("a", log.Append("a1")));
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    queue.Stop();
    stopped = true;
  });
  gate.Open();
  stopper.join();
  EXPECT_TRUE(stopped);
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"a1"}));
  EXPECT_FALSE(queue.Enqueue("b", log.Append("b1")));
  queue.Flush();  // returns at once after Stop
  queue.Stop();   // idempotent
}

// A SendAll that answers each request with its path, or with the error named for its path, and
// keeps the paths of each batch it was given.
class FakeSender {
 public:
  WriteQueue::SendAll Sender() {
    return [this](std::span<const k8s::HttpRequest> requests,
                  const std::function<void(std::size_t, StatusOr<std::string>)>& done) {
      std::vector<std::string> paths;
      for (const k8s::HttpRequest& r : requests) paths.push_back(r.path);
      {
        std::lock_guard lock(mu_);
        batches_.push_back(paths);
      }
      // Answered last to first: the writes still end in their own places.
      for (std::size_t i = requests.size(); i-- > 0;) {
        auto error = errors_.find(requests[i].path);
        if (error != errors_.end()) {
          done(i, error->second);
        } else {
          done(i, requests[i].path);
        }
      }
    };
  }
  void Fail(const std::string& path, Status error) { errors_[path] = std::move(error); }
  std::vector<std::vector<std::string>> batches() {
    std::lock_guard lock(mu_);
    return batches_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, Status> errors_;  // set before any write is queued
  std::vector<std::vector<std::string>> batches_;
};

// A request write to `path` whose `then` logs "<path>=<answer or error code>" and passes the
// result on.
WriteQueue::RequestWrite Request(Log& log, const std::string& path) {
  return {
      .request = [path] { return k8s::HttpRequest::Get(path); },
      .then =
          [&log, path](const StatusOr<std::string>& result) {
            log.Add(path + "=" +
                    (result.ok() ? *result : std::string(StatusCodeName(result.status().code()))));
            return result.status();
          }};
}

TEST(WriteQueueTest, RequestWritesWaitingTogetherAreSentAtOnce) {
  Log log;
  Gate gate;
  FakeSender sender;
  sender.Fail("c", NotFoundError("gone"));
  WriteQueue queue("test", 10, {.send_all = sender.Sender()});
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  for (const char* key : {"a", "b", "c", "d"})
    ASSERT_TRUE(queue.EnqueueRequest(key, Request(log, key)));
  EXPECT_EQ(queue.pending(), 5U);
  gate.Open();
  queue.Flush();
  EXPECT_EQ(sender.batches(), (std::vector<std::vector<std::string>>{{"a", "b", "c", "d"}}));
  // Each `then` in its write's place, with its own answer, after all were answered.
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"a=a", "b=b", "c=NOT_FOUND", "d=d"}));
  EXPECT_EQ(queue.counts().succeeded, 4U);  // "busy" and three of four
  EXPECT_EQ(queue.counts().failed, 1U);
}

TEST(WriteQueueTest, ABatchHoldsAtMostItsSizeAndStopsAtAPlainWrite) {
  Log log;
  Gate gate;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender(), .size = 3});
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  ASSERT_TRUE(queue.EnqueueRequest("a", Request(log, "a")));
  ASSERT_TRUE(queue.EnqueueRequest("b", Request(log, "b")));
  ASSERT_TRUE(queue.EnqueueRequest("c", Request(log, "c")));
  ASSERT_TRUE(queue.Enqueue("plain", log.Append("plain")));
  ASSERT_TRUE(queue.EnqueueRequest("d", Request(log, "d")));
  ASSERT_TRUE(queue.EnqueueRequest("e", Request(log, "e"), WriteQueue::Lane::kSoon));
  gate.Open();
  queue.Flush();
  // The soon lane first, the batch filled from the normal lane behind it; a batch ends at a plain
  // write, which runs alone.
  EXPECT_EQ(sender.batches(),
            (std::vector<std::vector<std::string>>{{"e", "a", "b"}, {"c"}, {"d"}}));
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"e=e", "a=a", "b=b", "c=c", "plain", "d=d"}));
}

TEST(WriteQueueTest, ANewerRequestWriteReplacesTheWaitingOne) {
  Log log;
  Gate gate;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender()});
  ASSERT_TRUE(queue.Enqueue("busy", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  ASSERT_TRUE(queue.EnqueueRequest("a", Request(log, "a1")));
  ASSERT_TRUE(queue.EnqueueRequest("b", Request(log, "b1")));
  ASSERT_TRUE(queue.EnqueueRequest("a", Request(log, "a2")));
  gate.Open();
  queue.Flush();
  EXPECT_EQ(sender.batches(), (std::vector<std::vector<std::string>>{{"a2", "b1"}}));
  EXPECT_EQ(queue.counts().replaced, 1U);
}

// A gang's running count goes 1, 2, 3 as its pods start: held, its status is written once.
TEST(WriteQueueTest, AHeldWriteWaitsWhileOthersGoAndIsSentOnceAsTheNewest) {
  Log log;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender(), .hold = std::chrono::hours(1)});
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g1"), WriteQueue::Lane::kNormal, true));
  ASSERT_TRUE(queue.EnqueueRequest("p", Request(log, "p")));
  Gate gate;
  ASSERT_TRUE(queue.Enqueue("after", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"p=p"}));
  EXPECT_EQ(queue.pending(), 2U);  // "after", running, and g, held
  gate.Open();
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g2"), WriteQueue::Lane::kNormal, true));
  queue.Flush();  // sends what is held at once
  EXPECT_EQ(sender.batches(), (std::vector<std::vector<std::string>>{{"p"}, {"g2"}}));
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"p=p", "g2=g2"}));
  EXPECT_EQ(queue.counts().replaced, 1U);
}

// A group's admission may not wait (the CRD's rule on spec.queue reads status.phase): written
// unheld, it takes the held write of its key along at once, and other held writes stay held.
TEST(WriteQueueTest, AWriteNotToBeHeldReleasesTheHeldOneItReplaces) {
  Log log;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender(), .hold = std::chrono::hours(1)});
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g1"), WriteQueue::Lane::kNormal, true));
  ASSERT_TRUE(queue.EnqueueRequest("h", Request(log, "h1"), WriteQueue::Lane::kNormal, true));
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g2"), WriteQueue::Lane::kNormal, false));
  Gate gate;
  ASSERT_TRUE(queue.Enqueue("after", [&] {
    gate.Enter();
    return Status::Ok();
  }));
  gate.WaitEntered();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"g2=g2"}));
  EXPECT_EQ(queue.pending(), 2U);  // "after", running, and h, held
  // Released and sent, the key is held again when asked.
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g3"), WriteQueue::Lane::kNormal, true));
  EXPECT_EQ(queue.pending(), 3U);
  gate.Open();
  queue.Flush();
  EXPECT_EQ(sender.batches(), (std::vector<std::vector<std::string>>{{"g2"}, {"h1", "g3"}}));
  EXPECT_EQ(queue.counts().replaced, 1U);
}

TEST(WriteQueueTest, AHeldWriteGoesWhenItsTimeComes) {
  Log log;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender(), .hold = std::chrono::milliseconds(1)});
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g"), WriteQueue::Lane::kNormal, true));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (log.entries().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"g=g"}));  // with no Flush
}

TEST(WriteQueueTest, StopSendsWhatIsHeldAtOnce) {
  Log log;
  FakeSender sender;
  WriteQueue queue("test", 10, {.send_all = sender.Sender(), .hold = std::chrono::hours(1)});
  ASSERT_TRUE(queue.EnqueueRequest("g", Request(log, "g"), WriteQueue::Lane::kNormal, true));
  queue.Stop();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"g=g"}));
}

TEST(WriteQueueTest, HeldWritesCountTowardsTheRoomAndTheFirstLaneIsNeverHeld) {
  Log log;
  FakeSender sender;
  WriteQueue queue("test", 2, {.send_all = sender.Sender(), .hold = std::chrono::hours(1)});
  EXPECT_TRUE(queue.EnqueueRequest("a", Request(log, "a"), WriteQueue::Lane::kNormal, true));
  EXPECT_TRUE(queue.EnqueueRequest("b", Request(log, "b"), WriteQueue::Lane::kSoon, true));
  EXPECT_FALSE(queue.EnqueueRequest("c", Request(log, "c"), WriteQueue::Lane::kNormal, true));
  EXPECT_EQ(queue.counts().dropped, 1U);
  // Asked to hold, a write of the first lane goes at once: the held ones stay behind.
  Gate gate;
  ASSERT_TRUE(queue.EnqueueRequest("q", Request(log, "q"), WriteQueue::Lane::kFirst, true));
  ASSERT_TRUE(queue.Enqueue(
      "after",
      [&] {
        gate.Enter();
        return Status::Ok();
      },
      WriteQueue::Lane::kFirst));
  gate.WaitEntered();
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"q=q"}));
  gate.Open();
  queue.Flush();  // released, each to its own lane: the soon one first
  EXPECT_EQ(log.entries(), (std::vector<std::string>{"q=q", "b=b", "a=a"}));
}

}  // namespace
}  // namespace arbiter::runtime
