// Decoding of v1 Pods: every field the model keeps, from JSON shaped as the API server writes it.
#include <chrono>

#include <gtest/gtest.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::Decode;

constexpr std::int64_t kMi = 1024LL * 1024;

constexpr std::string_view kPod = R"json({
  "kind": "Pod",
  "apiVersion": "v1",
  "metadata": {
    "name": "trainer-0",
    "namespace": "ml",
    "uid": "7c1d3e2a-6f4b-4b8e-9d0a-1f2e3d4c5b6a",
    "resourceVersion": "48213",
    "generation": 1,
    "creationTimestamp": "2024-05-01T10:00:00Z",
    "labels": {"app": "trainer", "arbiter.dev/pod-group": "trainer", "arbiter.dev/task": "worker"},
    "annotations": {"scheduling.k8s.io/group-name": "trainer",
                    "arbiter.dev/note": "caf\u00e9 \"quoted\"",
                    "kubectl.kubernetes.io/last-applied-configuration": "{\"kind\":\"Pod\"}",
                    "note": "x"},
    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "trainer",
                         "uid": "0a9b8c7d", "controller": true, "blockOwnerDeletion": true}],
    "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {}}}]
  },
  "spec": {
    "volumes": [{"name": "data", "emptyDir": {}}],
    "initContainers": [
      {"name": "fetch", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "64Mi"}}},
      {"name": "proxy", "image": "envoy", "restartPolicy": "Always",
       "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}
    ],
    "containers": [
      {"name": "main", "image": "pytorch:2.3", "command": ["python", "train.py"],
       "ports": [{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"},
                 {"containerPort": 9090}],
       "resources": {"limits": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                     "requests": {"cpu": "1500m", "memory": "2Gi", "nvidia.com/gpu": 1}}},
      {"name": "sidecar", "image": "logger", "resources": {"requests": {"cpu": 0.25, "memory": "128Mi"}}}
    ],
    "restartPolicy": "Never",
    "activeDeadlineSeconds": 3600,
    "schedulerName": "arbiter",
    "nodeName": "node-7",
    "priority": 1000,
    "priorityClassName": "high",
    "nodeSelector": {"kubernetes.io/os": "linux"},
    "tolerations": [
      {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 300},
      {"key": "dedicated", "value": "ml", "effect": "NoSchedule"}
    ],
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
          "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "gpu", "operator": "In", "values": ["a100", "h100"]},
                                  {"key": "cores", "operator": "Gt", "values": ["16"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-7"]}]}
          ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}
        ]
      },
      "podAntiAffinity": {}
    },
    "overhead": {"cpu": "10m", "memory": "1Mi"}
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "PodScheduled", "status": "True", "lastProbeTime": null,
       "lastTransitionTime": "2024-05-01T10:00:01Z"},
      {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": "not yet"}
    ],
    "hostIP": "10.0.0.7",
    "startTime": "2024-05-01T10:00:02Z"
  }
})json";

TEST(DecodePodTest, ReadsMetadata) {
  StatusOr<Pod> pod = Decode<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  const ObjectMeta& m = pod->meta;
  EXPECT_EQ(m.name, "trainer-0");
  EXPECT_EQ(m.namespace_name, "ml");
  EXPECT_EQ(m.uid, "7c1d3e2a-6f4b-4b8e-9d0a-1f2e3d4c5b6a");
  EXPECT_EQ(m.resource_version, "48213");
  EXPECT_EQ(m.generation, 1);
  EXPECT_EQ(m.creation_timestamp, Clock::WallTime(std::chrono::seconds(1714557600)));
  EXPECT_FALSE(m.deletion_timestamp.has_value());
  EXPECT_EQ(m.labels.at("arbiter.dev/pod-group"), "trainer");
  // Only the annotations Arbiter acts on are kept, unescaped.
  EXPECT_EQ(m.annotations.at("arbiter.dev/note"), "caf\xc3\xa9 \"quoted\"");
  EXPECT_EQ(m.annotations, (Labels{{"arbiter.dev/note", "caf\xc3\xa9 \"quoted\""},
                                   {"scheduling.k8s.io/group-name", "trainer"}}));
  ASSERT_EQ(m.owner_references.size(), 1U);
  EXPECT_EQ(m.owner_references[0],
            (OwnerReference{"batch/v1", "Job", "trainer", "0a9b8c7d", true}));
}

