#include "arbiter/runtime/binder.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

Clock::WallTime TestNow() { return Clock::WallTime(seconds(1'750'000'000)); }

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
    AddPod("p");
  }

  // Pod ns/`name` (uid "uid-<name>") of our scheduler, pending or running on `node`.
  void AddPod(const std::string& name, const std::string& node = "") {
    Pod pod;
    pod.meta.namespace_name = "ns";
    pod.meta.name = name;
    pod.meta.uid = "uid-" + name;
    pod.spec.scheduler_name = "arbiter";
    Container container;
    container.name = "c";
    pod.spec.containers.push_back(container);
    if (!node.empty()) {
      pod.spec.node_name = node;
      pod.status.phase = PodPhase::kRunning;
    }
    cache_.UpsertPod(pod);
  }

  static BindDecision Decision() { return BindDecision::Of("ns", "p", "uid-p", "n1"); }

  // What the binder asks before it sends anything: does this replica still lead?
  std::function<bool()> may_write_;

  Binder MakeBinder(const StatusOr<k8s::BindOutcome>& outcome) {
    return Binder(
        Binder::OneAtATime([this, outcome](const BindDecision& d) {
          std::lock_guard lock(mu_);
          calls_.push_back(d.pod_uid() + "@" + d.node_name());
          return outcome;
        }),
        [this](const EvictDecision& e, bool dry_run) {
          std::lock_guard lock(mu_);
          calls_.push_back((dry_run ? "dry-run evict " : "evict ") + e.pod_uid);
          const bool refuse = dry_run ? refuse_.contains(e.pod_uid)
                                      : refuse_.contains(e.pod_uid) || race_.contains(e.pod_uid);
          return refuse ? ResourceExhaustedError(
                              "Cannot evict pod as it would violate the pod's "
                              "disruption budget.")
                        : Status::Ok();
        },
        events_.Sink(),
        [this](const BindDecision& d, BindOutcome o) {
          applier_.BindDone(d, o, clock_.MonotonicNow());
        },
        [this](const PreemptionBatch& batch, const std::vector<std::string>& refused) {
          {
            std::lock_guard lock(mu_);
            refused_ = refused;
          }
          applier_.PreemptionDone(batch, refused, clock_.MonotonicNow());
        },
        clock_,
        BinderOptions{.workers = 2, .failed_bind_ttl = seconds(30), .may_write = may_write_});
  }

  // What the scheduler does with a session's binds: the Applier assumes them, then hands them to
  // the binder.
  void Submit(Binder& binder, const BindDecision& decision) {
    SessionResult result;
    result.binds.push_back(decision);
    Apply(binder, result);
  }

  void Apply(Binder& binder, const SessionResult& result) {
    class ToBinder final : public Effects {
     public:
      explicit ToBinder(Binder& binder) : binder_(binder) {}
      void Bind(const std::vector<BindDecision>& binds) override { binder_.Submit(binds); }
      void Preempt(const PreemptionBatch& batch) override { binder_.SubmitPreemption(batch); }
      void Nominate(const NominationDecision& /*nomination*/) override {}
      void ReportUnschedulable(const PodVerdict& /*verdict*/, const Pod* /*observed*/) override {}
      void WriteGroupStatus(const PodGroupUpdate& /*update*/) override {}
      void WriteQueueStatus(const QueueUpdate& /*update*/) override {}

     private:
      Binder& binder_;
    } effects(binder);
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
  std::set<std::string> refuse_;  // uids whose eviction the fake API server refuses (429)
  std::set<std::string> race_;    // ... refused only after a dry run accepted it
  std::vector<std::string> refused_;
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

// A bind the API server answered with a refusal (throttled past the client's retries, the pod
// gone or replaced) certainly did not happen: the pod is placed again after a second, not the
// failed-bind TTL.
TEST_F(BinderTest, ARefusedBindIsPlacedAgainSoon) {
  for (const Status& refusal :
       {ResourceExhaustedError("Too many requests"), NotFoundError("pods \"p\" not found"),
        AbortedError("the UID in the precondition does not match")}) {
    SetUp();
    Binder binder = MakeBinder(StatusOr<k8s::BindOutcome>(refusal));
    Submit(binder, Decision());
    binder.Flush();
    EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + milliseconds(999)), 0) << refusal;
    EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(1)), 1) << refusal;
  }
}

