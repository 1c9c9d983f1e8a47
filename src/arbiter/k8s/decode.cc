#include "arbiter/k8s/decode.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arbiter/k8s/decode_internal.h"
#include "arbiter/resource/checked_math.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::k8s {
namespace decode_internal {

// ---- Errors with a JSON path -------------------------------------------------------------------
//
// While an error travels up, its message is "<relative path>: <what>"; an error about the value
// itself (no path yet) is ": <what>". At() prefixes one step: a field name (joined with '.') or
// an index "[3]" (joined as is). The top level prepends the object's kind and name.

Status Here(std::string_view what) { return InvalidArgumentError(": " + std::string(what)); }

Status PrefixStep(std::string_view step, const Status& status) {
  const std::string& inner = status.message();
  std::string message(step);
  if (!inner.starts_with(':') && !inner.starts_with('[')) message += '.';
  message += inner;
  return {status.code(), std::move(message)};
}

Status PrefixIndex(std::size_t index, const Status& status) {
  return PrefixStep("[" + std::to_string(index) + "]", status);
}

std::string_view TypeName(value& v) {
  json_type type{};
  if (v.type().get(type) != simdjson::SUCCESS) return "invalid JSON";
  switch (type) {
    case json_type::array:
      return "array";
    case json_type::object:
      return "object";
    case json_type::number:
      return "number";
    case json_type::string:
      return "string";
    case json_type::boolean:
      return "boolean";
    case json_type::null:
      return "null";
  }
  return "unknown";
}

// The error for a failed get_<type>() on `v`: a type mismatch names both types; anything else
// (malformed JSON) is simdjson's own message.
Status TypeError(error_code error, value& v, std::string_view want) {
  if (error == simdjson::INCORRECT_TYPE) {
    return Here("expected " + std::string(want) + ", got " + std::string(TypeName(v)));
  }
  if (error == simdjson::NUMBER_OUT_OF_RANGE || error == simdjson::NUMBER_ERROR) {
    return Here("expected " + std::string(want) + ": number out of range");
  }
  return Here(std::string("malformed JSON: ") + simdjson::error_message(error));
}

// True when `v` is JSON null (which every reader takes as "absent").
bool IsNull(value& v) {
  bool null = false;
  return v.is_null().get(null) == simdjson::SUCCESS && null;
}

// ---- Scalars -----------------------------------------------------------------------------------

// A string without escapes (nearly all of them) is copied once, straight from the input; through
// get_string it would be copied twice, unescaped into the parser's buffer first. The raw token
// runs from the opening quote to the next structural character, so it may end in white space.
// Nothing for JSON null; the view lasts as long as the input and the parser's buffer.
Status ReadStringView(value& v, std::optional<std::string_view>& out) {
  const std::string_view token = v.raw_json_token();
  if (token.size() >= 2 && token.front() == '"') {
    const std::size_t close = token.find_last_of('"');
    if (close > 0) {
      const std::string_view text = token.substr(1, close - 1);
      if (text.find('\\') == std::string_view::npos) {
        out = text;
        return Status::Ok();
      }
    }
  }
  std::string_view s;
  if (error_code e = v.get_string().get(s)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "a string");
  }
  out = s;
  return Status::Ok();
}

Status ReadString(value& v, std::string& out) {
  std::optional<std::string_view> text;
  ARBITER_RETURN_IF_ERROR(ReadStringView(v, text));
  if (text.has_value()) out.assign(*text);
  return Status::Ok();
}

Status ReadInternedString(value& v, InternedString& out) {
  std::optional<std::string_view> text;
  ARBITER_RETURN_IF_ERROR(ReadStringView(v, text));
  if (text.has_value()) out = InternedString(*text);
  return Status::Ok();
}

Status ReadOptionalString(value& v, std::optional<std::string>& out) {
  if (IsNull(v)) return Status::Ok();
  std::string s;
  ARBITER_RETURN_IF_ERROR(ReadString(v, s));
  out = std::move(s);
  return Status::Ok();
}

Status ReadBool(value& v, bool& out) {
  bool b = false;
  if (error_code e = v.get_bool().get(b)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "a boolean");
  }
  out = b;
  return Status::Ok();
}

Status ReadInt64(value& v, std::int64_t& out) {
  std::int64_t n = 0;
  if (error_code e = v.get_int64().get(n)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an integer");
  }
  out = n;
  return Status::Ok();
}

