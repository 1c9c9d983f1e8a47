#include "arbiter/runtime/status_writer.h"

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
      queue_("status-writer", options.capacity) {}

void StatusWriter::WritePodGroupStatus(const PodGroupUpdate& update) {
  std::string key = update.namespace_name + "/" + update.name;
  if (!groups_.Claim(key, update.status, clock_.MonotonicNow())) return;
  bool queued =
      queue_.Enqueue("podgroup " + key, [this, key, update] { return WriteGroup(key, update); });
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

Status StatusWriter::WriteGroup(const std::string& key, const PodGroupUpdate& update) {
  const std::string path = PodGroupObjectPath(update.dialect, update.namespace_name, update.name);
  // The status of Arbiter's own PodGroup is wholly Arbiter's: it is replaced in one write,
  // conditional on the version the session saw, with no read first (the reads were one API call
  // in seven of bench/e2e's gang phase). Only when the group changed since (this writer's previous
  // write, say, not yet delivered by the watch) is it read and written as others' are. A PUT of
  // identity and status, not a JSON patch: the patch cost the API server more than the read.
  Status written = AbortedError("not written yet");
  if (update.dialect == PodGroupDialect::kArbiter && !update.resource_version.empty()) {
    ObjectMeta meta;
    meta.namespace_name = update.namespace_name;
    meta.name = update.name;
    meta.resource_version = update.resource_version;
    written = k8s::ReplaceStatusAt(api_, path, PodGroupApiVersion(update.dialect), "PodGroup", meta,
                                   PodGroupStatusJson(update.status));
    (written.code() == StatusCode::kAborted ? group_counts_.read_first : group_counts_.unread)
        .fetch_add(1, std::memory_order_relaxed);
  }
  if (written.code() == StatusCode::kAborted) {
    written = k8s::UpdateStatus(api_, path, [&update](const std::string& current) {
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
  bool queued = queue_.Enqueue(
      "pod " + key,
      [this, key, verdict, patch = std::move(patch)] { return PatchPod(key, verdict, patch); },
      has_reason ? WriteQueue::Lane::kNormal : WriteQueue::Lane::kSoon);
  if (!queued) {
    pods_.Forget(verdict.pod_uid, verdict.message);
    refreshed_.Forget(verdict.pod_uid, true);
  }
}

void StatusWriter::WriteNomination(const NominationDecision& nomination) {
  std::string key = nomination.namespace_name + "/" + nomination.pod_name;
  std::string path = "/api/v1/namespaces/" + nomination.namespace_name + "/pods/" +
                     nomination.pod_name + "/status";
  std::string patch = NominationPatch(nomination.pod_uid, nomination.node_name);
  queue_.Enqueue(
      "pod nomination " + key, [this, key, path = std::move(path), patch = std::move(patch)] {
        Status patched = api_.Patch(path, patch, k8s::PatchType::kStrategicMerge).status();
        if (patched.ok() || patched.code() == StatusCode::kNotFound) return Status::Ok();
        // Bound meanwhile: the API server refuses a nomination on a bound pod, and it is moot.
        if (patched.code() == StatusCode::kInvalidArgument) {
          ARBITER_VLOG(2) << "pod nomination skipped pod=" << key << " reason=" << patched;
          return Status::Ok();
        }
        ARBITER_LOG(kWarning) << "pod nomination write failed pod=" << key << " error=" << patched;
        return patched;
      });
}

Status StatusWriter::PatchPod(const std::string& key, const PodVerdict& verdict,
                              const std::string& patch) {
  Status patched = api_.Patch("/api/v1/namespaces/" + verdict.namespace_name + "/pods/" +
                                  verdict.pod_name + "/status",
                              patch, k8s::PatchType::kStrategicMerge)
                       .status();
  if (patched.ok()) return patched;
  pods_.Forget(verdict.pod_uid, verdict.message);
  if (patched.code() == StatusCode::kNotFound) return Status::Ok();  // deleted meanwhile
  ARBITER_LOG(kWarning) << "pod condition write failed pod=" << key << " error=" << patched;
  return patched;
}

}  // namespace arbiter::runtime
