// Decoding of the other kinds: Node, Namespace, PriorityClass, Lease, Event, ResourceQuota,
// PodDisruptionBudget, and Arbiter's PodGroup and Queue.
#include <chrono>
#include <limits>

#include <gtest/gtest.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::Decode;

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
constexpr std::int64_t kKi = 1024;

TEST(DecodeNodeTest, ReadsSchedulingView) {
  StatusOr<Node> node = Decode<Node>(R"json({
    "kind": "Node", "apiVersion": "v1",
    "metadata": {"name": "node-7", "uid": "n7", "resourceVersion": "99",
                 "labels": {"kubernetes.io/hostname": "node-7", "gpu": "a100"}},
    "spec": {"podCIDR": "10.244.7.0/24", "unschedulable": true,
             "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                         "timeAdded": "2024-05-01T10:00:00Z"}]},
    "status": {
      "capacity": {"cpu": "32", "memory": "131896552Ki", "pods": "110", "nvidia.com/gpu": "8",
                   "hugepages-2Mi": "0"},
      "allocatable": {"cpu": "31800m", "memory": "129701928Ki", "pods": "110", "nvidia.com/gpu": "8"},
      "conditions": [{"type": "MemoryPressure", "status": "False"},
                     {"type": "Ready", "status": "True", "reason": "KubeletReady",
                      "lastHeartbeatTime": "2024-05-01T10:00:00Z"}],
      "nodeInfo": {"kubeletVersion": "v1.36.3"}
    }})json");
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(node->meta.Key(), "node-7");
  EXPECT_EQ(node->meta.labels.at("gpu"), "a100");
  EXPECT_TRUE(node->unschedulable);
  ASSERT_EQ(node->taints.size(), 2U);
  EXPECT_EQ(node->taints[0], (Taint{"nvidia.com/gpu", "present", "NoSchedule"}));
  EXPECT_EQ(node->taints[1].effect, "NoExecute");
  EXPECT_EQ(node->capacity.Get("memory"), 131896552 * kKi);
  EXPECT_TRUE(node->capacity.Has("hugepages-2Mi"));
  EXPECT_EQ(
      node->allocatable,
      (ResourceList{
          {"cpu", 31800}, {"memory", 129701928 * kKi}, {"pods", 110}, {"nvidia.com/gpu", 8}}));
  EXPECT_TRUE(node->Ready());
}

TEST(DecodeNamespaceTest, ReadsLabelsAndPhase) {
  StatusOr<Namespace> ns = Decode<Namespace>(R"({"apiVersion": "v1", "kind": "Namespace",
    "metadata": {"name": "ml", "labels": {"kubernetes.io/metadata.name": "ml", "team": "ml"}},
    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})");
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_EQ(ns->meta.Key(), "ml");
  EXPECT_EQ(ns->meta.labels.at("team"), "ml");
  EXPECT_EQ(ns->phase, "Active");
}

TEST(DecodePriorityClassTest, ReadsTopLevelFields) {
  StatusOr<PriorityClass> pc = Decode<PriorityClass>(R"({"apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000000,
    "globalDefault": false, "description": "urgent", "preemptionPolicy": "Never"})");
  ASSERT_TRUE(pc.ok()) << pc.status();
  EXPECT_EQ(pc->value, 1000000);
  EXPECT_FALSE(pc->global_default);
  EXPECT_EQ(pc->preemption_policy, "Never");
}

TEST(DecodeLeaseTest, ReadsMicroTimes) {
  StatusOr<Lease> lease = Decode<Lease>(R"({"apiVersion": "coordination.k8s.io/v1",
    "kind": "Lease", "metadata": {"name": "arbiter-scheduler", "namespace": "arbiter-system"},
    "spec": {"holderIdentity": "host-a_1234", "leaseDurationSeconds": 15,
             "acquireTime": "2024-05-01T10:00:00.000000Z",
             "renewTime": "2024-05-01T10:00:10.123456Z", "leaseTransitions": 3}})");
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_EQ(lease->holder_identity, "host-a_1234");
  EXPECT_EQ(lease->lease_duration_seconds, 15);
  EXPECT_EQ(lease->acquire_time, Clock::WallTime(std::chrono::seconds(1714557600)));
  EXPECT_EQ(lease->renew_time,
            Clock::WallTime(std::chrono::seconds(1714557610) + std::chrono::microseconds(123456)));
  EXPECT_EQ(lease->lease_transitions, 3);
}