Status ReadInt32(value& v, std::int32_t& out) {
  std::int64_t n = out;
  ARBITER_RETURN_IF_ERROR(ReadInt64(v, n));
  if (n < std::numeric_limits<std::int32_t>::min() ||
      n > std::numeric_limits<std::int32_t>::max()) {
    return Here("integer " + std::to_string(n) + " out of int32 range");
  }
  out = static_cast<std::int32_t>(n);
  return Status::Ok();
}

Status ReadTime(value& v, std::optional<Clock::WallTime>& out) {
  std::string_view s;
  if (error_code e = v.get_string().get(s)) {
    return IsNull(v) ? Status::Ok() : TypeError(e, v, "an RFC 3339 time string");
  }
  StatusOr<Clock::WallTime> time = ParseRfc3339(s);
  if (!time.ok()) return Here(time.status().message());
  out = *time;
  return Status::Ok();
}

Status ReadTime(value& v, Clock::WallTime& out) {
  std::optional<Clock::WallTime> time;
  ARBITER_RETURN_IF_ERROR(ReadTime(v, time));
  if (time.has_value()) out = *time;
  return Status::Ok();
}

std::string_view TrimAsciiSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// A quantity as apimachinery's Quantity.UnmarshalJSON reads it: a string or a bare number, with
// surrounding white space ignored; null is zero.
Status ReadQuantity(value& v, Quantity& out) {
  std::string_view text;
  error_code e = v.get_string().get(text);
  if (e == simdjson::INCORRECT_TYPE) {
    json_type type{};
    if (v.type().get(type) == simdjson::SUCCESS && type == json_type::null) {
      out = Quantity();
      return Status::Ok();
    }
    if (v.type().get(type) == simdjson::SUCCESS && type == json_type::number) {
      text = v.raw_json_token();
      e = simdjson::SUCCESS;
    }
  }
  if (e != simdjson::SUCCESS) return TypeError(e, v, "a quantity (string or number)");
  StatusOr<Quantity> q = Quantity::Parse(TrimAsciiSpace(text));
  if (!q.ok()) return Here(q.status().message());
  out = *std::move(q);
  return Status::Ok();
}

namespace {

// Moves `entries` into `out` as one array of their final size. The API server writes a map's keys
// sorted, so they are usually adopted as they come; otherwise (keys unsorted or repeated, or the
// map given twice in the object) they are inserted one by one, sorted, the last of equal keys
// winning as in Go's decoder.
void AdoptEntries(Labels::sequence_type& entries, Labels& out) {
  const bool sorted_unique =
      std::adjacent_find(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return a.first >= b.first;
      }) == entries.end();
  if (sorted_unique && out.empty()) {
    Labels::sequence_type exact;
    exact.reserve(entries.size());
    std::move(entries.begin(), entries.end(), std::back_inserter(exact));
    out.adopt_sequence(boost::container::ordered_unique_range, std::move(exact));
    return;
  }
  out.reserve(out.size() + entries.size());
  for (auto& [key, text] : entries) out.insert_or_assign(std::move(key), std::move(text));
}

}  // namespace

// The entries are gathered in a vector kept per thread and the map built once at its final size:
// inserting them one by one grew its array five times for a pod's five labels.
// (A map's values are strings, so no ReadStringMap runs inside another to share the scratch.)
Status ReadStringMap(value& v, Labels& out, bool (*keep)(std::string_view)) {
  thread_local Labels::sequence_type scratch;
  Status status = ReadMap(v, [&](std::string_view key, value& item) {
    if (keep != nullptr && !keep(key)) return Status::Ok();  // its value is skipped unread
    auto& entry = scratch.emplace_back();
    entry.first = InternedString(key);
    return ReadString(item, entry.second);
  });
  if (status.ok() && !scratch.empty()) AdoptEntries(scratch, out);
  ResetScratch(scratch);
  return status;
}

Status ReadStringArray(value& v, std::vector<std::string>& out) {
  return ReadVector(v, out, ReadString);
}

