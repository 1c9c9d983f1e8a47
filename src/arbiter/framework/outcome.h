// Outcome: what a session's working state means for the objects users read, and the rules that
// hold from one session to the next:
//   * the reservation rule: which admitted groups hold room back for admission;
//   * the PodGroup status machine: phase, counts and conditions after the session;
//   * the SessionResult: binds for committed placements, verdicts for pods left pending,
//     PodGroup and Queue statuses that changed.
// Pure functions of the session; no I/O.
#pragma once

#include <chrono>
#include <cstdint>
#include <unordered_set>

#include "arbiter/framework/session.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

// How long a group short of pods waits for the next of them before it is found short. Until
// then it gets no verdict: its pods are usually created after it, one by one (all of a gang of
// 100 take seconds), and saying NotEnoughPods on the group and its pods as each arrives, to take
// it back when the last came, cost a status write per group and an event per pod each time the
// count moved, and showed users a warning about nothing.
inline constexpr std::chrono::seconds kPodsArrivalGrace{10};

// Whether the job's pods stopped arriving: the grace has passed since the group was created and
// since its newest pod was. A group short of pods says so, on itself and to its pods, only then.
bool PodsSettled(const Session& session, JobIndex j);

// What an admitted group still holds of its MinimumRequest for admission. kCluster: it is
// Inqueue, below its minimum, able to start (not invalid; short of pods only during the arrival
// grace), and not already found unable to start (Unschedulable True with reason
// NotEnoughResources or PreemptionWouldNotFit): the room is kept from every later group. kQueue:
// the same, but its own queue holds it back (QueueOverused, QueueCapability): it counts against
// its queue's share and capability only, not the cluster's free room, so a queue at its share
// never keeps those below theirs from starting. kNone otherwise. A gang that cannot start holds
// nothing, so it never keeps later groups out.
enum class ReservationHold : std::uint8_t { kNone, kQueue, kCluster };
ReservationHold HoldsReservation(const Session& session, JobIndex j);

// The PodGroups whose status a session drafted to no change on inputs the next session can tell
// are the same: a job of that revision (JobInfo::revision) which the session left alone (no task
// or phase changed, no eviction, no reservation, no locality to count; and no verdict, with a
// status that no longer says why it waited, or a verdict that its status already states whole: the
// same reason and message, place in its queue and start estimate, where neither the queue nor the
// nodes are the gate; what else its explanation holds, such as its minimum's request, is its
// revision's). Kept by the Scheduler from one session to the next, so that BuildResult drafts only
// the statuses that can change: a job of one of those revisions that the session leaves alone again
// would be drafted the same, to no change. Under a stream of arrivals most groups are such, and
// drafting each of them every session was a quarter of a gang workload's session time; groups
// still gathering their pods, each with its verdict, were most of what was then left.
struct QuietGroups {
  std::unordered_set<std::uint64_t> last;  // found by the previous session
  std::unordered_set<std::uint64_t> next;  // found by this one
};

// With session.quiet_groups(), the groups in its `last` that the session left alone are not
// drafted again, and its `next` is filled.
SessionResult BuildResult(const Session& session);

}  // namespace arbiter
