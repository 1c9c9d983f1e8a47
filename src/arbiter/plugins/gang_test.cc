// gang: when a job is ready (minMember, minTaskMember), how many tasks it still needs, and why a
// job is invalid (gang.h).
#include "arbiter/plugins/gang.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/session.h"
#include "arbiter/framework/statement.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using ::testing::Not;
using ::testing::Optional;
using testing::TestEpoch;

// A cache with one 16-cpu node, and sessions whose only plugin is gang.
class GangTest : public ::testing::Test {
 protected:
  GangTest() : cache_(CacheOptions()) {
    cache_.UpsertNode(MakeNode("n1").Cpu("16").Build());
    auto plugin = std::make_unique<GangPlugin>();
    plugins_.job_valid.push_back({plugin.get()});
    plugins_.job_ready.push_back({plugin.get()});
    plugins_.owned.push_back(std::move(plugin));
  }

  Session& Open() {
    session_.reset();
    snapshot_ = cache_.TakeSnapshot(TestEpoch());
    session_ = std::make_unique<Session>(*snapshot_, plugins_);
    return *session_;
  }
  JobIndex JobOf(const std::string& name) const { return *snapshot_->FindJob("default", name); }
  TaskIndex TaskOf(const std::string& pod) const {
    for (std::size_t i = 0; i < snapshot_->tasks.size(); ++i) {
      if (snapshot_->tasks[i].name() == pod) return TaskIndex::Of(i);
    }
    ADD_FAILURE() << "no task " << pod;
    return TaskIndex(0);
  }
  void Place(Statement& statement, const std::string& pod) {
    statement.Allocate(TaskOf(pod), *snapshot_->FindNode("n1"));
  }

  ClusterCache cache_;
  PluginSet plugins_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<Session> session_;
};

TEST_F(GangTest, ReadyOnceMinMemberArePlaced) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(3).Build());
  for (const char* name : {"g-0", "g-1", "g-2", "g-3"}) {
    cache_.UpsertPod(MakePod(name).Group("g").Request("cpu", "1").Build());
  }
  Session& session = Open();
  const JobIndex g = JobOf("g");
  EXPECT_FALSE(session.JobReady(g));
  EXPECT_EQ(session.TasksStillNeeded(g, ""), 3);
  Statement statement(session);
  Place(statement, "g-0");
  Place(statement, "g-1");
  EXPECT_FALSE(session.JobReady(g));
  EXPECT_EQ(session.TasksStillNeeded(g, ""), 1);
  Place(statement, "g-2");
  EXPECT_TRUE(session.JobReady(g));
  EXPECT_EQ(session.TasksStillNeeded(g, ""), 0);
  Place(statement, "g-3");  // beyond the minimum: never negative
  EXPECT_EQ(session.TasksStillNeeded(g, ""), 0);
}

TEST_F(GangTest, RunningAndSucceededPodsCountTowardTheMinimum) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(3).Build());
  cache_.UpsertPod(MakePod("g-0").Group("g").OnNode("n1").Build());
  cache_.UpsertPod(MakePod("g-1").Group("g").OnNode("n1").Phase(PodPhase::kSucceeded).Build());
  cache_.UpsertPod(MakePod("g-2").Group("g").Build());
  Session& session = Open();
  const JobIndex g = JobOf("g");
  // Running (1) + Succeeded (1) = 2 of 3.
  EXPECT_EQ(session.TasksStillNeeded(g, ""), 1);
  Statement statement(session);
  Place(statement, "g-2");
  EXPECT_TRUE(session.JobReady(g));
}

TEST_F(GangTest, MinTaskMemberMustAlsoBeMet) {
  cache_.UpsertPodGroup(MakePodGroup("tf").MinMember(2).MinTaskMember("ps", 1).Build());
  cache_.UpsertPod(MakePod("ps-0").Group("tf").Task("ps").Build());
  for (const char* name : {"worker-0", "worker-1", "worker-2"}) {
    cache_.UpsertPod(MakePod(name).Group("tf").Task("worker").Build());
  }
  Session& session = Open();
  const JobIndex tf = JobOf("tf");
  EXPECT_EQ(session.TasksStillNeeded(tf, "ps"), 1);
  EXPECT_EQ(session.TasksStillNeeded(tf, "worker"), 0);  // no minimum of its own
  Statement statement(session);
  Place(statement, "worker-0");
  Place(statement, "worker-1");
  // minMember 2 reached, but no ps yet.
  EXPECT_EQ(session.TasksStillNeeded(tf, ""), 0);
  EXPECT_FALSE(session.JobReady(tf));
  Place(statement, "ps-0");
  EXPECT_TRUE(session.JobReady(tf));
  EXPECT_EQ(session.TasksStillNeeded(tf, "ps"), 0);
}

