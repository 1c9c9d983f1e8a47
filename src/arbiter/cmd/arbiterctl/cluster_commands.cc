#include "cluster_commands.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/ctl/output.h"
#include "arbiter/ctl/top.h"
#include "arbiter/ctl/views.h"
#include "arbiter/ctl/whatif.h"
#include "arbiter/framework/config.h"
#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/decode.h"
#include "arbiter/model/batch_job.h"
#include "arbiter/resource/resource_name.h"
#include "arbiter/runtime/flag_values.h"
#include "arbiter/runtime/informers.h"
#include "arbiter/runtime/setup.h"
#include "arbiter/sim/forecast.h"

namespace arbiterctl {

namespace {

using arbiter::PodGroup;
using arbiter::Queue;
using arbiter::Status;
using arbiter::StatusCode;
using arbiter::StatusOr;
using Json = nlohmann::ordered_json;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr std::string_view kGroups = "/apis/arbiter.dev/v1alpha1";

int Fail(int code, const std::string& message) {
  std::cerr << "arbiterctl: " << message << "\n";
  return code;
}

struct Connection {
  std::unique_ptr<arbiter::k8s::HttpTransport> transport;
  arbiter::k8s::RestConfig rest;
};

StatusOr<Connection> Connect(const ClusterFlags& flags) {
  Connection c;
  arbiter::runtime::ApiConnection connection{.kubeconfig = flags.kubeconfig,
                                             .context = flags.context,
                                             .qps = 50,
                                             .burst = 100,
                                             .user_agent = "arbiterctl/0.1",
                                             .on_request = {}};
  ARBITER_RETURN_IF_ERROR(
      arbiter::cmd::ApplyConnectionPolicyFlags(flags.connection_policy, connection));
  StatusOr<std::unique_ptr<arbiter::k8s::HttpTransport>> transport =
      arbiter::runtime::ConnectToApiServer(connection, arbiter::RealClock::Instance(), &c.rest);
  if (!transport.ok()) return transport.status();
  c.transport = std::move(*transport);
  return c;
}

std::string NamespaceOf(const ClusterFlags& flags, const Connection& c) {
  if (!flags.namespace_name.empty()) return flags.namespace_name;
  if (!c.rest.namespace_name.empty()) return c.rest.namespace_name;
  return "default";
}

bool Structured(const ClusterFlags& flags) {
  return flags.output == "json" || flags.output == "yaml";
}

void Print(const ClusterFlags& flags, const Json& json) {
  if (flags.output == "yaml") {
    std::cout << arbiter::ctl::JsonToYaml(json);
  } else {
    std::cout << json.dump(2) << "\n";
  }
}

Json Resources(const arbiter::ResourceList& list) {
  Json out = Json::object();
  for (const arbiter::ResourceEntry& e : list.entries()) {
    out[e.name] = arbiter::FromCanonical(e.name, e.amount).ToString();
  }
  return out;
}

// The items of a list; those that do not decode are named on stderr and left out, as the
// scheduler leaves them out.
template <typename T>
StatusOr<std::vector<T>> List(arbiter::k8s::ApiClient& api, const std::string& path) {
  StatusOr<std::string> body = api.Get(path);
  if (!body.ok()) return body.status();
  simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(*body);
  StatusOr<arbiter::k8s::ObjectList<T>> list = arbiter::k8s::DecodeList<T>(parser, padded);
  if (!list.ok()) return list.status();
  for (const Status& e : list->errors) std::cerr << "arbiterctl: skipped: " << e.message() << "\n";
  return std::move(list->items);
}

template <typename T>
StatusOr<T> Decode(const std::string& body) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string padded(body);
  return arbiter::k8s::DecodeObject<T>(parser, padded);
}

std::string GroupsPath(const ClusterFlags& flags, const std::string& ns, std::string_view plural) {
  std::string path(kGroups);
  if (!flags.all_namespaces) path += "/namespaces/" + ns;
  path += "/";
  path += plural;
  return path;
}

std::string KindOf(const PodGroup& group) {
  for (const arbiter::OwnerReference& ref : group.meta.owner_references) {
    if (arbiter::IsBatchJobReference(ref)) return "BatchJob";
  }
  return "PodGroup";
}

// A pod in no PodGroup is a job of its own: what the scheduler said is its PodScheduled condition.
int ExplainLonePod(const ClusterFlags& flags, const arbiter::Pod& pod) {
  const arbiter::Condition* scheduled =
      arbiter::FindCondition(pod.status.conditions, "PodScheduled");
  const bool waiting = scheduled != nullptr && scheduled->status == "False";
  if (Structured(flags)) {
    Json out = {{"asked", "pod " + pod.meta.Key()}, {"podGroup", nullptr}};
    if (waiting)
      out["unschedulable"] = {{"reason", scheduled->reason}, {"message", scheduled->message}};
    out["explanation"] = nullptr;
    Print(flags, out);
    return 0;
  }
  std::cout << "pod " << pod.meta.Key() << " (in no PodGroup: a job of its own)";
  if (!pod.spec.node_name.empty()) {
    std::cout << ": bound to " << pod.spec.node_name << "\n";
  } else if (waiting) {
    std::cout << ": waiting\nReason:   " << scheduled->reason
              << "\nMessage:  " << scheduled->message << "\n";
  } else {
    std::cout << ": the scheduler has said nothing of it yet\n";
  }
  return 0;
}

std::optional<int> CheckOutput(const ClusterFlags& flags) {
  if (flags.output.empty() || flags.output == "wide" || Structured(flags)) return std::nullopt;
  return Fail(kExitUsage, "-o: \"" + flags.output + "\" is not one of wide, json, yaml");
}

}  // namespace