// A ResourceList or a ResourceQuota's hard/used, in canonical units (UnitOf: "requests.cpu" counts
// millicores as "cpu" does). The amounts are gathered first, so that the list grows once (a
// container's requests grew twice, for cpu and then memory); the names are views of the parser's
// buffer, which holds them until the next document.
Status ReadResourceList(value& v, ResourceList& out) {
  thread_local std::vector<std::pair<std::string_view, std::int64_t>> scratch;
  Status status = ReadMap(v, [&](std::string_view name, value& item) {
    Quantity q;
    ARBITER_RETURN_IF_ERROR(ReadQuantity(item, q));
    if (q.Sign() < 0) return Here("negative quantity " + q.ToString());
    StatusOr<std::int64_t> amount = ToCanonical(name, q);
    if (!amount.ok()) return Here(amount.status().message());
    scratch.emplace_back(name, *amount);
    return Status::Ok();
  });
  if (status.ok()) {
    out.Reserve(out.size() + scratch.size());
    for (const auto& [name, amount] : scratch) out.Set(name, amount);
  }
  ResetScratch(scratch);
  return status;
}

// ---- Shared structures -------------------------------------------------------------------------

Status ReadOwnerReference(value& v, OwnerReference& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "apiVersion") return At("apiVersion", ReadString(f, out.api_version));
    if (key == "kind") return At("kind", ReadString(f, out.kind));
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    if (key == "controller") return At("controller", ReadBool(f, out.controller));
    return Status::Ok();
  });
}

Status ReadMeta(value& v, ObjectMeta& out, bool all_annotations) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "namespace") return At("namespace", ReadInternedString(f, out.namespace_name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    if (key == "resourceVersion") return At("resourceVersion", ReadString(f, out.resource_version));
    if (key == "generation") return At("generation", ReadInt64(f, out.generation));
    if (key == "labels") return At("labels", ReadStringMap(f, out.labels));
    if (key == "annotations") {
      if (all_annotations) return At("annotations", ReadStringMap(f, out.annotations));
      return At("annotations", ReadStringMap(f, out.annotations, KeepsPodAnnotation));
    }
    if (key == "creationTimestamp") {
      return At("creationTimestamp", ReadTime(f, out.creation_timestamp));
    }
    if (key == "deletionTimestamp") {
      return At("deletionTimestamp", ReadTime(f, out.deletion_timestamp));
    }
    if (key == "ownerReferences") {
      return At("ownerReferences", ReadVector(f, out.owner_references, ReadOwnerReference));
    }
    if (key == "finalizers") {
      return At("finalizers", ReadArray(f, [&](value& item) {
                  return ReadString(item, out.finalizers.emplace_back());
                }));
    }
    return Status::Ok();
  });
}

Status ReadConditionField(raw_json_string key, value& f, Condition& out) {
  if (key == "type") return At("type", ReadString(f, out.type));
  if (key == "status") return At("status", ReadString(f, out.status));
  if (key == "reason") return At("reason", ReadString(f, out.reason));
  if (key == "message") return At("message", ReadString(f, out.message));
  if (key == "lastTransitionTime") {
    return At("lastTransitionTime", ReadTime(f, out.last_transition_time));
  }
  return Status::Ok();
}

Status ReadCondition(value& v, Condition& out) {
  return ReadFields(v,
                    [&](raw_json_string key, value& f) { return ReadConditionField(key, f, out); });
}

Status ReadConditions(value& v, std::vector<Condition>& out) {
  return ReadVector(v, out, ReadCondition);
}

Status ReadBody(raw_json_string key, value& f, Namespace& out) {
  if (!(key == "status")) return Status::Ok();
  return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
              if (k == "phase") return At("phase", ReadString(g, out.phase));
              return Status::Ok();
            }));
}

Status ReadBody(raw_json_string key, value& f, PriorityClass& out) {
  if (key == "value") return At("value", ReadInt32(f, out.value));
  if (key == "globalDefault") return At("globalDefault", ReadBool(f, out.global_default));
  if (key == "preemptionPolicy") {
    return At("preemptionPolicy", ReadString(f, out.preemption_policy));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, Lease& out) {
  if (!(key == "spec")) return Status::Ok();
  return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
              if (k == "holderIdentity") {
                return At("holderIdentity", ReadOptionalString(g, out.holder_identity));
              }
              if (k == "leaseDurationSeconds") {
                return At("leaseDurationSeconds", ReadOptionalInt(g, out.lease_duration_seconds));
              }
              if (k == "acquireTime") return At("acquireTime", ReadTime(g, out.acquire_time));
              if (k == "renewTime") return At("renewTime", ReadTime(g, out.renew_time));
              if (k == "leaseTransitions") {
                return At("leaseTransitions", ReadOptionalInt(g, out.lease_transitions));
              }
              return Status::Ok();
            }));
}

