// Admission rules (issue 15, docs/quota.md): what arbiter-controller's validating webhook refuses,
// as pure functions of the object, its previous version and what the controller observes of the
// cluster. What a CRD's CEL rules can check on one object stays in the CRD; these are the rules
// that need other objects.
//
//   PodGroup, BatchJob  a queue that is missing, Closed (on create), or whose namespaceSelector
//                       excludes the namespace; what it needs to start (a PodGroup's
//                       minResources, a BatchJob's tasks' minimum pods' requests) beyond the
//                       queue's capability, since it could never run. (A change of spec.queue
//                       once the job was admitted is the CRDs' own rule.)
//   Queue               a guarantee above its own capability; children's guarantees above their
//                       parent's; a parent that does not exist or makes a cycle.
//   Queue deletion      a queue that is not Closed, or still has jobs (Volcano's rule: close it,
//                       let it drain, then delete it). Queue `default` may not be deleted.
//   Pod                 a pod of this scheduler whose group's queue (or, before the group exists,
//                       its arbiter.dev/queue annotation) does not admit its namespace.
// Every refusal names the object and the field: "spec.queue: queue \"ml\" is Closed ...".
//
// Pure: no I/O. Thread safety: reentrant.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/model/batch_job.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/queue.h"

namespace arbiter::webhook {

// A job that draws from a queue (for the deletion rule).
struct QueueJob {
  std::string kind;  // "PodGroup" or "BatchJob"
  std::string key;   // namespace/name
  std::string queue;
};

struct AdmissionContext {
  std::map<std::string, Queue> queues;              // by name
  std::map<std::string, Labels> namespaces;         // labels by namespace name
  std::vector<QueueJob> jobs;                       // unfinished PodGroups and BatchJobs
  std::map<std::string, std::string> group_queues;  // PodGroup namespace/name -> its queue
  std::string scheduler_name = "arbiter";
};

// nullopt: allowed; else the reason for refusing, naming the field.
using Refusal = std::optional<std::string>;

Refusal ReviewPodGroup(const PodGroup& group, const PodGroup* old, const AdmissionContext& ctx);
// `task_requests`: one pod's request of each task (by index), from its template; nullopt where
// the template could not be read (that task is then left out of the capability check).
Refusal ReviewBatchJob(const BatchJob& job, const BatchJob* old,
                       const std::vector<std::optional<ResourceList>>& task_requests,
                       const AdmissionContext& ctx);
Refusal ReviewQueue(const Queue& queue, const AdmissionContext& ctx);
Refusal ReviewQueueDeletion(const Queue& queue, const AdmissionContext& ctx);
Refusal ReviewPod(const Pod& pod, const AdmissionContext& ctx);

}  // namespace arbiter::webhook