int RunJobs(const ClusterFlags& flags) {
  if (std::optional<int> bad = CheckOutput(flags)) return *bad;
  StatusOr<Connection> c = Connect(flags);
  if (!c.ok()) return Fail(kExitUsage, c.status().message());
  arbiter::k8s::ApiClient api(*c->transport);
  StatusOr<std::vector<PodGroup>> groups =
      List<PodGroup>(api, GroupsPath(flags, NamespaceOf(flags, *c), "podgroups"));
  if (!groups.ok()) return Fail(kExitFailure, groups.status().message());
  std::vector<std::string> kinds;
  kinds.reserve(groups->size());
  for (const PodGroup& g : *groups) kinds.push_back(KindOf(g));
  const arbiter::Clock::WallTime now = arbiter::RealClock::Instance().Now();
  if (!Structured(flags)) {
    std::cout << arbiter::ctl::FormatJobs(
        *groups, kinds, now,
        {.all_namespaces = flags.all_namespaces, .wide = flags.output == "wide"});
    return 0;
  }
  Json items = Json::array();
  for (std::size_t i = 0; i < groups->size(); ++i) {
    const PodGroup& g = (*groups)[i];
    Json item = {{"namespace", g.meta.namespace_name},
                 {"name", g.meta.name},
                 {"kind", kinds[i]},
                 {"queue", g.spec.queue},
                 {"phase", arbiter::PodGroupPhaseName(g.status.phase)},
                 {"running", g.status.running},
                 {"minMember", g.spec.min_member}};
    if (const arbiter::Condition* u = arbiter::FindCondition(g.status.conditions, "Unschedulable");
        u != nullptr && u->IsTrue()) {
      item["reason"] = u->reason;
      item["message"] = u->message;
    }
    if (g.status.explanation.has_value()) item["gate"] = g.status.explanation->gate;
    items.push_back(std::move(item));
  }
  Print(flags, Json{{"jobs", std::move(items)}});
  return 0;
}

int RunQueues(const ClusterFlags& flags) {
  if (std::optional<int> bad = CheckOutput(flags)) return *bad;
  StatusOr<Connection> c = Connect(flags);
  if (!c.ok()) return Fail(kExitUsage, c.status().message());
  arbiter::k8s::ApiClient api(*c->transport);
  StatusOr<std::vector<Queue>> queues = List<Queue>(api, std::string(kGroups) + "/queues");
  if (!queues.ok()) return Fail(kExitFailure, queues.status().message());
  if (!Structured(flags)) {
    std::cout << arbiter::ctl::FormatQueues(*queues, flags.output == "wide");
    return 0;
  }
  Json items = Json::array();
  for (const Queue& q : *queues) {
    items.push_back({{"name", q.meta.name},
                     {"parent", q.spec.parent},
                     {"weight", q.spec.weight},
                     {"state", arbiter::QueueStateName(q.spec.state)},
                     {"deserved", Resources(q.status.deserved)},
                     {"allocated", Resources(q.status.allocated)},
                     {"used", Resources(q.status.used)},
                     {"capability", Resources(q.spec.capability)},
                     {"guarantee", Resources(q.spec.guarantee)},
                     {"pending", q.status.pending + q.status.inqueue},
                     {"running", q.status.running}});
  }
  Print(flags, Json{{"queues", std::move(items)}});
  return 0;
}

