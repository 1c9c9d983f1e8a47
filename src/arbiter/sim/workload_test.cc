// The simulator's input files: cluster and workload YAML, traces, durations and distributions.
// Every error names the file, the line and the field.
#include "arbiter/sim/workload.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/resource/resource_name.h"

namespace arbiter::sim {
namespace {

using ::testing::HasSubstr;

constexpr char kCluster[] = R"(description: two kinds of node
nodes:
  - {name: cpu, replicas: 3, cpu: "4", memory: 32Gi}
  - {name: gpu, cpu: "8", memory: 64Gi, resources: {nvidia.com/gpu: 4}, labels: {kind: gpu}}
queues:
  - {name: a, weight: 2}
priorityClasses:
  - {name: high, value: 1000}
)";

constexpr char kWorkload[] = R"(description: a tf job and some gangs
period: 500ms
horizon: 2h
jobs:
  - name: tf
    queue: a
    priorityClassName: high
    arrival: 10s
    duration: 5m
    tasks:
      - {name: ps, replicas: 1, priority: 100, requests: {cpu: "2", memory: 4Gi}}
      - {name: worker, replicas: 4, requests: {cpu: 500m, memory: 1Gi}}
  - name: gang
    replicas: 3
    minMember: 2
    arrival: 1s
    interval: 2s
    duration: {uniform: [1m, 2m]}
    tasks:
      - {name: w, replicas: 2, requests: {cpu: 100m}}
)";

