#include "arbiter/plugins/topology.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

namespace {

constexpr std::string_view kNodeLevel = "node";

Status BadArgument(const std::string& where, const std::string& what) {
  return InvalidArgumentError("plugin topology: arguments." + where + ": " + what);
}

// The largest fraction of a free resource that `need` takes, over the resources it asks for:
// above 1 it does not fit.
double FillFraction(const ResourceVector& need, const ResourceVector& free) {
  double most = 0;
  for (std::size_t r = 0; r < need.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    const std::int64_t n = need.Get(id);
    if (n <= 0) continue;
    const std::int64_t f = free.Get(id);
    if (f <= 0) return 2;  // nothing free of what it needs
    most = std::max(most, static_cast<double>(n) / static_cast<double>(f));
  }
  return most;
}

}  // namespace

StatusOr<std::unique_ptr<Plugin>> TopologyPlugin::Create(const YAML::Node& args) {
  PluginArgs reader(std::string(kName), args);
  ARBITER_RETURN_IF_ERROR(reader.Check());
  std::vector<TopologyLevel> levels = {{"zone", std::string(kZoneLabel)},
                                       {"rack", std::string(kDefaultRackLabel)}};
  if (const YAML::Node given = reader.Get("levels"); given && !given.IsNull()) {
    if (!given.IsSequence()) return BadArgument("levels", "expected a list");
    levels.clear();
    std::set<std::string> names;
    for (std::size_t i = 0; i < given.size(); ++i) {
      const std::string where = "levels[" + std::to_string(i) + "]";
      const YAML::Node level = given[i];
      if (!level.IsMap()) return BadArgument(where, "expected a mapping {name, label}");
      TopologyLevel l;
      for (const auto& kv : level) {
        const auto key = kv.first.as<std::string>();
        if (key != "name" && key != "label") {
          return BadArgument(where, "unknown key \"" + key + "\" (want name, label)");
        }
        if (!kv.second.IsScalar()) {
          std::string at = where;
          at.append(".").append(key);
          return BadArgument(at, "expected a string");
        }
        (key == "name" ? l.name : l.label) = kv.second.as<std::string>();
      }
      if (l.name.empty()) return BadArgument(where + ".name", "missing");
      if (l.label.empty()) return BadArgument(where + ".label", "missing");
      if (l.name == kNodeLevel) {
        return BadArgument(where + ".name", "\"node\" is always the narrowest level");
      }
      if (!names.insert(l.name).second) {
        return BadArgument(where + ".name", "\"" + l.name + "\" given twice");
      }
      levels.push_back(std::move(l));
    }
  }
  ARBITER_RETURN_IF_ERROR(reader.Finish());
  return std::unique_ptr<Plugin>(std::make_unique<TopologyPlugin>(std::move(levels)));
}

TopologyPlugin::TopologyPlugin(std::vector<TopologyLevel> levels) : levels_(std::move(levels)) {
  levels_.push_back({std::string(kNodeLevel), ""});
}

