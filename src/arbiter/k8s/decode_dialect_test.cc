// Decoding of other APIs' PodGroups (Kubernetes' gang API, Volcano, scheduler-plugins) into
// Arbiter's model, and of a pod's spec.schedulingGroup.
#include <gtest/gtest.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::Decode;
using test_util::DecodeListOf;

TEST(DecodeDialectTest, VolcanoPodGroup) {
  StatusOr<VolcanoPodGroup> group = Decode<VolcanoPodGroup>(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
    "metadata": {"name": "tf-job", "namespace": "ml", "uid": "u1", "resourceVersion": "7"},
    "spec": {"minMember": 3, "queue": "research", "priorityClassName": "high",
             "minResources": {"cpu": "3", "memory": "6Gi"},
             "minTaskMember": {"ps": 1, "worker": 2}},
    "status": {"phase": "Inqueue", "running": 1, "succeeded": 0, "failed": 0,
               "conditions": [{"type": "Unschedulable", "status": "True",
                               "transitionID": "abc", "reason": "NotEnoughResources",
                               "message": "1/3 tasks in gang unschedulable",
                               "lastTransitionTime": "2026-12-01T10:00:00Z"}]}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->dialect, PodGroupDialect::kVolcano);
  EXPECT_EQ(group->meta.Key(), "ml/tf-job");
  EXPECT_EQ(group->spec.min_member, 3);
  EXPECT_EQ(group->spec.queue, "research");
  EXPECT_EQ(group->spec.priority_class_name, "high");
  EXPECT_EQ(group->spec.min_resources.Get("cpu"), 3000);
  EXPECT_EQ(group->spec.min_task_member.at("worker"), 2);
  EXPECT_EQ(group->status.phase, PodGroupPhase::kInqueue);
  EXPECT_EQ(group->status.running, 1);
  ASSERT_EQ(group->status.conditions.size(), 1U);
  EXPECT_EQ(group->status.conditions[0].type, "Unschedulable");
}

TEST(DecodeDialectTest, VolcanoPhasesAndDefaults) {
  // Unknown: some pods run, fewer than minMember: admitted, below its minimum.
  StatusOr<VolcanoPodGroup> group = Decode<VolcanoPodGroup>(
      R"({"metadata": {"name": "g", "namespace": "ml"}, "spec": {"minMember": 0},
          "status": {"phase": "Unknown"}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->spec.min_member, 1);  // 0 asks for no gang, as 1 does
  EXPECT_EQ(group->spec.queue, "default");
  EXPECT_EQ(group->status.phase, PodGroupPhase::kInqueue);
  for (const auto& [text, phase] : {std::pair{"Pending", PodGroupPhase::kPending},
                                    std::pair{"Running", PodGroupPhase::kRunning},
                                    std::pair{"Completed", PodGroupPhase::kCompleted}}) {
    StatusOr<VolcanoPodGroup> g = Decode<VolcanoPodGroup>(
        std::string(R"({"metadata": {"name": "g"}, "status": {"phase": ")") + text + "\"}}");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->status.phase, phase) << text;
  }
}

TEST(DecodeDialectTest, SchedulerPluginsPodGroup) {
  StatusOr<SchedulerPluginsPodGroup> group = Decode<SchedulerPluginsPodGroup>(R"({
    "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
    "metadata": {"name": "nginx", "namespace": "web", "labels": {"arbiter.dev/queue": "team-a"}},
    "spec": {"minMember": 4, "minResources": {"cpu": "2"}, "scheduleTimeoutSeconds": 10},
    "status": {"phase": "Scheduling", "occupiedBy": "web/nginx", "running": 0,
               "scheduleStartTime": "2026-12-01T10:00:00Z"}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->dialect, PodGroupDialect::kSchedulerPlugins);
  EXPECT_EQ(group->spec.min_member, 4);
  EXPECT_EQ(group->spec.queue, "team-a");  // from the label: the API has no queue
  EXPECT_EQ(group->spec.min_resources.Get("cpu"), 2000);
  EXPECT_EQ(group->spec.schedule_timeout_seconds, 10);
  EXPECT_EQ(group->status.phase, PodGroupPhase::kInqueue);
  for (const auto& [text, phase] : {std::pair{"PreScheduling", PodGroupPhase::kInqueue},
                                    std::pair{"Scheduled", PodGroupPhase::kRunning},
                                    std::pair{"Running", PodGroupPhase::kRunning},
                                    std::pair{"Finished", PodGroupPhase::kCompleted},
                                    std::pair{"Failed", PodGroupPhase::kFailed}}) {
    StatusOr<SchedulerPluginsPodGroup> g = Decode<SchedulerPluginsPodGroup>(
        std::string(R"({"metadata": {"name": "g"}, "status": {"phase": ")") + text + "\"}}");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->status.phase, phase) << text;
  }
  // The annotation names the queue when no label does.
  StatusOr<SchedulerPluginsPodGroup> annotated = Decode<SchedulerPluginsPodGroup>(
      R"({"metadata": {"name": "g", "annotations": {"arbiter.dev/queue": "team-b"}}})");
  ASSERT_TRUE(annotated.ok()) << annotated.status();
  EXPECT_EQ(annotated->spec.queue, "team-b");
}