TEST(DecodePodTest, ReadsSchedulingFields) {
  StatusOr<Pod> pod = Decode<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  const PodSpec& s = pod->spec;
  EXPECT_EQ(s.scheduler_name, "arbiter");
  EXPECT_EQ(s.node_name, "node-7");
  EXPECT_EQ(s.priority, 1000);
  EXPECT_EQ(s.priority_class_name, "high");
  EXPECT_EQ(s.active_deadline_seconds, 3600);
  EXPECT_EQ(s.node_selector, (Labels{{"kubernetes.io/os", "linux"}}));
  ASSERT_EQ(s.tolerations.size(), 3U);
  EXPECT_EQ(s.tolerations[0].op, TolerationOperator::kExists);
  EXPECT_EQ(s.tolerations[1].toleration_seconds, 300);
  EXPECT_EQ(s.tolerations[2], (Toleration{"dedicated", TolerationOperator::kEqual, "ml",
                                          "NoSchedule", std::nullopt}));
  ASSERT_TRUE(s.required_node_affinity.has_value());
  const auto terms = s.required_node_affinity.value_or(NodeSelector{}).terms;
  ASSERT_EQ(terms.size(), 2U);
  EXPECT_EQ(terms[0].match_expressions[0],
            (NodeSelectorRequirement{"gpu", NodeSelectorOperator::kIn, {"a100", "h100"}}));
  EXPECT_EQ(terms[0].match_expressions[1].op, NodeSelectorOperator::kGt);
  EXPECT_EQ(terms[1].match_fields[0].key, "metadata.name");
}

TEST(DecodePodTest, ReadsContainersInCanonicalUnits) {
  StatusOr<Pod> pod = Decode<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  const PodSpec& s = pod->spec;
  ASSERT_EQ(s.containers.size(), 2U);
  EXPECT_EQ(s.containers[0].name, "main");
  EXPECT_EQ(s.containers[0].requests,
            (ResourceList{{"cpu", 1500}, {"memory", 2048 * kMi}, {"nvidia.com/gpu", 1}}));
  ASSERT_EQ(s.containers[0].host_ports.size(), 1U);  // the port without hostPort is not kept
  EXPECT_EQ(s.containers[0].host_ports[0].port, 8080);
  EXPECT_EQ(s.containers[1].requests, (ResourceList{{"cpu", 250}, {"memory", 128 * kMi}}));
  ASSERT_EQ(s.init_containers.size(), 2U);
  EXPECT_FALSE(s.init_containers[0].IsSidecar());
  EXPECT_TRUE(s.init_containers[1].IsSidecar());
  EXPECT_EQ(s.overhead, (ResourceList{{"cpu", 10}, {"memory", kMi}}));
}

TEST(DecodePodTest, EffectiveRequestOfADecodedPod) {
  StatusOr<Pod> pod = Decode<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  StatusOr<ResourceList> request = pod->EffectiveRequest();
  ASSERT_TRUE(request.ok()) << request.status();
  // regular: 1500m + 250m + 100m (sidecar) = 1850m; init: fetch 1 cpu + sidecar-before-it 0.
  // cpu max(1850m, 1000m) + 10m; memory max(2Gi+128Mi+32Mi, 64Mi) + 1Mi.
  EXPECT_EQ(*request, (ResourceList{{"cpu", 1860},
                                    {"memory", (2048 + 128 + 32 + 1) * kMi},
                                    {"nvidia.com/gpu", 1},
                                    {"pods", 1}}));
}

