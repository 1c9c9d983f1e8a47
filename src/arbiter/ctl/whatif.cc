#include "arbiter/ctl/whatif.h"

#include <optional>
#include <utility>

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include "arbiter/controllers/batchjob_sync.h"
#include "arbiter/ctl/views.h"
#include "arbiter/k8s/decode.h"
#include "arbiter/model/batch_job.h"
#include "arbiter/sim/run_time.h"

namespace arbiter::ctl {

namespace {

// A plain scalar as YAML 1.2's core schema reads it (what kubectl's decoder does); quoted ones
// stay strings.
nlohmann::json Scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  std::size_t used = 0;
  try {
    const long long n = std::stoll(text, &used, 10);
    if (used == text.size()) return n;
  } catch (const std::exception&) {  // not an integer
  }
  try {
    const double d = std::stod(text, &used);
    const bool numeric = text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    if (used == text.size() && numeric) return d;
  } catch (const std::exception&) {  // not a number
  }
  return text;
}

nlohmann::json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return Scalar(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node) out.push_back(ToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = ToJson(entry.second);
      return out;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
  }
  return nullptr;
}

template <typename T>
StatusOr<T> DecodeJson(const nlohmann::json& json) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(json.dump());
  return k8s::DecodeObject<T>(parser, padded);
}

std::string NameOf(const nlohmann::json& doc) {
  if (doc.contains("metadata") && doc["metadata"].is_object() && doc["metadata"].contains("name") &&
      doc["metadata"]["name"].is_string()) {
    return doc["metadata"]["name"].get<std::string>();
  }
  return "";
}

}  // namespace

StatusOr<std::vector<nlohmann::json>> ParseManifests(std::string_view text,
                                                     std::string_view source) {
  std::vector<nlohmann::json> out;
  try {
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      nlohmann::json json = ToJson(doc);
      if (!json.is_null()) out.push_back(std::move(json));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(source) + ":" + std::to_string(e.mark.line + 1) + ": " +
                                e.msg);
  }
  return out;
}

