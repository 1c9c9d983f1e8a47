// straggler: keeps pods off nodes where tasks run slower than their peers (issue 21,
// docs/placement.md#stragglers).
//
// A node is slow for many reasons a scheduler cannot see (a failing disk, thermal throttling, a
// noisy neighbour, an old CPU). What it can see is how long tasks took: the tasks of one role of
// one job (label arbiter.dev/task; all of a job's pods without one) do the same work, so a task
// that took twice its peers' median time ran on a node half as fast for that work. From each
// role with at least minPeers finished tasks (status.startTime to the last container's
// finishedAt), each task gives its node an observation, its duration over the role's median:
// a finished task its duration, a running task the time it has run so far once that exceeds the
// median (a straggler is seen while it straggles, not only once it ends). A node's slowness is
// the mean of its observations of the last memorySeconds (at most the newest 16); one without
// any is taken as 1 (as fast as its peers).
//
// Score: 100 × weight on a node of slowness 1 or less, falling linearly to 0 at slowness 2 (a
// node taking twice as long); the default weight 5 (at most 500) outweighs nodeorder (at most
// 200) and not locality (a node holding the data scores up to 1000). It never filters: a slow
// node still takes pods when nothing else has room. Observations fade after memorySeconds, so a
// node that was slow is tried again once it has been avoided for that long. An hour by default,
// as Spark excludes a failing executor's node: with half an hour, on the simulator's straggler
// shape, the slow nodes were forgotten while the stream went on and took whole gangs again
// (docs/placement.md#stragglers); a straggler killed early by its backup copy is seen for less
// time, which made it worse.
//
// The plugin keeps its observations across sessions (not across a restart of the scheduler); a
// node removed from the cluster is forgotten.
//
// Arguments: weight (default 5, in [0, 100]), minPeers (default 3, in [2, 1000]),
// memorySeconds (default 3600, in [60, 86400]).
//
// Extension points: Score.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

struct StragglerOptions {
  double weight = 5;
  std::int32_t min_peers = 3;
  double memory_seconds = 3600;
};

class StragglerPlugin final : public Plugin, public ScoreExtension {
 public:
  static constexpr std::string_view kName = "straggler";
  static constexpr std::size_t kMaxObservations = 16;  // per node
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  explicit StragglerPlugin(StragglerOptions options) : options_(options) {}
  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  double Score(const Session& session, TaskIndex task, NodeIndex node) const override;
  void ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                  std::span<const std::uint8_t> in_play, std::span<double> scores) const override;

  // The node's slowness this session (1: as fast as its peers, or not observed).
  double Slowness(NodeIndex node) const;

 private:
  struct Observation {
    double ratio = 1;    // the task's time over its role's median
    Clock::WallTime at;  // when it was last seen
  };
  // Per node name: per task (pod uid), its latest observation.
  using NodeObservations = std::map<std::string, Observation, std::less<>>;

  void Observe(const std::string& node, const std::string& task_uid, double ratio,
               Clock::WallTime at);

  StragglerOptions options_;
  std::map<std::string, NodeObservations, std::less<>> observations_;
  double ScoreOf(double slowness) const;

  std::vector<double> slowness_;  // per node index, this session
  std::vector<double> score_;     // per node index, this session: ScoreOf(slowness_)
};

}  // namespace arbiter