TEST(DecodePodTest, ReadsStatus) {
  StatusOr<Pod> pod = Decode<Pod>(kPod);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->status.phase, PodPhase::kRunning);
  ASSERT_EQ(pod->status.conditions.size(), 2U);
  EXPECT_TRUE(pod->status.conditions[0].IsTrue());
  EXPECT_EQ(pod->status.conditions[0].last_transition_time,
            Clock::WallTime(std::chrono::seconds(1714557601)));
  EXPECT_EQ(pod->status.conditions[1].reason, "ContainersNotReady");
}

TEST(DecodePodTest, MinimalPodHasDefaults) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p", "namespace": "default"}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_FALSE(pod->spec.required_node_affinity.has_value());
  EXPECT_EQ(pod->status.phase, PodPhase::kPending);
  EXPECT_EQ(*pod->EffectiveRequest(), (ResourceList{{"pods", 1}}));
}

TEST(DecodePodTest, NullsReadAsAbsent) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p", "labels": null,
    "creationTimestamp": null, "deletionTimestamp": null},
    "spec": {"containers": [{"name": "c", "resources": {"requests": null}}], "priority": null,
             "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": null}},
             "tolerations": null},
    "status": null})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_TRUE(pod->meta.labels.empty());
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_FALSE(pod->spec.required_node_affinity.has_value());
  EXPECT_TRUE(pod->spec.containers.at(0).requests.empty());
}

TEST(DecodePodTest, DeletionTimestampWithFraction) {
  StatusOr<Pod> pod = Decode<Pod>(
      R"({"metadata": {"name": "p", "deletionTimestamp": "2024-05-01T10:00:00.5+02:00"}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->meta.deletion_timestamp, Clock::WallTime(std::chrono::seconds(1714557600 - 7200) +
                                                          std::chrono::milliseconds(500)));
}

TEST(DecodePodTest, QuantitiesAsNumbersFollowApimachinery) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p"}, "spec": {"containers": [
    {"name": "c", "resources": {"requests": {"cpu": 2, "memory": 1e9, "example.com/foo": " 3 ",
                                             "ephemeral-storage": null}}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->spec.containers[0].requests, (ResourceList{{"cpu", 2000},
                                                            {"memory", 1'000'000'000},
                                                            {"example.com/foo", 3},
                                                            {"ephemeral-storage", 0}}));
}

TEST(DecodePodTest, KeepsTheAnnotationsOfTheDomainsArbiterActsOn) {
  EXPECT_TRUE(KeepsPodAnnotation("arbiter.dev/run-for"));
  EXPECT_TRUE(KeepsPodAnnotation("topology.arbiter.dev/rack"));
  EXPECT_TRUE(KeepsPodAnnotation("scheduling.k8s.io/group-name"));
  EXPECT_TRUE(KeepsPodAnnotation("scheduling.volcano.sh/queue-name"));
  EXPECT_TRUE(KeepsPodAnnotation("volcano.sh/preemptable"));
  EXPECT_FALSE(KeepsPodAnnotation("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_FALSE(KeepsPodAnnotation("notarbiter.dev/x"));
  EXPECT_FALSE(KeepsPodAnnotation("arbiter.dev"));
  EXPECT_FALSE(KeepsPodAnnotation("note"));
}

TEST(DecodePodTest, AnAnnotationItSkipsIsNotRead) {
  // Unread, a skipped annotation's value cannot fail the pod (the API server allows only
  // strings, but a pod is never lost over what the scheduler does not read).
  StatusOr<Pod> pod = Decode<Pod>(
      R"({"metadata": {"name": "p", "annotations": {"example.com/x": {"not": "a string"},
                                                    "arbiter.dev/queue": "q"}}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->meta.annotations, (Labels{{"arbiter.dev/queue", "q"}}));
  // Other kinds keep every annotation.
  StatusOr<PodGroup> group =
      Decode<PodGroup>(R"({"metadata": {"name": "g", "annotations": {"example.com/x": "y"}}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->meta.annotations, (Labels{{"example.com/x", "y"}}));
}

TEST(DecodePodTest, MapKeysInAnyOrderAndTwiceReadAsGoReadsThem) {
  // The API server writes keys sorted; any other writer may not, and a key given twice keeps its
  // last value, as Go's decoder does. A map given twice (two "labels") is merged.
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p",
    "labels": {"b": "1", "a": "2", "c": "3", "a": "4", "b": "5"},
    "annotations": {"arbiter.dev/z": "1", "example.com/skipped": "x", "arbiter.dev/a": "2"},
    "labels": {"d": "6", "a": "7"}},
    "spec": {"nodeSelector": {"zone": "b", "arch": "arm64"}}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->meta.labels, (Labels{{"a", "7"}, {"b", "5"}, {"c", "3"}, {"d", "6"}}));
  EXPECT_EQ(pod->meta.annotations, (Labels{{"arbiter.dev/a", "2"}, {"arbiter.dev/z", "1"}}));
  EXPECT_EQ(pod->spec.node_selector, (Labels{{"arch", "arm64"}, {"zone", "b"}}));
}

