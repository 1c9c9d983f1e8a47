// Internal to the decoders (decode.cc and decode_<kind>.cc): the JSON readers they share, the
// per-kind hooks the top level calls, and the templates each file instantiates for its kinds.
// The decoders are split by kind because one translation unit for all of them took minutes and
// gigabytes to compile under the sanitizers (one core, at the end of every build).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "arbiter/base/status.h"
#include "arbiter/k8s/decode.h"
#include "arbiter/resource/quantity.h"

namespace arbiter::k8s::decode_internal {

using simdjson::error_code;
using simdjson::ondemand::array;
using simdjson::ondemand::field;
using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::raw_json_string;
using simdjson::ondemand::value;

// ---- Errors with a JSON path -------------------------------------------------------------------
//
// While an error travels up, its message is "<relative path>: <what>"; an error about the value
// itself (no path yet) is ": <what>". At() prefixes one step: a field name (joined with '.') or
// an index "[3]" (joined as is). The top level prepends the object's kind and name.

Status Here(std::string_view what);
// The error paths of At and AtIndex, out of line: a decode calls At for every field it reads, and
// all but a malformed object's calls pass an OK status straight through.
Status PrefixStep(std::string_view step, const Status& status);
Status PrefixIndex(std::size_t index, const Status& status);
// Inlined, and an OK status is built anew rather than moved through: GCC kept At out of line,
// and moving a Status in and out of it for every field read was 2% of a PodList's decode (when a
// Status was still a code and a message string).
[[gnu::always_inline]] inline Status At(std::string_view step, const Status& status) {
  if (status.ok()) [[likely]] {
    return Status::Ok();
  }
  return PrefixStep(step, status);
}
[[gnu::always_inline]] inline Status AtIndex(std::size_t index, const Status& status) {
  if (status.ok()) [[likely]] {
    return Status::Ok();
  }
  return PrefixIndex(index, status);
}
// "<want>, got <the JSON type>"; simdjson's message when the JSON itself is malformed.
Status TypeError(error_code error, value& v, std::string_view want);
bool IsNull(value& v);

// A whole-document error: the path, or simdjson's message, without the ": " lead.
Status DocumentError(std::string_view what, const Status& error);
Status SimdjsonError(std::string_view what, error_code e);

// ---- Scalars (null reads as the zero value or nullopt) -----------------------------------------

Status ReadString(value& v, std::string& out);
Status ReadInternedString(value& v, InternedString& out);
Status ReadOptionalString(value& v, std::optional<std::string>& out);
Status ReadBool(value& v, bool& out);
Status ReadInt64(value& v, std::int64_t& out);
Status ReadInt32(value& v, std::int32_t& out);
Status ReadTime(value& v, std::optional<Clock::WallTime>& out);
Status ReadTime(value& v, Clock::WallTime& out);
Status ReadQuantity(value& v, Quantity& out);
// spec.topology of a PodGroup or a BatchJob (decode_podgroup.cc); null clears it.
Status ReadTopology(value& v, std::optional<TopologyRequest>& out);
Status ReadLocality(value& v, std::optional<LocalityRequest>& out);

template <typename Int>
Status ReadOptionalInt(value& v, std::optional<Int>& out) {
  if (IsNull(v)) return Status::Ok();
  Int n = 0;
  if constexpr (sizeof(Int) == sizeof(std::int32_t)) {
    ARBITER_RETURN_IF_ERROR(ReadInt32(v, n));
  } else {
    ARBITER_RETURN_IF_ERROR(ReadInt64(v, n));
  }
  out = n;
  return Status::Ok();
}

// ---- Containers --------------------------------------------------------------------------------

// Calls each(element) for every element of an array, with "[i]" added to errors. null is empty.
template <typename Fn>
Status ReadArray(value& v, Fn&& each) {
  array arr;
  if (error_code e = v.get_array().get(arr)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an array");
  }
  std::size_t index = 0;
  for (auto element : arr) {
    value item;
    if (error_code e = element.get(item)) {
      return AtIndex(index, Here(std::string("malformed JSON: ") + simdjson::error_message(e)));
    }
    ARBITER_RETURN_IF_ERROR(AtIndex(index, each(item)));
    ++index;
  }
  return Status::Ok();
}

// Empties a vector kept per thread to gather a container in, and lets go of its room after a rare
// long input, so that the thread does not keep that for the rest of its life.
template <typename Vector>
void ResetScratch(Vector& scratch) {
  scratch.clear();
  if (scratch.capacity() > 64) Vector().swap(scratch);
}

// Appends every element of an array to `out`, each decoded by each(element, T& into), growing
// `out` once to its final size: the elements are decoded into a vector kept per thread and then
// moved. Pods' short arrays (tolerations, containers, selector terms, owner references) grew by
// doubling before, a third of their allocations. null is empty; on an error `out` is unchanged.
template <typename T, typename Fn>
Status ReadVector(value& v, std::vector<T>& out, Fn&& each) {
  thread_local std::vector<T> scratch;
  thread_local bool busy = false;
  if (busy) {  // a T nested in a T: the scratch is taken, so fill `out` itself
    return ReadArray(v, [&](value& item) { return each(item, out.emplace_back()); });
  }
  busy = true;
  Status status = ReadArray(v, [&](value& item) { return each(item, scratch.emplace_back()); });
  busy = false;
  if (status.ok() && !scratch.empty()) {
    out.reserve(out.size() + scratch.size());
    std::move(scratch.begin(), scratch.end(), std::back_inserter(out));
  }
  ResetScratch(scratch);
  return status;
}

// Calls each(raw key, value) for every field of a struct-like object, in document order. The
// callback wraps its own errors with the field name (it knows it as a literal). null is empty.
template <typename Fn>
Status ReadFields(value& v, Fn&& each) {
  object obj;
  if (error_code e = v.get_object().get(obj)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an object");
  }
  for (auto member : obj) {
    field f;
    if (error_code e = std::move(member).get(f)) {
      return Here(std::string("malformed JSON: ") + simdjson::error_message(e));
    }
    ARBITER_RETURN_IF_ERROR(each(f.key(), f.value()));
  }
  return Status::Ok();
}

// Calls each(unescaped key, value) for every entry of a map-like object; errors get the key.
template <typename Fn>
Status ReadMap(value& v, Fn&& each) {
  object obj;
  if (error_code e = v.get_object().get(obj)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an object");
  }
  for (auto member : obj) {
    field f;
    std::string_view key;
    error_code e = std::move(member).get(f);
    if (e == simdjson::SUCCESS) e = f.unescaped_key().get(key);
    if (e != simdjson::SUCCESS) {
      return Here(std::string("malformed JSON: ") + simdjson::error_message(e));
    }
    ARBITER_RETURN_IF_ERROR(At(key, each(key, f.value())));
  }
  return Status::Ok();
}

// keep: when given, only the entries whose key it accepts are kept (the others' values unread).
Status ReadStringMap(value& v, Labels& out, bool (*keep)(std::string_view) = nullptr);
Status ReadStringArray(value& v, std::vector<std::string>& out);
// A ResourceList or a ResourceQuota's hard/used, in canonical units.
Status ReadResourceList(value& v, ResourceList& out);

// ---- Shared structures -------------------------------------------------------------------------

// all_annotations false: only the annotations KeepsPodAnnotation names are read.
Status ReadMeta(value& v, ObjectMeta& out, bool all_annotations = true);
Status ReadConditionField(raw_json_string key, value& f, Condition& out);
Status ReadConditions(value& v, std::vector<Condition>& out);
Status ReadObservedConditions(value& v, std::vector<ObservedCondition>& out);
Status ReadLabelSelector(value& v, LabelSelector& out);
Status ReadApiStatus(value& v, ApiStatus& out);
StatusOr<WatchEventType> ParseWatchEventType(std::string_view text);

// ---- Per kind: its name in errors, every top-level field but metadata, what depends on more
// than one field (each ReadBody is defined in the file of its kind) -----------------------------

inline std::string_view KindName(const Pod& /*unused*/) { return "pod"; }
inline std::string_view KindName(const Node& /*unused*/) { return "node"; }
inline std::string_view KindName(const Namespace& /*unused*/) { return "namespace"; }
inline std::string_view KindName(const PriorityClass& /*unused*/) { return "priorityclass"; }
inline std::string_view KindName(const Lease& /*unused*/) { return "lease"; }
inline std::string_view KindName(const Event& /*unused*/) { return "event"; }
inline std::string_view KindName(const ResourceQuota& /*unused*/) { return "resourcequota"; }
inline std::string_view KindName(const PodGroup& /*unused*/) { return "podgroup"; }
inline std::string_view KindName(const KubernetesPodGroup& /*unused*/) {
  return "podgroup.scheduling.k8s.io";
}
inline std::string_view KindName(const VolcanoPodGroup& /*unused*/) {
  return "podgroup.scheduling.volcano.sh";
}
inline std::string_view KindName(const SchedulerPluginsPodGroup& /*unused*/) {
  return "podgroup.scheduling.x-k8s.io";
}
inline std::string_view KindName(const Queue& /*unused*/) { return "queue"; }
inline std::string_view KindName(const PodDisruptionBudget& /*unused*/) {
  return "poddisruptionbudget";
}
inline std::string_view KindName(const BatchJob& /*unused*/) { return "batchjob"; }
inline std::string_view KindName(const DataSet& /*unused*/) { return "dataset"; }

Status ReadBody(raw_json_string key, value& f, Pod& out);
Status ReadBody(raw_json_string key, value& f, Node& out);
Status ReadBody(raw_json_string key, value& f, Namespace& out);
Status ReadBody(raw_json_string key, value& f, PriorityClass& out);
Status ReadBody(raw_json_string key, value& f, Lease& out);
Status ReadBody(raw_json_string key, value& f, Event& out);
Status ReadBody(raw_json_string key, value& f, ResourceQuota& out);
Status ReadBody(raw_json_string key, value& f, PodGroup& out);
Status ReadBody(raw_json_string key, value& f, KubernetesPodGroup& out);
Status ReadBody(raw_json_string key, value& f, VolcanoPodGroup& out);
Status ReadBody(raw_json_string key, value& f, SchedulerPluginsPodGroup& out);
Status ReadBody(raw_json_string key, value& f, Queue& out);
Status ReadBody(raw_json_string key, value& f, PodDisruptionBudget& out);
Status ReadBody(raw_json_string key, value& f, BatchJob& out);
Status ReadBody(raw_json_string key, value& f, DataSet& out);

template <PodGroupDialect D>
std::string_view KindName(const DialectPodGroupMeta<D>& /*unused*/) {
  return KindName(DialectPodGroup<D>());
}
template <PodGroupDialect D>
Status ReadBody(raw_json_string /*key*/, value& /*f*/, DialectPodGroupMeta<D>& /*out*/) {
  return Status::Ok();
}

// After the whole object is read: what depends on more than one field.
template <typename T>
Status FinishDecode(T& /*unused*/) {
  return Status::Ok();
}
Status FinishDecode(KubernetesPodGroup& out);
Status FinishDecode(SchedulerPluginsPodGroup& out);

// ---- Top level ---------------------------------------------------------------------------------

// "pod ns/name: <path>: <what>", naming the object as well as its metadata was read.
template <typename T>
Status Named(const T& object, const Status& error) {
  std::string who(KindName(object));
  who += ' ';
  if (object.meta.name.empty()) {
    who += "(unnamed";
    if (!object.meta.namespace_name.empty()) who += " in namespace " + object.meta.namespace_name;
    who += ')';
  } else {
    who += object.meta.Key();
  }
  const std::string& inner = error.message();
  return {error.code(), who + (inner.starts_with(':') ? "" : ": ") + inner};
}

// Whether metadata.annotations is kept whole; a Pod keeps only those Arbiter acts on
// (KeepsPodAnnotation, model/pod.h): the rest (kubectl's last-applied-configuration can be
// kilobytes) is skipped unread, on every re-list and watch event of every pod.
template <typename T>
constexpr bool KeepsAllAnnotations(const T& /*unused*/) {
  return true;
}
constexpr bool KeepsAllAnnotations(const Pod& /*unused*/) { return false; }

// Decodes one object into `out` (default-constructed). After the first error, the remaining
// fields are still walked (cheaply: on-demand skips what is not read) so that metadata found later
// can name the object; the error returned names it.
template <typename T>
Status DecodeTopInto(value v, bool require_name, T& out) {
  object obj;
  if (error_code e = v.get_object().get(obj)) return Named(out, TypeError(e, v, "an object"));
  Status first;
  for (auto member : obj) {
    field f;
    if (error_code e = std::move(member).get(f)) {
      if (first.ok()) first = Here(std::string("malformed JSON: ") + simdjson::error_message(e));
      break;
    }
    raw_json_string key = f.key();
    Status status;
    if (key == "metadata") {
      status = At("metadata", ReadMeta(f.value(), out.meta, KeepsAllAnnotations(out)));
    } else if (first.ok()) {
      status = ReadBody(key, f.value(), out);
    }
    if (first.ok() && !status.ok()) first = std::move(status);
  }
  if (first.ok() && require_name && out.meta.name.empty()) {
    first = InvalidArgumentError("metadata.name: missing");
  }
  if (first.ok()) first = FinishDecode(out);
  if (!first.ok()) return Named(out, first);
  return Status::Ok();
}

template <typename T>
StatusOr<T> DecodeTop(value v, bool require_name) {
  T out;
  ARBITER_RETURN_IF_ERROR(DecodeTopInto(v, require_name, out));
  return out;
}

template <typename T>
StatusOr<T> DecodeObjectIn(simdjson::ondemand::parser& parser,
                           const simdjson::padded_string& json) {
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(KindName(T()), e);
  value v;
  if (error_code e = doc.get_value().get(v)) return SimdjsonError(KindName(T()), e);
  return DecodeTop<T>(v, true);
}

template <typename T>
StatusOr<ObjectList<T>> DecodeListIn(simdjson::ondemand::parser& parser,
                                     const simdjson::padded_string& json) {
  const std::string what = std::string(KindName(T())) + " list";
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(what, e);
  object top;
  if (error_code e = doc.get_object().get(top)) return SimdjsonError(what, e);

  ObjectList<T> list;
  for (auto member : top) {
    field f;
    if (error_code e = std::move(member).get(f)) return SimdjsonError(what, e);
    raw_json_string key = f.key();
    if (key == "metadata") {
      Status status = ReadFields(f.value(), [&](raw_json_string k, value& g) {
        if (k == "resourceVersion") {
          return At("resourceVersion", ReadString(g, list.resource_version));
        }
        if (k == "continue") return At("continue", ReadString(g, list.continue_token));
        return Status::Ok();
      });
      if (!status.ok()) return DocumentError(what, At("metadata", status));
    } else if (key == "items") {
      array items;
      if (error_code e = f.value().get_array().get(items)) {
        if (IsNull(f.value())) continue;
        return DocumentError(what, At("items", TypeError(e, f.value(), "an array")));
      }
      // Not counted first: the vector grows by doubling. Counting (a skim of the whole array,
      // token by token) cost 7,000 instructions a pod, more than the moves it spared, 4 to 7%
      // of a 50,000-pod list's decode with mimalloc, for the same peak memory (docs/benchmarks.md,
      // "What limits it"). With glibc's allocator the moves had cost a third of it.
      std::size_t index = 0;
      for (auto element : items) {
        value item;
        if (error_code e = element.get(item)) return SimdjsonError(what, e);
        // Decoded in its place: a Pod is 800 bytes, moved twice on the way otherwise.
        Status decoded = DecodeTopInto(item, true, list.items.emplace_back());
        if (!decoded.ok()) {
          list.items.pop_back();
          // A named item is named by its error; an unnamed one by its place in the list.
          Status error = std::move(decoded);
          if (error.message().starts_with(what.substr(0, what.size() - 4) + "(unnamed")) {
            error = error.WithContext("items[" + std::to_string(index) + "]");
          }
          list.errors.push_back(std::move(error));
        }
        ++index;
      }
    }
  }
  return list;
}

template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEventIn(simdjson::ondemand::parser& parser,
                                           const simdjson::padded_string& json) {
  constexpr std::string_view kWhat = "watch event";
  simdjson::ondemand::document doc;
  if (error_code e = parser.iterate(json).get(doc)) return SimdjsonError(kWhat, e);
  object top;
  if (error_code e = doc.get_object().get(top)) return SimdjsonError(kWhat, e);

  WatchEvent<T> event;
  std::string_view type_text;
  value type_value;
  if (error_code e = top.find_field_unordered("type").get(type_value)) {
    return e == simdjson::NO_SUCH_FIELD ? InvalidArgumentError("watch event: type: missing")
                                        : SimdjsonError(kWhat, e);
  }
  if (error_code e = type_value.get_string().get(type_text)) {
    return DocumentError(kWhat, At("type", TypeError(e, type_value, "a string")));
  }
  ARBITER_ASSIGN_OR_RETURN(event.type, ParseWatchEventType(type_text));

  value object_value;
  if (error_code e = top.find_field_unordered("object").get(object_value)) {
    return e == simdjson::NO_SUCH_FIELD ? InvalidArgumentError("watch event: object: missing")
                                        : SimdjsonError(kWhat, e);
  }
  switch (event.type) {
    case WatchEventType::kError: {
      Status status = ReadApiStatus(object_value, event.error);
      if (!status.ok()) return DocumentError(kWhat, At("object", status));
      return event;
    }
    case WatchEventType::kBookmark: {
      // A bookmark carries only metadata.resourceVersion (and annotations); no name.
      StatusOr<T> bookmark = DecodeTop<T>(object_value, false);
      if (!bookmark.ok()) return bookmark.status().WithContext(kWhat);
      event.resource_version = bookmark->meta.resource_version;
      return event;
    }
    default: {
      StatusOr<T> decoded = DecodeTop<T>(object_value, true);
      if (!decoded.ok()) return decoded.status().WithContext(kWhat);
      event.object = *std::move(decoded);
      event.resource_version = event.object.meta.resource_version;
      return event;
    }
  }
}

}  // namespace arbiter::k8s::decode_internal

