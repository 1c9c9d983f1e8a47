// Reservations against starvation (issue 21; docs/placement.md#reservation). A gang that needs
// more than the cluster ever has free at once starves under a stream of small jobs: each session
// the room that frees goes to whoever fits in it. Like Slurm's backfill, a gang that has waited
// longer than `wait` is elected (at most `max_reservations` at once) and gets a reservation: a
// set of nodes chosen once, those where its pods fit the soonest by the run times of the pods
// holding them (sim/run_time.h). From then on nothing new is placed on those nodes except
//   * the gang itself (anywhere: it starts as soon as it fits, on its nodes or not);
//   * backfill: jobs whose run time is known and that end, by it, before the gang's estimated
//     start (so they cannot delay it);
//   * jobs of another queue that is below its deserved share, which a reservation must never
//     keep there;
//   * jobs that accept to be preempted (AcceptsPreemption below): their room counts as free in
//     choosing the nodes and the start, and once the gang fits without them the preempt action
//     evicts them for it (a second kind of backfill, which needs no run time).
// A reservation ends when its gang starts (minMember placed), is deleted or becomes invalid, or
// when its queue goes over its deserved share. Its nodes are kept across sessions (the book lives
// in the Scheduler) and written to the PodGroup's status.reservation, from which a restarted or
// newly elected scheduler takes them back.
//
// Election: gangs (a PodGroup with minMember > 1) admitted or pending, none of whose pods holds a
// node, valid, in a queue that exists and is not over its deserved share, whose queue's
// capability has room for them, that were created at least `wait` ago; longest waiting first.
// A gang that asks for a topology (spec.topology) has its nodes chosen inside one domain of its
// level: each domain of its plan is tried and the one where it fits the soonest is taken.
//
// Thread safety: used by the session's thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/cache/snapshot.h"

namespace arbiter {

class Session;

struct ReservationConfig {
  bool enabled = false;  // opt-in until docs/placement.md shows what it costs the standard shapes
  std::int64_t wait_seconds = 300;  // a gang waiting this long is elected
  std::int32_t max_reservations = 2;
  friend bool operator==(const ReservationConfig&, const ReservationConfig&) = default;
};

// A reservation in force this session.
struct ActiveReservation {
  JobIndex job;
  std::vector<NodeIndex> nodes;  // in node order
  Clock::WallTime since{};
  // When the gang's remaining minimum fits on its nodes as the pods there end; none: unknown.
  std::optional<Clock::WallTime> estimated_start;
};

// What survives sessions: the reservations in force, by their gang's uid.
class ReservationBook {
 public:
  explicit ReservationBook(ReservationConfig config = {}) : config_(config) {}
  const ReservationConfig& config() const { return config_; }

  // Ends the reservations that no longer hold, keeps the others (choosing nodes again for one
  // whose nodes left), elects new ones up to the limit, and returns those in force. Called once
  // the session's plugins are open, before anything is placed.
  std::vector<ActiveReservation> Update(const Session& session);

  struct Entry {
    std::string job_uid;
    std::vector<std::string> nodes;  // by name
    Clock::WallTime since{};
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  ReservationConfig config_;
  std::vector<Entry> entries_;
};

// Whether the job accepts to be preempted when a reservation is ready: its PodGroup, or else
// every one of its pods, is labelled arbiter.dev/preemptable: "true" (as Volcano's
// volcano.sh/preemptable). Such a job may run on reserved nodes whatever its run time; a
// reservation counts its room there as free, and the preempt action evicts it (gang-safely,
// EvictionKind::kReservation) once the gang fits without it. Pods in kube-system and of the
// system-*-critical classes never accept.
inline constexpr std::string_view kPreemptableLabel = "arbiter.dev/preemptable";
bool AcceptsPreemption(const Session& session, JobIndex j);

// Pods that keep the cluster running (kube-system, the system-*-critical classes): never
// evicted, whatever their labels say (actions/preemption.h's NeverVictim, AcceptsPreemption).
bool SystemPod(const Pod& pod);

// The queue's spec.guarantee as a vector over the snapshot's resources (absent: 0).
ResourceVector QueueGuarantee(const Session& session, QueueIndex queue);

// Whether `allocated` is at least `deserved` by the proportion plugin's measure: in some
// resource that the queue deserves, it holds all of it.
bool AtOrAboveShare(const ResourceVector& allocated, const ResourceVector& deserved);

// Whether the queue may lose `taken` to a reservation of a gang of another queue: it stays at or
// above its guarantee and its deserved share (a reservation never pushes a queue below them).
bool KeepsShareWithout(const Session& session, QueueIndex queue, const ResourceVector& taken);

// When the job ends by its run time (sim/run_time.h), started or not (a job not started yet
// starts now); a job past its estimate ends now; none: unknown.
std::optional<Clock::WallTime> EstimatedEnd(const Session& session, JobIndex j);

}  // namespace arbiter
