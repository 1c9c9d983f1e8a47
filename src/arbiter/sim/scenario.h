// Scenario: a declarative description of a small cluster, the work submitted to it and what the
// scheduler must decide, session by session (ARCHITECTURE.md §6 "scenario" layer). The same files
// drive the scenario tests (tests/scenarios/*.yaml) and, later, `arbiterctl simulate`.
//
// This header is the format's reference and the loader's contract. A scenario file is YAML:
//
//   description: R1, a gang is all or nothing     # optional free text
//   scheduler: {actions: [...], tiers: [...]}     # optional; framework/config.h's format,
//                                                 # DefaultSchedulerConfig() when absent
//   nodes:
//     - name: n                  # with `replicas: 3`, the nodes n-0, n-1, n-2
//       cpu: "80"                # quantities as Kubernetes writes them, strings or numbers
//       memory: 64Gi
//       pods: 110                # the default
//       resources: {nvidia.com/gpu: 2}    # any other allocatable resource
//       labels: {zone: a}
//       taints: [{key: gpu, value: "true", effect: NoSchedule}]
//       unschedulable: false     # cordoned
//       notReady: false          # the Ready condition is False
//   priorityClasses: [{name: high, value: 1000, globalDefault: false}]
//   podDisruptionBudgets:        # the simulated Eviction API refuses what they protect (429)
//     - {name: b, namespace: default, matchLabels: {app: db}, disruptionsAllowed: 0}
//   queues: [{name: q, weight: 1, capability: {cpu: 8}, guarantee: {}, reclaimable: true,
//             parent: "", state: Open}]        # queue "default" always exists
//   podGroups:
//     - name: g                  # namespace: default unless given
//       minMember: 3
//       minTaskMember: {ps: 1}
//       queue: default
//       priorityClassName: high
//       minResources: {cpu: 4}
//       phase: Pending           # the status the group starts with (Pending by default)
//       labels: {}
//       created: 0               # seconds after the scenario's start
//   pods:
//     - name: w                  # with `replicas: 4`, the pods w-0 ... w-3
//       namespace: default
//       group: g                 # the label arbiter.dev/pod-group
//       task: worker             # the label arbiter.dev/task
//       requests: {cpu: 500m, memory: 1Gi}
//       priority: 10             # spec.priority
//       priorityClassName: ""    # spec.priorityClassName (system-node-critical, ...)
//       preemptionPolicy: Never  # or PreemptLowerPriority (the default)
//       terminationGracePeriodSeconds: 30   # how long an evicted pod holds its node
//       schedulerName: arbiter   # the default; another name is a pod this scheduler only counts
//       nodeName: n-0            # already bound (its phase then defaults to Running)
//       phase: Pending
//       nodeSelector: {zone: a}
//       tolerations: [{key: gpu, operator: Equal, value: "true", effect: NoSchedule}]
//       nodeAffinity:            # required terms, ORed; each term's requirements ANDed
//         - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
//           matchFields: [{key: metadata.name, operator: In, values: [n-0]}]
//       hostPorts: [8080]        # or [{port: 53, protocol: UDP, hostIP: ""}]
//       labels: {}
//       annotations: {}
//       owner: {kind: StatefulSet, name: web}     # the controlling owner reference
//       created: 0
//   sessions:                    # each step: events, then one session (or `repeat` sessions)
//     - name: the blocker leaves # optional, names the step in failures
//       delete: [blocker]        # pods deleted
//       succeed: [a-0]           # pods that finish: phase Succeeded
//       fail: [a-1]              # pods that finish: phase Failed
//       failBinds: [a-2]         # the pod's next bind fails (an API server error): the cache
//                                # keeps it assumed until the failed-bind ttl (30 s), then it is
//                                # placed again
//       refuseEvictions: [b-1]   # from now on the Eviction API refuses the pod (429), as a
//                                # budget the scheduler has not seen yet would
//       add: {nodes: [...], podGroups: [...], pods: [...]}   # created now unless `created`
//       repeat: 1                # sessions to run, expectations checked after each
//       expect:
//         binds: {a-0: n-0, a-1: [n-1, n-2]}   # bound by this session, to that node or one of
//         bindCount: 2           # binds made by this session, exactly
//         boundCount: {a: 2}     # pods of the group on a node after this session (not finished)
//         bound: [a-0]           # pods on some node after this session
//         unbound: [b-0]         # pods on no node after this session
//         phases: {a: Running}   # PodGroup status.phase after this session
//         conditions:            # a PodGroup condition after this session
//           - {group: b, type: Unschedulable, status: "True", reason: NotEnoughResources,
//              message: "2 of minMember 3"}          # message: a substring
//         failedScheduling: {b-0: Insufficient cpu}  # this session's verdict for the pod
//                                                    # contains the text
//         evicted: [low-0]       # exactly the pods this session evicted ([]: none)
//         refusedEvictions: [db-0]   # exactly the pods whose eviction the API server refused
//         nominated: {high-0: n-0}   # status.nominatedNodeName after the session ("": none)
//
// Names: pods and groups are written "name" (namespace default) or "namespace/name", nodes by
// name. Pod uids are "namespace/name", group uids "pg/namespace/name", node uids "node/name".
// Time: the scenario starts at ScenarioEpoch(); session k (from 1) runs k seconds later, so
// objects a step adds are younger than those before it unless `created` says otherwise.
//
// Errors (Status kInvalidArgument) name the file, the line and the path of the offending value:
//   tests/scenarios/x.yaml:12: pods[2]: unknown key "reqests" (known: annotations, created, ...)
// Every key is checked, every quantity parsed as the API server does, and every name an event or
// an expectation uses must exist at that step (typos fail at load, not as a puzzling mismatch).
//
// Thread safety: the loader is a pure function; Scenario is a value type.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/framework/config.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_disruption_budget.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"

