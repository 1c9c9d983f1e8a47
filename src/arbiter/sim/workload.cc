#include "arbiter/sim/workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "arbiter/model/pod_group.h"
#include "arbiter/resource/quantity.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/sim/yaml_value.h"

namespace arbiter::sim {

std::int64_t JobSpec::pod_count() const {
  std::int64_t n = 0;
  for (const TaskSpec& t : tasks) n += t.replicas;
  return n;
}

std::int64_t Workload::pod_count() const {
  std::int64_t n = 0;
  for (const JobSpec& j : jobs) n += j.pod_count();
  return n;
}

StatusOr<std::int64_t> ParseDurationMs(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double ms;
  };
  // "ms" before "m" and "s", so that "250ms" is not read as 250m + "s".
  static constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  std::string_view number = text;
  double scale = 1000;  // a bare number is seconds
  for (const Unit& unit : kUnits) {
    if (text.size() > unit.suffix.size() && text.ends_with(unit.suffix)) {
      number = text.substr(0, text.size() - unit.suffix.size());
      scale = unit.ms;
      break;
    }
  }
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return InvalidArgumentError("expected a duration such as 250ms, 30s, 5m, 2h or 1.5, got \"" +
                                std::string(text) + "\"");
  }
  if (value < 0) return InvalidArgumentError("a duration must not be negative");
  const double ms = std::round(value * scale);
  // A year of virtual time is far beyond any simulation; the cap keeps sums far from overflow.
  if (ms > 365.0 * 24 * 3'600'000) {
    return InvalidArgumentError("duration \"" + std::string(text) + "\" is longer than a year");
  }
  return static_cast<std::int64_t>(ms);
}

namespace {

using yaml::Known;
using yaml::Value;

constexpr std::int64_t kMaxReplicas = 1'000'000;

// A duration, or a distribution of them, read once and drawn per replica.
class Distribution {
 public:
  static StatusOr<Distribution> Parse(const Value& v, std::int64_t fallback_ms) {
    Distribution d;
    d.low_ = d.high_ = fallback_ms;
    if (v.absent()) return d;
    if (v.node().IsScalar()) {
      ARBITER_ASSIGN_OR_RETURN(std::int64_t ms, Duration(v));
      d.low_ = d.high_ = ms;
      return d;
    }
    ARBITER_RETURN_IF_ERROR(v.CheckKeys({"uniform", "exponential"}));
    const Value uniform = v.Key("uniform");
    const Value exponential = v.Key("exponential");
    if (uniform.absent() == exponential.absent()) {
      return v.Error("expected a duration, {uniform: [low, high]} or {exponential: mean}");
    }
    if (!exponential.absent()) {
      d.kind_ = Kind::kExponential;
      ARBITER_ASSIGN_OR_RETURN(d.low_, Duration(exponential));
      return d;
    }
    if (!uniform.node().IsSequence() || uniform.size() != 2) {
      return uniform.Error("expected [low, high]");
    }
    d.kind_ = Kind::kUniform;
    ARBITER_ASSIGN_OR_RETURN(d.low_, Duration(uniform.Index(0)));
    ARBITER_ASSIGN_OR_RETURN(d.high_, Duration(uniform.Index(1)));
    if (d.high_ < d.low_) return uniform.Error("high is below low");
    return d;
  }

  // Draws nothing from `rng` for a fixed value, so adding a distribution to one job does not
  // change the draws of the others before it.
  std::int64_t Draw(std::mt19937_64& rng) const {
    switch (kind_) {
      case Kind::kFixed:
        return low_;
      case Kind::kUniform: {
        const auto span = static_cast<std::uint64_t>(high_ - low_) + 1;
        return low_ + static_cast<std::int64_t>(rng() % span);
      }
      case Kind::kExponential: {
        // 53 random bits as a double in [0, 1): the engine's output is fixed by the standard,
        // unlike std::exponential_distribution's algorithm.
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        return static_cast<std::int64_t>(std::llround(-static_cast<double>(low_) * std::log1p(-u)));
      }
    }
    return low_;
  }

 private:
  enum class Kind { kFixed, kUniform, kExponential };

  static StatusOr<std::int64_t> Duration(const Value& v) {
    ARBITER_ASSIGN_OR_RETURN(std::string text, v.RequiredString());
    StatusOr<std::int64_t> ms = ParseDurationMs(text);
    if (!ms.ok()) return v.Error(ms.status().message());
    return *ms;
  }