Status ReadObjectReference(value& v, ObjectReference& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "apiVersion") return At("apiVersion", ReadString(f, out.api_version));
    if (key == "kind") return At("kind", ReadString(f, out.kind));
    if (key == "namespace") return At("namespace", ReadString(f, out.namespace_name));
    if (key == "name") return At("name", ReadString(f, out.name));
    if (key == "uid") return At("uid", ReadString(f, out.uid));
    return Status::Ok();
  });
}

Status ReadBody(raw_json_string key, value& f, Event& out) {
  if (key == "eventTime") return At("eventTime", ReadTime(f, out.event_time));
  if (key == "reportingController") {
    return At("reportingController", ReadString(f, out.reporting_controller));
  }
  if (key == "reportingInstance") {
    return At("reportingInstance", ReadString(f, out.reporting_instance));
  }
  if (key == "action") return At("action", ReadString(f, out.action));
  if (key == "reason") return At("reason", ReadString(f, out.reason));
  if (key == "note") return At("note", ReadString(f, out.note));
  if (key == "type") return At("type", ReadString(f, out.type));
  if (key == "regarding") return At("regarding", ReadObjectReference(f, out.regarding));
  if (key == "related") {
    if (IsNull(f)) return Status::Ok();
    return At("related", ReadObjectReference(f, out.related.emplace()));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, ResourceQuota& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "hard") return At("hard", ReadResourceList(g, out.spec_hard));
                return Status::Ok();
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "hard") return At("hard", ReadResourceList(g, out.status_hard));
                if (k == "used") return At("used", ReadResourceList(g, out.status_used));
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

Status ReadObservedConditions(value& v, std::vector<ObservedCondition>& out) {
  return ReadArray(v, [&](value& item) {
    ObservedCondition& c = out.emplace_back();
    return ReadFields(item, [&](raw_json_string k, value& g) {
      if (k == "observedGeneration") {
        return At("observedGeneration", ReadInt64(g, c.observed_generation));
      }
      return ReadConditionField(k, g, c.condition);
    });
  });
}

Status ReadLabelSelector(value& v, LabelSelector& out) {
  Status status = ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "matchLabels") return At("matchLabels", ReadStringMap(f, out.match_labels));
    if (key == "matchExpressions") {
      return At("matchExpressions", ReadArray(f, [&](value& item) {
                  LabelSelectorRequirement& req = out.match_expressions.emplace_back();
                  return ReadFields(item, [&](raw_json_string k, value& g) {
                    if (k == "key") return At("key", ReadString(g, req.key));
                    if (k == "values") return At("values", ReadStringArray(g, req.values));
                    if (k == "operator") {
                      std::string op;
                      ARBITER_RETURN_IF_ERROR(At("operator", ReadString(g, op)));
                      StatusOr<SelectorOperator> parsed = ParseSelectorOperator(op);
                      if (!parsed.ok()) return At("operator", Here(parsed.status().message()));
                      req.op = *parsed;
                    }
                    return Status::Ok();
                  });
                }));
    }
    return Status::Ok();
  });
  ARBITER_RETURN_IF_ERROR(status);
  // Validate's message is already a relative path ("matchExpressions[0].values: ...").
  return out.Validate();
}

Status ReadBody(raw_json_string key, value& f, PodDisruptionBudget& out) {
  if (key == "spec") {
    return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k != "selector" || IsNull(g)) return Status::Ok();
                return At("selector", ReadLabelSelector(g, out.selector.emplace()));
              }));
  }
  if (key == "status") {
    return At("status", ReadFields(f, [&](raw_json_string k, value& g) {
                if (k == "disruptionsAllowed") {
                  return At("disruptionsAllowed", ReadInt32(g, out.disruptions_allowed));
                }
                if (k == "observedGeneration") {
                  return At("observedGeneration", ReadInt64(g, out.observed_generation));
                }
                return Status::Ok();
              }));
  }
  return Status::Ok();
}

