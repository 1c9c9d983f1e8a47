#include "arbiter/runtime/write_queue.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
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

}  // namespace
}  // namespace arbiter::runtime
