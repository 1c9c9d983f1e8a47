// How long a job runs once it has started: what a start-time estimate (sim/forecast.h) assumes
// for every job that holds room now or will hold it before the job in question starts.
//
// A job's run time comes from, in this order:
//   1. the annotation arbiter.dev/run-for: a Go duration ("45m", "1h30m"), the user's own
//      estimate (Slurm's --time), on its PodGroup (arbiter-controller copies a BatchJob's to the
//      PodGroup it makes), else the longest on its pods (the local cluster's kwok ends a pod
//      that long after it started: the hint is then exact);
//   2. spec.activeDeadlineSeconds of its pods (the largest), or the PodGroup's annotation
//      arbiter.dev/active-deadline-seconds (a BatchJob's activeDeadlineSeconds, which
//      arbiter-controller copies there): the job is stopped then, so it runs at most that long;
//   3. what jobs of the same queue took lately (RunTimeHistory): the median of the last
//      kHistory finished jobs' run times, once at least kMinSamples finished;
//   4. otherwise unknown: the job is assumed to hold its room beyond any horizon.
// A running job ends at its start (the earliest pod's status.startTime) plus that run time; one
// past it ends "now" (it is late: it has run over its estimate).
//
// Thread safety: RunTimeOf is a pure function; a RunTimeHistory is used from one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/cache/snapshot.h"

namespace arbiter::sim {

inline constexpr std::string_view kRunForAnnotation = "arbiter.dev/run-for";
// A BatchJob's activeDeadlineSeconds, which arbiter-controller copies to its PodGroup: the job is
// stopped that long after it started.
inline constexpr std::string_view kActiveDeadlineAnnotation = "arbiter.dev/active-deadline-seconds";

enum class RunTimeSource : std::uint8_t {
  kExact,     // given (the simulator knows every job's duration)
  kHint,      // arbiter.dev/run-for
  kDeadline,  // activeDeadlineSeconds
  kLearned,   // the queue's recent jobs
  kUnknown,
};
std::string_view RunTimeSourceName(RunTimeSource source);

struct RunTime {
  std::optional<std::chrono::milliseconds> duration;  // none: unknown
  RunTimeSource source = RunTimeSource::kUnknown;
};

// Run times of finished jobs, per queue, learned by watching snapshots go by: a job seen with at
// least minMember pods running and later seen with every pod Succeeded took from its earliest
// pod's start to the snapshot that first saw it done. Jobs that failed, were deleted before they
// finished or were preempted are not samples (their time says nothing about a job's length).
class RunTimeHistory {
 public:
  static constexpr std::size_t kHistory = 20;
  static constexpr std::size_t kMinSamples = 3;

  void Observe(const Snapshot& snapshot);
  // The median of the queue's last kHistory samples, once it has kMinSamples; and how many.
  std::optional<std::chrono::milliseconds> Learned(std::string_view queue) const;
  std::size_t Samples(std::string_view queue) const;
  // Records a sample directly (tests, and a history restored from elsewhere).
  void Record(const std::string& queue, std::chrono::milliseconds run_time);

 private:
  std::map<std::string, Clock::WallTime, std::less<>> running_since_;  // job key -> start
  std::map<std::string, std::deque<std::chrono::milliseconds>, std::less<>> samples_;
};

// The run time rules 1 and 2 give for a group (null: none) and its pods.
RunTime RunTimeOfObjects(const PodGroup* group, const std::vector<const Pod*>& pods);

// The job's run time by the rules above; `history` may be null (no learned times).
RunTime RunTimeOf(const Snapshot& snapshot, const JobInfo& job, const RunTimeHistory* history);

// When the job's pods started: the earliest status.startTime of a pod holding a node or
// finished, else `fallback`.
Clock::WallTime JobStart(const Snapshot& snapshot, const JobInfo& job, Clock::WallTime fallback);

}  // namespace arbiter::sim