// A server error may hide a binding that was made (etcd wrote it, the answer was lost): it waits.
TEST_F(BinderTest, AServerErrorWaitsForTheWatch) {
  Binder binder = MakeBinder(StatusOr<k8s::BindOutcome>(UnavailableError("etcdserver: timeout")));
  Submit(binder, Decision());
  binder.Flush();
  EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(29)), 0);
  EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(30)), 1);
}

// A replica paused past its lease (SIGSTOP, a long GC) must not send, when it resumes, the binds
// it decided before: the new leader may have used that room. They are placed again instead.
TEST_F(BinderTest, AReplicaThatNoLongerLeadsSendsNoBind) {
  may_write_ = [] { return false; };
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Submit(binder, Decision());
  binder.Flush();
  EXPECT_TRUE(calls().empty());
  EXPECT_EQ(binder.counts().bound, 0U);
  EXPECT_EQ(cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(1)), 1);
}

// The lease is asked about before each bind of a batch, not once for the batch: the batch's
// rate-limit waits and retries may outlast it.
TEST_F(BinderTest, ALeaseLostWithinABatchSendsNoMoreOfIt) {
  AddPod("q");
  AddPod("r");
  std::atomic<int> asked{0};
  may_write_ = [&asked] { return asked.fetch_add(1) == 0; };  // leads for the first bind only
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  SessionResult result;
  result.binds = {Decision(), BindDecision::Of("ns", "q", "uid-q", "n1"),
                  BindDecision::Of("ns", "r", "uid-r", "n1")};
  Apply(binder, result);
  binder.Flush();
  EXPECT_EQ(calls(), std::vector<std::string>{"uid-p@n1"});
  EXPECT_EQ(binder.counts().bound, 1U);
  EXPECT_EQ(binder.counts().failed, 0U);  // not sent is not failed: placed again soon
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

// Two running victims on n1 and the pending pod p they make room for.
class PreemptionBatchTest : public BinderTest {
 protected:
  void SetUp() override {
    BinderTest::SetUp();
    AddPod("v1", "n1");
    AddPod("v2", "n1");
  }

  static SessionResult Plan() {
    SessionResult result;
    for (const char* name : {"v1", "v2"}) {
      EvictDecision e;
      e.namespace_name = "ns";
      e.pod_name = name;
      e.pod_uid = std::string("uid-") + name;
      e.node_name = "n1";
      e.reason = "PreemptionByScheduler";
      e.message = "Preempted by ns/p";
      e.preemptor = "ns/p";
      e.victim_job = std::string("ns/") + name;
      result.evictions.push_back(e);
    }
    result.nominations.push_back({"ns", "p", "uid-p", "n1", "ns/p"});
    return result;
  }

  const TaskInfo& Task(const Snapshot& snapshot, const std::string& name) {
    for (const TaskInfo& t : snapshot.tasks) {
      if (t.name() == name) return t;
    }
    ADD_FAILURE() << "no task " << name;
    return snapshot.tasks.front();
  }

  std::vector<std::string> refused() {
    std::lock_guard lock(mu_);
    return refused_;
  }
};

TEST_F(PreemptionBatchTest, AReplicaThatNoLongerLeadsEvictsNothing) {
  may_write_ = [] { return false; };
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Apply(binder, Plan());
  binder.Flush();
  EXPECT_TRUE(calls().empty());
  EXPECT_EQ(refused(), (std::vector<std::string>{"uid-v1", "uid-v2"}));
}

TEST_F(PreemptionBatchTest, AllEvictionsAcceptedAreMadeAfterTheirDryRuns) {
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Apply(binder, Plan());
  binder.Flush();
  EXPECT_EQ(calls(), (std::vector<std::string>{"dry-run evict uid-v1", "dry-run evict uid-v2",
                                               "evict uid-v1", "evict uid-v2"}));
  EXPECT_TRUE(refused().empty());
  EXPECT_EQ(binder.counts().evicted, 2U);
  std::vector<k8s::EventSpec> events = events_.events();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].reason, "Preempted");
  EXPECT_EQ(events[0].regarding.uid, "uid-v1");
  auto snapshot = cache_.TakeSnapshot(TestNow());
  EXPECT_EQ(Task(*snapshot, "v1").state, TaskState::kReleasing);
  EXPECT_EQ(Task(*snapshot, "v2").state, TaskState::kReleasing);
  EXPECT_NE(Task(*snapshot, "p").nominated, kNoNode);
}

