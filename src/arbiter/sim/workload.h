// The simulator's inputs (`arbiterctl simulate --cluster FILE --workload FILE`): a cluster file
// (nodes, queues, priority classes) and a workload file (jobs that arrive at given times and run
// for given durations), with randomness drawn from one seed. This header is the formats'
// reference.
//
// Cluster file (YAML):
//
//   description: 10,000 nodes as upstream scheduler_perf    # optional
//   nodes:                     # as in scenario files (sim/scenario.h): name, replicas, cpu,
//     - name: node             # memory, pods, resources, labels, taints, unschedulable, notReady
//       replicas: 10000        # node-0 ... node-9999 (at most 1,000,000)
//       cpu: "4"
//       memory: 32Gi
//       pods: 110
//   queues:                    # as in scenario files; queue "default" always exists
//     - {name: team-a, weight: 3, capability: {cpu: 100}}
//   priorityClasses: [{name: high, value: 1000}]
//   dataSets:                  # where data lives (model/data_set.h); jobs name one in
//     - name: clicks           # locality.dataSet
//       namespace: default     # (the default)
//       blocks: [{name: b0, nodes: [node-3, node-7]}, {name: b1, nodes: [node-7, node-9]}]
//
// Workload file (YAML):
//
//   description: 1000 gangs of 3                             # optional
//   period: 1s                 # virtual time between two sessions (default 1s)
//   horizon: 24h               # stop at this virtual time even if work remains (default: none)
//   nodeSpeeds:                # how fast tasks run per node (default 1; 0.01 to 100): a pod on
//     - {nodes: [n-3, n-9], speed: 0.4}   # n-3 takes duration / 0.4 (stragglers)
//   jobs:
//     - name: mpi              # with `replicas: 1000`, the jobs mpi-0 ... mpi-999
//       replicas: 1000         # at most 1,000,000
//       namespace: default
//       queue: default
//       priorityClassName: ""  # the PodGroup's priority class
//       minMember: 3           # pods that must start together (default: every pod of the job)
//       arrival: 0s            # when the first replica arrives (a duration or a distribution)
//       interval: 100ms        # between two replicas' arrivals (default 0)
//       duration: 5m           # how long the job runs once started
//       runForHint: 1.5        # the user's run-time estimate, as this factor of the drawn
//                              # duration (Slurm users ask for more than they use), written to
//                              # the PodGroup's arbiter.dev/run-for; from 0.01 to 100; absent:
//                              # no estimate (what reservations' backfill and forecasts read)
//       topology: {mode: Required, level: rack}   # the PodGroup's spec.topology (optional;
//                              # docs/placement.md#topology): its minimum in one rack
//       locality: {nodes: [n3, n7], racks: [r1], dataSet: clicks}  # the PodGroup's
//                              # spec.locality (optional; docs/placement.md#data-locality):
//                              # where its data lives (dataSet: one of the cluster file's)
//       idempotent: true       # its pods may run twice: one far behind its peers gets a backup
//                              # copy, as a BatchJob task marked idempotent does
//       preemptable: true      # its PodGroup is labelled arbiter.dev/preemptable: "true": it
//                              # may run on nodes reserved for a gang, and is evicted for it
//                              # (controllers/backup_copies.h; default false)
//       tasks:                 # the job's pods, by role
//         - name: worker       # pods mpi-0-worker-0 ... (label arbiter.dev/task: worker)
//           replicas: 3
//           requests: {cpu: 100m, memory: 500Mi}
//           priority: 10       # spec.priority of these pods (default: none)
//           nodeSelector: {zone: a}
//           tolerations: [{key: gpu, operator: Exists}]
//   trace: traces/week.csv     # optional: more jobs, read from a trace (below); the path is
//                              # relative to this file
//
// Durations are written "250ms", "30s", "5m", "2h" or a number of seconds ("1.5"). Where a
// distribution is allowed (arrival, interval, duration) it is a duration, or
//   {uniform: [1m, 10m]}       # uniformly between the bounds, to the millisecond
//   {exponential: 2m}          # with this mean (interval: Poisson arrivals)
// drawn from the seed in file order: job entry by job entry, replica by replica (arrival, then
// duration). The same files and seed give the same jobs, on any machine.
//
// A job is a PodGroup (its name, minMember, queue, priority class) and its pods. It starts when
// minMember of its pods are placed; each of the pods placed then runs `duration` divided by its
// node's speed (nodeSpeeds) and then finishes (Succeeded, freeing its room); when the last has
// finished the job ends and its pods are removed with the group (pods placed after the start end
// with it, and pods not placed by then are removed too). With every speed 1 all of a job's pods
// end together, `duration` after its start. A pod of an idempotent job that runs far behind its
// peers gets a copy <pod>-backup (chosen by the BatchJob controller's rule); once placed, the copy
// runs `duration` over its own node's speed, and the first of the two to end is kept, the other
// deleted.
//
// Trace (CSV, one job per line, for replaying a real cluster's history): the first line names
// the columns, in any order; `#` starts a comment line.
//   submit,name,pods,cpu,memory,duration[,queue][,namespace][,minMember][,gpu][,priority]
//   0,job-1,4,500m,1Gi,120,team-a,default,4,0,10
// submit and duration are seconds (decimals allowed), cpu/memory/gpu quantities per pod
// (gpu is nvidia.com/gpu), priority the pods' spec.priority; empty optional cells take the
// defaults (queue default, namespace default, minMember = pods, gpu 0, no priority).
//
// Errors (Status kInvalidArgument) name the file, the line and the field:
//   w.yaml:14: jobs[1].tasks[0].requests.cpu: unparseable quantity "1x"
//   week.csv:201: column cpu: unparseable quantity "abc"
//
// Thread safety: the loaders are pure functions; the types are values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/framework/config.h"
#include "arbiter/model/data_set.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/resource/resource_list.h"