int RunExplain(const ClusterFlags& flags, const std::string& target) {
  if (std::optional<int> bad = CheckOutput(flags)) return *bad;
  if (flags.all_namespaces) return Fail(kExitUsage, "explain: -A does not apply; give -n");
  std::string kind;
  std::string name = target;
  if (const std::size_t slash = target.find('/'); slash != std::string::npos) {
    kind = target.substr(0, slash);
    name = target.substr(slash + 1);
    if (kind != "podgroup" && kind != "batchjob" && kind != "pod") {
      return Fail(kExitUsage,
                  "explain: \"" + kind + "\" is not one of podgroup, batchjob, pod (e.g. pod/x)");
    }
  }
  if (name.empty()) return Fail(kExitUsage, "explain: no name given");
  StatusOr<Connection> c = Connect(flags);
  if (!c.ok()) return Fail(kExitUsage, c.status().message());
  arbiter::k8s::ApiClient api(*c->transport);
  const std::string ns = NamespaceOf(flags, *c);
  const std::string groups = std::string(kGroups) + "/namespaces/" + ns + "/podgroups/";
  std::string what;
  std::string group_name = name;
  if (kind == "pod") {
    StatusOr<std::string> body = api.Get("/api/v1/namespaces/" + ns + "/pods/" + name);
    if (!body.ok()) return Fail(kExitFailure, body.status().message());
    StatusOr<arbiter::Pod> pod = Decode<arbiter::Pod>(*body);
    if (!pod.ok())
      return Fail(kExitFailure, "pod " + ns + "/" + name + ": " + pod.status().message());
    group_name = arbiter::PodGroupNameOf(*pod);
    if (group_name.empty()) return ExplainLonePod(flags, *pod);
    what = "pod " + ns + "/" + name;
  } else if (kind == "batchjob") {
    StatusOr<std::string> job =
        api.Get(std::string(kGroups) + "/namespaces/" + ns + "/batchjobs/" + name);
    if (!job.ok()) return Fail(kExitFailure, job.status().message());
    what = "BatchJob " + ns + "/" + name;
  }
  StatusOr<std::string> body = api.Get(groups + group_name);
  if (!body.ok()) {
    if (body.status().code() == StatusCode::kNotFound && kind == "batchjob") {
      return Fail(kExitFailure, what + " has no PodGroup yet: arbiter-controller makes it");
    }
    if (body.status().code() == StatusCode::kNotFound && kind.empty()) {
      return Fail(kExitFailure, "no PodGroup or BatchJob named " + name + " in namespace " + ns);
    }
    return Fail(kExitFailure, body.status().message());
  }
  StatusOr<PodGroup> group = Decode<PodGroup>(*body);
  if (!group.ok()) {
    return Fail(kExitFailure,
                "PodGroup " + ns + "/" + group_name + ": " + group.status().message());
  }
  if (what.empty()) {
    what = (KindOf(*group) == "BatchJob" ? "BatchJob " : "PodGroup ") + group->meta.Key();
  }
  if (!Structured(flags)) {
    // A Pending group with no reason may be within its arrival grace, which runs from its newest
    // pod too: only then are the namespace's pods listed.
    std::optional<arbiter::Clock::WallTime> newest_pod;
    const arbiter::Condition* unschedulable =
        arbiter::FindCondition(group->status.conditions, "Unschedulable");
    if (group->status.phase == arbiter::PodGroupPhase::kPending &&
        !group->status.explanation.has_value() &&
        (unschedulable == nullptr || !unschedulable->IsTrue())) {
      StatusOr<std::vector<arbiter::Pod>> pods =
          List<arbiter::Pod>(api, "/api/v1/namespaces/" + ns + "/pods");
      if (!pods.ok()) return Fail(kExitFailure, pods.status().message());
      for (const arbiter::Pod& pod : *pods) {
        if (arbiter::PodGroupNameOf(pod) != group_name) continue;
        newest_pod =
            std::max(newest_pod.value_or(arbiter::Clock::WallTime{}), pod.meta.creation_timestamp);
      }
    }
    std::cout << arbiter::ctl::FormatExplanation(what, *group, arbiter::RealClock::Instance().Now(),
                                                 newest_pod);
    return 0;
  }
  // The explanation exactly as the scheduler wrote it.
  const Json object = Json::parse(*body, nullptr, /*allow_exceptions=*/false);
  Json explanation = nullptr;
  if (object.is_object() && object.contains("status") && object["status"].is_object() &&
      object["status"].contains("explanation")) {
    explanation = object["status"]["explanation"];
  }
  Json out = {{"asked", what},
              {"podGroup", group->meta.Key()},
              {"queue", group->spec.queue},
              {"phase", arbiter::PodGroupPhaseName(group->status.phase)},
              {"running", group->status.running},
              {"minMember", group->spec.min_member}};
  if (const arbiter::Condition* u =
          arbiter::FindCondition(group->status.conditions, "Unschedulable");
      u != nullptr && u->IsTrue()) {
    out["unschedulable"] = {{"reason", u->reason}, {"message", u->message}};
  }
  out["explanation"] = std::move(explanation);
  Print(flags, out);
  return 0;
}