Status ReadBody(raw_json_string key, value& f, DataSet& out) {
  if (key != "spec") return Status::Ok();
  return At("spec", ReadFields(f, [&](raw_json_string k, value& g) {
              if (k != "blocks") return Status::Ok();
              return At("blocks", ReadArray(g, [&](value& item) {
                          DataBlock& block = out.blocks.emplace_back();
                          return ReadFields(item, [&](raw_json_string bk, value& b) {
                            if (bk == "name") {
                              ARBITER_RETURN_IF_ERROR(At("name", ReadString(b, block.name)));
                              return block.name.empty() ? At("name", Here("must not be empty"))
                                                        : Status::Ok();
                            }
                            if (bk != "nodes") return Status::Ok();
                            ARBITER_RETURN_IF_ERROR(At("nodes", ReadStringArray(b, block.nodes)));
                            for (std::size_t i = 0; i < block.nodes.size(); ++i) {
                              if (block.nodes[i].empty()) {
                                return At("nodes", AtIndex(i, Here("must not be empty")));
                              }
                            }
                            return Status::Ok();
                          });
                        }));
            }));
}

Status ReadApiStatus(value& v, ApiStatus& out) {
  return ReadFields(v, [&](raw_json_string key, value& f) {
    if (key == "code") return At("code", ReadInt32(f, out.code));
    if (key == "status") return At("status", ReadString(f, out.status));
    if (key == "reason") return At("reason", ReadString(f, out.reason));
    if (key == "message") return At("message", ReadString(f, out.message));
    return Status::Ok();
  });
}

// A whole-document error: the path, or simdjson's message, without the ": " lead.
Status DocumentError(std::string_view what, const Status& error) {
  std::string_view inner = error.message();
  if (inner.starts_with(": ")) inner.remove_prefix(2);
  return {error.code(), std::string(what) + ": " + std::string(inner)};
}

Status SimdjsonError(std::string_view what, error_code e) {
  return InvalidArgumentError(std::string(what) +
                              ": malformed JSON: " + simdjson::error_message(e));
}

StatusOr<WatchEventType> ParseWatchEventType(std::string_view text) {
  for (WatchEventType type :
       {WatchEventType::kAdded, WatchEventType::kModified, WatchEventType::kDeleted,
        WatchEventType::kBookmark, WatchEventType::kError}) {
    if (WatchEventTypeName(type) == text) return type;
  }
  return InvalidArgumentError("watch event: unknown type \"" + std::string(text) + "\"");
}

}  // namespace decode_internal

StatusOr<Namespace> DecodeNamespace(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Namespace>(json_value, true);
}
StatusOr<PriorityClass> DecodePriorityClass(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<PriorityClass>(json_value, true);
}
StatusOr<Lease> DecodeLease(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Lease>(json_value, true);
}
StatusOr<Event> DecodeEvent(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<Event>(json_value, true);
}
StatusOr<ResourceQuota> DecodeResourceQuota(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<ResourceQuota>(json_value, true);
}
StatusOr<PodDisruptionBudget> DecodePodDisruptionBudget(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<PodDisruptionBudget>(json_value, true);
}

StatusOr<DataSet> DecodeDataSet(simdjson::ondemand::value json_value) {
  return decode_internal::DecodeTop<DataSet>(json_value, true);
}

StatusOr<ApiStatus> DecodeApiStatus(simdjson::ondemand::value json_value) {
  ApiStatus out;
  Status status = decode_internal::ReadApiStatus(json_value, out);
  if (!status.ok()) return decode_internal::DocumentError("status", status);
  return out;
}

std::optional<std::string> StatusMessageOf(std::string_view line) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS) return std::nullopt;
  std::string_view kind;
  if (doc["kind"].get(kind) != simdjson::SUCCESS || kind != "Status") return std::nullopt;
  std::string_view reason;
  std::string_view message;
  if (doc["reason"].get(reason) != simdjson::SUCCESS) reason = {};
  if (doc["message"].get(message) != simdjson::SUCCESS) message = {};
  std::string out(reason);
  if (!reason.empty() && !message.empty()) out += ": ";
  out += message;
  if (out.empty()) out = "Status";
  return out;
}

std::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "?";
}

