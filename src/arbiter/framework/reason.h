// Typed reasons: why a job or a task was not scheduled in a session, as values that control flow
// can branch on, with the human message beside them. The enum is what code compares; the name
// (JobReasonName) is what the PodGroup's Unschedulable condition carries as its reason, and the
// message is what users read. No code compares reason text.
//
// Thread safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter {

enum class JobReason : std::uint8_t {
  kInvalid,             // a plugin refused the job without a more precise reason
  kPodGroupNotFound,    // pods name a group that does not exist
  kNotEnoughPods,       // fewer pods exist than minMember (or a minTaskMember)
  kQueueNotFound,       // its queue does not exist
  kQueueClosed,         // its queue is Closed
  kQueueNotAllowed,     // its queue's namespaceSelector does not admit its namespace
  kQueueCapability,     // one more pod would take its queue over its capability
  kQueueOverused,       // its queue has its deserved share while other queues wait
  kNotEnqueued,         // admission refused it (its queue's share is taken)
  kNotEnoughResources,  // its minimum does not fit on the nodes
  // Preemption: evicting every pod it may preempt would still not make room for its minimum.
  kPreemptionWouldNotFit,
  // Preemption: its pods are nominated to room that evicted pods are still freeing.
  kWaitingForPreemption,
  // Preemption or reclaim evicted it below its minimum; its pods wait to start again.
  kPreempted,
  // It held nodes below its minimum for longer than the broken-gang timeout and was released:
  // its pods evicted, for their controllers to recreate, so that it starts again whole.
  kGangReleased,
};

// The condition reason, e.g. "NotEnoughPods".
std::string_view JobReasonName(JobReason reason);
// The reason a condition names, read back (a PodGroup's condition from an earlier session).
std::optional<JobReason> ParseJobReason(std::string_view name);

// Why a job may not be scheduled: the reason, and the message its PodGroup and pods show.
struct JobVerdict {
  JobReason reason = JobReason::kInvalid;
  std::string message;
};

enum class TaskReason : std::uint8_t {
  kNoNodeFits,        // every node was filtered out (the message says why, per node)
  kQueueOverused,     // its queue has its deserved share while other queues wait
  kQueueCapability,   // it would take its queue over its capability
  kSameAsFailedTwin,  // a task with the same needs found no node this session
  kWithdrawn,         // placed this session, then its room went to a preemptor
};

std::string_view TaskReasonName(TaskReason reason);

struct TaskVerdict {
  TaskReason reason = TaskReason::kNoNodeFits;
  std::string message;
};

}  // namespace arbiter
