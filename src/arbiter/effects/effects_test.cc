// Applier::Apply: what each effect is given, here the pod a verdict's FailedScheduling is about as
// the session's snapshot saw it (its conditions decide whether the pod is patched again).
#include "arbiter/effects/effects.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using testing::MakePod;

// Keeps, for each pod verdict, the name of the pod it was given (or "none").
class RecordingEffects : public Effects {
 public:
  void Bind(const std::vector<BindDecision>& /*binds*/) override {}
  void Preempt(const PreemptionBatch& /*batch*/) override {}
  void Nominate(const NominationDecision& /*nomination*/) override {}
  void ReportUnschedulable(const PodVerdict& verdict, const Pod* observed) override {
    observed_[verdict.pod_uid] = observed == nullptr ? "none" : observed->meta.name;
  }
  void WriteGroupStatus(const PodGroupUpdate& /*update*/) override {}
  void WriteQueueStatus(const QueueUpdate& /*update*/) override {}

  const std::map<std::string, std::string>& observed() const { return observed_; }

 private:
  std::map<std::string, std::string> observed_;
};

TEST(ApplierTest, AVerdictIsGivenThePodAtItsTaskOrLookedUpByUid) {
  Snapshot snapshot;
  for (const char* name : {"a", "b", "c"}) {
    TaskInfo& task = snapshot.tasks.emplace_back();
    task.pod = std::make_shared<const Pod>(MakePod(name).Uid(std::string("uid-") + name).Build());
  }
  SessionResult result;
  const auto verdict = [](const std::string& uid, std::int32_t task) {
    PodVerdict v;
    v.pod_uid = uid;
    v.task = task;
    return v;
  };
  result.unschedulable.push_back(verdict("uid-b", 1));
  result.unschedulable.push_back(verdict("uid-c", -1));  // no task: by uid
  // A task that holds another pod (a result not of this snapshot): by uid.
  result.unschedulable.push_back(verdict("uid-a", 2));
  result.unschedulable.push_back(verdict("uid-gone", 7));
  ClusterCache cache(CacheOptions{});
  Applier applier(cache);
  RecordingEffects effects;
  applier.Apply(result, snapshot, effects, Clock::MonotonicTime{});
  EXPECT_EQ(effects.observed(),
            (std::map<std::string, std::string>{
                {"uid-a", "a"}, {"uid-b", "b"}, {"uid-c", "c"}, {"uid-gone", "none"}}));
}

}  // namespace
}  // namespace arbiter
