// Outcome: what a session's working state means for the objects users read, and the rules that
// hold from one session to the next:
//   * the reservation rule: which admitted groups hold room back for admission;
//   * the PodGroup status machine: phase, counts and conditions after the session;
//   * the SessionResult: binds for committed placements, verdicts for pods left pending,
//     PodGroup and Queue statuses that changed.
// Pure functions of the session; no I/O.
#pragma once

#include <chrono>

#include "arbiter/framework/session.h"
#include "arbiter/framework/session_result.h"

namespace arbiter {

// How long a group's pods have to arrive before its pods hear that there are too few of them.
inline constexpr std::chrono::seconds kPodsArrivalGrace{10};

// Whether the job had the arrival grace to gather its pods: a group short of pods says so to its
// pods only after it.
bool PodsSettled(const Session& session, JobIndex j);

// Whether an admitted group still holds a reservation of its MinimumRequest for admission: it
// is Inqueue, below its minimum, able to start (not invalid; short of pods only during the
// arrival grace), and not already found unplaceable (Unschedulable True with reason
// NotEnoughResources or PreemptionWouldNotFit). A gang that cannot start holds nothing, so it never
// keeps later groups out.
bool HoldsReservation(const Session& session, JobIndex j);

SessionResult BuildResult(const Session& session);

}  // namespace arbiter