  Kind kind_ = Kind::kFixed;
  std::int64_t low_ = 0;  // the mean, for kExponential
  std::int64_t high_ = 0;
};

StatusOr<std::int32_t> Int32(const Value& v, std::int64_t fallback, std::int64_t min) {
  ARBITER_ASSIGN_OR_RETURN(std::int64_t n, v.Int(fallback, min));
  return static_cast<std::int32_t>(n);
}

StatusOr<TaskSpec> ParseTask(const Value& v, std::set<std::string>& names) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "replicas", "requests", "priority", "nodeSelector", "tolerations"}));
  TaskSpec task;
  ARBITER_ASSIGN_OR_RETURN(task.name, v.Key("name").RequiredString());
  if (!names.insert(task.name).second) return v.Key("name").Error("task defined twice");
  ARBITER_ASSIGN_OR_RETURN(task.replicas, Int32(v.Key("replicas"), 1, 1));
  ARBITER_ASSIGN_OR_RETURN(task.requests, v.Key("requests").Resources());
  if (!v.Key("priority").absent()) {
    ARBITER_ASSIGN_OR_RETURN(task.priority,
                             Int32(v.Key("priority"), 0, std::numeric_limits<std::int32_t>::min()));
  }
  ARBITER_ASSIGN_OR_RETURN(task.node_selector, v.Key("nodeSelector").StringMap());
  const Value tolerations = v.Key("tolerations");
  ARBITER_RETURN_IF_ERROR(tolerations.CheckList());
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(Toleration t, yaml::ParseToleration(tolerations.Index(i)));
    task.tolerations.push_back(std::move(t));
  }
  return task;
}

// One `jobs:` entry: its replicas, their times drawn from `rng`.
Status ParseJobs(const Value& v, std::mt19937_64& rng, std::set<std::string>& job_names,
                 std::vector<JobSpec>& out) {
  ARBITER_RETURN_IF_ERROR(
      v.CheckKeys({"name", "replicas", "namespace", "queue", "priorityClassName", "minMember",
                   "arrival", "interval", "duration", "runForHint", "topology", "locality",
                   "idempotent", "preemptable", "tasks"}));
  JobSpec job;
  if (const Value t = v.Key("topology"); !t.absent()) {
    ARBITER_ASSIGN_OR_RETURN(job.topology, yaml::ParseTopology(t));
  }
  if (const Value l = v.Key("locality"); !l.absent()) {
    ARBITER_ASSIGN_OR_RETURN(job.locality, yaml::ParseLocality(l));
  }
  if (const Value hint = v.Key("runForHint"); !hint.absent()) {
    double factor = 0;
    if (!hint.node().IsScalar() || !YAML::convert<double>::decode(hint.node(), factor) ||
        !(factor >= 0.01 && factor <= 100)) {
      return hint.Error("expected a factor of the duration from 0.01 to 100");
    }
    job.run_for_hint = factor;
  }
  ARBITER_ASSIGN_OR_RETURN(job.idempotent, v.Key("idempotent").Bool(false));
  ARBITER_ASSIGN_OR_RETURN(job.preemptable, v.Key("preemptable").Bool(false));
  ARBITER_ASSIGN_OR_RETURN(job.namespace_name, v.Key("namespace").String("default"));
  ARBITER_ASSIGN_OR_RETURN(job.queue, v.Key("queue").String(std::string(kDefaultQueueName)));
  ARBITER_ASSIGN_OR_RETURN(job.priority_class_name, v.Key("priorityClassName").String());
  job.queue_origin = v.Key("queue").Where();
  job.priority_class_origin = v.Key("priorityClassName").Where();
  const Value tasks = v.Key("tasks");
  if (tasks.absent()) return tasks.Error("required: the job's pods, by role");
  ARBITER_RETURN_IF_ERROR(tasks.CheckList());
  std::set<std::string> task_names;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    ARBITER_ASSIGN_OR_RETURN(TaskSpec task, ParseTask(tasks.Index(i), task_names));
    job.tasks.push_back(std::move(task));
  }
  if (job.tasks.empty()) return tasks.Error("expected at least one task");
  const std::int64_t pods = job.pod_count();
  ARBITER_ASSIGN_OR_RETURN(job.min_member, Int32(v.Key("minMember"), pods, 1));
  if (job.min_member > pods) {
    return v.Key("minMember")
        .Error(std::to_string(job.min_member) + " is more than the job's " + std::to_string(pods) +
               " pods");
  }
  ARBITER_ASSIGN_OR_RETURN(Distribution arrival, Distribution::Parse(v.Key("arrival"), 0));
  ARBITER_ASSIGN_OR_RETURN(Distribution interval, Distribution::Parse(v.Key("interval"), 0));
  if (v.Key("duration").absent()) return v.Key("duration").Error("required");
  ARBITER_ASSIGN_OR_RETURN(Distribution duration, Distribution::Parse(v.Key("duration"), 0));

  ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> names, yaml::ReplicaNames(v, kMaxReplicas));
  std::int64_t at = arrival.Draw(rng);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) at += interval.Draw(rng);
    job.name = names[i];
    if (!job_names.insert(job.namespace_name + "/" + job.name).second) {
      return v.Key("name").Error("job " + job.namespace_name + "/" + job.name + " defined twice");
    }
    job.arrival_ms = at;
    job.duration_ms = duration.Draw(rng);
    out.push_back(job);
  }
  return Status::Ok();
}