namespace arbiter::sim {

struct ClusterSpec {
  std::string source;
  std::string description;
  std::vector<Node> nodes;
  std::vector<Queue> queues;
  std::vector<PriorityClass> priority_classes;
  std::vector<DataSet> data_sets;
};

// One role of a job: `replicas` identical pods.
struct TaskSpec {
  std::string name;
  std::int32_t replicas = 1;
  ResourceList requests;
  std::optional<std::int32_t> priority;
  Labels node_selector;
  std::vector<Toleration> tolerations;
};

// One job, its times drawn. Times are virtual milliseconds from the start of the simulation.
struct JobSpec {
  std::string name;
  std::string namespace_name = "default";
  std::string queue = "default";
  std::string priority_class_name;
  std::int32_t min_member = 1;
  std::int64_t arrival_ms = 0;
  std::int64_t duration_ms = 0;
  double run_for_hint = 0;                  // factor of duration_ms; 0: no arbiter.dev/run-for
  std::optional<TopologyRequest> topology;  // the PodGroup's spec.topology
  std::optional<LocalityRequest> locality;  // the PodGroup's spec.locality
  bool idempotent = false;                  // stragglers get backup copies
  bool preemptable = false;                 // arbiter.dev/preemptable: "true" on its PodGroup
  std::vector<TaskSpec> tasks;
  // Where it was defined, for errors found later: "w.yaml:12: jobs[1].queue", "t.csv:40".
  std::string queue_origin;
  std::string priority_class_origin;

  std::int64_t pod_count() const;
};

struct Workload {
  std::string source;
  std::string description;
  std::int64_t period_ms = 1000;
  std::optional<std::int64_t> horizon_ms;
  // Per node named: how fast tasks run there (0.5: a task takes twice its duration); 1 elsewhere.
  std::map<std::string, double, std::less<>> node_speeds;
  std::vector<JobSpec> jobs;  // by arrival, then in file order

  std::int64_t pod_count() const;
};

StatusOr<ClusterSpec> ParseClusterSpec(std::string_view yaml, std::string_view source);
StatusOr<ClusterSpec> LoadClusterFile(const std::string& path);

// `base_dir` resolves a relative `trace:` path (empty: the current directory).
StatusOr<Workload> ParseWorkload(std::string_view yaml, std::string_view source, std::uint64_t seed,
                                 const std::string& base_dir = "");
StatusOr<Workload> LoadWorkloadFile(const std::string& path, std::uint64_t seed);

// Reads a trace's jobs (the CSV format above); `source` names it in errors.
StatusOr<std::vector<JobSpec>> ParseTrace(std::string_view csv, std::string_view source);

// Parses "250ms", "30s", "5m", "2h" or a number of seconds into milliseconds.
StatusOr<std::int64_t> ParseDurationMs(std::string_view text);

}  // namespace arbiter::sim