TEST(DecodePodTest, StringsReadTheSameWithOrWithoutEscapesAndSpaces) {
  // Strings without escapes are copied from the input as they stand, up to their closing quote
  // (white space may follow it); the others are unescaped.
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name" : "p"  ,
      "namespace":"a\\b" , "uid": ""
    }, "spec": {"schedulerName": "x\u0041"
    , "nodeName": "n \"1\""}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->meta.name, "p");
  EXPECT_EQ(pod->meta.namespace_name, "a\\b");
  EXPECT_EQ(pod->meta.uid, "");
  EXPECT_EQ(pod->spec.scheduler_name, "xA");
  EXPECT_EQ(pod->spec.node_name, "n \"1\"");
}

TEST(DecodePodTest, ArraysAreReadWhole) {
  // Arrays are gathered apart and moved in at their final size: every element arrives, in
  // order, also for arrays inside arrays (terms holding requirements holding values).
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "p"}, "spec": {
    "tolerations": [{"key": "a"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
      "nodeSelectorTerms": [
        {"matchExpressions": [{"key": "x", "operator": "In", "values": ["1", "2", "3"]},
                              {"key": "y", "operator": "Exists"}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}},
    "containers": [{"name": "c1"}, {"name": "c2"}, {"name": "c3"}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  std::vector<std::string> keys;
  for (const Toleration& t : pod->spec.tolerations) keys.push_back(t.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ASSERT_TRUE(pod->spec.required_node_affinity.has_value());
  const std::vector<NodeSelectorTerm>& terms = pod->spec.required_node_affinity->terms;
  ASSERT_EQ(terms.size(), 2U);
  ASSERT_EQ(terms[0].match_expressions.size(), 2U);
  EXPECT_EQ(terms[0].match_expressions[0].values, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(terms[0].match_expressions[1].op, NodeSelectorOperator::kExists);
  ASSERT_EQ(terms[1].match_fields.size(), 1U);
  EXPECT_EQ(terms[1].match_fields[0].values, (std::vector<std::string>{"n1"}));
  ASSERT_EQ(pod->spec.containers.size(), 3U);
  EXPECT_EQ(pod->spec.containers[2].name, "c3");
}

TEST(DecodePodTest, AMalformedArrayLeavesNothingBehindForTheNextPod) {
  // The per-thread room an array is gathered in is emptied on an error too: the next pod
  // decoded on this thread gets only its own tolerations.
  StatusOr<Pod> bad = Decode<Pod>(
      R"({"metadata": {"name": "bad"}, "spec": {"tolerations": [{"key": "a"}, {"key": 7}]}})");
  ASSERT_FALSE(bad.ok());
  StatusOr<Pod> good =
      Decode<Pod>(R"({"metadata": {"name": "good"}, "spec": {"tolerations": [{"key": "b"}]}})");
  ASSERT_TRUE(good.ok()) << good.status();
  ASSERT_EQ(good->spec.tolerations.size(), 1U);
  EXPECT_EQ(good->spec.tolerations[0].key, "b");
}

}  // namespace
}  // namespace arbiter::k8s