TEST(ParseDurationMs, ReadsUnitsAndBareSeconds) {
  EXPECT_EQ(*ParseDurationMs("250ms"), 250);
  EXPECT_EQ(*ParseDurationMs("30s"), 30'000);
  EXPECT_EQ(*ParseDurationMs("5m"), 300'000);
  EXPECT_EQ(*ParseDurationMs("2h"), 7'200'000);
  EXPECT_EQ(*ParseDurationMs("1.5"), 1500);
  EXPECT_EQ(*ParseDurationMs("0"), 0);
  EXPECT_FALSE(ParseDurationMs("").ok());
  EXPECT_FALSE(ParseDurationMs("5x").ok());
  EXPECT_FALSE(ParseDurationMs("-1s").ok());
  EXPECT_FALSE(ParseDurationMs("400d").ok());
}

TEST(ParseClusterSpec, ReadsNodesQueuesAndPriorityClasses) {
  StatusOr<ClusterSpec> c = ParseClusterSpec(kCluster, "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->nodes.size(), 4U);
  EXPECT_EQ(c->nodes[0].meta.name, "cpu-0");
  EXPECT_EQ(c->nodes[3].meta.name, "gpu");
  EXPECT_EQ(c->nodes[3].allocatable.Get("nvidia.com/gpu"), 4);
  EXPECT_EQ(c->nodes[0].allocatable.Get(kResourceCpu), 4000);
  ASSERT_EQ(c->queues.size(), 1U);
  EXPECT_EQ(c->queues[0].spec.weight, 2);
  ASSERT_EQ(c->priority_classes.size(), 1U);
  EXPECT_EQ(c->description, "two kinds of node");
}

TEST(ParseClusterSpec, ErrorsNameFileLineAndField) {
  StatusOr<ClusterSpec> c = ParseClusterSpec("nodes:\n  - {name: n, cpu: 4x}\n", "c.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("c.yaml:2: nodes[0].cpu"));
  c = ParseClusterSpec("nodes:\n  - name: n\n    memroy: 1Gi\n", "c.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("c.yaml:3: nodes[0]: unknown key \"memroy\""));
  c = ParseClusterSpec("nodes: []\n", "c.yaml");
  EXPECT_THAT(c.status().message(), HasSubstr("expected at least one node"));
  c = ParseClusterSpec("nodes: [\n", "c.yaml");
  EXPECT_THAT(c.status().message(), HasSubstr("c.yaml:2: not valid YAML"));
}

TEST(ParseClusterSpec, ReadsDataSetsOnItsNodes) {
  StatusOr<ClusterSpec> c = ParseClusterSpec(R"(nodes: [{name: n, replicas: 3, cpu: "4"}]
dataSets:
  - {name: clicks, blocks: [{name: b0, nodes: [n-0, n-1]}, {name: b1, nodes: [n-2]}]}
  - {name: clicks, namespace: team-a, blocks: []}
)",
                                             "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->data_sets.size(), 2U);
  EXPECT_EQ(c->data_sets[0].meta.Key(), "default/clicks");
  EXPECT_EQ(c->data_sets[0].blocks,
            (std::vector<DataBlock>{{"b0", {"n-0", "n-1"}}, {"b1", {"n-2"}}}));
  EXPECT_EQ(c->data_sets[1].meta.Key(), "team-a/clicks");

  c = ParseClusterSpec(R"(nodes: [{name: n, cpu: "4"}]
dataSets: [{name: d, blocks: [{name: b0, nodes: [n, m]}]}]
)",
                       "c.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("c.yaml:2: dataSets[0].blocks[0].nodes[1]: no node m in the cluster"));
  c = ParseClusterSpec(R"(nodes: [{name: n, cpu: "4"}]
dataSets: [{name: d}, {name: d}]
)",
                       "c.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("data set default/d defined twice"));
}

TEST(ParseWorkload, ReadsNodeSpeeds) {
  StatusOr<Workload> w = ParseWorkload(R"(nodeSpeeds:
  - {nodes: [a, b], speed: 0.5}
  - {nodes: [c], speed: 2}
jobs: [{name: j, duration: 1m, tasks: [{name: t}]}]
)",
                                       "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->node_speeds,
            (std::map<std::string, double, std::less<>>{{"a", 0.5}, {"b", 0.5}, {"c", 2}}));
  for (const auto& [yaml, error] : std::vector<std::pair<std::string, std::string>>{
           {"nodeSpeeds: [{nodes: [a], speed: 0}]\n", "w.yaml:1: nodeSpeeds[0].speed: expected"},
           {"nodeSpeeds: [{nodes: [a], speed: 0.5}, {nodes: [a], speed: 1}]\n",
            "node a has a speed already"},
           {"nodeSpeeds: [{nodes: [a], pace: 1}]\n", "unknown key \"pace\""}}) {
    StatusOr<Workload> bad =
        ParseWorkload(yaml + "jobs: [{name: j, duration: 1m, tasks: [{name: t}]}]\n", "w.yaml", 1);
    ASSERT_FALSE(bad.ok()) << yaml;
    EXPECT_THAT(bad.status().message(), HasSubstr(error)) << yaml;
  }
}

TEST(ParseWorkload, ExpandsReplicasTasksAndTimes) {
  StatusOr<Workload> w = ParseWorkload(kWorkload, "w.yaml", 7);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->period_ms, 500);
  EXPECT_EQ(w->horizon_ms, 7'200'000);
  ASSERT_EQ(w->jobs.size(), 4U);
  // By arrival: gang-0 at 1 s, gang-1 at 3 s, gang-2 at 5 s, tf at 10 s.
  EXPECT_EQ(w->jobs[0].name, "gang-0");
  EXPECT_EQ(w->jobs[0].arrival_ms, 1000);
  EXPECT_EQ(w->jobs[1].arrival_ms, 3000);
  EXPECT_EQ(w->jobs[2].arrival_ms, 5000);
  const JobSpec& tf = w->jobs[3];
  EXPECT_EQ(tf.name, "tf");
  EXPECT_EQ(tf.queue, "a");
  EXPECT_EQ(tf.priority_class_name, "high");
  EXPECT_EQ(tf.min_member, 5);  // every pod by default
  EXPECT_EQ(tf.duration_ms, 300'000);
  ASSERT_EQ(tf.tasks.size(), 2U);
  EXPECT_EQ(tf.tasks[0].priority, 100);
  EXPECT_EQ(tf.tasks[1].requests.Get(kResourceCpu), 500);
  EXPECT_EQ(w->pod_count(), 5 + 3 * 2);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(w->jobs[static_cast<std::size_t>(i)].min_member, 2);
    EXPECT_GE(w->jobs[static_cast<std::size_t>(i)].duration_ms, 60'000);
    EXPECT_LE(w->jobs[static_cast<std::size_t>(i)].duration_ms, 120'000);
  }
}

TEST(ParseWorkload, TheSameSeedDrawsTheSameTimesAndAnotherSeedOthers) {
  const char* yaml = R"(jobs:
  - name: j
    replicas: 50
    interval: {exponential: 10s}
    duration: {uniform: [1m, 1h]}
    tasks: [{name: t}]
)";
  StatusOr<Workload> a = ParseWorkload(yaml, "w.yaml", 42);
  StatusOr<Workload> b = ParseWorkload(yaml, "w.yaml", 42);
  StatusOr<Workload> c = ParseWorkload(yaml, "w.yaml", 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  bool differs = false;
  double interval_sum = 0;
  for (std::size_t i = 0; i < a->jobs.size(); ++i) {
    EXPECT_EQ(a->jobs[i].arrival_ms, b->jobs[i].arrival_ms);
    EXPECT_EQ(a->jobs[i].duration_ms, b->jobs[i].duration_ms);
    differs = differs || a->jobs[i].duration_ms != c->jobs[i].duration_ms;
    if (i > 0) {
      interval_sum += static_cast<double>(a->jobs[i].arrival_ms - a->jobs[i - 1].arrival_ms);
    }
  }
  EXPECT_TRUE(differs);
  // 49 exponential draws of mean 10 s: their mean is within a factor of two of it.
  EXPECT_GT(interval_sum / 49, 5000);
  EXPECT_LT(interval_sum / 49, 20000);
}

TEST(ParseWorkload, ARunForHintIsAFactorOfTheDuration) {
  StatusOr<Workload> w = ParseWorkload(
      "jobs:\n  - {name: a, duration: 1m, runForHint: 1.5, tasks: [{name: t}]}\n"
      "  - {name: b, duration: 1m, tasks: [{name: t}]}\n",
      "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_DOUBLE_EQ(w->jobs[0].run_for_hint, 1.5);
  EXPECT_DOUBLE_EQ(w->jobs[1].run_for_hint, 0);
}

TEST(ParseWorkload, IdempotentJobsAreMarkedEveryReplica) {
  StatusOr<Workload> w = ParseWorkload(
      "jobs:\n  - {name: a, replicas: 2, duration: 1m, idempotent: true, tasks: [{name: t}]}\n"
      "  - {name: b, duration: 1m, tasks: [{name: t}]}\n",
      "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->jobs.size(), 3U);
  EXPECT_TRUE(w->jobs[0].idempotent);
  EXPECT_TRUE(w->jobs[1].idempotent);
  EXPECT_FALSE(w->jobs[2].idempotent);
}

TEST(ParseWorkload, PreemptableJobsAreMarked) {
  StatusOr<Workload> w = ParseWorkload(
      "jobs:\n  - {name: a, duration: 1m, preemptable: true, tasks: [{name: t}]}\n"
      "  - {name: b, duration: 1m, tasks: [{name: t}]}\n",
      "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->jobs.size(), 2U);
  EXPECT_TRUE(w->jobs[0].preemptable);
  EXPECT_FALSE(w->jobs[1].preemptable);
  StatusOr<Workload> bad = ParseWorkload(
      "jobs:\n  - {name: a, duration: 1m, preemptable: sometimes, tasks: [{name: t}]}\n", "w.yaml",
      1);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("jobs[0].preemptable"));
}

TEST(ParseWorkload, ATopologyGoesToThePodGroup) {
  StatusOr<Workload> w = ParseWorkload(
      "jobs:\n  - {name: a, duration: 1m, topology: {mode: Preferred, level: rack, "
      "maxWaitSeconds: 30}, tasks: [{name: t}]}\n"
      "  - {name: b, duration: 1m, tasks: [{name: t}]}\n",
      "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_TRUE(w->jobs[0].topology.has_value());
  EXPECT_EQ(w->jobs[0].topology->mode, TopologyMode::kPreferred);
  EXPECT_EQ(w->jobs[0].topology->level, "rack");
  EXPECT_EQ(w->jobs[0].topology->max_wait_seconds, 30);
  EXPECT_FALSE(w->jobs[1].topology.has_value());
}

TEST(ParseWorkload, ALocalityGoesToThePodGroup) {
  StatusOr<Workload> w = ParseWorkload(
      "jobs:\n  - {name: a, duration: 1m, locality: {nodes: [n1, n2], racks: [r1]}, "
      "tasks: [{name: t}]}\n",
      "w.yaml", 1);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->jobs[0].locality, (LocalityRequest{{"n1", "n2"}, {"r1"}, ""}));
  w = ParseWorkload(
      "jobs:\n  - name: j\n    duration: 1m\n    locality: {nodes: n1}\n    tasks: [{name: t}]\n",
      "w.yaml", 1);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), ::testing::HasSubstr("w.yaml:4: jobs[0].locality.nodes"));
  w = ParseWorkload(
      "jobs:\n  - name: j\n    duration: 1m\n    locality: {hosts: [n1]}\n    tasks: [{name: t}]\n",
      "w.yaml", 1);
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), ::testing::HasSubstr("unknown key \"hosts\""));
}

TEST(ParseWorkload, ErrorsNameFileLineAndField) {
  struct Case {
    const char* yaml;
    const char* want;
  };
  const Case cases[] = {
      {"jobs:\n  - name: j\n    duration: 1m\n    tasks:\n      - {name: t, requests: {cpu: 1x}}\n",
       "w.yaml:5: jobs[0].tasks[0].requests.cpu"},
      {"jobs:\n  - name: j\n    duration: 1m\n    tasks:\n      - {name: t, reqests: {}}\n",
       "w.yaml:5: jobs[0].tasks[0]: unknown key \"reqests\""},
      {"jobs:\n  - name: j\n    duration: soon\n    tasks: [{name: t}]\n",
       "w.yaml:3: jobs[0].duration: expected a duration"},
      {"jobs:\n  - name: j\n    duration: 1m\n    runForHint: 0\n    tasks: [{name: t}]\n",
       "w.yaml:4: jobs[0].runForHint: expected a factor of the duration from 0.01 to 100"},
      {"jobs:\n  - name: j\n    duration: 1m\n    idempotent: maybe\n    tasks: [{name: t}]\n",
       "w.yaml:4: jobs[0].idempotent: expected true or false"},
      {"jobs:\n  - name: j\n    duration: 1m\n    topology: {mode: Always, level: rack}\n"
       "    tasks: [{name: t}]\n",
       "w.yaml:4: jobs[0].topology.mode"},
      {"jobs:\n  - name: j\n    duration: 1m\n    topology: {mode: Required}\n"
       "    tasks: [{name: t}]\n",
       "w.yaml:4: jobs[0].topology.level"},
      {"jobs:\n  - name: j\n    duration: {uniform: [2m, 1m]}\n    tasks: [{name: t}]\n",
       "jobs[0].duration.uniform: high is below low"},
      {"jobs:\n  - name: j\n    duration: {normal: 1m}\n    tasks: [{name: t}]\n",
       "w.yaml:3: jobs[0].duration: unknown key \"normal\""},
      {"jobs:\n  - name: j\n    tasks: [{name: t}]\n", "jobs[0].duration: required"},
      {"jobs:\n  - name: j\n    duration: 1m\n", "jobs[0].tasks: required"},
      {"jobs:\n  - name: j\n    minMember: 3\n    duration: 1m\n    tasks: [{name: t}]\n",
       "w.yaml:3: jobs[0].minMember: 3 is more than the job's 1 pods"},
      {"jobs:\n  - {name: j, duration: 1m, tasks: [{name: t}]}\n  - {name: j, duration: 1m, "
       "tasks: [{name: t}]}\n",
       "w.yaml:3: jobs[1].name: job default/j defined twice"},
      {"period: 0s\njobs: []\n", "w.yaml:1: period: must be positive"},
      {"jobs: []\n", "expected at least one job"},
      {"jobz: []\n", "w.yaml:1: (root): unknown key \"jobz\""},
      {"trace: missing.csv\n", "w.yaml:1: trace: trace missing.csv: cannot be read"},
  };
  for (const Case& c : cases) {
    StatusOr<Workload> w = ParseWorkload(c.yaml, "w.yaml", 1);
    ASSERT_FALSE(w.ok()) << c.yaml;
    EXPECT_THAT(w.status().message(), HasSubstr(c.want)) << c.yaml;
  }
}

TEST(ParseTrace, ReadsColumnsInAnyOrderWithDefaults) {
  StatusOr<std::vector<JobSpec>> jobs = ParseTrace(
      "# a comment\n"
      "name,submit,pods,cpu,memory,duration,queue,minMember,gpu,priority\n"
      "j1,0,4,500m,1Gi,120,a,2,1,10\n"
      "j2,1.5,1,1,,60,,,,\n",
      "t.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2U);
  const JobSpec& j1 = (*jobs)[0];
  EXPECT_EQ(j1.name, "j1");
  EXPECT_EQ(j1.queue, "a");
  EXPECT_EQ(j1.min_member, 2);
  EXPECT_EQ(j1.duration_ms, 120'000);
  ASSERT_EQ(j1.tasks.size(), 1U);
  EXPECT_EQ(j1.tasks[0].replicas, 4);
  EXPECT_EQ(j1.tasks[0].requests.Get(kResourceCpu), 500);
  EXPECT_EQ(j1.tasks[0].requests.Get("nvidia.com/gpu"), 1);
  EXPECT_EQ(j1.tasks[0].priority, 10);
  const JobSpec& j2 = (*jobs)[1];
  EXPECT_EQ(j2.arrival_ms, 1500);
  EXPECT_EQ(j2.queue, "default");
  EXPECT_EQ(j2.min_member, 1);
  EXPECT_FALSE(j2.tasks[0].priority.has_value());
}

TEST(ParseTrace, ErrorsNameFileLineAndColumn) {
  struct Case {
    const char* csv;
    const char* want;
  };
  const Case cases[] = {
      {"submit,name,pods,cpu,memory,duration\n0,j,1,abc,1Gi,60\n", "t.csv:2: column cpu:"},
      {"submit,name,pods,cpu,memory,duration\n0,j,0,1,1Gi,60\n",
       "t.csv:2: column pods: 0 is out of range"},
      {"submit,name,pods,cpu,memory,duration\nx,j,1,1,1Gi,60\n",
       "t.csv:2: column submit: expected a duration"},
      {"submit,name,pods,cpu,memory,duration\n0,j,1,1,1Gi\n", "t.csv:2: expected 6 cells, got 5"},
      {"submit,name,pods,cpu,memory\n", "t.csv:1: missing column duration"},
      {"submit,name,pods,cpu,memory,duration,colour\n", "t.csv:1: unknown column \"colour\""},
      {"submit,name,pods,cpu,memory,duration,minMember\n0,j,2,1,1Gi,60,3\n",
       "t.csv:2: column minMember: 3 is out of range [1, 2]"},
      {"submit,name,pods,cpu,memory,duration\n0,j,1,1,1Gi,60\n1,j,1,1,1Gi,60\n",
       "t.csv:3: column name: job default/j appears twice"},
      {"", "t.csv: empty trace"},
  };
  for (const Case& c : cases) {
    StatusOr<std::vector<JobSpec>> jobs = ParseTrace(c.csv, "t.csv");
    ASSERT_FALSE(jobs.ok()) << c.csv;
    EXPECT_THAT(jobs.status().message(), HasSubstr(c.want)) << c.csv;
  }
}

}  // namespace
}  // namespace arbiter::sim
