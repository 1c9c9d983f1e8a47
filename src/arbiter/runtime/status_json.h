// The JSON the scheduler writes back to the API server about what it decided, built from model
// values: a PodGroup's status (the status subresource of arbiter.dev/v1alpha1 PodGroup, per
// deploy/crds/) and a pod's PodScheduled=False condition (as kube-scheduler writes it, so that
// `kubectl describe pod` says why the pod is pending). Pure functions, unit-tested; the writers
// (status_writer.h) do the I/O.
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"

namespace arbiter::runtime {

// The status as the CRD's schema spells it:
//   {"phase":"Running","scheduled":3,"running":3,"succeeded":0,"failed":0,
//    "conditions":[{"type":"Scheduled","status":"True","reason":"...","message":"...",
//                   "lastTransitionTime":"2024-05-01T10:00:00Z"}]}
// Empty reasons and messages and absent times are left out; messages longer than the schema
// allows (32 KiB) are cut on a UTF-8 boundary.
std::string PodGroupStatusJson(const PodGroupStatus& status);

// For k8s::UpdateStatus: the PodGroup object `object_json` (as read from the API server) with its
// status replaced by `status`, everything else (metadata.resourceVersion included) kept. When the
// object already has exactly this status the input is returned unchanged, so nothing is written.
// INVALID_ARGUMENT when `object_json` is not a JSON object.
//
// A PodGroup of another API gets the status in that API's shape, and only the keys Arbiter owns
// there are replaced (others' are kept):
//   Volcano           phase (Pending, Inqueue, Running, Completed; Failed is Completed there),
//                     running, succeeded, failed, conditions (Arbiter's, as Volcano's own are
//                     Scheduled and Unschedulable);
//   scheduler-plugins phase (Pending; Scheduling once admitted; Scheduled once minMember are
//                     placed, Running once they run; Finished; Failed), running, succeeded, failed;
//   Kubernetes        the conditions kube-scheduler writes, merged by type: PodGroupScheduled
//                     (True, reason Scheduled, once minMember are placed; False, reason
//                     Unschedulable, with Arbiter's message, while it waits, but never after it
//                     was True) and DisruptionTarget (reason PreemptionByScheduler) when Arbiter
//                     preempted its pods; observedGeneration is the object's generation.
StatusOr<std::string> ReplacePodGroupStatus(const std::string& object_json,
                                            const PodGroupStatus& status,
                                            PodGroupDialect dialect = PodGroupDialect::kArbiter,
                                            std::int32_t min_member = 1);

// A Queue's status as the CRD spells it: resource lists as Kubernetes quantity strings
//   {"deserved":{"cpu":"6","memory":"12Gi"},"allocated":{...},"used":{...},
//    "pending":1,"inqueue":0,"running":2}
std::string QueueStatusJson(const QueueStatus& status);
// As ReplacePodGroupStatus, for a Queue.
StatusOr<std::string> ReplaceQueueStatus(const std::string& object_json, const QueueStatus& status);

// The reason and condition kube-scheduler writes on a pod it cannot place.
inline constexpr std::string_view kPodScheduledCondition = "PodScheduled";
inline constexpr std::string_view kUnschedulableReason = "Unschedulable";

// Whether the pod's observed conditions already say PodScheduled=False, reason Unschedulable,
// with this message (then writing it again would change nothing).
bool HasUnschedulableCondition(const std::vector<Condition>& observed, std::string_view message);
// Whether the pod already says PodScheduled=False/Unschedulable, whatever the message.
bool HasUnschedulableCondition(const std::vector<Condition>& observed);

// A strategic-merge patch for the pod's status subresource that sets PodScheduled=False, reason
// Unschedulable, `message`. The transition time is the one of the observed PodScheduled
// condition when that was already False (the condition did not transition), else `now`.
// metadata.uid is part of the patch, so a pod of the same name that replaced this one is not
// touched (the API server refuses to change a uid).
std::string UnschedulablePatch(std::string_view uid, std::string_view message,
                               const std::vector<Condition>& observed, Clock::WallTime now);

// The condition kube-scheduler writes on a pod it is about to evict for preemption.
inline constexpr std::string_view kDisruptionTargetCondition = "DisruptionTarget";

// A strategic-merge patch for the pod's status subresource that sets DisruptionTarget=True and
// arbiter.dev/Preempted=True with `reason` (PreemptionByScheduler) and `message` (who preempts
// it, and why), guarded by the uid.
std::string DisruptionTargetPatch(std::string_view uid, std::string_view reason,
                                  std::string_view message, Clock::WallTime now);

// A strategic-merge patch for the pod's status subresource that sets status.nominatedNodeName
// to `node`, or removes it when `node` is empty; guarded by the uid.
std::string NominationPatch(std::string_view uid, std::string_view node);

// `text` cut to at most `max_bytes` bytes without splitting a UTF-8 sequence.
std::string TruncateUtf8(std::string_view text, std::size_t max_bytes);

}  // namespace arbiter::runtime