// ---- Two builds of the readers -----------------------------------------------------------------
//
// simdjson compiles its on-demand walker only for the kernel the compiler may assume ("builtin"):
// for baseline x86-64 that is its scalar fallback, while the list's stage 1 alone is dispatched
// at run time. So where the build allows (ARBITER_DECODE_AVX2: x86-64, not the sanitizer builds)
// the decoders' sources are compiled a second time with AVX2, ARBITER_DECODE_AVX2_VARIANT
// defined, and joined into one object whose only global symbols are the entry points below (the
// rest made local: cmake/localize-variant.sh), so that no inline function compiled for AVX2 can
// stand in for the portable one elsewhere. The portable entry points call them when
// ActiveDecodeKernel() is kAvx2.

namespace arbiter::k8s::decode_avx2 {

// Defined only in the AVX2 build; each uses a parser of that build kept per thread.
template <typename T>
StatusOr<T> DecodeObject(const simdjson::padded_string& json);
template <typename T>
StatusOr<ObjectList<T>> DecodeList(const simdjson::padded_string& json);
template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(const simdjson::padded_string& json);

}  // namespace arbiter::k8s::decode_avx2

#ifndef ARBITER_DECODE_AVX2_VARIANT

namespace arbiter::k8s {

template <typename T>
StatusOr<T> DecodeObject(simdjson::ondemand::parser& parser, const simdjson::padded_string& json) {
#if ARBITER_DECODE_AVX2
  if (ActiveDecodeKernel() == DecodeKernel::kAvx2) return decode_avx2::DecodeObject<T>(json);
#endif
  return decode_internal::DecodeObjectIn<T>(parser, json);
}

template <typename T>
StatusOr<ObjectList<T>> DecodeList(simdjson::ondemand::parser& parser,
                                   const simdjson::padded_string& json) {
#if ARBITER_DECODE_AVX2
  if (ActiveDecodeKernel() == DecodeKernel::kAvx2) return decode_avx2::DecodeList<T>(json);
#endif
  return decode_internal::DecodeListIn<T>(parser, json);
}

template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(simdjson::ondemand::parser& parser,
                                         const simdjson::padded_string& json) {
#if ARBITER_DECODE_AVX2
  if (ActiveDecodeKernel() == DecodeKernel::kAvx2) return decode_avx2::DecodeWatchEvent<T>(json);
#endif
  return decode_internal::DecodeWatchEventIn<T>(parser, json);
}

}  // namespace arbiter::k8s

