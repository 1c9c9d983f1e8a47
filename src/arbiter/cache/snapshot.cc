#include "arbiter/cache/snapshot.h"

#include <algorithm>

namespace arbiter {

std::string_view TaskStateName(TaskState state) {
  switch (state) {
    case TaskState::kPending:
      return "Pending";
    case TaskState::kAllocated:
      return "Allocated";
    case TaskState::kPipelined:
      return "Pipelined";
    case TaskState::kBinding:
      return "Binding";
    case TaskState::kBound:
      return "Bound";
    case TaskState::kRunning:
      return "Running";
    case TaskState::kReleasing:
      return "Releasing";
    case TaskState::kSucceeded:
      return "Succeeded";
    case TaskState::kFailed:
      return "Failed";
  }
  return "Unknown";
}

bool HoldsNode(TaskState state) {
  switch (state) {
    case TaskState::kAllocated:
    case TaskState::kBinding:
    case TaskState::kBound:
    case TaskState::kRunning:
    case TaskState::kReleasing:
      return true;
    default:
      return false;
  }
}

bool CountsTowardGang(TaskState state) {
  switch (state) {
    case TaskState::kAllocated:
    case TaskState::kPipelined:
    case TaskState::kBinding:
    case TaskState::kBound:
    case TaskState::kRunning:
    case TaskState::kSucceeded:
      return true;
    default:
      return false;
  }
}

std::optional<NodeIndex> Snapshot::FindNode(std::string_view name) const {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), name,
                             [](const NodeInfo& n, std::string_view v) { return n.name() < v; });
  if (it == nodes.end() || it->name() != name) return std::nullopt;
  return NodeIndex::Of(it - nodes.begin());
}

std::optional<JobIndex> Snapshot::FindJob(std::string_view namespace_name,
                                          std::string_view name) const {
  auto it = std::lower_bound(
      jobs.begin(), jobs.end(), std::pair(namespace_name, name),
      [](const JobInfo& j, const std::pair<std::string_view, std::string_view>& v) {
        return std::pair<std::string_view, std::string_view>(j.namespace_name, j.name) < v;
      });
  if (it == jobs.end() || it->namespace_name != namespace_name || it->name != name) {
    return std::nullopt;
  }
  return JobIndex::Of(it - jobs.begin());
}

std::optional<QueueIndex> Snapshot::FindQueue(std::string_view name) const {
  auto it = std::lower_bound(queues.begin(), queues.end(), name,
                             [](const QueueInfo& q, std::string_view v) { return q.name() < v; });
  if (it == queues.end() || it->name() != name) return std::nullopt;
  return QueueIndex::Of(it - queues.begin());
}

}  // namespace arbiter