TEST(DecodeDialectTest, KubernetesPodGroup) {
  StatusOr<KubernetesPodGroup> group = Decode<KubernetesPodGroup>(R"({
    "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
    "metadata": {"name": "mpi", "namespace": "hpc", "generation": 2,
                 "annotations": {"arbiter.dev/queue": "hpc"}},
    "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "w", "podGroupTemplateName": "t"}},
             "schedulingPolicy": {"gang": {"minCount": 5}},
             "priorityClassName": "urgent", "priority": 1000},
    "status": {"conditions": [{"type": "PodGroupScheduled", "status": "False",
                               "reason": "Unschedulable", "message": "0/4 nodes",
                               "lastTransitionTime": "2026-12-01T10:00:00Z",
                               "observedGeneration": 2},
                              {"type": "SomethingElse", "status": "True", "reason": "X",
                               "message": "", "lastTransitionTime": "2026-12-01T10:00:00Z"}]}})");
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_EQ(group->dialect, PodGroupDialect::kKubernetes);
  EXPECT_EQ(group->spec.min_member, 5);
  EXPECT_EQ(group->spec.queue, "hpc");
  EXPECT_EQ(group->spec.priority_class_name, "urgent");
  EXPECT_EQ(group->spec.priority, 1000);
  EXPECT_EQ(group->status.phase, PodGroupPhase::kPending);
  // In Arbiter's words; conditions of other writers are not Arbiter's to keep.
  ASSERT_EQ(group->status.conditions.size(), 1U);
  EXPECT_EQ(group->status.conditions[0].type, "Unschedulable");
  EXPECT_EQ(group->status.conditions[0].status, "True");

  StatusOr<KubernetesPodGroup> basic = Decode<KubernetesPodGroup>(R"({
    "metadata": {"name": "one", "namespace": "hpc"},
    "spec": {"schedulingPolicy": {"basic": {}}},
    "status": {"conditions": [{"type": "PodGroupScheduled", "status": "True",
                               "reason": "Scheduled", "message": "",
                               "lastTransitionTime": "2026-12-01T10:00:00Z"}]}})");
  ASSERT_TRUE(basic.ok()) << basic.status();
  EXPECT_EQ(basic->spec.min_member, 1);  // basic: no gang
  EXPECT_EQ(basic->spec.queue, "default");
  EXPECT_EQ(basic->status.phase, PodGroupPhase::kRunning);
  ASSERT_EQ(basic->status.conditions.size(), 1U);
  EXPECT_EQ(basic->status.conditions[0].type, "Scheduled");
}

TEST(DecodeDialectTest, BadObjectsNameTheObjectAndField) {
  StatusOr<VolcanoPodGroup> volcano = Decode<VolcanoPodGroup>(
      R"({"metadata": {"name": "bad", "namespace": "ml"}, "spec": {"minMember": -2}})");
  ASSERT_FALSE(volcano.ok());
  EXPECT_EQ(volcano.status().message(),
            "podgroup.scheduling.volcano.sh ml/bad: spec.minMember: must not be negative, got -2");

  StatusOr<VolcanoPodGroup> phase = Decode<VolcanoPodGroup>(
      R"({"metadata": {"name": "bad", "namespace": "ml"}, "status": {"phase": "Sleeping"}})");
  ASSERT_FALSE(phase.ok());
  EXPECT_NE(phase.status().message().find("podgroup.scheduling.volcano.sh ml/bad: status.phase: "
                                          "unknown phase \"Sleeping\""),
            std::string::npos)
      << phase.status();

  StatusOr<SchedulerPluginsPodGroup> timeout = Decode<SchedulerPluginsPodGroup>(
      R"({"metadata": {"name": "bad", "namespace": "web"},
          "spec": {"minMember": 2, "scheduleTimeoutSeconds": "ten"}})");
  ASSERT_FALSE(timeout.ok());
  EXPECT_NE(timeout.status().message().find(
                "podgroup.scheduling.x-k8s.io web/bad: spec.scheduleTimeoutSeconds: "),
            std::string::npos)
      << timeout.status();

  StatusOr<KubernetesPodGroup> count = Decode<KubernetesPodGroup>(
      R"({"metadata": {"name": "bad", "namespace": "hpc"},
          "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}})");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(),
            "podgroup.scheduling.k8s.io hpc/bad: spec.schedulingPolicy.gang.minCount: must be at "
            "least 1, got 0");
}

TEST(DecodeDialectTest, ABadItemIsSkippedAndTheRestKept) {
  StatusOr<ObjectList<VolcanoPodGroup>> list = DecodeListOf<VolcanoPodGroup>(R"({
    "kind": "PodGroupList", "metadata": {"resourceVersion": "42"},
    "items": [{"metadata": {"name": "a", "namespace": "ml"}, "spec": {"minMember": 2}},
              {"metadata": {"name": "b", "namespace": "ml"}, "spec": {"minResources": {"cpu": "x"}}},
              {"metadata": {"name": "c", "namespace": "ml"}, "spec": {"minMember": 3}}]})");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 2U);
  EXPECT_EQ(list->items[0].meta.name, "a");
  EXPECT_EQ(list->items[1].meta.name, "c");
  EXPECT_EQ(list->items[1].dialect, PodGroupDialect::kVolcano);
  ASSERT_EQ(list->errors.size(), 1U);
  EXPECT_NE(list->errors[0].message().find("ml/b: spec.minResources.cpu"), std::string::npos)
      << list->errors[0];
}

TEST(DecodeDialectTest, PodSchedulingGroupNamesTheGroup) {
  StatusOr<Pod> pod = Decode<Pod>(R"({"metadata": {"name": "w-0", "namespace": "hpc"},
    "spec": {"schedulerName": "arbiter", "schedulingGroup": {"podGroupName": "mpi"},
             "containers": []}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->spec.scheduling_group, "mpi");
  EXPECT_EQ(PodGroupNameOf(*pod), "mpi");
  // Arbiter's label comes first.
  pod->meta.labels["arbiter.dev/pod-group"] = "other";
  EXPECT_EQ(PodGroupNameOf(*pod), "other");
}

}  // namespace
}  // namespace arbiter::k8s
