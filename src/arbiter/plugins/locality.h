// locality: data locality with delay scheduling (issue 21, docs/placement.md#data-locality).
//
// A job names where its data lives (PodGroup spec.locality: the nodes holding replicas of its
// input, racks holding it, and a DataSet (model/data_set.h) listing its blocks and their replicas'
// nodes). Its pods' nodes are scored 100 × weight on a listed node or on the node holding most of
// the DataSet's blocks, down to 50 × weight in proportion to the blocks a node holds (node-local),
// 50 × weight in a listed rack or the rack of a node holding data (rack-local), 0 elsewhere; with
// the default weight 10 this outweighs nodeorder (at most 200), which then breaks ties among
// equally local nodes.
//
// Delay scheduling (Zaharia et al., EuroSys 2010): a job is held for locality from the first
// session in which it waits and some node not holding its data has room for one of its pods (the
// time it queued for room anywhere does not count); for nodeWaitSeconds from then its pods go
// only on the nodes holding its data, then until nodeWaitSeconds + rackWaitSeconds also in their
// racks, then anywhere. The clock is the plugin's (kept across sessions, not across a restart
// of the scheduler, after which the wait starts again), and ends when the job has no pod waiting.
// Waiting costs little because tasks end often and local room frees soon, and a task on its data
// runs faster. The wait is skipped when the job's queue is below its deserved share while another
// queue is above its own (the queue is owed room that others hold: with the job's minimum added its
// allocation is still within its share): fairness comes first, and waiting for locality must never
// starve a queue. Hints that name no node or rack of the cluster hold nothing. A DataSet that
// does not exist (yet: it may be created just before its job and arrive on another watch) holds
// its job for nodeWaitSeconds + rackWaitSeconds, as data on nodes without room would, then counts
// as no data (so a misspelt name delays a job, it does not block it).
//
// Arguments: weight (default 10, in [0, 100]), nodeWaitSeconds and rackWaitSeconds (default 10
// each, in [0, 3600]; 0: no wait at that level), rackLabel (default topology.arbiter.dev/rack,
// the topology plugin's rack).
//
// Extension points: Score, Filter (NodeConstraint: the wait), PlacementClass (tasks of jobs whose
// data or wait differ are not judged alike), Locality (how local a pod's node is, for its
// PodGroup's status.locality and arbiter_locality_binds_total).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/framework/plugin.h"
#include "arbiter/framework/registry.h"

namespace arbiter {

struct LocalityOptions {
  double weight = 10;
  double node_wait_seconds = 10;
  double rack_wait_seconds = 10;
  std::string rack_label;
};

class LocalityPlugin final : public Plugin,
                             public ScoreExtension,
                             public FilterExtension,
                             public PlacementClassExtension,
                             public LocalityExtension {
 public:
  static constexpr std::string_view kName = "locality";
  static StatusOr<std::unique_ptr<Plugin>> Create(const YAML::Node& args);

  explicit LocalityPlugin(LocalityOptions options) : options_(std::move(options)) {}
  std::string_view Name() const override { return kName; }
  void OnSessionOpen(const Session& session) override;
  double Score(const Session& session, TaskIndex task, NodeIndex node) const override;
  void ScoreRange(const Session& session, TaskIndex task, NodeIndex first,
                  std::span<const std::uint8_t> in_play, std::span<double> scores) const override;
  FilterResult NodeConstraint(const Session& session, TaskIndex task,
                              NodeIndex node) const override;
  FilterResult Fit(const Session& /*session*/, TaskIndex /*task*/,
                   NodeIndex /*node*/) const override {
    return FilterResult::Fit();
  }
  void FitRange(const Session& /*session*/, TaskIndex /*task*/, NodeIndex /*first*/,
                std::span<const std::uint8_t> /*in_play*/,
                const Refuse& /*refuse*/) const override {}
  std::uint64_t ClassKey(const Session& session, TaskIndex task) const override;
  std::optional<LocalityLevel> Locality(const Session& session, TaskIndex task,
                                        NodeIndex node) const override;

  // How local `node` is to the data of `job` (kAny when the job names none).
  LocalityLevel LevelOf(JobIndex job, NodeIndex node) const;

 private:
  // Where one job's data lives, as this session's node and rack indices.
  struct JobData {
    std::vector<NodeIndex> nodes;  // sorted
    // Per node above: the part of the data it holds, in (0, 1]: its blocks of the job's DataSet
    // over the most any node holds; 1 for a node the hints name.
    std::vector<double> share;
    std::vector<std::int32_t> racks;  // sorted
    std::uint64_t hash = 0;
    bool data_set_missing = false;              // it names a DataSet that does not exist (yet)
    std::optional<Clock::WallTime> held_since;  // when it was first held for locality
  };
  // Whether a node less local than the data's narrowest level has room for `need`.
  bool RoomElsewhere(const Session& session, JobIndex job, const ResourceVector& need) const;
  // The narrowest level the job's pods may go on now (delay scheduling), computed once per
  // session on first use (it asks the queue's deserved share, which OnSessionOpen may not); none
  // while it waits for a DataSet not known yet.
  std::optional<LocalityLevel> Allowed(const Session& session, JobIndex job) const;
  const JobData* DataOf(JobIndex job) const;
  // Whether the job's queue is owed room that others hold: with the job's minimum it stays within
  // its deserved share while another queue is above its own. Such a job does not wait.
  static bool QueueOwed(const Session& session, JobIndex job);
  // Seconds since the job was first held for locality (0: not held yet).
  static double Waited(const Session& session, const JobData& data);

  LocalityOptions options_;
  std::vector<std::int32_t> rack_of_;  // per node: its rack's index, -1 without one
  std::vector<std::int32_t> data_of_;  // per job: index into data_, -1 without hints
  std::vector<JobData> data_;
  std::map<std::string, Clock::WallTime, std::less<>> held_since_;  // by job key, across sessions
  mutable std::mutex mu_;  // guards allowed_: placement fills verdicts in parallel
  // Per job: a LocalityLevel, -1 not yet computed, -2 none (waiting for its DataSet).
  mutable std::vector<std::int8_t> allowed_;
};

}  // namespace arbiter
