// The invariants of ARCHITECTURE.md §6 ("nothing lost"), checked on a SimulatedCluster after a
// session has been applied. Each violation says which invariant and names the objects involved;
// an empty result means every invariant held. Used by RunScenario after every session and by the
// randomized contention test.
//
// What is checked, and precisely:
//   * binds: the simulated API server refused none (a pod bound twice, a pod or node gone), and
//     none was of another scheduler's pod; every bind went to an existing node that is Ready and
//     schedulable, whose labels match the pod's nodeSelector and required node affinity, whose
//     NoSchedule/NoExecute taints the pod tolerates, and where none of the pod's host ports is
//     taken by another pod;
//   * capacity: on every node that received a bind, the requests of the non-terminal pods bound
//     there (every scheduler's) fit its allocatable, for every resource a pod bound there by this
//     session requests (pods included). A node that others overcommitted is not the scheduler's
//     doing; a bind onto it that adds to the excess is;
//   * gangs, for every PodGroup: a pod of the group "counts" when it is this scheduler's and is on
//     a node and not finished, or Succeeded (what the gang plugin counts).
//       - a group this session bound pods of counts at least minMember pods, and at least
//         minTaskMember of each task (the scheduler never starts a gang partially);
//       - a group not in `disturbed` never counts between 1 and minMember-1. `disturbed` holds
//         the groups whose pods the workload itself deleted, failed or pre-bound: those can be
//         left partial by the workload, not by the scheduler;
//   * preemption, for the evictions the simulated API server made this session:
//       - a victim's PodGroup keeps at least minMember (and every minTaskMember) pods counted,
//         not being deleted, or none (kEviction: no gang broken by an eviction);
//       - no victim in kube-system, of priority class system-node-critical or
//         system-cluster-critical, or labelled (pod or PodGroup) arbiter.dev/preemptable: "false"
//         (kNeverVictim);
//       - every preemptor has at least its minimum placed or nominated after the session: pods on
//         a node or finished well, or pending with status.nominatedNodeName (kPreemptor);
//       - a queue that lost pods to reclaim keeps, of its pods holding nodes and not being
//         deleted and of its pods that the session nominated to room being freed for them, at
//         least its guarantee in every resource, and in some resource it deserves
//         (status.deserved > 0) at least its deserved amount: the proportion plugin's "at or above
//         its share" (kReclaim);
//     and for every bind: a pod bound to a node other than its own nomination leaves room there
//     for the pods nominated to it, i.e. on that node the requests of the pods not being deleted
//     and of the pending pods nominated there fit its allocatable, in each resource the bound pod
//     requests (kNominatedRoom);
//   * verdicts: every pod of this scheduler still pending after the session (on no node, phase
//     Pending, not being deleted, not held assumed by the cache) carries a reason: a
//     FailedScheduling verdict from this session, or its PodGroup's Unschedulable condition True
//     after the session (while a group's pods may still be arriving, only the group is told).
//     kOwnVerdict when the pod has neither but others of its group have verdicts; kVerdict when its
//     group got no word at all. No pod has two verdicts, and no pod bound by the session has one.
//
//   SessionRecord record = cluster.RunSession();
//   for (const Violation& v : CheckSessionInvariants(cluster, record, disturbed)) {
//     ADD_FAILURE() << ToString(v);   // "gang: gang default/g started partially: ..."
//   }
//
// Thread safety: a pure function of its arguments.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/sim/scenario_runner.h"

namespace arbiter::sim {

enum class Invariant : std::uint8_t {
  kBind,           // a bind refused by the API server, or of another scheduler's pod
  kPlacement,      // a bind broke a placement rule
  kCapacity,       // a node over its allocatable
  kGang,           // a gang below its minimum
  kVerdict,        // a pending pod without a verdict, in a group the session did not report on
  kOwnVerdict,     // a pending pod without a verdict, though others of its group have one
  kEviction,       // a gang left below its minimum by an eviction
  kNeverVictim,    // a pod that may never be a victim was evicted
  kPreemptor,      // pods evicted for a job that then has less than its minimum placed
  kReclaim,        // a queue reclaimed below its share or guarantee
  kNominatedRoom,  // room held for a nominated pod given to another
};

std::string_view InvariantName(Invariant invariant);

struct Violation {
  Invariant invariant = Invariant::kBind;
  std::string message;
};

// "<invariant name>: <message>".
std::string ToString(const Violation& violation);

// `disturbed`: PodGroup keys (namespace/name), see above.
std::vector<Violation> CheckSessionInvariants(const SimulatedCluster& cluster,
                                              const SessionRecord& record,
                                              const std::set<std::string>& disturbed);

}  // namespace arbiter::sim