TEST(DecodeLeaseTest, AbsentHolderStaysAbsent) {
  StatusOr<Lease> lease = Decode<Lease>(R"({"metadata": {"name": "l", "namespace": "x"},
    "spec": {"holderIdentity": null}})");
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_FALSE(lease->holder_identity.has_value());
  EXPECT_FALSE(lease->renew_time.has_value());
}

TEST(DecodeEventTest, ReadsEventsV1) {
  StatusOr<Event> event = Decode<Event>(R"({"apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "trainer-0.17c9", "namespace": "ml"},
    "eventTime": "2024-05-01T10:00:01.000001Z", "reportingController": "arbiter.dev/scheduler",
    "reportingInstance": "arbiter-scheduler-host-a", "action": "Binding", "reason": "Scheduled",
    "note": "Successfully assigned ml/trainer-0 to node-7", "type": "Normal",
    "regarding": {"kind": "Pod", "namespace": "ml", "name": "trainer-0", "uid": "7c1d",
                  "apiVersion": "v1"}})");
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->reason, "Scheduled");
  EXPECT_EQ(event->type, "Normal");
  EXPECT_EQ(event->regarding, (ObjectReference{"v1", "Pod", "ml", "trainer-0", "7c1d"}));
  EXPECT_FALSE(event->related.has_value());
  ASSERT_TRUE(event->event_time.has_value());
}

TEST(DecodeResourceQuotaTest, QuotaKeysUseTheUnitOfTheirResource) {
  StatusOr<ResourceQuota> quota = Decode<ResourceQuota>(R"({"metadata": {"name": "q",
    "namespace": "ml"}, "spec": {"hard": {"requests.cpu": "10", "limits.memory": "20Gi",
    "pods": "50", "count/pods": "50"}},
    "status": {"hard": {"requests.cpu": "10"}, "used": {"requests.cpu": "1500m"}}})");
  ASSERT_TRUE(quota.ok()) << quota.status();
  EXPECT_EQ(quota->spec_hard.Get("requests.cpu"), 10000);  // millicores
  EXPECT_EQ(quota->spec_hard.Get("limits.memory"), 20 * kGi);
  EXPECT_EQ(quota->spec_hard.Get("count/pods"), 50);
  EXPECT_EQ(quota->status_used.Get("requests.cpu"), 1500);
}

TEST(DecodePodDisruptionBudgetTest, ReadsSelectorAndAllowance) {
  StatusOr<PodDisruptionBudget> pdb = Decode<PodDisruptionBudget>(R"({"apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "ml", "generation": 2},
    "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "db"},
             "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}},
    "status": {"disruptionsAllowed": 1, "observedGeneration": 2, "currentHealthy": 3}})");
  ASSERT_TRUE(pdb.ok()) << pdb.status();
  ASSERT_TRUE(pdb->selector.has_value());
  EXPECT_TRUE(pdb->Selects({{"app", "db"}, {"tier", "a"}}));
  EXPECT_FALSE(pdb->Selects({{"app", "db"}}));
  EXPECT_EQ(pdb->Allowed(), 1);
  // The controller has not seen generation 3 yet: the Eviction API refuses everything it covers.
  pdb->meta.generation = 3;
  EXPECT_EQ(pdb->Allowed(), 0);
}

TEST(DecodePodDisruptionBudgetTest, NullSelectorSelectsNothingAndEmptyEverything) {
  StatusOr<PodDisruptionBudget> none = Decode<PodDisruptionBudget>(
      R"({"metadata": {"name": "a", "namespace": "ml"}, "spec": {"selector": null}})");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->Selects({{"app", "db"}}));
  StatusOr<PodDisruptionBudget> all = Decode<PodDisruptionBudget>(
      R"({"metadata": {"name": "b", "namespace": "ml"}, "spec": {"selector": {}}})");
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->Selects({{"app", "db"}}));
}

TEST(DecodePodDisruptionBudgetTest, BadSelectorNamesTheField) {
  StatusOr<PodDisruptionBudget> pdb = Decode<PodDisruptionBudget>(
      R"({"metadata": {"name": "db", "namespace": "ml"}, "spec": {"selector":
      {"matchExpressions": [{"key": "app", "operator": "Near"}]}}})");
  ASSERT_FALSE(pdb.ok());
  EXPECT_NE(
      pdb.status().message().find("poddisruptionbudget ml/db: spec.selector.matchExpressions[0]"),
      std::string::npos)
      << pdb.status();
}

