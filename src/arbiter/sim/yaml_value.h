// The typed YAML reader behind the simulator's input files (scenarios, clusters, workloads), and
// the parsers of the objects they share (nodes, queues, priority classes, pod placement fields).
//
// Every error names the file, the line and the path of the offending value, e.g.
//   bench/sim/w.yaml:12: jobs[2].tasks[0]: unknown key "reqests" (known: name, ...)
// Values know where they are: an absent key keeps its parent's line. Quantities are parsed as the
// API server does and stored in canonical units.
//
// Internal to sim/: the formats themselves are documented in scenario.h and workload.h.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "arbiter/base/status.h"
#include "arbiter/model/data_set.h"
#include "arbiter/model/node.h"
#include "arbiter/model/pod.h"
#include "arbiter/model/pod_group.h"
#include "arbiter/model/priority_class.h"
#include "arbiter/model/queue.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_list.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::sim::yaml {

inline std::string Join(const std::set<std::string, std::less<>>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// One value of the document with where it is (file, line, path from the root), and typed
// readers whose errors say so. An absent value (a key not given) keeps its parent's line.
class Value {
 public:
  Value(const std::string& source, const YAML::Node& node, std::string path, int parent_line)
      : source_(&source), node_(node), path_(std::move(path)) {
    const YAML::Mark mark = node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark();
    line_ = mark.is_null() ? parent_line : mark.line + 1;
  }

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  bool absent() const { return !node_.IsDefined() || node_.IsNull(); }

  Status Error(const std::string& what) const {
    return Raw((path_.empty() ? "(root)" : path_) + ": " + what);
  }
  // "<file>:<line>: <path>", to name this value in an error found later.
  std::string Where() const {
    std::string out = *source_;
    if (line_ > 0) out += ":" + std::to_string(line_);
    return out + ": " + (path_.empty() ? "(root)" : path_);
  }
  // An error whose text names its own path ("<file>:<line>: " + what).
  Status Raw(const std::string& what) const {
    std::string out = *source_;
    if (line_ > 0) out += ":" + std::to_string(line_);
    return InvalidArgumentError(out + ": " + what);
  }

  Value Key(const std::string& key) const {
    // Copy-constructed, never assigned: assigning a yaml-cpp node copies into it.
    const YAML::Node child = !absent() && node_.IsMap() ? node_[key] : YAML::Node();
    return {*source_, child, path_.empty() ? key : path_ + "." + key, line_};
  }
  Value Index(std::size_t i) const {
    return {*source_, node_[i], path_ + "[" + std::to_string(i) + "]", line_};
  }
  std::size_t size() const { return absent() ? 0 : node_.size(); }

  // Requires a mapping (or nothing) whose keys are all in `allowed`.
  Status CheckKeys(const std::set<std::string, std::less<>>& allowed) const {
    if (absent()) return Status::Ok();
    if (!node_.IsMap()) return Error("expected a mapping");
    for (const auto& kv : node_) {
      const std::string key = kv.first.Scalar();
      if (!allowed.contains(key)) {
        Value at(*source_, kv.first, path_, line_);
        return at.Error("unknown key \"" + key + "\" (known: " + Join(allowed) + ")");
      }
    }
    return Status::Ok();
  }
  // Requires a sequence (or nothing).
  Status CheckList() const {
    if (!absent() && !node_.IsSequence()) return Error("expected a list");
    return Status::Ok();
  }
  // The entries of a mapping (or nothing), with their values.
  StatusOr<std::vector<std::pair<std::string, Value>>> Entries() const {
    std::vector<std::pair<std::string, Value>> out;
    if (absent()) return out;
    if (!node_.IsMap()) return Error("expected a mapping");
    for (const auto& kv : node_) {
      const std::string key = kv.first.Scalar();
      out.emplace_back(key, Value(*source_, kv.second, Key(key).path(), line_));
    }
    return out;
  }

  StatusOr<std::string> String(const std::string& fallback = "") const {
    if (absent()) return fallback;
    if (!node_.IsScalar()) return Error("expected a string");
    return node_.Scalar();
  }
  StatusOr<std::string> RequiredString() const {
    if (absent()) return Error("required");
    ARBITER_ASSIGN_OR_RETURN(std::string s, String());
    if (s.empty()) return Error("must not be empty");
    return s;
  }
  StatusOr<std::int64_t> Int(std::int64_t fallback, std::int64_t min,
                             std::int64_t max = std::numeric_limits<std::int32_t>::max()) const {
    if (absent()) return fallback;
    if (!node_.IsScalar()) return Error("expected an integer");
    const std::string& text = node_.Scalar();
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Error("expected an integer, got \"" + text + "\"");
    }
    if (v < min || v > max) {
      return Error(std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                   std::to_string(max) + "]");
    }
    return v;
  }
  StatusOr<bool> Bool(bool fallback) const {
    if (absent()) return fallback;
    bool out = false;
    if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, out)) {
      return Error("expected true or false");
    }
    return out;
  }
  StatusOr<std::vector<std::string>> StringList() const {
    std::vector<std::string> out;
    ARBITER_RETURN_IF_ERROR(CheckList());
    if (absent()) return out;
    for (std::size_t i = 0; i < size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(std::string s, Index(i).RequiredString());
      out.push_back(std::move(s));
    }
    return out;
  }
  StatusOr<Labels> StringMap() const {
    Labels out;
    ARBITER_ASSIGN_OR_RETURN(auto entries, Entries());
    for (const auto& [key, value] : entries) {
      ARBITER_ASSIGN_OR_RETURN(out[key], value.String());
    }
    return out;
  }
  // A map of resource name to Kubernetes quantity, in canonical units.
  StatusOr<ResourceList> Resources() const {
    ResourceList out;
    ARBITER_ASSIGN_OR_RETURN(auto entries, Entries());
    for (const auto& [name, value] : entries) {
      ARBITER_RETURN_IF_ERROR(value.SetResource(name, out));
    }
    return out;
  }
  // Parses this value as a quantity of `resource` into `list`.
  Status SetResource(const std::string& resource, ResourceList& list) const {
    ARBITER_ASSIGN_OR_RETURN(std::string text, RequiredString());
    StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) return Error(q.status().message());
    StatusOr<std::int64_t> v = ToCanonical(resource, *q);
    if (!v.ok()) return Error(v.status().message());
    list.Set(resource, *v);
    return Status::Ok();
  }

 private:
  const std::string* source_;
  YAML::Node node_;
  std::string path_;
  int line_ = 0;
};