StatusOr<Clock::WallTime> ParseRfc3339(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("time \"" + std::string(text) + "\": " + std::string(why));
  };
  std::size_t pos = 0;
  // Reads exactly `width` digits.
  auto digits = [&](std::size_t width, int& out) {
    if (pos + width > text.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < width; ++i) {
      char c = text[pos + i];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    pos += width;
    return true;
  };
  auto expect = [&](char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
  };

  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!digits(4, year) || !expect('-') || !digits(2, month) || !expect('-') || !digits(2, day) ||
      !(expect('T') || expect('t')) || !digits(2, hour) || !expect(':') || !digits(2, minute) ||
      !expect(':') || !digits(2, second)) {
    return bad("not RFC 3339 (want 2006-01-02T15:04:05Z)");
  }
  std::chrono::year_month_day date{std::chrono::year(year),
                                   std::chrono::month(static_cast<unsigned>(month)),
                                   std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return bad("no such date");
  if (hour > 23 || minute > 59 || second > 59) return bad("no such time of day");

  constexpr std::int64_t kNano = 1'000'000'000;
  std::int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::size_t start = pos;
    std::int64_t scale = 100'000'000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      nanos += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad("no digits after the decimal point");
  }

  int offset_minutes = 0;
  if (expect('Z') || expect('z')) {
    // UTC
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0;
    int om = 0;
    if (!digits(2, oh) || !expect(':') || !digits(2, om) || oh > 23 || om > 59) {
      return bad("bad zone offset (want Z or +hh:mm)");
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad("missing zone (want Z or +hh:mm)");
  }
  if (pos != text.size()) return bad("trailing characters");

  // Seconds cannot overflow (years 0000-9999), but WallTime counts nanoseconds in an int64 and so
  // spans only 1677-09-21 to 2262-04-11; a time outside is an error, not a wrapped value.
  std::chrono::sys_seconds seconds = std::chrono::sys_days(date) + std::chrono::hours(hour) +
                                     std::chrono::minutes(minute - offset_minutes) +
                                     std::chrono::seconds(second);
  std::int64_t whole = seconds.time_since_epoch().count();
  if (whole < 0 && nanos > 0) {  // so that the earliest time, -2^63 ns, is not an overflow
    ++whole;
    nanos -= kNano;
  }
  std::optional<std::int64_t> since_epoch = CheckedMul(whole, kNano);
  if (since_epoch.has_value()) since_epoch = CheckedAdd(*since_epoch, nanos);
  if (!since_epoch.has_value()) return bad("outside the years 1677 to 2262 that Arbiter can hold");
  return Clock::WallTime(std::chrono::nanoseconds(*since_epoch));
}

#ifndef ARBITER_DECODE_AVX2_VARIANT

namespace {

bool Avx2Supported() {
#if ARBITER_DECODE_AVX2
  // simdjson has already chosen its kernel for this CPU (and honours
  // SIMDJSON_FORCE_IMPLEMENTATION); "haswell" and "icelake" are the ones whose instructions the
  // AVX2 build uses.
  static const bool kSupported = [] {
    const std::string& name = simdjson::get_active_implementation()->name();
    return name == "haswell" || name == "icelake";
  }();
  return kSupported;
#else
  return false;
#endif
}

std::atomic<DecodeKernel>& CurrentKernel() {
  static std::atomic<DecodeKernel> kernel(Avx2Supported() ? DecodeKernel::kAvx2
                                                          : DecodeKernel::kPortable);
  return kernel;
}

}  // namespace

DecodeKernel ActiveDecodeKernel() { return CurrentKernel().load(std::memory_order_relaxed); }

std::string_view DecodeKernelName(DecodeKernel kernel) {
  return kernel == DecodeKernel::kAvx2 ? "avx2" : "portable";
}

bool SetDecodeKernel(DecodeKernel kernel) {
  if (kernel == DecodeKernel::kAvx2 && !Avx2Supported()) return false;
  CurrentKernel().store(kernel, std::memory_order_relaxed);
  return true;
}

#else

simdjson::ondemand::parser& decode_internal::ThreadParser() {
  thread_local simdjson::ondemand::parser parser;
  return parser;
}

#endif  // ARBITER_DECODE_AVX2_VARIANT

ARBITER_K8S_INSTANTIATE_DECODERS(Namespace);
ARBITER_K8S_INSTANTIATE_DECODERS(PriorityClass);
ARBITER_K8S_INSTANTIATE_DECODERS(Lease);
ARBITER_K8S_INSTANTIATE_DECODERS(Event);
ARBITER_K8S_INSTANTIATE_DECODERS(ResourceQuota);
ARBITER_K8S_INSTANTIATE_DECODERS(PodDisruptionBudget);
ARBITER_K8S_INSTANTIATE_DECODERS(DataSet);

}  // namespace arbiter::k8s
