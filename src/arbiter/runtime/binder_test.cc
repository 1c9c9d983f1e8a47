#include "arbiter/runtime/binder.h"

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

using std::chrono::seconds;

class Events {
 public:
  Binder::EventFunction Sink() {
    return [this](k8s::EventSpec e) {
      std::lock_guard lock(mu_);
      events_.push_back(std::move(e));
    };
  }
  std::vector<k8s::EventSpec> events() {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  std::mutex mu_;
  std::vector<k8s::EventSpec> events_;
};

class BinderTest : public testing::Test {
 protected:
  void SetUp() override {
    Node node;
    node.meta.name = "n1";
    node.meta.uid = "node-uid";
    cache_.UpsertNode(node);
    Pod pod;
    pod.meta.namespace_name = "ns";
    pod.meta.name = "p";
    pod.meta.uid = "uid-p";
    pod.spec.scheduler_name = "arbiter";
    Container container;
    container.name = "c";
    pod.spec.containers.push_back(container);
    cache_.UpsertPod(pod);
  }

  static BindDecision Decision() { return {"ns", "p", "uid-p", "n1"}; }

  Binder MakeBinder(const StatusOr<k8s::BindOutcome>& outcome) {
    return Binder(
        [this, outcome](const BindDecision& d) {
          std::lock_guard lock(mu_);
          calls_.push_back(d.pod_uid + "@" + d.node_name);
          return outcome;
        },
        [](const EvictDecision&) { return Status::Ok(); }, events_.Sink(),
        [this](const BindDecision& d, BindOutcome o) {
          applier_.BindDone(d, o, clock_.MonotonicNow());
        },
        clock_, BinderOptions{.workers = 2, .failed_bind_ttl = seconds(30)});
  }

  // What the scheduler does with a session's binds: the Applier assumes them, then hands them to
  // the binder.
  void Submit(Binder& binder, const BindDecision& decision) {
    class ToBinder final : public Effects {
     public:
      explicit ToBinder(Binder& binder) : binder_(binder) {}
      void Bind(const std::vector<BindDecision>& binds) override { binder_.Submit(binds); }
      void Evict(const EvictDecision& /*eviction*/) override {}
      void Nominate(const NominationDecision& /*nomination*/) override {}
      void ReportUnschedulable(const PodVerdict& /*verdict*/, const Pod* /*observed*/) override {}
      void WriteGroupStatus(const PodGroupUpdate& /*update*/) override {}
      void WriteQueueStatus(const QueueUpdate& /*update*/) override {}

     private:
      Binder& binder_;
    } effects(binder);
    SessionResult result;
    result.binds.push_back(decision);
    applier_.Apply(result, Snapshot(), effects, clock_.MonotonicNow());
  }

  std::vector<std::string> calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }

  FakeClock clock_;
  ClusterCache cache_{CacheOptions{}};
  Applier applier_{cache_,
                   ApplierOptions{.failed_bind_ttl = seconds(30), .preemption_ttl = seconds(30)}};
  Events events_;
  std::mutex mu_;
  std::vector<std::string> calls_;
};

TEST_F(BinderTest, AssumesAtOnceAndRecordsScheduledOnSuccess) {
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Submit(binder, Decision());
  EXPECT_EQ(cache_.assumed_count(), 1U);  // before any worker has run, as far as we know
  binder.Flush();
  EXPECT_EQ(calls(), (std::vector<std::string>{"uid-p@n1"}));
  std::vector<k8s::EventSpec> events = events_.events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "Scheduled");
  EXPECT_EQ(events[0].action, "Binding");
  EXPECT_EQ(events[0].note, "Successfully assigned ns/p to n1");
  EXPECT_EQ(events[0].regarding.uid, "uid-p");
  EXPECT_EQ(binder.counts().bound, 1U);
  // The assumption holds until the watch shows the pod bound.
  EXPECT_EQ(cache_.assumed_count(), 1U);
}

TEST_F(BinderTest, AlreadyAssignedIsSilent) {
  Binder binder = MakeBinder(k8s::BindOutcome::kAlreadyAssigned);
  Submit(binder, Decision());
  binder.Flush();
  EXPECT_TRUE(events_.events().empty());
  EXPECT_EQ(binder.counts().already_assigned, 1U);
}

TEST_F(BinderTest, AFailedBindStaysAssumedUntilItsTtl) {
  Binder binder = MakeBinder(StatusOr<k8s::BindOutcome>(UnavailableError("connection refused")));
  Submit(binder, Decision());
  binder.Flush();
  EXPECT_EQ(binder.counts().failed, 1U);
  std::vector<k8s::EventSpec> events = events_.events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].reason, "FailedScheduling");
  EXPECT_NE(events[0].note.find("connection refused"), std::string::npos) << events[0].note;

  EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(29)), 0);
  EXPECT_EQ(cache_.assumed_count(), 1U);
  EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(30)), 1);
  EXPECT_EQ(cache_.assumed_count(), 0U);
}

TEST_F(BinderTest, StopFinishesQueuedBindsThenRefuses) {
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Submit(binder, Decision());
  binder.Stop();
  EXPECT_EQ(binder.counts().bound, 1U);
  Submit(binder, Decision());
  EXPECT_EQ(calls().size(), 1U);
  binder.Flush();  // returns: nothing left
}

}  // namespace
}  // namespace arbiter::runtime