TEST(DecodePodGroupTest, ReadsSpecAndStatus) {
  StatusOr<PodGroup> group = Decode<PodGroup>(R"({"apiVersion": "arbiter.dev/v1alpha1",
    "kind": "PodGroup", "metadata": {"name": "trainer", "namespace": "ml"},
    "spec": {"minMember": 3, "queue": "research", "priorityClassName": "high",
             "minResources": {"cpu": "3", "memory": "6Gi"},
             "minTaskMember": {"ps": 1, "worker": 2}},
    "status": {"phase": "Inqueue", "scheduled": 1, "running": 0, "failed": 0,
               "conditions": [{"type": "Unschedulable", "status": "True",
                               "reason": "NotEnoughResources", "message": "2/3 placed"}]}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.min_member, 3);
  EXPECT_EQ(group->spec.queue, "research");
  EXPECT_EQ(group->spec.min_resources, (ResourceList{{"cpu", 3000}, {"memory", 6 * kGi}}));
  EXPECT_EQ(group->spec.min_task_member,
            (std::map<std::string, std::int32_t>{{"ps", 1}, {"worker", 2}}));
  EXPECT_EQ(group->status.phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(group->status.scheduled, 1);
  ASSERT_EQ(group->status.conditions.size(), 1U);
  EXPECT_EQ(group->status.conditions[0].reason, "NotEnoughResources");
}

TEST(DecodePodGroupTest, ReadsTopology) {
  StatusOr<PodGroup> group = Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"},
    "spec": {"minMember": 8, "topology": {"mode": "Preferred", "level": "rack",
                                          "maxWaitSeconds": 120}}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.topology, (TopologyRequest{TopologyMode::kPreferred, "rack", 120}));
  group = Decode<PodGroup>(
      R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": {"topology": {"level": "zone"}}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.topology, (TopologyRequest{TopologyMode::kRequired, "zone", 0}));
  for (const auto& [spec, error] : std::vector<std::pair<std::string, std::string>>{
           {R"({"topology": {"mode": "Always", "level": "rack"}})",
            "podgroup ml/g: spec.topology.mode: unknown mode \"Always\" (want Required or "
            "Preferred)"},
           {R"({"topology": {"mode": "Required"}})", "podgroup ml/g: spec.topology.level: missing"},
           {R"({"topology": {"level": "rack", "maxWaitSeconds": -1}})",
            "podgroup ml/g: spec.topology.maxWaitSeconds: must not be negative, got -1"}}) {
    StatusOr<PodGroup> bad =
        Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": )" + spec + "}");
    EXPECT_EQ(bad.status().message(), error) << spec;
  }
}

TEST(DecodePodGroupTest, ReadsLocality) {
  StatusOr<PodGroup> group = Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"},
    "spec": {"locality": {"nodes": ["n1", "n7"], "racks": ["r2"]}}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.locality, (LocalityRequest{{"n1", "n7"}, {"r2"}, ""}));
  group = Decode<PodGroup>(
      R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": {"locality": null}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.locality, std::nullopt);
  group = Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"},
    "spec": {"locality": {"dataSet": "clicks"}}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.locality, (LocalityRequest{{}, {}, "clicks"}));
  for (const auto& [spec, error] : std::vector<std::pair<std::string, std::string>>{
           {R"({"locality": {"nodes": "n1"}})", "podgroup ml/g: spec.locality.nodes: "},
           {R"({"locality": {"racks": ["r1", ""]}})",
            "podgroup ml/g: spec.locality.racks[1]: must not be empty"},
           {R"({"locality": {"dataSet": ""}})",
            "podgroup ml/g: spec.locality.dataSet: must not be empty"},
           {R"({"locality": {"dataSet": 3}})", "podgroup ml/g: spec.locality.dataSet: "}}) {
    StatusOr<PodGroup> bad =
        Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": )" + spec + "}");
    ASSERT_FALSE(bad.ok()) << spec;
    EXPECT_EQ(bad.status().message().substr(0, error.size()), error) << spec;
  }
}

TEST(DecodeDataSetTest, ReadsBlocksAndTheirReplicas) {
  StatusOr<DataSet> d = Decode<DataSet>(R"({"apiVersion": "arbiter.dev/v1alpha1", "kind": "DataSet",
    "metadata": {"name": "clicks", "namespace": "ml"},
    "spec": {"blocks": [{"name": "b0", "nodes": ["n1", "n2"], "size": "128Mi"},
                        {"name": "b1", "nodes": []}]}})");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->meta.Key(), "ml/clicks");
  EXPECT_EQ(d->blocks, (std::vector<DataBlock>{{"b0", {"n1", "n2"}}, {"b1", {}}}));
  d = Decode<DataSet>(R"({"metadata": {"name": "empty", "namespace": "ml"}, "spec": {}})");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->blocks.empty());
}

