#include "arbiter/controllers/queue_quota.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arbiter/testing/builders.h"

namespace arbiter::controllers {
namespace {

using testing::MakeNode;
using testing::MakeQueue;

constexpr std::int64_t kGi = std::int64_t{1} << 30;

std::vector<Node> ThreeNodesOf80Cpu() {
  return {MakeNode("n1").Cpu("80").Memory("256Gi").Build(),
          MakeNode("n2").Cpu("80").Memory("256Gi").Build(),
          MakeNode("n3").Cpu("80").Memory("256Gi").Build()};
}

Queue Enforcing(std::string name, QuotaEnforce enforce, std::int32_t weight = 1) {
  Queue q = MakeQueue(std::move(name), weight);
  q.spec.quota_enforce = enforce;
  q.meta.generation = 1;
  return q;
}

// A queue that selects the namespaces labelled team=<team>.
Queue Selecting(Queue q, const std::string& team) {
  q.spec.namespace_selector.emplace().match_labels["team"] = team;
  return q;
}

Namespace Ns(std::string name, std::string team) {
  Namespace ns;
  ns.meta.name = std::move(name);
  ns.meta.labels["team"] = std::move(team);
  ns.phase = "Active";
  return ns;
}

// The ResourceQuota that a write made, as the watch would then show it (the API server's quota
// controller having taken its limits when `taken`).
ResourceQuota Applied(const QuotaWrite& w, bool taken = true) {
  ResourceQuota rq;
  rq.meta.namespace_name = w.namespace_name;
  rq.meta.name = w.name;
  rq.meta.uid = "rq/" + w.namespace_name;
  rq.meta.resource_version = "10";
  rq.meta.labels[std::string(kManagedByLabel)] = "arbiter-controller";
  rq.meta.annotations[std::string(kQuotaQueueAnnotation)] = w.queue;
  rq.meta.annotations[std::string(kQuotaGenerationAnnotation)] = std::to_string(w.generation);
  rq.meta.owner_references.push_back({"arbiter.dev/v1alpha1", "Queue", w.queue, w.queue_uid,
                                      /*controller=*/true});
  rq.spec_hard = w.hard;
  if (taken) rq.status_hard = w.hard;
  return rq;
}

// Applies a plan to the observation as the API server would, for multi-step scripts.
void Apply(QuotaObservation& obs, const QuotaPlan& plan) {
  for (const QuotaWrite& w : plan.writes) {
    std::erase_if(obs.quotas, [&](const ResourceQuota& rq) {
      return rq.meta.namespace_name == w.namespace_name && rq.meta.name == w.name;
    });
    obs.quotas.push_back(Applied(w));
  }
  for (const QuotaDelete& d : plan.deletes) {
    std::erase_if(obs.quotas, [&](const ResourceQuota& rq) { return rq.meta.uid == d.uid; });
  }
  for (const QueueQuotaUpdate& u : plan.queues) {
    for (Queue& q : obs.queues) {
      if (q.meta.name != u.queue) continue;
      if (u.status) q.status = *u.status;
      if (u.add_finalizer) q.meta.finalizers.emplace_back(kQuotaFinalizer);
      if (u.remove_finalizer) std::erase(q.meta.finalizers, std::string(kQuotaFinalizer));
    }
  }
  std::erase_if(obs.queues, [](const Queue& q) {
    return q.meta.deletion_timestamp.has_value() && q.meta.finalizers.empty();
  });
}

const ObservedCondition* Synced(const Queue& q) {
  for (const ObservedCondition& c : q.status.conditions) {
    if (c.condition.type == kQuotaSyncedCondition) return &c;
  }
  return nullptr;
}

TEST(QuotaHardLimitsTest, DeservedIsTheWeightedShareOfTheWholeClusterCappedByCapability) {
  Queue team = Enforcing("team", QuotaEnforce::kDeserved, 3);
  team.spec.capability.Set("cpu", 100'000);
  const std::vector<Queue> queues = {MakeQueue("default"), team};
  const auto limits = QuotaHardLimits(queues, ClusterAllocatable(ThreeNodesOf80Cpu()));
  ASSERT_TRUE(limits.contains("team"));
  EXPECT_FALSE(limits.contains("default"));  // enforces nothing
  // Its 180 of 240 CPU, capped at 100: more than any one node has, and never clipped to one.
  EXPECT_EQ(limits.at("team").Get("requests.cpu"), 100'000);
  // No cap on memory: 3/4 of 768Gi.
  EXPECT_EQ(limits.at("team").Get("requests.memory"), 576 * kGi);
}

TEST(QuotaHardLimitsTest, FiveQueuesOfWeightOneGetAFifthEach) {
  std::vector<Queue> queues = {MakeQueue("default")};
  for (const char* name : {"a", "b", "c", "d"}) {
    queues.push_back(Enforcing(name, QuotaEnforce::kDeserved));
  }
  const auto limits = QuotaHardLimits(queues, ClusterAllocatable(ThreeNodesOf80Cpu()));
  for (const char* name : {"a", "b", "c", "d"}) {
    EXPECT_EQ(limits.at(name).Get("requests.cpu"), 48'000) << name;  // 240 / 5
  }
}

TEST(QuotaHardLimitsTest, DeservedIgnoresWhatQueuesAskForNow) {
  // Nothing in the inputs is demand: the entitlement of an idle queue is its full share.
  Queue idle = Enforcing("idle", QuotaEnforce::kDeserved);
  const auto limits =
      QuotaHardLimits({MakeQueue("default"), idle}, ClusterAllocatable(ThreeNodesOf80Cpu()));
  EXPECT_EQ(limits.at("idle").Get("requests.cpu"), 120'000);
}

TEST(QuotaHardLimitsTest, AChildSharesItsParentsShare) {
  Queue parent = MakeQueue("org", 1);
  Queue child = Enforcing("org-ml", QuotaEnforce::kDeserved, 1);
  child.spec.parent = "org";
  Queue sibling = MakeQueue("org-web", 1);
  sibling.spec.parent = "org";
  const auto limits = QuotaHardLimits({MakeQueue("default"), parent, child, sibling},
                                      ClusterAllocatable(ThreeNodesOf80Cpu()));
  // org gets 120 of 240 beside default; its two children 60 each (org's own jobs ask nothing).
  EXPECT_EQ(limits.at("org-ml").Get("requests.cpu"), 60'000);
}

TEST(QuotaHardLimitsTest, GuaranteeIsPartOfTheEntitlement) {
  Queue small = Enforcing("small", QuotaEnforce::kDeserved, 1);
  small.spec.guarantee.Set("cpu", 200'000);
  const auto limits =
      QuotaHardLimits({MakeQueue("default", 100), small}, ClusterAllocatable(ThreeNodesOf80Cpu()));
  EXPECT_GE(limits.at("small").Get("requests.cpu"), 200'000);
}

TEST(QuotaHardLimitsTest, CapabilityModeCopiesTheCapabilityExactly) {
  Queue q = Enforcing("q", QuotaEnforce::kCapability);
  q.spec.capability.Set("cpu", 1500);
  q.spec.capability.Set("nvidia.com/gpu", 2);
  const auto limits = QuotaHardLimits({q}, ClusterAllocatable(ThreeNodesOf80Cpu()));
  EXPECT_EQ(limits.at("q"), ResourceList({{"requests.cpu", 1500}, {"requests.nvidia.com/gpu", 2}}));
}

TEST(ClusterAllocatableTest, CountsOnlyNodesTheSchedulerWouldUse) {
  const ResourceList total = ClusterAllocatable(
      {MakeNode("a").Cpu("8").Build(), MakeNode("cordoned").Cpu("8").Unschedulable().Build(),
       MakeNode("sick").Cpu("8").NotReady().Build()});
  EXPECT_EQ(total.Get("cpu"), 8000);
}

struct QuotaPlanTest : ::testing::Test {
  QuotaObservation obs;
  void SetUp() override {
    obs.cluster = ClusterAllocatable(ThreeNodesOf80Cpu());
    obs.namespaces = {Ns("ml-1", "ml"), Ns("ml-2", "ml"), Ns("web", "web")};
    obs.now = testing::TestEpoch();
  }
  Queue& QueueNamed(const std::string& name) {
    for (Queue& q : obs.queues) {
      if (q.meta.name == name) return q;
    }
    ADD_FAILURE() << "no queue " << name;
    return obs.queues.front();
  }
};

TEST_F(QuotaPlanTest, AQueueGetsAResourceQuotaInEachNamespaceItOwnsAndAFinalizer) {
  Queue ml = Selecting(Enforcing("ml", QuotaEnforce::kCapability), "ml");
  ml.spec.capability.Set("cpu", 1500);
  obs.queues = {MakeQueue("default"), ml};
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 2U);
  for (const QuotaWrite& w : plan.writes) {
    EXPECT_EQ(w.name, "arbiter-queue-ml");
    EXPECT_TRUE(w.resource_version.empty());  // a create
    EXPECT_EQ(w.hard, ResourceList({{"requests.cpu", 1500}}));
    EXPECT_EQ(w.generation, 1);
  }
  EXPECT_EQ(plan.writes[0].namespace_name, "ml-1");
  EXPECT_EQ(plan.writes[1].namespace_name, "ml-2");
  EXPECT_TRUE(plan.deletes.empty());
  const QueueQuotaUpdate* update = nullptr;
  for (const QueueQuotaUpdate& u : plan.queues) {
    if (u.queue == "ml") update = &u;
  }
  ASSERT_NE(update, nullptr);
  EXPECT_TRUE(update->add_finalizer);
  ASSERT_TRUE(update->status.has_value());
  EXPECT_EQ(update->status->quota.generation, 1);
  EXPECT_EQ(update->status->quota.namespaces, (std::vector<std::string>{"ml-1", "ml-2"}));
  // Not synced until the ResourceQuotas exist and the API server took their limits.
  Queue after = ml;
  after.status = *update->status;
  ASSERT_NE(Synced(after), nullptr);
  EXPECT_EQ(Synced(after)->condition.status, "False");
  EXPECT_EQ(Synced(after)->condition.reason, "Syncing");
  EXPECT_EQ(Synced(after)->observed_generation, 1);
}

TEST_F(QuotaPlanTest, ExactAmountsAreWrittenAsTheyWereGiven) {
  const std::string json = ResourceQuotaJson(
      {"ml-1", "arbiter-queue-ml", "", "ml", "uid-1",
       ResourceList({{"requests.cpu", 1500}, {"requests.memory", 3 * kGi / 2}}), 4});
  const nlohmann::json body = nlohmann::json::parse(json);
  EXPECT_EQ(body["spec"]["hard"]["requests.cpu"], "1500m");
  EXPECT_EQ(body["spec"]["hard"]["requests.memory"], "1536Mi");
  EXPECT_EQ(body["metadata"]["annotations"]["arbiter.dev/quota-generation"], "4");
  EXPECT_EQ(body["metadata"]["ownerReferences"][0]["kind"], "Queue");
  EXPECT_EQ(body["metadata"]["ownerReferences"][0]["uid"], "uid-1");
  EXPECT_EQ(body["metadata"]["labels"]["app.kubernetes.io/managed-by"], "arbiter-controller");
  EXPECT_FALSE(body["metadata"].contains("resourceVersion"));
}

TEST_F(QuotaPlanTest, TheStatusPatchDropsResourcesNoLongerLimited) {
  QueueStatus before;
  before.quota.hard = ResourceList({{"requests.cpu", 2000}, {"requests.memory", kGi}});
  QueueStatus after;
  after.quota.generation = 3;
  after.quota.hard = ResourceList({{"requests.cpu", 1500}});
  after.quota.namespaces = {"ml-1"};
  after.conditions.push_back(
      {Condition{"QuotaSynced", "True", "Synced", "ok", testing::TestEpoch()}, 7});
  const nlohmann::json patch = nlohmann::json::parse(QueueQuotaStatusPatch(before, after));
  EXPECT_EQ(patch["status"]["quota"]["hard"]["requests.cpu"], "1500m");
  EXPECT_TRUE(patch["status"]["quota"]["hard"]["requests.memory"].is_null());
  EXPECT_EQ(patch["status"]["quota"]["generation"], 3);
  EXPECT_EQ(patch["status"]["quota"]["namespaces"], nlohmann::json::array({"ml-1"}));
  EXPECT_EQ(patch["status"]["conditions"][0]["observedGeneration"], 7);
  EXPECT_EQ(patch["status"]["conditions"][0]["type"], "QuotaSynced");
  EXPECT_FALSE(patch.contains("spec"));
}

TEST_F(QuotaPlanTest, TheFinalizersPatchIsConditional) {
  const nlohmann::json patch = nlohmann::json::parse(FinalizersPatch({"a", "b"}, "42"));
  EXPECT_EQ(patch["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(patch["metadata"]["finalizers"], nlohmann::json::array({"a", "b"}));
}

TEST_F(QuotaPlanTest, SyncedOnceEveryNamespaceHasItAndTheApiServerTookIt) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  const QuotaPlan second = PlanQueueQuotas(obs);
  EXPECT_TRUE(second.writes.empty());
  Apply(obs, second);
  const ObservedCondition* synced = Synced(QueueNamed("ml"));
  ASSERT_NE(synced, nullptr);
  EXPECT_EQ(synced->condition.status, "True");
  EXPECT_EQ(synced->condition.reason, "Synced");
  // And then nothing more to do.
  const QuotaPlan third = PlanQueueQuotas(obs);
  EXPECT_TRUE(third.writes.empty());
  EXPECT_TRUE(third.deletes.empty());
  EXPECT_TRUE(third.queues.empty());
}

TEST_F(QuotaPlanTest, AResourceQuotaSomeoneDeletedIsCreatedAgain) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  std::erase_if(obs.quotas,
                [](const ResourceQuota& rq) { return rq.meta.namespace_name == "ml-2"; });
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 1U);
  EXPECT_EQ(plan.writes[0].namespace_name, "ml-2");
  EXPECT_TRUE(plan.writes[0].resource_version.empty());
  EXPECT_EQ(plan.writes[0].generation, 1);  // the limits did not change
}

TEST_F(QuotaPlanTest, AResourceQuotaSomeoneEditedIsRepaired) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  obs.quotas[0].spec_hard.Set("requests.cpu", 1);
  obs.quotas[0].spec_hard.Set("limits.memory", 1);
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 1U);
  EXPECT_EQ(plan.writes[0].namespace_name, obs.quotas[0].meta.namespace_name);
  EXPECT_EQ(plan.writes[0].resource_version, "10");  // a replace, conditional on what was read
  EXPECT_EQ(plan.writes[0].hard.Get("requests.cpu"), 240'000);  // the only queue
  EXPECT_FALSE(plan.writes[0].hard.Has("limits.memory"));
}

TEST_F(QuotaPlanTest, AChangeOfLimitsIsANewGenerationEverywhere) {
  Queue ml = Selecting(Enforcing("ml", QuotaEnforce::kCapability), "ml");
  ml.spec.capability.Set("cpu", 8000);
  obs.queues = {ml};
  Apply(obs, PlanQueueQuotas(obs));
  Apply(obs, PlanQueueQuotas(obs));
  QueueNamed("ml").spec.capability.Set("cpu", 4000);
  QueueNamed("ml").meta.generation = 2;
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 2U);
  for (const QuotaWrite& w : plan.writes) {
    EXPECT_EQ(w.generation, 2);
    EXPECT_EQ(w.hard.Get("requests.cpu"), 4000);
  }
  ASSERT_EQ(plan.queues.size(), 1U);
  ASSERT_TRUE(plan.queues[0].status.has_value());
  EXPECT_EQ(plan.queues[0].status->quota.generation, 2);
  EXPECT_EQ(plan.queues[0].status->quota.hard.Get("requests.cpu"), 4000);
  Queue after = QueueNamed("ml");
  after.status = *plan.queues[0].status;
  EXPECT_EQ(Synced(after)->observed_generation, 2);
}

TEST_F(QuotaPlanTest, AGenerationThatLowersALimitRecordsWhen) {
  Queue ml = Selecting(Enforcing("ml", QuotaEnforce::kCapability), "ml");
  ml.spec.capability.Set("cpu", 8000);
  obs.queues = {ml};
  Apply(obs, PlanQueueQuotas(obs));
  // The first limits count as lowered: there was no limit before them.
  EXPECT_EQ(QueueNamed("ml").status.quota.lowered_at, obs.now);
  const Clock::WallTime first = obs.now;

  obs.now += std::chrono::minutes(1);
  QueueNamed("ml").spec.capability.Set("cpu", 12'000);
  Apply(obs, PlanQueueQuotas(obs));
  EXPECT_EQ(QueueNamed("ml").status.quota.generation, 2);
  EXPECT_EQ(QueueNamed("ml").status.quota.lowered_at, first);  // raised: nothing runs beyond it

  obs.now += std::chrono::minutes(1);
  QueueNamed("ml").spec.capability.Set("memory", 64 * kGi);  // a new limit lowers from none
  Apply(obs, PlanQueueQuotas(obs));
  EXPECT_EQ(QueueNamed("ml").status.quota.lowered_at, obs.now);

  obs.now += std::chrono::minutes(1);
  QueueNamed("ml").spec.capability.Set("cpu", 2000);
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.queues.size(), 1U);
  ASSERT_TRUE(plan.queues[0].status.has_value());
  EXPECT_EQ(plan.queues[0].status->quota.lowered_at, obs.now);
  const nlohmann::json patch =
      nlohmann::json::parse(QueueQuotaStatusPatch(QueueNamed("ml").status, *plan.queues[0].status));
  EXPECT_EQ(patch["status"]["quota"]["loweredAt"], FormatRfc3339(obs.now));
}

TEST_F(QuotaPlanTest, ANamespaceTwoQueuesSelectGetsNoResourceQuotaAndBothSaySo) {
  Queue ml = Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml");
  Queue ml2 = Enforcing("ml2", QuotaEnforce::kDeserved);
  ml2.spec.namespace_selector.emplace().match_labels["kubernetes.io/metadata.name"] = "ml-2";
  obs.namespaces[1].meta.labels["kubernetes.io/metadata.name"] = "ml-2";
  obs.queues = {ml, ml2};
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 1U);
  EXPECT_EQ(plan.writes[0].namespace_name, "ml-1");
  for (const QueueQuotaUpdate& u : plan.queues) {
    ASSERT_TRUE(u.status.has_value());
    EXPECT_EQ(u.status->quota.shared_namespaces, std::vector<std::string>{"ml-2"}) << u.queue;
  }
  Apply(obs, plan);
  Apply(obs, PlanQueueQuotas(obs));
  const ObservedCondition* synced = Synced(QueueNamed("ml2"));
  ASSERT_NE(synced, nullptr);
  EXPECT_NE(synced->condition.message.find("no ResourceQuota in ml-2"), std::string::npos)
      << synced->condition.message;
}

TEST_F(QuotaPlanTest, AQueueWithoutASelectorOwnsNoNamespace) {
  obs.queues = {Enforcing("everyone", QuotaEnforce::kDeserved),
                Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  const QuotaPlan plan = PlanQueueQuotas(obs);
  for (const QuotaWrite& w : plan.writes) EXPECT_EQ(w.queue, "ml");
  EXPECT_EQ(plan.writes.size(), 2U);
}

TEST_F(QuotaPlanTest, ANamespaceNoLongerSelectedLosesItsResourceQuota) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  obs.namespaces[1].meta.labels["team"] = "web";
  const QuotaPlan plan = PlanQueueQuotas(obs);
  EXPECT_TRUE(plan.writes.empty());
  ASSERT_EQ(plan.deletes.size(), 1U);
  EXPECT_EQ(plan.deletes[0].namespace_name, "ml-2");
  EXPECT_EQ(plan.deletes[0].uid, "rq/ml-2");
}

TEST_F(QuotaPlanTest, ADeletedQueuesQuotasGoToZeroThenAwayThenItsFinalizer) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  ASSERT_EQ(QueueNamed("ml").meta.finalizers, std::vector<std::string>{"arbiter.dev/queue-quota"});
  QueueNamed("ml").meta.deletion_timestamp = obs.now;

  const QuotaPlan zero = PlanQueueQuotas(obs);
  ASSERT_EQ(zero.writes.size(), 2U);
  for (const QuotaWrite& w : zero.writes) {
    EXPECT_TRUE(w.hard.IsZero());
    EXPECT_TRUE(w.hard.Has("requests.cpu"));
    EXPECT_EQ(w.resource_version, "10");
  }
  EXPECT_TRUE(zero.deletes.empty());
  EXPECT_TRUE(zero.queues.empty());  // the finalizer stays while they exist
  Apply(obs, zero);

  const QuotaPlan remove = PlanQueueQuotas(obs);
  EXPECT_TRUE(remove.writes.empty());
  EXPECT_EQ(remove.deletes.size(), 2U);
  Apply(obs, remove);

  const QuotaPlan release = PlanQueueQuotas(obs);
  ASSERT_EQ(release.queues.size(), 1U);
  EXPECT_TRUE(release.queues[0].remove_finalizer);
  Apply(obs, release);
  EXPECT_TRUE(obs.queues.empty());
}

TEST_F(QuotaPlanTest, AQueueThatStopsEnforcingLosesItsQuotasThenItsFinalizer) {
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  Apply(obs, PlanQueueQuotas(obs));
  QueueNamed("ml").spec.quota_enforce = QuotaEnforce::kNone;
  const QuotaPlan plan = PlanQueueQuotas(obs);
  EXPECT_EQ(plan.deletes.size(), 2U);
  ASSERT_EQ(plan.queues.size(), 1U);
  EXPECT_FALSE(plan.queues[0].remove_finalizer);  // not while they exist
  ASSERT_TRUE(plan.queues[0].status.has_value());
  EXPECT_TRUE(plan.queues[0].status->quota.hard.empty());
  Apply(obs, plan);
  const QuotaPlan next = PlanQueueQuotas(obs);
  ASSERT_EQ(next.queues.size(), 1U);
  EXPECT_TRUE(next.queues[0].remove_finalizer);
  EXPECT_EQ(Synced(QueueNamed("ml"))->condition.reason, "NotEnforced");
}

TEST_F(QuotaPlanTest, NothingIsCreatedInATerminatingNamespace) {
  obs.namespaces[1].phase = "Terminating";
  obs.queues = {Selecting(Enforcing("ml", QuotaEnforce::kDeserved), "ml")};
  const QuotaPlan plan = PlanQueueQuotas(obs);
  ASSERT_EQ(plan.writes.size(), 1U);
  EXPECT_EQ(plan.writes[0].namespace_name, "ml-1");
}

}  // namespace
}  // namespace arbiter::controllers