// Splits one CSV line (no quoting: names and quantities never need it).
std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell = line.substr(start, comma - start);
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t' || cell.back() == '\r')) {
      cell.remove_suffix(1);
    }
    cells.push_back(cell);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

}  // namespace

StatusOr<ClusterSpec> ParseClusterSpec(std::string_view yaml, std::string_view source) {
  const std::string name(source);
  return yaml::WithDocument(yaml, name, [&](const YAML::Node& root) -> StatusOr<ClusterSpec> {
    const Value v(name, root, "", 0);
    if (!root.IsMap()) return v.Error("expected a mapping");
    ARBITER_RETURN_IF_ERROR(
        v.CheckKeys({"description", "nodes", "queues", "priorityClasses", "dataSets"}));
    ClusterSpec spec;
    spec.source = name;
    ARBITER_ASSIGN_OR_RETURN(spec.description, v.Key("description").String());
    Known known;
    const Value nodes = v.Key("nodes");
    ARBITER_RETURN_IF_ERROR(nodes.CheckList());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(std::vector<Node> more, yaml::ParseNodes(nodes.Index(i), known));
      for (Node& n : more) spec.nodes.push_back(std::move(n));
    }
    if (spec.nodes.empty()) return nodes.Error("expected at least one node");
    const Value queues = v.Key("queues");
    ARBITER_RETURN_IF_ERROR(queues.CheckList());
    for (std::size_t i = 0; i < queues.size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(Queue q, yaml::ParseQueue(queues.Index(i), known));
      spec.queues.push_back(std::move(q));
    }
    const Value classes = v.Key("priorityClasses");
    ARBITER_RETURN_IF_ERROR(classes.CheckList());
    for (std::size_t i = 0; i < classes.size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(PriorityClass pc, yaml::ParsePriorityClass(classes.Index(i), known));
      spec.priority_classes.push_back(std::move(pc));
    }
    const Value data_sets = v.Key("dataSets");
    ARBITER_RETURN_IF_ERROR(data_sets.CheckList());
    for (std::size_t i = 0; i < data_sets.size(); ++i) {
      ARBITER_ASSIGN_OR_RETURN(DataSet d, yaml::ParseDataSet(data_sets.Index(i), known));
      spec.data_sets.push_back(std::move(d));
    }
    return spec;
  });
}

StatusOr<ClusterSpec> LoadClusterFile(const std::string& path) {
  ARBITER_ASSIGN_OR_RETURN(std::string text, yaml::ReadFile(path, "cluster file"));
  return ParseClusterSpec(text, path);
}