StatusOr<WhatIfJob> WhatIfJobFrom(const std::vector<nlohmann::json>& documents,
                                  const std::string& default_namespace,
                                  const std::string& scheduler_name, Clock::WallTime now) {
  std::optional<PodGroup> group;
  std::optional<BatchJob> batch_job;
  std::vector<Pod> pods;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const nlohmann::json& doc = documents[i];
    const std::string kind = doc.is_object() && doc.contains("kind") && doc["kind"].is_string()
                                 ? doc["kind"].get<std::string>()
                                 : "";
    const std::string where = "document " + std::to_string(i + 1) + " (" +
                              (kind.empty() ? "no kind" : kind) +
                              (NameOf(doc).empty() ? "" : " " + NameOf(doc)) + ")";
    const auto bad = [&](const Status& s) {
      return InvalidArgumentError(where + ": " + s.message());
    };
    if (kind == "PodGroup") {
      if (group) return InvalidArgumentError(where + ": a second PodGroup (one job at a time)");
      StatusOr<PodGroup> g = DecodeJson<PodGroup>(doc);
      if (!g.ok()) return bad(g.status());
      group = *std::move(g);
    } else if (kind == "Pod") {
      StatusOr<Pod> p = DecodeJson<Pod>(doc);
      if (!p.ok()) return bad(p.status());
      pods.push_back(*std::move(p));
    } else if (kind == "BatchJob") {
      if (batch_job) return InvalidArgumentError(where + ": a second BatchJob (one job at a time)");
      StatusOr<BatchJob> j = DecodeJson<BatchJob>(doc);
      if (!j.ok()) return bad(j.status());
      batch_job = *std::move(j);
    } else {
      return InvalidArgumentError(where + ": kind: want PodGroup, Pod or BatchJob");
    }
  }
  if (batch_job && (group || !pods.empty())) {
    return InvalidArgumentError("a BatchJob makes its own PodGroup and pods: give it alone");
  }
  WhatIfJob out;
  if (batch_job) {
    BatchJob& job = *batch_job;
    if (job.meta.namespace_name.empty()) job.meta.namespace_name = default_namespace;
    if (job.meta.uid.empty()) job.meta.uid = "whatif/" + job.meta.Key();
    group = controllers::JobPodGroup(job);
    controllers::JobObservation observation;
    observation.job = &job;
    observation.group = &*group;
    observation.now = now;
    observation.scheduler_name = scheduler_name;
    for (const controllers::PodToCreate& p : controllers::PlanBatchJob(observation).create_pods) {
      StatusOr<Pod> pod = DecodeJson<Pod>(nlohmann::json::parse(p.json));
      if (!pod.ok()) {
        return InvalidArgumentError("BatchJob " + job.meta.Key() + ": pod " + p.name + ": " +
                                    pod.status().message());
      }
      pods.push_back(*std::move(pod));
    }
    out.kind = "BatchJob";
  }
  if (pods.empty()) return InvalidArgumentError("no pods: the job needs pods to be placed");
  if (group) {
    if (group->meta.namespace_name.empty()) group->meta.namespace_name = default_namespace;
    if (group->meta.uid.empty()) group->meta.uid = "whatif/" + group->meta.Key();
    if (out.kind.empty()) out.kind = "PodGroup";
  } else if (pods.size() > 1) {
    return InvalidArgumentError(std::to_string(pods.size()) +
                                " pods and no PodGroup: give the PodGroup that gangs them");
  } else {
    out.kind = "Pod";
  }
  for (Pod& pod : pods) {
    if (pod.meta.namespace_name.empty()) pod.meta.namespace_name = default_namespace;
    if (pod.spec.scheduler_name.empty()) pod.spec.scheduler_name = scheduler_name;
    if (group) {
      const std::string named = PodGroupNameOf(pod);
      if (named.empty()) {
        pod.meta.labels[std::string(kPodGroupLabel)] = group->meta.name;
      } else if (named != group->meta.name ||
                 pod.meta.namespace_name != group->meta.namespace_name) {
        return InvalidArgumentError("pod " + pod.meta.Key() + " names PodGroup " +
                                    pod.meta.namespace_name + "/" + named + ", not " +
                                    group->meta.Key());
      }
    }
    if (pod.meta.uid.empty()) pod.meta.uid = "whatif/" + pod.meta.Key();
  }
  std::vector<const Pod*> pointers;
  pointers.reserve(pods.size());
  for (const Pod& pod : pods) pointers.push_back(&pod);
  out.job.run_time = sim::RunTimeOfObjects(group ? &*group : nullptr, pointers);
  out.key = group ? group->meta.Key() : pods.front().meta.Key();
  out.job.group = std::move(group);
  out.job.pods = std::move(pods);
  return out;
}

std::string FormatWhatIf(const WhatIfJob& job, const sim::ForecastResult& forecast) {
  std::string out = job.kind + " " + job.key + " (not submitted): ";
  auto it = forecast.estimates.find(job.key);
  if (it == forecast.estimates.end()) return out + "not estimated\n";
  const sim::JobEstimate& e = it->second;
  if (!e.start) {
    out += "would not start within the forecast";
  } else if (*e.start <= forecast.now) {
    out += "would start now";
  } else {
    out += "would start in " + ShortDuration(*e.start - forecast.now) + " (" +
           FormatRfc3339(*e.start) + ")";
  }
  out += ", confidence " + std::string(sim::ConfidenceName(e.confidence)) + "\n";
  out += "  assumes:  " + sim::DescribeAssumptions(e, forecast) + "\n";
  out += "  forecast: " + std::to_string(forecast.sessions) + " sessions to " +
         FormatRfc3339(forecast.until) + " (" + forecast.end_reason + ")\n";
  return out;
}

}  // namespace arbiter::ctl
