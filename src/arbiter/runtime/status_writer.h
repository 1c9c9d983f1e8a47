// StatusWriter: writes what sessions decided about objects' status back to the API server, off
// the session loop (a WriteQueue thread):
//   * PodGroup status (the status subresource of arbiter.dev/v1alpha1 PodGroups, or of another
//     API's PodGroup in that API's shape: status_json.h), never over a concurrent change: an
//     Arbiter PodGroup's status, wholly Arbiter's, in one write conditional on the
//     resourceVersion the session saw (k8s::ReplaceStatusRequest); another API's, or after a
//     conflict, read again and merged (k8s::UpdateStatus);
//   * PodScheduled=False/Unschedulable on pods that stay pending (a strategic-merge patch of
//     pods/status), as kube-scheduler writes it, so `kubectl describe pod` says why.
//
// Writes of one request each (an Arbiter PodGroup's status, a pod's condition or nomination) go
// in batches of up to `batch`, as streams of one HTTP/2 connection (WriteQueue); an Arbiter
// PodGroup's status is held `group_hold` first, unless it admits the group. Another API's PodGroup
// (read, then written) and a Queue's status go one at a time.
//
// Writes only what changed: a status equal to the one last written for the object within
// `remember_for` is skipped (a session sees its own write only once the watch delivers it), and
// a pod whose observed condition already says the same is not patched. A pod's first reason goes
// ahead of other writes (WriteQueue's soon lane); a pod that already has one gets a new message
// at most every `refresh_reasons_every`. A failed write is logged
// and forgotten, so the next session that still wants it tries again. A PodGroup or pod that is
// gone by the time its write runs is not an error.
//
// Thread safety: all methods from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "arbiter/base/clock.h"
#include "arbiter/framework/session_result.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/model/object_meta.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/runtime/recent_writes.h"
#include "arbiter/runtime/write_queue.h"

namespace arbiter::runtime {

struct StatusWriterOptions {
  std::chrono::nanoseconds remember_for = std::chrono::seconds(30);
  // A pod that already says why it waits gets a new message at most this often: messages quote
  // figures (a queue's allocation, free CPUs) that change with every pod bound anywhere, and
  // rewriting every waiting pod each session would take all of the client's QPS.
  std::chrono::nanoseconds refresh_reasons_every = std::chrono::seconds(10);
  std::size_t capacity = 100'000;  // distinct objects waiting for a write
  // Writes of one request (PodGroup statuses, pod conditions) sent at once, as streams of one
  // connection (WriteQueue's batches).
  std::size_t batch = 32;
  // An Arbiter PodGroup's status waits this long before it is sent, so that the statuses it
  // passes through meanwhile make one write: a gang's pods bound, then Running one by one (1, 2,
  // 3 as kwok or the kubelets report them, about a second later), as Kubernetes' Job controller
  // batches a job's pod changes into one status update a second. A status that admits the group
  // (PodGroupUpdate::admits) is not held, and takes a held one along: the CRD's rule that
  // spec.queue cannot change once a group is admitted reads status.phase
  // (tests/e2e/admission_test.sh). Off by default (--podgroup-status-hold): with admissions
  // written at once, a gang's statuses made as many writes held as not (docs/benchmarks.md).
  std::chrono::nanoseconds group_hold{0};
};

class StatusWriter {
 public:
  StatusWriter(k8s::ApiClient& api, const Clock& clock, StatusWriterOptions options = {});
  StatusWriter(const StatusWriter&) = delete;
  StatusWriter& operator=(const StatusWriter&) = delete;

  // Queues the write of update.status to the PodGroup, unless it was just written.
  void WritePodGroupStatus(const PodGroupUpdate& update);
  // Queues the write of a Queue's status, unless it was just written.
  void WriteQueueStatus(const QueueUpdate& update);

  // Queues PodScheduled=False/Unschedulable with the verdict's message on its pod, unless
  // `observed` (the pod's conditions as the snapshot saw them) or a recent write already say so.
  void WriteUnschedulable(const PodVerdict& verdict, const std::vector<Condition>& observed);
  // Sets or clears the pod's status.nominatedNodeName.
  void WriteNomination(const NominationDecision& nomination);

  void Flush() { queue_.Flush(); }
  void Stop() { queue_.Stop(); }

  WriteQueue::Counts counts() const { return queue_.counts(); }
  // Arbiter's PodGroups' status writes made without a read (conditional on the session's
  // resourceVersion), and those that found the group changed and were read and written again.
  struct GroupWriteCounts {
    std::uint64_t unread = 0;
    std::uint64_t read_first = 0;
  };
  GroupWriteCounts group_write_counts() const {
    return {group_counts_.unread.load(std::memory_order_relaxed),
            group_counts_.read_first.load(std::memory_order_relaxed)};
  }

 private:
  // Ends a group's write after its unread replace ended `written` (ABORTED: the group changed
  // since, or there was no such write): reads and writes it again if needed, logs a failure.
  Status FinishGroup(const std::string& key, const PodGroupUpdate& update, Status written);
  Status WriteQueueObject(const QueueUpdate& update);
  Status FinishPodPatch(const std::string& key, const PodVerdict& verdict, const Status& patched);

  k8s::ApiClient& api_;
  const Clock& clock_;
  RecentWrites<PodGroupStatus> groups_;  // by namespace/name
  RecentWrites<QueueStatus> queues_;     // by name
  RecentWrites<std::string> pods_;       // by uid: the message written
  RecentWrites<bool> refreshed_;         // by uid: a reason was written (refresh_reasons_every)
  struct {
    std::atomic<std::uint64_t> unread{0};
    std::atomic<std::uint64_t> read_first{0};
  } group_counts_;
  WriteQueue queue_;  // last: its thread uses the members above
};

}  // namespace arbiter::runtime