StatusOr<std::vector<JobSpec>> ParseTrace(std::string_view csv, std::string_view source) {
  const std::string name(source);
  static const std::set<std::string, std::less<>> kRequired = {"submit", "name",   "pods",
                                                               "cpu",    "memory", "duration"};
  static const std::set<std::string, std::less<>> kKnown = {
      "submit", "name",      "pods",      "cpu", "memory",  "duration",
      "queue",  "namespace", "minMember", "gpu", "priority"};
  std::map<std::string, std::size_t, std::less<>> column;
  std::vector<JobSpec> jobs;
  std::set<std::string> seen;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < csv.size()) {
    const std::size_t eol = csv.find('\n', pos);
    const std::string_view line =
        csv.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? csv.size() : eol + 1;
    ++line_no;
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    const std::vector<std::string_view> cells = SplitCsv(line);
    if (cells.size() == 1 && cells[0].empty()) continue;
    if (!cells[0].empty() && cells[0].front() == '#') continue;
    if (column.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (!kKnown.contains(cells[i])) {
          return InvalidArgumentError(where + "unknown column \"" + std::string(cells[i]) +
                                      "\" (known: " + yaml::Join(kKnown) + ")");
        }
        if (!column.emplace(std::string(cells[i]), i).second) {
          return InvalidArgumentError(where + "column " + std::string(cells[i]) + " twice");
        }
      }
      for (const std::string& r : kRequired) {
        if (!column.contains(r)) {
          return InvalidArgumentError(
              fmt::format("{}missing column {} (required: {})", where, r, yaml::Join(kRequired)));
        }
      }
      continue;
    }
    if (cells.size() != column.size()) {
      return InvalidArgumentError(where + "expected " + std::to_string(column.size()) +
                                  " cells, got " + std::to_string(cells.size()));
    }
    auto cell = [&](std::string_view col) -> std::string_view {
      auto it = column.find(col);
      return it == column.end() ? std::string_view() : cells[it->second];
    };
    auto error = [&](std::string_view col, const std::string& what) {
      return InvalidArgumentError(fmt::format("{}column {}: {}", where, col, what));
    };
    auto integer = [&](std::string_view col, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) -> StatusOr<std::int64_t> {
      const std::string_view text = cell(col);
      if (text.empty()) return fallback;
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) {
        return error(col, "expected an integer, got \"" + std::string(text) + "\"");
      }
      if (v < min || v > max) {
        return error(col, std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                              std::to_string(max) + "]");
      }
      return v;
    };
    auto seconds = [&](std::string_view col) -> StatusOr<std::int64_t> {
      StatusOr<std::int64_t> ms = ParseDurationMs(cell(col));
      if (!ms.ok()) return error(col, ms.status().message());
      return *ms;
    };
    auto quantity = [&](std::string_view col, std::string_view resource,
                        ResourceList& list) -> Status {
      const std::string_view text = cell(col);
      if (text.empty()) return Status::Ok();
      StatusOr<Quantity> q = Quantity::Parse(text);
      if (!q.ok()) return error(col, q.status().message());
      StatusOr<std::int64_t> v = ToCanonical(resource, *q);
      if (!v.ok()) return error(col, v.status().message());
      if (*v > 0) list.Set(resource, *v);
      return Status::Ok();
    };

    JobSpec job;
    job.name = std::string(cell("name"));
    if (job.name.empty()) return error("name", "must not be empty");
    if (!cell("namespace").empty()) job.namespace_name = std::string(cell("namespace"));
    if (!cell("queue").empty()) job.queue = std::string(cell("queue"));
    job.queue_origin = where + "column queue";
    if (!seen.insert(job.namespace_name + "/" + job.name).second) {
      return error("name", "job " + job.namespace_name + "/" + job.name + " appears twice");
    }
    ARBITER_ASSIGN_OR_RETURN(job.arrival_ms, seconds("submit"));
    ARBITER_ASSIGN_OR_RETURN(job.duration_ms, seconds("duration"));
    TaskSpec task;
    task.name = "main";
    ARBITER_ASSIGN_OR_RETURN(std::int64_t pods, integer("pods", 0, 1, 100'000));
    if (cell("pods").empty()) return error("pods", "required");
    task.replicas = static_cast<std::int32_t>(pods);
    ARBITER_ASSIGN_OR_RETURN(std::int64_t min_member, integer("minMember", pods, 1, pods));
    job.min_member = static_cast<std::int32_t>(min_member);
    ARBITER_RETURN_IF_ERROR(quantity("cpu", kResourceCpu, task.requests));
    ARBITER_RETURN_IF_ERROR(quantity("memory", kResourceMemory, task.requests));
    ARBITER_RETURN_IF_ERROR(quantity("gpu", "nvidia.com/gpu", task.requests));
    if (!cell("priority").empty()) {
      ARBITER_ASSIGN_OR_RETURN(std::int64_t priority,
                               integer("priority", 0, std::numeric_limits<std::int32_t>::min(),
                                       std::numeric_limits<std::int32_t>::max()));
      task.priority = static_cast<std::int32_t>(priority);
    }
    job.tasks.push_back(std::move(task));
    jobs.push_back(std::move(job));
  }
  if (column.empty()) return InvalidArgumentError(name + ": empty trace (no header line)");
  return jobs;
}