namespace arbiter::sim {

// The instant a scenario starts at (creation offsets and session times count from it).
inline Clock::WallTime ScenarioEpoch() {
  return Clock::WallTime(std::chrono::seconds(1'750'000'000));
}

// `binds:` entry: the pod (namespace/name) was bound by the session to one of `nodes`.
struct BindExpectation {
  std::string pod;
  std::vector<std::string> nodes;
};

// `conditions:` entry; unset fields are not checked, `message` is a substring.
struct ConditionExpectation {
  std::string group;  // namespace/name
  std::string type;
  std::optional<std::string> status;
  std::optional<std::string> reason;
  std::string message;
};

// What must hold after a session; pods and groups by namespace/name.
struct Expectation {
  std::vector<BindExpectation> binds;
  std::optional<std::int64_t> bind_count;
  std::map<std::string, std::int32_t> bound_count;
  std::vector<std::string> bound;
  std::vector<std::string> unbound;
  std::map<std::string, PodGroupPhase> phases;
  std::vector<ConditionExpectation> conditions;
  std::map<std::string, std::string> failed_scheduling;    // pod -> message substring
  std::optional<std::set<std::string>> evicted;            // pods, exactly
  std::optional<std::set<std::string>> refused_evictions;  // pods, exactly
  std::map<std::string, std::string> nominated;            // pod -> node ("": none)
};

// One `sessions:` step: events in this order (delete, succeed, fail, failBinds, refuseEvictions,
// add), then `repeat` sessions, with `expect` checked after each.
struct ScenarioStep {
  std::string name;  // "sessions[2]" or "sessions[2] (the given name)"
  std::vector<std::string> delete_pods;
  std::vector<std::string> succeed_pods;
  std::vector<std::string> fail_pods;
  std::vector<std::string> fail_binds;
  std::vector<std::string> refuse_evictions;
  std::vector<Node> add_nodes;
  std::vector<PodGroup> add_groups;
  std::vector<Pod> add_pods;
  std::int32_t repeat = 1;
  Expectation expect;
};

struct Scenario {
  std::string source;  // the file, as given to the loader
  std::string description;
  SchedulerConfig config;
  std::vector<Node> nodes;
  std::vector<PriorityClass> priority_classes;
  std::vector<Queue> queues;
  std::vector<PodGroup> groups;
  std::vector<Pod> pods;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<ScenarioStep> steps;
};

// Parses a scenario from YAML text; `source` names it in errors.
StatusOr<Scenario> ParseScenario(std::string_view yaml, std::string_view source);
// Reads and parses the file at `path`.
StatusOr<Scenario> LoadScenarioFile(const std::string& path);

}  // namespace arbiter::sim