// The names that exist at the current point of the file, so that events and expectations can
// be checked when they are read.
struct Known {
  std::set<std::string> nodes;
  std::set<std::string> pods;    // namespace/name
  std::set<std::string> groups;  // PodGroups and groups named by pods, namespace/name
  std::set<std::string> queues;
  std::set<std::string> priority_classes;
  std::set<std::string> data_sets;  // namespace/name
};

// Runs `convert` on the parsed document, turning yaml-cpp's exceptions into errors that name
// `source` and the line.
template <typename Convert>
auto WithDocument(std::string_view text, const std::string& source, Convert convert)
    -> decltype(convert(YAML::Node())) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(source + ":" + std::to_string(e.mark.line + 1) +
                                ": not valid YAML: " + e.msg);
  }
  try {
    return convert(root);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

// The whole file; NotFound "<what> <path>: cannot be read" when it cannot be opened.
StatusOr<std::string> ReadFile(const std::string& path, std::string_view what);

// `replicas: n` turns one entry into n objects named name-0 ... name-(n-1) (at most `max`).
StatusOr<std::vector<std::string>> ReplicaNames(const Value& v, std::int64_t max = 100000);
StatusOr<std::vector<Node>> ParseNodes(const Value& v, Known& known);
StatusOr<PriorityClass> ParsePriorityClass(const Value& v, Known& known);
StatusOr<Queue> ParseQueue(const Value& v, Known& known);
StatusOr<Toleration> ParseToleration(const Value& v);
// `topology: {mode: Required|Preferred, level: rack, maxWaitSeconds: 60}` (a PodGroup's).
StatusOr<TopologyRequest> ParseTopology(const Value& v);
// `locality: {nodes: [n1, n2], racks: [r1], dataSet: d}` (a PodGroup's: where the job's data
// lives).
StatusOr<LocalityRequest> ParseLocality(const Value& v);
// `{name: d, namespace: team-a, blocks: [{name: b0, nodes: [n1, n2]}]}`: a DataSet, whose
// replicas must be on nodes defined before it (known.nodes).
StatusOr<DataSet> ParseDataSet(const Value& v, Known& known);
StatusOr<NodeSelector> ParseNodeAffinity(const Value& v);
StatusOr<std::vector<HostPort>> ParseHostPorts(const Value& v);

}  // namespace arbiter::sim::yaml
