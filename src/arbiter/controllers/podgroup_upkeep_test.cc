#include "arbiter/controllers/podgroup_upkeep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/testing/builders.h"

namespace arbiter::controllers {
namespace {

using arbiter::testing::MakePod;
using ::testing::HasSubstr;

UpkeepPlan Plan(const std::vector<Pod>& pods, const std::set<std::string>& existing = {}) {
  std::vector<const Pod*> pointers;
  pointers.reserve(pods.size());
  for (const Pod& p : pods) pointers.push_back(&p);
  return PlanPodGroupUpkeep(pointers, existing, "arbiter");
}

TEST(PodGroupUpkeep, EachConventionGetsItsGroupSizedByItsOwner) {
  std::vector<Pod> pods;
  pods.reserve(5);
  for (int i = 0; i < 3; ++i) {
    pods.push_back(MakePod("mpi-" + std::to_string(i))
                       .Annotation("scheduling.k8s.io/group-name", "mpi")
                       .OwnedBy("Job", "mpi")
                       .Build());
  }
  pods.push_back(MakePod("sp-0").Label("scheduling.x-k8s.io/pod-group", "sp").Build());
  pods.push_back(MakePod("own-0").Group("own").Build());
  const UpkeepPlan plan = Plan(pods);
  EXPECT_TRUE(plan.errors.empty());
  ASSERT_EQ(plan.create.size(), 3U);
  const PodGroup& mpi = plan.create[0];
  EXPECT_EQ(mpi.meta.Key(), "default/mpi");
  EXPECT_EQ(mpi.spec.min_member, 3);
  EXPECT_EQ(mpi.spec.queue, "default");
  EXPECT_EQ(mpi.meta.labels.at("arbiter.dev/created-by"), "arbiter-controller");
  // Owned by the workload, so that the garbage collector removes it with the Job.
  ASSERT_EQ(mpi.meta.owner_references.size(), 1U);
  EXPECT_EQ(mpi.meta.owner_references[0].kind, "Job");
  EXPECT_FALSE(mpi.meta.owner_references[0].controller);
  EXPECT_EQ(plan.create[1].meta.Key(), "default/own");
  EXPECT_EQ(plan.create[1].spec.min_member, 1);
  EXPECT_TRUE(plan.create[1].meta.owner_references.empty());
  EXPECT_EQ(plan.create[2].meta.Key(), "default/sp");
}

TEST(PodGroupUpkeep, AnnotationsSetMinMemberAndQueue) {
  const UpkeepPlan plan = Plan({
      MakePod("w-0").Group("g").Annotation("arbiter.dev/min-member", "4").Build(),
      MakePod("w-1").Group("g").Annotation("arbiter.dev/queue", "team-a").Build(),
      MakePod("w-2").Group("g").Annotation("arbiter.dev/min-member", "2").Build(),
  });
  ASSERT_EQ(plan.create.size(), 1U);
  EXPECT_EQ(plan.create[0].spec.min_member, 4);  // pods that disagree: the largest
  EXPECT_EQ(plan.create[0].spec.queue, "team-a");
}

TEST(PodGroupUpkeep, NothingForExistingGroupsOtherSchedulersOrFinishedPods) {
  const UpkeepPlan plan = Plan(
      {
          MakePod("a-0").Group("a").Build(),
          MakePod("b-0").Group("b").SchedulerName("default-scheduler").Build(),
          MakePod("c-0").Group("c").Phase(PodPhase::kSucceeded).Build(),
          MakePod("plain").Build(),
      },
      {"default/a"});
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.errors.empty());
}

TEST(PodGroupUpkeep, PodsOfSeveralOwnersGetNoOwnerAndTheFirstOwnersCount) {
  const UpkeepPlan plan = Plan({
      MakePod("x-0").Group("g").OwnedBy("Job", "x").Build(),
      MakePod("x-1").Group("g").OwnedBy("Job", "x").Build(),
      MakePod("y-0").Group("g").OwnedBy("Job", "y").Build(),
  });
  ASSERT_EQ(plan.create.size(), 1U);
  EXPECT_EQ(plan.create[0].spec.min_member, 2);
  EXPECT_TRUE(plan.create[0].meta.owner_references.empty());
}

TEST(PodGroupUpkeep, ABadMinMemberNamesThePodAndMakesNoGroup) {
  const UpkeepPlan plan = Plan({
      MakePod("w-0").Namespace("ml").Group("g").Annotation("arbiter.dev/min-member", "0").Build(),
      MakePod("w-1").Namespace("ml").Group("g").Build(),
      MakePod("v-0").Namespace("ml").Group("h").Annotation("arbiter.dev/min-member", "3x").Build(),
      MakePod("ok").Namespace("ml").Group("ok").Build(),
  });
  ASSERT_EQ(plan.create.size(), 1U);
  EXPECT_EQ(plan.create[0].meta.Key(), "ml/ok");
  ASSERT_EQ(plan.errors.size(), 2U);
  EXPECT_THAT(plan.errors[0],
              HasSubstr("pod ml/w-0: annotation arbiter.dev/min-member: \"0\" is not a whole "
                        "number of at least 1"));
  EXPECT_THAT(plan.errors[1], HasSubstr("pod ml/v-0"));
}

}  // namespace
}  // namespace arbiter::controllers