TEST(DecodeDataSetTest, ErrorsNameTheBlockAndField) {
  for (const auto& [spec, error] : std::vector<std::pair<std::string, std::string>>{
           {R"({"blocks": {"name": "b0"}})", "dataset ml/d: spec.blocks: "},
           {R"({"blocks": [{"name": "b0", "nodes": ["n1"]}, {"name": ""}]})",
            "dataset ml/d: spec.blocks[1].name: must not be empty"},
           {R"({"blocks": [{"name": "b0", "nodes": ["n1", ""]}]})",
            "dataset ml/d: spec.blocks[0].nodes[1]: must not be empty"},
           {R"({"blocks": [{"name": "b0", "nodes": "n1"}]})",
            "dataset ml/d: spec.blocks[0].nodes: "}}) {
    StatusOr<DataSet> bad =
        Decode<DataSet>(R"({"metadata": {"name": "d", "namespace": "ml"}, "spec": )" + spec + "}");
    ASSERT_FALSE(bad.ok()) << spec;
    EXPECT_EQ(bad.status().message().substr(0, error.size()), error) << spec;
  }
}

TEST(DecodePodGroupTest, DefaultsApplyWhenAbsent) {
  StatusOr<PodGroup> group =
      Decode<PodGroup>(R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": {}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.queue, "default");
  EXPECT_EQ(group->spec.min_member, 1);
  EXPECT_EQ(group->status.phase, PodGroupPhase::kPending);
}

TEST(DecodeQueueTest, ReadsSpecAndStatus) {
  StatusOr<Queue> queue = Decode<Queue>(R"({"apiVersion": "arbiter.dev/v1alpha1", "kind": "Queue",
    "metadata": {"name": "research"},
    "spec": {"weight": 3, "capability": {"cpu": 64, "nvidia.com/gpu": "8"},
             "guarantee": {"cpu": "8"}, "reclaimable": false, "parent": "org", "state": "Closed",
             "namespaceSelector": {"matchLabels": {"team": "ml"},
                                   "matchExpressions": [{"key": "env", "operator": "NotIn",
                                                         "values": ["sandbox"]}]}},
    "status": {"deserved": {"cpu": "16"}, "allocated": {"cpu": "12"}, "used": {"cpu": "11500m"},
               "pending": 2, "inqueue": 1, "running": 4}})");
  ASSERT_TRUE(queue.ok()) << queue.status();
  const QueueSpec& s = queue->spec;
  EXPECT_EQ(s.weight, 3);
  EXPECT_EQ(s.capability, (ResourceList{{"cpu", 64000}, {"nvidia.com/gpu", 8}}));
  EXPECT_EQ(s.guarantee, (ResourceList{{"cpu", 8000}}));
  EXPECT_FALSE(s.reclaimable);
  EXPECT_EQ(s.parent, "org");
  EXPECT_EQ(s.state, QueueState::kClosed);
  ASSERT_TRUE(s.namespace_selector.has_value());
  EXPECT_TRUE(s.AdmitsNamespace({{"team", "ml"}, {"env", "prod"}}));
  EXPECT_FALSE(s.AdmitsNamespace({{"team", "ml"}, {"env", "sandbox"}}));
  EXPECT_EQ(queue->status.used.Get("cpu"), 11500);
  EXPECT_EQ(queue->status.running, 4);
}

TEST(DecodeQueueTest, DefaultsApplyWhenAbsent) {
  StatusOr<Queue> queue = Decode<Queue>(R"({"metadata": {"name": "default"}})");
  ASSERT_TRUE(queue.ok()) << queue.status();
  EXPECT_EQ(queue->spec.weight, 1);
  EXPECT_TRUE(queue->spec.reclaimable);
  EXPECT_EQ(queue->spec.state, QueueState::kOpen);
  EXPECT_FALSE(queue->spec.namespace_selector.has_value());
  EXPECT_TRUE(queue->spec.AdmitsNamespace({{"any", "thing"}}));
}