TEST_F(PreemptionBatchTest, OneRefusalEvictsNothingAndTheNextPlanAvoidsThatPod) {
  refuse_ = {"uid-v2"};  // a PodDisruptionBudget allows no disruption of v2
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Apply(binder, Plan());
  binder.Flush();
  // Only dry runs: v1, whose eviction alone would not have made room, runs on.
  EXPECT_EQ(calls(), (std::vector<std::string>{"dry-run evict uid-v1", "dry-run evict uid-v2"}));
  EXPECT_EQ(refused(), std::vector<std::string>{"uid-v2"});
  EXPECT_EQ(binder.counts().evicted, 0U);
  EXPECT_EQ(binder.counts().evictions_refused, 1U);
  EXPECT_TRUE(events_.events().empty());
  // The plan is forgotten at once: the victims run, the preemptor is nominated nowhere, and v2
  // is not counted on by the next plan until the refusal expires.
  auto snapshot = cache_.TakeSnapshot(TestNow());
  EXPECT_EQ(Task(*snapshot, "v1").state, TaskState::kRunning);
  EXPECT_EQ(Task(*snapshot, "v2").state, TaskState::kRunning);
  EXPECT_FALSE(Task(*snapshot, "v1").eviction_refused);
  EXPECT_TRUE(Task(*snapshot, "v2").eviction_refused);
  EXPECT_EQ(Task(*snapshot, "p").nominated, kNoNode);
  cache_.ExpireAssumed(clock_.MonotonicNow() + seconds(30));
  EXPECT_FALSE(Task(*cache_.TakeSnapshot(TestNow()), "v2").eviction_refused);
}

TEST_F(PreemptionBatchTest, ARefusalAfterTheDryRunIsReportedAndTheRestStands) {
  race_ = {"uid-v2"};  // the budget changed between the dry run and the eviction
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Apply(binder, Plan());
  binder.Flush();
  EXPECT_EQ(calls(), (std::vector<std::string>{"dry-run evict uid-v1", "dry-run evict uid-v2",
                                               "evict uid-v1", "evict uid-v2"}));
  EXPECT_EQ(refused(), std::vector<std::string>{"uid-v2"});
  EXPECT_EQ(binder.counts().evicted, 1U);
  EXPECT_EQ(binder.counts().evictions_refused, 1U);
  auto snapshot = cache_.TakeSnapshot(TestNow());
  EXPECT_TRUE(Task(*snapshot, "v2").eviction_refused);
  EXPECT_EQ(Task(*snapshot, "v2").state, TaskState::kRunning);
}

// Found by the soak: a victim gang's first eviction refused (429) after the dry runs, its other
// two pods evicted all the same, and the gang ran one pod of its minimum of three for good.
TEST_F(PreemptionBatchTest, AVictimJobsOtherPodsAreNotEvictedOnceOneIsRefused) {
  race_ = {"uid-v1"};
  SessionResult plan = Plan();
  for (EvictDecision& e : plan.evictions) e.victim_job = "ns/gang";  // v1 and v2: one gang
  Binder binder = MakeBinder(k8s::BindOutcome::kBound);
  Apply(binder, plan);
  binder.Flush();
  EXPECT_EQ(calls(), (std::vector<std::string>{"dry-run evict uid-v1", "dry-run evict uid-v2",
                                               "evict uid-v1"}));
  EXPECT_EQ(refused(), (std::vector<std::string>{"uid-v1", "uid-v2"}));
  EXPECT_EQ(binder.counts().evicted, 0U);
  auto snapshot = cache_.TakeSnapshot(TestNow());
  EXPECT_EQ(Task(*snapshot, "v2").state, TaskState::kRunning);
}

}  // namespace
}  // namespace arbiter::runtime
