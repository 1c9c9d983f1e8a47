// priority: higher-priority jobs and tasks first; ties fall through to the session's total
// tie-break (creation time, then uid for jobs; creation time, then name for tasks).
#include "arbiter/plugins/priority.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/session.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using ::testing::ElementsAre;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;
using testing::TestEpoch;

class PriorityTest : public ::testing::Test {
 protected:
  PriorityTest() : cache_(CacheOptions()) {
    auto plugin = std::make_unique<PriorityPlugin>();
    plugins_.job_order.push_back({plugin.get()});
    plugins_.task_order.push_back({plugin.get()});
    plugins_.owned.push_back(std::move(plugin));
  }

  Session& Open() {
    session_.reset();
    snapshot_ = cache_.TakeSnapshot(TestEpoch());
    session_ = std::make_unique<Session>(*snapshot_, plugins_);
    return *session_;
  }

  // Every job's name, in the session's job order.
  std::vector<std::string> JobOrder() const {
    std::vector<JobIndex> jobs;
    jobs.reserve(static_cast<std::size_t>(session_->job_count()));
    for (JobIndex j : JobIndex::Range(session_->job_count())) jobs.push_back(j);
    std::sort(jobs.begin(), jobs.end(),
              [&](JobIndex a, JobIndex b) { return session_->JobBefore(a, b); });
    std::vector<std::string> out;
    out.reserve(jobs.size());
    for (JobIndex j : jobs) out.push_back(session_->job(j).name);
    return out;
  }
  // The pending tasks of the job, in task order.
  std::vector<std::string> TaskOrder(const std::string& job) const {
    std::vector<std::string> out;
    for (TaskIndex t : session_->PendingTasks(*snapshot_->FindJob("default", job))) {
      out.push_back(session_->task(t).name());
    }
    return out;
  }

  ClusterCache cache_;
  PluginSet plugins_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<Session> session_;
};

TEST_F(PriorityTest, HigherPriorityJobFirstWhateverItsAge) {
  cache_.UpsertPriorityClass(MakePriorityClass("high", 1000));
  cache_.UpsertPriorityClass(MakePriorityClass("low", -5));
  cache_.UpsertPodGroup(MakePodGroup("old").Created(0).Build());                            // 0
  cache_.UpsertPodGroup(MakePodGroup("urgent").PriorityClass("high").Created(60).Build());  // 1000
  cache_.UpsertPodGroup(MakePodGroup("scavenger").PriorityClass("low").Created(-60).Build());
  Open();
  EXPECT_THAT(JobOrder(), ElementsAre("urgent", "old", "scavenger"));
}

TEST_F(PriorityTest, EqualPriorityJobsGoByAgeThenUid) {
  cache_.UpsertPodGroup(MakePodGroup("b-young").Created(10).Build());
  cache_.UpsertPodGroup(MakePodGroup("z-old").Created(0).Build());
  cache_.UpsertPodGroup(MakePodGroup("a-old").Created(0).Build());  // uid pg/default/a-old
  Open();
  EXPECT_THAT(JobOrder(), ElementsAre("a-old", "z-old", "b-young"));
}

TEST_F(PriorityTest, CompareJobsDecidesOnlyOnDifferentPriorities) {
  cache_.UpsertPriorityClass(MakePriorityClass("high", 1000));
  cache_.UpsertPodGroup(MakePodGroup("a").Build());
  cache_.UpsertPodGroup(MakePodGroup("b").PriorityClass("high").Build());
  cache_.UpsertPodGroup(MakePodGroup("c").Build());
  Session& session = Open();
  const PriorityPlugin plugin;
  const JobIndex a = *snapshot_->FindJob("default", "a");
  const JobIndex b = *snapshot_->FindJob("default", "b");
  const JobIndex c = *snapshot_->FindJob("default", "c");
  EXPECT_GT(plugin.CompareJobs(session, a, b), 0);  // b first
  EXPECT_LT(plugin.CompareJobs(session, b, a), 0);
  EXPECT_EQ(plugin.CompareJobs(session, a, c), 0);  // not this plugin's call
}

TEST_F(PriorityTest, HigherPriorityTaskFirst) {
  cache_.UpsertPodGroup(MakePodGroup("tf").Build());
  cache_.UpsertPod(MakePod("a-worker").Group("tf").Priority(10).Created(0).Build());
  cache_.UpsertPod(MakePod("z-ps").Group("tf").Priority(1000).Created(30).Build());
  cache_.UpsertPod(MakePod("m-evaluator").Group("tf").Priority(-1).Created(-30).Build());
  Open();
  EXPECT_THAT(TaskOrder("tf"), ElementsAre("z-ps", "a-worker", "m-evaluator"));
}

TEST_F(PriorityTest, EqualPriorityTasksGoByAgeThenName) {
  cache_.UpsertPodGroup(MakePodGroup("g").Build());
  cache_.UpsertPod(MakePod("w-2").Group("g").Created(0).Build());
  cache_.UpsertPod(MakePod("w-1").Group("g").Created(5).Build());
  cache_.UpsertPod(MakePod("w-0").Group("g").Created(5).Build());
  Open();
  EXPECT_THAT(TaskOrder("g"), ElementsAre("w-2", "w-0", "w-1"));
}

TEST(PriorityCreate, RejectsArguments) {
  EXPECT_TRUE(PriorityPlugin::Create(YAML::Node()).ok());
  EXPECT_FALSE(PriorityPlugin::Create(YAML::Load("{preempt: true}")).ok());
}

}  // namespace
}  // namespace arbiter