StatusOr<Workload> ParseWorkload(std::string_view yaml, std::string_view source, std::uint64_t seed,
                                 const std::string& base_dir) {
  const std::string name(source);
  return yaml::WithDocument(yaml, name, [&](const YAML::Node& root) -> StatusOr<Workload> {
    const Value v(name, root, "", 0);
    if (!root.IsMap()) return v.Error("expected a mapping");
    ARBITER_RETURN_IF_ERROR(
        v.CheckKeys({"description", "period", "horizon", "nodeSpeeds", "jobs", "trace"}));
    Workload w;
    w.source = name;
    ARBITER_ASSIGN_OR_RETURN(w.description, v.Key("description").String());
    for (const char* key : {"period", "horizon"}) {
      const Value value = v.Key(key);
      if (value.absent()) continue;
      ARBITER_ASSIGN_OR_RETURN(std::string text, value.RequiredString());
      StatusOr<std::int64_t> ms = ParseDurationMs(text);
      if (!ms.ok()) return value.Error(ms.status().message());
      if (std::string_view(key) == "period") {
        if (*ms <= 0) return value.Error("must be positive");
        w.period_ms = *ms;
      } else {
        w.horizon_ms = *ms;
      }
    }
    const Value speeds = v.Key("nodeSpeeds");
    ARBITER_RETURN_IF_ERROR(speeds.CheckList());
    for (std::size_t i = 0; i < speeds.size(); ++i) {
      const Value entry = speeds.Index(i);
      ARBITER_RETURN_IF_ERROR(entry.CheckKeys({"nodes", "speed"}));
      const Value speed = entry.Key("speed");
      double factor = 0;
      if (!speed.node().IsScalar() || !YAML::convert<double>::decode(speed.node(), factor) ||
          !(factor >= 0.01 && factor <= 100)) {
        return speed.Error("expected a speed factor from 0.01 to 100");
      }
      ARBITER_ASSIGN_OR_RETURN(std::vector<std::string> nodes, entry.Key("nodes").StringList());
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        if (!w.node_speeds.emplace(nodes[n], factor).second) {
          return entry.Key("nodes").Index(n).Error("node " + nodes[n] + " has a speed already");
        }
      }
    }
    std::mt19937_64 rng(seed);
    std::set<std::string> job_names;
    const Value jobs = v.Key("jobs");
    ARBITER_RETURN_IF_ERROR(jobs.CheckList());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      ARBITER_RETURN_IF_ERROR(ParseJobs(jobs.Index(i), rng, job_names, w.jobs));
    }
    if (const Value trace = v.Key("trace"); !trace.absent()) {
      ARBITER_ASSIGN_OR_RETURN(std::string path, trace.RequiredString());
      if (!base_dir.empty() && std::filesystem::path(path).is_relative()) {
        path = (std::filesystem::path(base_dir) / path).string();
      }
      StatusOr<std::string> text = yaml::ReadFile(path, "trace");
      if (!text.ok()) return trace.Error(text.status().message());
      ARBITER_ASSIGN_OR_RETURN(std::vector<JobSpec> traced, ParseTrace(*text, path));
      for (JobSpec& job : traced) {
        if (!job_names.insert(job.namespace_name + "/" + job.name).second) {
          return trace.Error(fmt::format("{}: job {}/{} is also in the jobs of {}", path,
                                         job.namespace_name, job.name, name));
        }
        w.jobs.push_back(std::move(job));
      }
    }
    if (w.jobs.empty()) return v.Key("jobs").Error("expected at least one job (jobs or trace)");
    std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const JobSpec& a, const JobSpec& b) {
      return a.arrival_ms < b.arrival_ms;
    });
    return w;
  });
}

StatusOr<Workload> LoadWorkloadFile(const std::string& path, std::uint64_t seed) {
  ARBITER_ASSIGN_OR_RETURN(std::string text, yaml::ReadFile(path, "workload file"));
  return ParseWorkload(text, path, seed, std::filesystem::path(path).parent_path().string());
}

}  // namespace arbiter::sim