TEST(DecodeQueueTest, ReadsQuotaFinalizersAndConditions) {
  StatusOr<Queue> queue = Decode<Queue>(R"({"metadata": {"name": "ml", "generation": 3,
      "finalizers": ["arbiter.dev/queue-quota"]},
    "spec": {"quota": {"enforce": "Deserved"}},
    "status": {"quota": {"generation": 2, "hard": {"requests.cpu": "1500m"},
                         "loweredAt": "2026-12-01T10:00:00Z",
                         "namespaces": ["a", "b"], "sharedNamespaces": ["c"]},
               "conditions": [{"type": "QuotaSynced", "status": "True", "reason": "Synced",
                               "observedGeneration": 3}]}})");
  ASSERT_TRUE(queue.ok()) << queue.status();
  EXPECT_EQ(queue->meta.finalizers, std::vector<std::string>{"arbiter.dev/queue-quota"});
  EXPECT_EQ(queue->spec.quota_enforce, QuotaEnforce::kDeserved);
  EXPECT_EQ(queue->status.quota.generation, 2);
  EXPECT_EQ(queue->status.quota.hard.Get("requests.cpu"), 1500);
  ASSERT_TRUE(queue->status.quota.lowered_at.has_value());
  EXPECT_EQ(FormatRfc3339(*queue->status.quota.lowered_at), "2026-12-01T10:00:00Z");
  EXPECT_EQ(queue->status.quota.namespaces, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(queue->status.quota.shared_namespaces, std::vector<std::string>{"c"});
  ASSERT_EQ(queue->status.conditions.size(), 1U);
  EXPECT_EQ(queue->status.conditions[0].condition.type, "QuotaSynced");
  EXPECT_EQ(queue->status.conditions[0].observed_generation, 3);
}

TEST(DecodeValueTest, DecodersTakeAnOnDemandValue) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(std::string_view(
      R"({"pods": [{"metadata": {"name": "a", "namespace": "x"}}], "status": {"code": 404,
          "reason": "NotFound", "status": "Failure", "message": "pods \"b\" not found"}})"));
  simdjson::ondemand::document doc = parser.iterate(json);
  simdjson::ondemand::value first = doc["pods"].at(0).value();
  StatusOr<Pod> pod = DecodePod(first);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->meta.Key(), "x/a");
  StatusOr<ApiStatus> status = DecodeApiStatus(doc["status"].value());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, (ApiStatus{404, "Failure", "NotFound", "pods \"b\" not found"}));
}

TEST(ParseRfc3339Test, AcceptsKubernetesForms) {
  EXPECT_EQ(*ParseRfc3339("1970-01-01T00:00:00Z"), Clock::WallTime());
  EXPECT_EQ(*ParseRfc3339("2000-02-29T23:59:59.999999999Z"),
            Clock::WallTime(std::chrono::seconds(951868799) + std::chrono::nanoseconds(999999999)));
  EXPECT_EQ(*ParseRfc3339("1970-01-01T01:00:00+01:00"), Clock::WallTime());
  EXPECT_EQ(*ParseRfc3339("1969-12-31T23:30:00-00:30"), Clock::WallTime());
  // Digits past nanoseconds are truncated.
  EXPECT_EQ(*ParseRfc3339("1970-01-01T00:00:00.0000000019Z"),
            Clock::WallTime(std::chrono::nanoseconds(1)));
}

TEST(ParseRfc3339Test, RejectsOtherForms) {
  for (std::string_view bad :
       {"", "2024-05-01", "2024-05-01 10:00:00Z", "2024-05-01T10:00:00", "2024-13-01T00:00:00Z",
        "2024-05-01T24:00:00Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+0100",
        "2024-05-01T10:00:00Zjunk", "２024-05-01T10:00:00Z"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
}

// Found by decode_fuzz (corpus: regression-time-out-of-range): a creationTimestamp in the year
// 1012 overflowed the int64 count of nanoseconds (undefined behaviour) instead of failing.
TEST(ParseRfc3339Test, RejectsTimesOutsideTheNanosecondRange) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(*ParseRfc3339("2262-04-11T23:47:16.854775807Z"),
            Clock::WallTime(std::chrono::nanoseconds(kMax)));
  EXPECT_EQ(*ParseRfc3339("1677-09-21T00:12:43.145224192Z"),
            Clock::WallTime(std::chrono::nanoseconds(kMin)));
  for (std::string_view bad :
       {"2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224191Z", "1012-05-01T10:00:00Z",
        "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2262-04-12T00:00:00+00:01"}) {
    StatusOr<Clock::WallTime> time = ParseRfc3339(bad);
    EXPECT_EQ(time.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace arbiter::k8s
