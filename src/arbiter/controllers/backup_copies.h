// Which pods of an idempotent task get a backup copy: LATE's rule (Zaharia et al., OSDI 2008)
// for tasks whose progress nobody reports. The BatchJob controller asks it on every reconcile
// (controllers/batchjob_sync.h); the simulator asks it the same of its jobs' pods.
//
// From the runs of one task (its pods of the current attempt, copies included):
//   - the task's pace is the median run time of its succeeded runs; nothing is judged before
//     `min_finished` of them have succeeded (a median of one or two says little), or half the
//     replicas when that is fewer (a gang of 4 with two stragglers has only two peers to go by);
//   - a run is behind once it has run longer than `behind_ratio` x that median, and is not
//     finished, and its index has no copy yet (one copy per index: no copies of copies) and no
//     success;
//   - a node is slow for this job when a run there took (or has taken so far, still running)
//     longer than `behind_ratio` x the median: a copy is never sent to one ("only on fast
//     nodes"; the scheduler's straggler plugin adds what other jobs saw);
//   - at most `cap_fraction` of the task's replicas (at least one) have a copy not finished at
//     once; when more are behind, those that have run the longest go first. Pods report no
//     progress, so the one behind the longest stands for LATE's "largest estimated time left":
//     runs of one task start together, and one that has run longer on the same work is on the
//     slower node.
//
// Pure: no I/O, no clock (the time is an input). Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/model/pod.h"

namespace arbiter::controllers {

// On a backup copy ("true"); a copy is named after its original with this suffix.
inline constexpr std::string_view kBackupLabel = "arbiter.dev/backup";
inline constexpr std::string_view kBackupSuffix = "-backup";

struct TaskRun {
  std::int32_t index = 0;
  bool backup = false;  // a copy, not the index's first pod
  std::string node;     // empty: not placed
  std::optional<Clock::WallTime> started;
  std::optional<Clock::WallTime> finished;
  bool succeeded = false;
  bool failed = false;
};

struct BackupRule {
  double behind_ratio = 1.5;
  std::int32_t min_finished = 3;
  double cap_fraction = 0.1;
};

struct BackupChoice {
  std::int32_t index = 0;
  std::vector<std::string> avoid_nodes;  // sorted: the nodes this job saw slow
  std::string why;                       // "ran 95s, 2.4x its task's median of 40s"
};

// Copies to make now, in the order they should be made.
std::vector<BackupChoice> ChooseBackups(std::span<const TaskRun> runs, std::int32_t replicas,
                                        Clock::WallTime now, const BackupRule& rule = {});

// When the next run will be behind, if nothing else changes (the simulator, which skips idle
// time, wakes up then); none when no run can become so.
std::optional<Clock::WallTime> NextBehind(std::span<const TaskRun> runs, std::int32_t replicas,
                                          Clock::WallTime now, const BackupRule& rule = {});

// Keeps `affinity` off `nodes`: each of its terms (alternatives) gains `metadata.name NotIn
// [node]` per node (the API allows one value per field requirement); none becomes one term.
void ExcludeNodes(std::optional<NodeSelector>& affinity, std::span<const std::string> nodes);

}  // namespace arbiter::controllers