// Each decode_<kind>.cc instantiates DecodeObject, DecodeList and DecodeWatchEvent for its kinds.
// The model types DecodeObject, DecodeList and DecodeWatchEvent are defined for.
// NOLINTBEGIN(bugprone-macro-parentheses): T is a type name in a declaration.
#define ARBITER_K8S_INSTANTIATE_DECODERS(T)                                         \
  template StatusOr<T> DecodeObject<T>(simdjson::ondemand::parser&,                 \
                                       const simdjson::padded_string&);             \
  template StatusOr<ObjectList<T>> DecodeList<T>(simdjson::ondemand::parser&,       \
                                                 const simdjson::padded_string&);   \
  template StatusOr<WatchEvent<T>> DecodeWatchEvent<T>(simdjson::ondemand::parser&, \
                                                       const simdjson::padded_string&)
// NOLINTEND(bugprone-macro-parentheses)

#else  // the AVX2 build

namespace arbiter::k8s::decode_internal {
// The parser of this build for the calling thread (a parser is single-threaded, and the portable
// caller's parser is of the other build).
simdjson::ondemand::parser& ThreadParser();
}  // namespace arbiter::k8s::decode_internal

namespace arbiter::k8s::decode_avx2 {

template <typename T>
StatusOr<T> DecodeObject(const simdjson::padded_string& json) {
  return decode_internal::DecodeObjectIn<T>(decode_internal::ThreadParser(), json);
}

template <typename T>
StatusOr<ObjectList<T>> DecodeList(const simdjson::padded_string& json) {
  return decode_internal::DecodeListIn<T>(decode_internal::ThreadParser(), json);
}

template <typename T>
StatusOr<WatchEvent<T>> DecodeWatchEvent(const simdjson::padded_string& json) {
  return decode_internal::DecodeWatchEventIn<T>(decode_internal::ThreadParser(), json);
}

}  // namespace arbiter::k8s::decode_avx2

// NOLINTBEGIN(bugprone-macro-parentheses): T is a type name in a declaration.
#define ARBITER_K8S_INSTANTIATE_DECODERS(T)                                                    \
  template StatusOr<T> decode_avx2::DecodeObject<T>(const simdjson::padded_string&);           \
  template StatusOr<ObjectList<T>> decode_avx2::DecodeList<T>(const simdjson::padded_string&); \
  template StatusOr<WatchEvent<T>> decode_avx2::DecodeWatchEvent<T>(const simdjson::padded_string&)
// NOLINTEND(bugprone-macro-parentheses)

#endif  // ARBITER_DECODE_AVX2_VARIANT