TEST_F(GangTest, SingletonIsReadyWithItsOnePod) {
  cache_.UpsertPod(MakePod("solo").Build());
  Session& session = Open();
  EXPECT_FALSE(session.JobReady(JobOf("solo")));
  EXPECT_EQ(session.JobInvalid(JobOf("solo")), std::nullopt);
  Statement statement(session);
  Place(statement, "solo");
  EXPECT_TRUE(session.JobReady(JobOf("solo")));
}

TEST_F(GangTest, MissingGroupIsInvalid) {
  cache_.UpsertPod(MakePod("orphan").Group("nope").Build());
  Session& session = Open();
  EXPECT_THAT(session.JobInvalid(JobOf("nope")),
              Optional(std::string(
                  "pod group default/nope does not exist: create the PodGroup, or take its pods "
                  "out of it (label arbiter.dev/pod-group, annotation scheduling.k8s.io/group-name "
                  "or label scheduling.x-k8s.io/pod-group)")));
}

TEST_F(GangTest, TooFewPodsIsInvalid) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(3).Build());
  cache_.UpsertPod(MakePod("g-0").Group("g").Build());
  cache_.UpsertPod(MakePod("g-1").Group("g").Build());
  Session& session = Open();
  EXPECT_THAT(session.JobInvalid(JobOf("g")),
              Optional(std::string("only 2 of minMember 3 pods exist")));
}

TEST_F(GangTest, FailedPodsDoNotCountAsExisting) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(2).Build());
  cache_.UpsertPod(MakePod("g-0").Group("g").Build());
  cache_.UpsertPod(MakePod("g-1").Group("g").OnNode("n1").Phase(PodPhase::kFailed).Build());
  Session& session = Open();
  EXPECT_THAT(session.JobInvalid(JobOf("g")),
              Optional(std::string("only 1 of minMember 2 pods exist")));
}

TEST_F(GangTest, EnoughPodsIsValid) {
  cache_.UpsertPodGroup(MakePodGroup("g").MinMember(2).Build());
  cache_.UpsertPod(MakePod("g-0").Group("g").Build());
  cache_.UpsertPod(MakePod("g-1").Group("g").Build());
  EXPECT_EQ(Open().JobInvalid(JobOf("g")), std::nullopt);
}

TEST_F(GangTest, StatefulSetOwnerGetsTheOrderedReadyHint) {
  cache_.UpsertPodGroup(MakePodGroup("web").MinMember(3).Build());
  cache_.UpsertPod(MakePod("web-0").Group("web").OwnedBy("StatefulSet", "web-sts").Build());
  const std::optional<std::string> why = Open().JobInvalid(JobOf("web"));
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("only 1 of minMember 3 pods exist; StatefulSet default/web-sts may "
                              "be creating its pods one at a time"));
  EXPECT_THAT(*why, HasSubstr("set podManagementPolicy: Parallel"));
}

TEST_F(GangTest, OtherOwnersGetNoStatefulSetHint) {
  cache_.UpsertPodGroup(MakePodGroup("rs").MinMember(3).Build());
  cache_.UpsertPod(MakePod("rs-0").Group("rs").OwnedBy("ReplicaSet", "rs-abc").Build());
  EXPECT_THAT(Open().JobInvalid(JobOf("rs")), Optional(Not(HasSubstr("StatefulSet"))));
}

TEST_F(GangTest, MinTaskMemberShortfallIsInvalid) {
  cache_.UpsertPodGroup(MakePodGroup("tf").MinMember(2).MinTaskMember("ps", 2).Build());
  cache_.UpsertPod(MakePod("ps-0").Group("tf").Task("ps").Build());
  cache_.UpsertPod(MakePod("worker-0").Group("tf").Task("worker").Build());
  cache_.UpsertPod(MakePod("worker-1").Group("tf").Task("worker").Build());
  EXPECT_THAT(Open().JobInvalid(JobOf("tf")),
              Optional(std::string("task ps has 1 pods, below its minTaskMember 2")));
}

TEST(GangCreate, RejectsArguments) {
  EXPECT_TRUE(GangPlugin::Create(YAML::Node()).ok());
  StatusOr<std::unique_ptr<Plugin>> plugin = GangPlugin::Create(YAML::Load("{minMember: 2}"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_THAT(plugin.status().message(), HasSubstr("unknown key \"minMember\""));
}

}  // namespace
}  // namespace arbiter
