// Decoding of Kubernetes API JSON into Arbiter's model values (model/), with simdjson's on-demand
// API: ARCHITECTURE.md §8 measured it at about 20x nlohmann-json on a large PodList, which is what
// every re-list of a big cluster pays.
//
// What is read: only the fields the model keeps; unknown fields are skipped, never an error.
// `null` reads as absent. Quantities may be JSON strings or numbers and are read exactly as
// apimachinery reads them (Quantity::ParseJson semantics), then converted to canonical units.
// Timestamps are RFC 3339 (Time and MicroTime). Schema rules that the model relies on are checked
// (PodGroup minMember >= 1, Queue weight >= 1, selector operators, non-negative quantities), and
// an object without metadata.name is rejected.
//
// Errors (INVALID_ARGUMENT) name the object and the JSON path of the offending field:
//   pod ns/web-0: spec.containers[0].resources.requests.cpu: quantity "1K": unknown suffix ...
// A list decodes item by item: a malformed item is skipped and reported in ObjectList::errors,
// and the other items are still returned. Only JSON that is not well formed (or not a list)
// fails the whole list.
//
// Thread safety: a simdjson parser is single-threaded; use one parser per thread. The decoded
// values own their data (nothing points into the JSON buffer or the parser).
//
//   simdjson::ondemand::parser parser;
//   simdjson::padded_string json(body);
//   StatusOr<ObjectList<Pod>> pods = DecodeList<Pod>(parser, json);
//   if (!pods.ok()) return pods.status();
//   for (const Status& skipped : pods->errors) LOG(warning) << skipped;
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/model/batch_job.h"
#include "arbiter/model/data_set.h"
#include "arbiter/model/event.h"
#include "arbiter/model/lease.h"
#include "arbiter/model/namespace.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_disruption_budget.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/model/resource_quota.h"

namespace arbiter::k8s {

// One object, from an on-demand value that must be a JSON object. The value is consumed.
StatusOr<Pod> DecodePod(simdjson::ondemand::value json_value);
StatusOr<Node> DecodeNode(simdjson::ondemand::value json_value);
StatusOr<Namespace> DecodeNamespace(simdjson::ondemand::value json_value);
StatusOr<PriorityClass> DecodePriorityClass(simdjson::ondemand::value json_value);
StatusOr<Lease> DecodeLease(simdjson::ondemand::value json_value);
StatusOr<Event> DecodeEvent(simdjson::ondemand::value json_value);
StatusOr<ResourceQuota> DecodeResourceQuota(simdjson::ondemand::value json_value);
StatusOr<PodGroup> DecodePodGroup(simdjson::ondemand::value json_value);
// PodGroups of the gang APIs of Kubernetes, Volcano and scheduler-plugins, into the same model
// (model/pod_group.h PodGroupDialect says what each field becomes).
StatusOr<KubernetesPodGroup> DecodeKubernetesPodGroup(simdjson::ondemand::value json_value);
StatusOr<VolcanoPodGroup> DecodeVolcanoPodGroup(simdjson::ondemand::value json_value);
StatusOr<SchedulerPluginsPodGroup> DecodeSchedulerPluginsPodGroup(
    simdjson::ondemand::value json_value);
StatusOr<Queue> DecodeQueue(simdjson::ondemand::value json_value);
StatusOr<PodDisruptionBudget> DecodePodDisruptionBudget(simdjson::ondemand::value json_value);
StatusOr<BatchJob> DecodeBatchJob(simdjson::ondemand::value json_value);
// A DataSet's block names and replica nodes must not be empty.
StatusOr<DataSet> DecodeDataSet(simdjson::ondemand::value json_value);

// One object as a whole JSON document (a GET response). T is one of the model types above.
template <typename T>
StatusOr<T> DecodeObject(simdjson::ondemand::parser& parser, const simdjson::padded_string& json);

// A `*List` response (e.g. PodList).
template <typename T>
struct ObjectList {
  std::vector<T> items;          // the well-formed items, in the list's order
  std::string resource_version;  // metadata.resourceVersion: where a watch resumes
  std::string continue_token;    // metadata.continue: non-empty when more pages follow
  std::vector<Status> errors;    // one per skipped item, naming it and the field
};

template <typename T>
StatusOr<ObjectList<T>> DecodeList(simdjson::ondemand::parser& parser,
                                   const simdjson::padded_string& json);

// A metav1.Status, as the API server returns for failed requests and in watch ERROR events.
struct ApiStatus {
  std::int32_t code = 0;  // HTTP status code, e.g. 410 when the resourceVersion is too old
  std::string status;     // "Failure" or "Success"
  std::string reason;     // "Expired", "NotFound", "Conflict", ...
  std::string message;
  friend bool operator==(const ApiStatus&, const ApiStatus&) = default;
};

StatusOr<ApiStatus> DecodeApiStatus(simdjson::ondemand::value json_value);

enum class WatchEventType : std::uint8_t { kAdded, kModified, kDeleted, kBookmark, kError };

std::string_view WatchEventTypeName(WatchEventType type);

// One line of a watch stream: {"type": "...", "object": {...}}.
template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  T object;                      // ADDED, MODIFIED, DELETED: the object
  std::string resource_version;  // the object's (for BOOKMARK, the only thing it carries)
  ApiStatus error;               // ERROR: the Status the server sent (e.g. code 410)
};

// A malformed object in an ADDED/MODIFIED/DELETED event is an error naming it; an unknown event
// type is an error too.
template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(simdjson::ondemand::parser& parser,
                                         const simdjson::padded_string& json);

// When `line` is a Kubernetes Status object (as a refused watch streams instead of events): its
// message, with its reason ahead when it has one ("TooManyRequests: ..."). Otherwise nothing.
std::optional<std::string> StatusMessageOf(std::string_view line);

// Which build of the readers DecodeObject, DecodeList and DecodeWatchEvent use. x86-64 builds
// (not the sanitizer and fuzz ones) carry a second build of them compiled for AVX2 (simdjson's
// on-demand walker is otherwise its scalar kernel), used when simdjson's kernel for this CPU is
// "haswell" or "icelake" (so SIMDJSON_FORCE_IMPLEMENTATION=fallback or westmere turns it off); both
// decode alike.
enum class DecodeKernel : std::uint8_t { kPortable, kAvx2 };
DecodeKernel ActiveDecodeKernel();
std::string_view DecodeKernelName(DecodeKernel kernel);
// For tests and benchmarks that run both: false, and nothing changed, when `kernel` is not in
// this build or not supported by this CPU. Process-wide.
bool SetDecodeKernel(DecodeKernel kernel);

// An RFC 3339 timestamp ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123456+02:00") as
// Kubernetes writes Time and MicroTime. Fractions finer than a nanosecond are truncated.
StatusOr<Clock::WallTime> ParseRfc3339(std::string_view text);

}  // namespace arbiter::k8s