const TopologyLevel* TopologyPlugin::FindLevel(const std::string& name) const {
  for (const TopologyLevel& l : levels_) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

void TopologyPlugin::OnSessionOpen(const Session& session) {
  domains_.clear();
  // Only the levels some job asks for are built.
  std::set<std::string, std::less<>> asked;
  for (JobIndex j : JobIndex::Range(session.job_count())) {
    const JobInfo& job = session.job(j);
    if (job.group != nullptr && job.group->spec.topology.has_value()) {
      asked.insert(job.group->spec.topology->level);
    }
  }
  for (const std::string& name : asked) {
    const TopologyLevel* level = FindLevel(name);
    if (level == nullptr) continue;
    std::map<std::string, std::vector<NodeIndex>> by_name;
    std::vector<std::string> of_node_name(static_cast<std::size_t>(session.node_count()));
    for (NodeIndex n : NodeIndex::Range(session.node_count())) {
      const NodeInfo& node = session.node(n);
      std::string domain;
      if (level->label.empty()) {
        domain = node.name();
      } else if (auto it = node.node->meta.labels.find(level->label);
                 it != node.node->meta.labels.end()) {
        domain = it->second;
      }
      if (domain.empty()) continue;
      std::vector<NodeIndex>& members = by_name[domain];
      if (node.in_scope) members.push_back(n);
      of_node_name[n.pos()] = std::move(domain);
    }
    Domains d;
    d.of_node.assign(static_cast<std::size_t>(session.node_count()), -1);
    std::map<std::string, std::int32_t> index;
    for (auto& [domain, members] : by_name) {
      index[domain] = static_cast<std::int32_t>(d.names.size());
      d.names.push_back(domain);
      d.nodes.push_back(std::move(members));
    }
    for (std::size_t i = 0; i < of_node_name.size(); ++i) {
      if (!of_node_name[i].empty()) d.of_node[i] = index[of_node_name[i]];
    }
    domains_.emplace(name, std::move(d));
  }
}

std::optional<JobVerdict> TopologyPlugin::JobInvalid(const Session& session, JobIndex job) const {
  const JobInfo& info = session.job(job);
  if (info.group == nullptr || !info.group->spec.topology.has_value()) return std::nullopt;
  const std::string& level = info.group->spec.topology->level;
  if (FindLevel(level) != nullptr) return std::nullopt;
  std::string known;
  for (const TopologyLevel& l : levels_) known += (known.empty() ? "" : ", ") + l.name;
  return JobVerdict{JobReason::kInvalid, "spec.topology.level: \"" + level +
                                             "\" is not a topology level of this scheduler (" +
                                             known + ")"};
}

std::optional<JobVerdict> TopologyPlugin::JobNotEnqueueable(const Session& session,
                                                            JobIndex job) const {
  std::optional<TopologyPlan> plan = PlanTopology(session, job);
  if (!plan.has_value() || !plan->tries.empty()) return std::nullopt;
  return JobVerdict{JobReason::kNotEnqueued,
                    "the group cannot start within one " + plan->level + " (" +
                        (plan->required ? "Required" : "Preferred") + "): " + plan->untried};
}

std::optional<TopologyPlan> TopologyPlugin::PlanTopology(const Session& session,
                                                         JobIndex job) const {
  const JobInfo& info = session.job(job);
  if (info.group == nullptr || !info.group->spec.topology.has_value()) return std::nullopt;
  const TopologyRequest& request = *info.group->spec.topology;
  auto found = domains_.find(request.level);
  if (found == domains_.end()) return std::nullopt;  // not a level: the job is invalid
  const Domains& d = found->second;
  TopologyPlan plan;
  plan.level = request.level;
  plan.required = request.mode == TopologyMode::kRequired;
  const std::string& level = request.level;
  auto all_nodes = [&] {
    TopologyDomain any{"any node", {}};
    for (NodeIndex n : NodeIndex::Range(session.node_count())) {
      if (session.node(n).in_scope) any.nodes.push_back(n);
    }
    return any;
  };

  // Pods already holding nodes, or nominated to nodes, fix the domain.
  std::set<std::int32_t> held;
  bool held_outside = false;
  for (TaskIndex t : info.tasks) {
    const TaskState state = session.task_state(t);
    // A pending pod nominated by preemption: the room being freed for it (held for it, so not
    // in the free room below) is in the domain its preemption chose.
    NodeIndex n = session.task_node(t);
    if (state == TaskState::kPending && session.task(t).nominated != kNoNode) {
      n = session.task(t).nominated;
    } else if (!HoldsNode(state) || state == TaskState::kReleasing) {
      continue;
    }
    const std::int32_t domain = d.of_node[n.pos()];
    if (domain < 0) {
      held_outside = true;
    } else {
      held.insert(domain);
    }
  }
  if (!held.empty() || held_outside) {
    if (!held.empty()) {
      TopologyDomain mine;
      for (std::int32_t i : held) {
        mine.name += (mine.name.empty() ? level + " " : ", ") + d.names[i];
        mine.nodes.insert(mine.nodes.end(), d.nodes[i].begin(), d.nodes[i].end());
      }
      std::sort(mine.nodes.begin(), mine.nodes.end());
      plan.tries.push_back(std::move(mine));
    }
    // Pods placed before the group asked for a topology (or on unlabelled nodes): the rest may
    // go anywhere, as a Preferred job's would.
    if (!plan.required || held_outside) plan.tries.push_back(all_nodes());
    return plan;
  }

  // Which domains could hold the minimum, by their free room; the tightest first.
  const ResourceVector need = session.MinimumRequest(job);
  const ResourceSpace& space = session.snapshot().resources;
  struct Candidate {
    std::int32_t domain;
    ResourceVector free;
    double fill;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < d.names.size(); ++i) {
    ResourceVector free(need.size());
    for (NodeIndex n : d.nodes[i]) free.Add(session.node_free(n));
    candidates.push_back({static_cast<std::int32_t>(i), free, FillFraction(need, free)});
  }
  std::vector<const Candidate*> fitting;
  std::vector<const Candidate*> short_of;
  for (const Candidate& c : candidates) (c.fill <= 1 ? fitting : short_of).push_back(&c);
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Candidate* a, const Candidate* b) { return a->fill > b->fill; });
  // Each try is a whole attempt at the gang: the tightest few are enough (the aggregate room of
  // each fits; only fragmentation can make one fail).
  constexpr std::size_t kMostTries = 16;
  for (std::size_t i = 0; i < fitting.size() && i < kMostTries; ++i) {
    plan.tries.push_back({level + " " + d.names[fitting[i]->domain], d.nodes[fitting[i]->domain]});
  }
  // The domains that cannot hold it, the closest first, for the message.
  std::stable_sort(short_of.begin(), short_of.end(),
                   [](const Candidate* a, const Candidate* b) { return a->fill < b->fill; });
  for (std::size_t i = 0; i < short_of.size() && i < kMostTries; ++i) {
    plan.others.push_back(
        {level + " " + d.names[short_of[i]->domain], d.nodes[short_of[i]->domain]});
  }
  constexpr std::size_t kMostNamed = 4;
  for (std::size_t i = 0; i < short_of.size() && i < kMostNamed; ++i) {
    const Candidate& c = *short_of[i];
    if (!plan.untried.empty()) plan.untried += "; ";
    ResourceVector lacking = need;
    lacking.Subtract(ResourceVector::Min(need, c.free));
    // What it asks for, but the pod count unless that is what is short: "cpu 16 free, short of
    // cpu 8".
    std::string free_text;
    std::string short_text;
    for (std::size_t r = 0; r < need.size(); ++r) {
      const auto id = static_cast<ResourceId>(r);
      if (need.Get(id) <= 0) continue;
      const std::string& name = space.Name(id);
      if (lacking.Get(id) > 0) {
        short_text +=
            (short_text.empty() ? "" : ", ") + name + " " + space.FormatAmount(id, lacking.Get(id));
      }
      if (name != "pods" || lacking.Get(id) > 0) {
        free_text += (free_text.empty() ? "" : ", ") + name + " " +
                     space.FormatAmount(id, std::max<std::int64_t>(c.free.Get(id), 0));
      }
    }
    plan.untried.append(level).append(" ").append(d.names[c.domain]).append(" has ");
    plan.untried.append(free_text).append(" free, short of ").append(short_text);
  }
  if (short_of.size() > kMostNamed) {
    plan.untried +=
        "; " + std::to_string(short_of.size() - kMostNamed) + " more " + level + "s short";
  }
  if (d.names.empty()) plan.untried = "no node has the label of level " + level;
  if (plan.required) return plan;

  const double waited = std::chrono::duration<double>(session.now() - info.creation).count();
  if (waited < request.max_wait_seconds) {
    const auto left = static_cast<std::int64_t>(request.max_wait_seconds - waited + 0.999);
    if (!plan.untried.empty()) plan.untried += "; ";
    plan.untried += "it waits " + std::to_string(left) + "s more for one " + level +
                    " (Preferred, maxWaitSeconds " + std::to_string(request.max_wait_seconds) + ")";
    return plan;
  }
  // Spread over the fewest domains: the most free first.
  std::vector<const Candidate*> by_free;
  by_free.reserve(candidates.size());
  for (const Candidate& c : candidates) by_free.push_back(&c);
  std::stable_sort(by_free.begin(), by_free.end(),
                   [](const Candidate* a, const Candidate* b) { return a->fill < b->fill; });
  // The fewest whose room together holds it, and one more in case of fragmentation.
  TopologyDomain spread;
  ResourceVector together(need.size());
  int spreads = 0;
  for (std::size_t k = 0; k < by_free.size() && spreads < 2; ++k) {
    const Candidate& c = *by_free[k];
    spread.name += (k == 0 ? level + "s " : ", ") + d.names[c.domain];
    spread.nodes.insert(spread.nodes.end(), d.nodes[c.domain].begin(), d.nodes[c.domain].end());
    together.Add(c.free);
    if (k == 0 || (spreads == 0 && !need.FitsIn(together))) continue;
    TopologyDomain t = spread;
    std::sort(t.nodes.begin(), t.nodes.end());
    plan.tries.push_back(std::move(t));
    ++spreads;
  }
  plan.tries.push_back(all_nodes());
  return plan;
}

}  // namespace arbiter