int RunWhatIf(const ClusterFlags& flags, const WhatIfFlags& whatif) {
  if (std::optional<int> bad = CheckOutput(flags)) return *bad;
  if (flags.all_namespaces) return Fail(kExitUsage, "whatif: -A does not apply; give -n");
  StatusOr<std::chrono::nanoseconds> horizon = arbiter::runtime::ParseDuration(whatif.horizon);
  if (!horizon.ok()) return Fail(kExitUsage, "--horizon: " + horizon.status().message());
  if (horizon->count() <= 0) return Fail(kExitUsage, "--horizon: must be positive");
  arbiter::sim::ForecastOptions options;
  options.horizon = std::chrono::duration_cast<std::chrono::milliseconds>(*horizon);
  if (!whatif.config.empty()) {
    StatusOr<arbiter::SchedulerConfig> config = arbiter::LoadSchedulerConfigFile(whatif.config);
    if (!config.ok()) return Fail(kExitUsage, "--config: " + config.status().message());
    options.config = *std::move(config);
  }
  std::string text;
  {
    std::ifstream file_in;
    std::istream* in = &std::cin;
    if (whatif.file != "-") {
      file_in.open(whatif.file);
      if (!file_in) return Fail(kExitUsage, whatif.file + ": cannot be read");
      in = &file_in;
    }
    std::ostringstream buffer;
    buffer << in->rdbuf();
    text = buffer.str();
  }
  StatusOr<std::vector<nlohmann::json>> documents =
      arbiter::ctl::ParseManifests(text, whatif.file == "-" ? "stdin" : whatif.file);
  if (!documents.ok()) return Fail(kExitUsage, documents.status().message());

  StatusOr<Connection> c = Connect(flags);
  if (!c.ok()) return Fail(kExitUsage, c.status().message());
  const arbiter::Clock& clock = arbiter::RealClock::Instance();
  StatusOr<arbiter::ctl::WhatIfJob> job = arbiter::ctl::WhatIfJobFrom(
      *documents, NamespaceOf(flags, *c), whatif.scheduler_name, clock.Now());
  if (!job.ok()) return Fail(kExitUsage, job.status().message());

  // The cluster as the scheduler's watches read it: their first LIST of every kind.
  arbiter::CacheOptions cache_options;
  cache_options.scheduler_name = whatif.scheduler_name;
  arbiter::ClusterCache cache(cache_options);
  {
    arbiter::runtime::InformerOptions informer_options;
    informer_options.scheduler_name = whatif.scheduler_name;
    arbiter::runtime::Informers informers(*c->transport, cache, informer_options);
    informers.Start();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!informers.HasSynced()) {
      if (std::chrono::steady_clock::now() > deadline) {
        return Fail(kExitFailure, "the cluster could not be read within 60 s: waiting for " +
                                      informers.NotSynced());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const arbiter::Clock::WallTime now = clock.Now();
  std::shared_ptr<const arbiter::Snapshot> snapshot = cache.TakeSnapshot(now);
  StatusOr<arbiter::sim::ForecastResult> forecast = arbiter::sim::Forecast(
      *snapshot, now, arbiter::sim::TimingFromHints(*snapshot, nullptr, now), options, {job->job});
  if (!forecast.ok()) return Fail(kExitUsage, forecast.status().message());
  if (!Structured(flags)) {
    std::cout << arbiter::ctl::FormatWhatIf(*job, *forecast);
    return 0;
  }
  Json out = {{"kind", job->kind}, {"job", job->key}};
  if (auto e = forecast->estimates.find(job->key); e != forecast->estimates.end()) {
    out["start"] = e->second.start ? Json(arbiter::FormatRfc3339(*e->second.start)) : Json(nullptr);
    out["confidence"] = arbiter::sim::ConfidenceName(e->second.confidence);
    out["assumptions"] = arbiter::sim::DescribeAssumptions(e->second, *forecast);
  }
  out["forecast"] = {{"now", arbiter::FormatRfc3339(forecast->now)},
                     {"until", arbiter::FormatRfc3339(forecast->until)},
                     {"sessions", forecast->sessions},
                     {"endReason", forecast->end_reason}};
  Print(flags, out);
  return 0;
}

int RunTop(const ClusterFlags& flags, const TopFlags& top) {
  StatusOr<std::chrono::nanoseconds> interval = arbiter::runtime::ParseDuration(top.interval);
  if (!interval.ok()) return Fail(kExitUsage, "--interval: " + interval.status().message());
  if (interval->count() <= 0) return Fail(kExitUsage, "--interval: must be positive");

  // One way to scrape: a URL of our own, or the API server's service proxy.
  std::unique_ptr<arbiter::k8s::HttpTransport> direct;
  std::string path;
  std::optional<Connection> connection;
  if (!top.metrics_url.empty()) {
    const std::string& url = top.metrics_url;
    const std::size_t scheme = url.find("://");
    const std::size_t slash =
        scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
    if (scheme == std::string::npos) {
      return Fail(kExitUsage, "--metrics-url: want http://host:port/metrics, got \"" + url + "\"");
    }
    arbiter::k8s::TransportOptions options;
    options.server = url.substr(0, slash);
    options.max_attempts = 1;
    options.timeout = std::chrono::seconds(10);
    StatusOr<std::unique_ptr<arbiter::k8s::HttpTransport>> t =
        arbiter::k8s::HttpTransport::Create(options);
    if (!t.ok()) return Fail(kExitFailure, t.status().message());
    direct = std::move(*t);
    path = slash == std::string::npos ? "/metrics" : url.substr(slash);
  } else {
    StatusOr<Connection> c = Connect(flags);
    if (!c.ok()) return Fail(kExitFailure, c.status().message());
    connection = std::move(*c);
    path = "/api/v1/namespaces/" + top.service_namespace + "/services/" + top.service +
           "/proxy/metrics";
  }
  const auto scrape = [&]() -> StatusOr<std::vector<arbiter::ctl::MetricSample>> {
    std::string body;
    if (direct != nullptr) {
      StatusOr<arbiter::k8s::HttpResponse> r = direct->Do(arbiter::k8s::HttpRequest::Get(path));
      if (!r.ok()) return r.status();
      if (r->status != 200) {
        return arbiter::UnavailableError("GET " + top.metrics_url + ": HTTP " +
                                         std::to_string(r->status));
      }
      body = std::move(r->body);
    } else {
      arbiter::k8s::ApiClient api(*connection->transport);
      StatusOr<std::string> r = api.Get(path);
      if (!r.ok()) return r.status();
      body = std::move(*r);
    }
    return arbiter::ctl::ParseExposition(body);
  };

  StatusOr<std::vector<arbiter::ctl::MetricSample>> before = scrape();
  if (!before.ok())
    return Fail(kExitFailure, "scraping the scheduler's metrics: " + before.status().message());
  auto taken = std::chrono::steady_clock::now();
  while (true) {
    std::this_thread::sleep_for(*interval);
    StatusOr<std::vector<arbiter::ctl::MetricSample>> after = scrape();
    if (!after.ok())
      return Fail(kExitFailure, "scraping the scheduler's metrics: " + after.status().message());
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - taken).count();
    // Like top: the screen cleared and drawn again, unless it is one frame for a script.
    if (!top.once) std::cout << "\x1b[H\x1b[2J";
    std::cout << arbiter::ctl::FormatTop(*before, *after, seconds) << std::flush;
    if (top.once) return 0;
    before = std::move(after);
    taken = now;
  }
}

}  // namespace arbiterctl
