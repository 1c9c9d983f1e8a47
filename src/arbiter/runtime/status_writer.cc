#include "arbiter/runtime/status_writer.h"

#include <memory>
#include <span>
#include <utility>

#include "arbiter/base/log.h"
#include "arbiter/k8s/writes.h"
#include "arbiter/runtime/status_json.h"

namespace arbiter::runtime {

StatusWriter::StatusWriter(k8s::ApiClient& api, const Clock& clock, StatusWriterOptions options)
    : api_(api),
      clock_(clock),
      groups_(options.remember_for),
      queues_(options.remember_for),
      pods_(options.remember_for),
      refreshed_(options.refresh_reasons_every),
      queue_("status-writer", options.capacity,
             {.send_all =
                  [this](std::span<const k8s::HttpRequest> requests,
                         const k8s::ApiClient::DoneFunction& done) {
                    api_.Expect2xxAll(requests, done);
                  },
              .size = options.batch,
              .hold = options.group_hold}) {}

void StatusWriter::WritePodGroupStatus(const PodGroupUpdate& update) {
  std::string key = update.namespace_name + "/" + update.name;
  if (!groups_.Claim(key, update.status, clock_.MonotonicNow())) return;
  bool queued = false;
  if (update.dialect == PodGroupDialect::kArbiter && !update.resource_version.empty()) {
    // The status of Arbiter's own PodGroup is wholly Arbiter's: it is replaced in one write,
    // conditional on the version the session saw, with no read first (the reads were one API
    // call in seven of bench/e2e's gang phase), and sent with the other writes waiting. Only
    // when the group changed since (this writer's previous write, say, not yet delivered by the
    // watch) is it read and written as others' are. A PUT of identity and status, not a JSON
    // patch: the patch cost the API server more than the read.
    auto shared = std::make_shared<const PodGroupUpdate>(update);
    queued = queue_.EnqueueRequest(
        "podgroup " + key,
        {.request =
             [shared] {
               ObjectMeta meta;
               meta.namespace_name = shared->namespace_name;
               meta.name = shared->name;
               meta.resource_version = shared->resource_version;
               return k8s::ReplaceStatusRequest(
                   PodGroupObjectPath(shared->dialect, shared->namespace_name, shared->name),
                   PodGroupApiVersion(shared->dialect), "PodGroup", meta,
                   PodGroupStatusJson(shared->status));
             },
         .then =
             [this, key, shared](const StatusOr<std::string>& replaced) {
               (replaced.status().code() == StatusCode::kAborted ? group_counts_.read_first
                                                                 : group_counts_.unread)
                   .fetch_add(1, std::memory_order_relaxed);
               return FinishGroup(key, *shared, replaced.status());
             }},
        WriteQueue::Lane::kNormal, /*hold=*/!update.admits);
  } else {
    queued = queue_.Enqueue("podgroup " + key, [this, key, update] {
      return FinishGroup(key, update, AbortedError("not written yet"));
    });
  }
  if (!queued) groups_.Forget(key, update.status);
}

void StatusWriter::WriteQueueStatus(const QueueUpdate& update) {
  if (!queues_.Claim(update.name, update.status, clock_.MonotonicNow())) return;
  bool queued = queue_.Enqueue(
      "queue " + update.name, [this, update] { return WriteQueueObject(update); },
      WriteQueue::Lane::kFirst);
  if (!queued) queues_.Forget(update.name, update.status);
}

Status StatusWriter::WriteQueueObject(const QueueUpdate& update) {
  Status written = k8s::UpdateStatus(
      api_, "/apis/arbiter.dev/v1alpha1/queues/" + update.name,
      [&update](const std::string& current) { return ReplaceQueueStatus(current, update.status); });
  if (written.ok()) {
    ARBITER_VLOG(3) << "wrote queue status queue=" << update.name;
    return written;
  }
  queues_.Forget(update.name, update.status);
  if (written.code() == StatusCode::kNotFound) return Status::Ok();  // deleted meanwhile
  ARBITER_LOG(kWarning) << "queue status write failed queue=" << update.name
                        << " error=" << written;
  return written;
}

Status StatusWriter::FinishGroup(const std::string& key, const PodGroupUpdate& update,
                                 Status written) {
  if (written.code() == StatusCode::kAborted) {
    written = k8s::UpdateStatus(
        api_, PodGroupObjectPath(update.dialect, update.namespace_name, update.name),
        [&update](const std::string& current) {
          return ReplacePodGroupStatus(current, update.status, update.dialect, update.min_member);
        });
  }
  if (written.ok()) {
    ARBITER_VLOG(3) << "wrote podgroup status podgroup=" << key
                    << " phase=" << PodGroupPhaseName(update.status.phase)
                    << " scheduled=" << update.status.scheduled;
    return written;
  }
  groups_.Forget(key, update.status);
  if (written.code() == StatusCode::kNotFound) return Status::Ok();  // deleted meanwhile
  ARBITER_LOG(kWarning) << "podgroup status write failed podgroup=" << key << " error=" << written;
  return written;
}

void StatusWriter::WriteUnschedulable(const PodVerdict& verdict,
                                      const std::vector<Condition>& observed) {
  if (HasUnschedulableCondition(observed, verdict.message)) return;
  const Clock::MonotonicTime now = clock_.MonotonicNow();
  const bool has_reason = HasUnschedulableCondition(observed);
  // A refresh waits its turn; the first reason is claimed too, so the first refresh waits as well.
  if (!refreshed_.Claim(verdict.pod_uid, true, now) && has_reason) return;
  if (!pods_.Claim(verdict.pod_uid, verdict.message, now)) return;
  std::string patch = UnschedulablePatch(verdict.pod_uid, verdict.message, observed, clock_.Now());
  std::string key = verdict.namespace_name + "/" + verdict.pod_name;
  bool queued = queue_.EnqueueRequest(
      "pod " + key,
      {.request =
           [verdict, patch = std::move(patch)] {
             return k8s::PodStatusPatchRequest(verdict.namespace_name, verdict.pod_name, patch);
           },
       .then =
           [this, key, verdict](const StatusOr<std::string>& patched) {
             return FinishPodPatch(key, verdict, patched.status());
           }},
      has_reason ? WriteQueue::Lane::kNormal : WriteQueue::Lane::kSoon);
  if (!queued) {
    pods_.Forget(verdict.pod_uid, verdict.message);
    refreshed_.Forget(verdict.pod_uid, true);
  }
}

void StatusWriter::WriteNomination(const NominationDecision& nomination) {
  std::string key = nomination.namespace_name + "/" + nomination.pod_name;
  queue_.EnqueueRequest("pod nomination " + key,
                        {.request =
                             [nomination] {
                               return k8s::PodStatusPatchRequest(
                                   nomination.namespace_name, nomination.pod_name,
                                   NominationPatch(nomination.pod_uid, nomination.node_name));
                             },
                         .then =
                             [key](const StatusOr<std::string>& result) {
                               const Status& patched = result.status();
                               if (patched.ok() || patched.code() == StatusCode::kNotFound)
                                 return Status::Ok();
                               // Bound meanwhile: the API server refuses a nomination on a bound
                               // pod, and it is moot.
                               if (patched.code() == StatusCode::kInvalidArgument) {
                                 ARBITER_VLOG(2) << "pod nomination skipped pod=" << key
                                                 << " reason=" << patched;
                                 return Status::Ok();
                               }
                               ARBITER_LOG(kWarning) << "pod nomination write failed pod=" << key
                                                     << " error=" << patched;
                               return patched;
                             }});
}

Status StatusWriter::FinishPodPatch(const std::string& key, const PodVerdict& verdict,
                                    const Status& patched) {
  if (patched.ok()) return patched;
  pods_.Forget(verdict.pod_uid, verdict.message);
  if (patched.code() == StatusCode::kNotFound) return Status::Ok();  // deleted meanwhile
  ARBITER_LOG(kWarning) << "pod condition write failed pod=" << key << " error=" << patched;
  return patched;
}

}  // namespace arbiter::runtime
