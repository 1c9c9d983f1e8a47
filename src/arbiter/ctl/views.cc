#include "arbiter/ctl/views.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "arbiter/framework/outcome.h"
#include "arbiter/resource/resource_name.h"

namespace arbiter::ctl {

namespace {

using Row = std::vector<std::string>;

// Columns padded to their widest cell and three spaces apart, as kubectl prints; the last column
// is not padded. Widths count bytes but for the bars' box characters, which take one column.
std::size_t Width(std::string_view cell) {
  std::size_t n = 0;
  for (const char c : cell) n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return n;
}

std::string Table(const std::vector<Row>& rows) {
  std::vector<std::size_t> widths;
  for (const Row& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], Width(row[i]));
  }
  std::string out;
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - Width(row[i]) + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

std::string Amount(std::string_view resource, std::int64_t amount) {
  return FromCanonical(resource, amount).ToString();
}

// One resource of a list, or `missing` when the list does not name it.
std::string AmountOr(const ResourceList& list, std::string_view resource, std::string missing) {
  const std::optional<std::int64_t> amount = list.Find(resource);
  return amount.has_value() ? Amount(resource, *amount) : std::move(missing);
}

const Condition* TrueCondition(const PodGroupStatus& status, std::string_view type) {
  const Condition* c = FindCondition(status.conditions, std::string(type));
  return c != nullptr && c->IsTrue() ? c : nullptr;
}

// A bar of `value` against `whole`, ten cells wide, and the percentage; over 100 % the bar is
// full and the percentage says by how much.
std::string Bar(std::int64_t value, std::int64_t whole) {
  if (whole <= 0) return value > 0 ? "[" + std::string(10, '!') + "] no share" : "";
  const std::int64_t percent = value * 100 / whole;
  const std::int64_t cells = std::min<std::int64_t>(10, (value * 10 + whole / 2) / whole);
  std::string bar = "[";
  for (std::int64_t i = 0; i < 10; ++i) bar += i < cells ? "#" : ".";
  return bar + "] " + std::to_string(percent) + "%";
}

// The rows explain prints for a start estimate.
std::vector<Row> EstimateRows(const StartEstimate& e, Clock::WallTime now) {
  std::vector<Row> rows;
  std::string start = "not within the forecast";
  if (e.start) {
    // A forecast is made when the group arrives or the cluster changes; one whose time has
    // passed says so rather than "now" (the jobs it assumed would end have not all ended, or
    // jobs submitted since took the room).
    if (*e.start > now) {
      start = "in " + ShortDuration(*e.start - now);
    } else if (now - *e.start < std::chrono::seconds(2)) {
      start = "now";
    } else {
      start = "overdue by " + ShortDuration(now - *e.start);
    }
    start += " (" + FormatRfc3339(*e.start) + ")";
  }
  rows.push_back({"Estimated start:", start + ", confidence " + e.confidence});
  rows.push_back({"  assumes:", e.assumptions});
  rows.push_back({"  forecast:", ShortDuration(now - e.as_of) + " ago"});
  return rows;
}

// The rows explain prints for a reservation against starvation: the nodes (the first few), since
// when, and when the group should fit on them.
std::vector<Row> ReservationRows(const GangReservationStatus& r, Clock::WallTime now) {
  constexpr std::size_t kListed = 8;
  std::string nodes;
  for (std::size_t i = 0; i < r.nodes.size() && i < kListed; ++i) {
    nodes += (i > 0 ? ", " : "") + r.nodes[i];
  }
  if (r.nodes.size() > kListed) nodes += ", ... (" + std::to_string(r.nodes.size()) + " in all)";
  std::vector<Row> rows;
  rows.push_back({"Reserved:", nodes + " (for " + ShortDuration(now - r.since) + ")"});
  std::string start = "unknown: some pods there have no known run time";
  if (r.estimated_start) {
    start = *r.estimated_start <= now ? "now" : "in " + ShortDuration(*r.estimated_start - now);
    start += " (" + FormatRfc3339(*r.estimated_start) + "), when the pods there end";
  }
  rows.push_back({"  start:", start});
  return rows;
}

}  // namespace

std::string ShortDuration(std::chrono::nanoseconds d) {
  std::int64_t s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 0) s = 0;
  if (s < 120) return std::to_string(s) + "s";
  const std::int64_t m = s / 60;
  if (m < 60) return std::to_string(m) + "m" + (s % 60 != 0 ? std::to_string(s % 60) + "s" : "");
  const std::int64_t h = m / 60;
  if (h < 48) return std::to_string(h) + "h" + (m % 60 != 0 ? std::to_string(m % 60) + "m" : "");
  return std::to_string(h / 24) + "d" + (h % 24 != 0 ? std::to_string(h % 24) + "h" : "");
}

std::string FormatResources(const ResourceList& list) {
  if (list.empty()) return "-";
  std::string out;
  for (const ResourceEntry& e : list.entries()) {
    if (!out.empty()) out += ", ";
    out += e.name;
    out += ' ';
    out += Amount(e.name, e.amount);
  }
  return out;
}

std::string FormatJobs(const std::vector<PodGroup>& groups, const std::vector<std::string>& kinds,
                       Clock::WallTime now, const JobsOptions& options) {
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(groups[a].meta.namespace_name, groups[a].meta.name) <
           std::tie(groups[b].meta.namespace_name, groups[b].meta.name);
  });
  std::vector<Row> rows;
  Row header;
  if (options.all_namespaces) header.emplace_back("NAMESPACE");
  for (const char* h : {"NAME", "KIND", "QUEUE", "PHASE", "RUNNING", "WAITING", "REASON"}) {
    header.emplace_back(h);
  }
  if (options.wide) header.emplace_back("MESSAGE");
  rows.push_back(std::move(header));
  for (std::size_t i : order) {
    const PodGroup& g = groups[i];
    Row row;
    if (options.all_namespaces) row.push_back(g.meta.namespace_name);
    row.push_back(g.meta.name);
    row.push_back(i < kinds.size() ? kinds[i] : "PodGroup");
    row.push_back(g.spec.queue);
    row.emplace_back(PodGroupPhaseName(g.status.phase));
    row.push_back(std::to_string(g.status.running) + "/" + std::to_string(g.spec.min_member));
    // Waiting: since it was created, for a group that has not started; "-" once it runs or ended.
    const bool waiting =
        g.status.phase == PodGroupPhase::kPending || g.status.phase == PodGroupPhase::kInqueue;
    row.push_back(waiting ? ShortDuration(now - g.meta.creation_timestamp) : "-");
    const Condition* unschedulable = TrueCondition(g.status, "Unschedulable");
    row.push_back(unschedulable != nullptr ? unschedulable->reason : "-");
    if (options.wide) row.push_back(unschedulable != nullptr ? unschedulable->message : "");
    rows.push_back(std::move(row));
  }
  return Table(rows);
}

std::string FormatQueues(const std::vector<Queue>& queues, bool wide) {
  std::set<std::string> names;
  for (const Queue& q : queues) names.insert(q.meta.name);
  std::map<std::string, std::vector<const Queue*>> children;  // by parent; "" is the top
  for (const Queue& q : queues) {
    children[names.contains(q.spec.parent) ? q.spec.parent : ""].push_back(&q);
  }
  for (auto& [parent, list] : children) {
    std::sort(list.begin(), list.end(),
              [](const Queue* a, const Queue* b) { return a->meta.name < b->meta.name; });
  }
  std::vector<std::string> resources = {"cpu", "memory"};
  if (wide) {
    std::set<std::string> all(resources.begin(), resources.end());
    for (const Queue& q : queues) {
      for (const ResourceList* list :
           {&q.status.deserved, &q.status.allocated, &q.spec.capability, &q.spec.guarantee}) {
        for (const ResourceEntry& e : list->entries()) all.insert(e.name.str());
      }
    }
    resources.assign(all.begin(), all.end());
  }
  std::vector<Row> rows;
  Row header = {"QUEUE", "WEIGHT", "STATE"};
  for (const std::string& r : resources) {
    for (const char* what : {"DESERVED", "ALLOCATED", "CAPABILITY", "GUARANTEE"}) {
      header.push_back(std::string(what) + "(" + r + ")");
    }
  }
  for (const char* h : {"PENDING", "RUNNING", "ALLOCATED/DESERVED(cpu)"}) header.emplace_back(h);
  rows.push_back(std::move(header));
  // Depth first, drawing the tree in the first column.
  const auto visit = [&](const auto& self, const std::string& parent,
                         const std::string& prefix) -> void {
    auto it = children.find(parent);
    if (it == children.end()) return;
    const std::vector<const Queue*>& list = it->second;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Queue& q = *list[i];
      const bool last = i + 1 == list.size();
      std::string name;
      if (parent.empty()) {
        name = q.meta.name;
        if (!q.spec.parent.empty()) name += " (parent " + q.spec.parent + " missing)";
      } else {
        name = prefix + (last ? "└─ " : "├─ ") + q.meta.name;
      }
      Row row = {name, std::to_string(q.spec.weight), std::string(QueueStateName(q.spec.state))};
      for (const std::string& r : resources) {
        row.push_back(AmountOr(q.status.deserved, r, "-"));
        row.push_back(AmountOr(q.status.allocated, r, "0"));
        row.push_back(AmountOr(q.spec.capability, r, "-"));
        row.push_back(AmountOr(q.spec.guarantee, r, "-"));
      }
      row.push_back(std::to_string(q.status.pending + q.status.inqueue));
      row.push_back(std::to_string(q.status.running));
      row.push_back(Bar(q.status.allocated.Get("cpu"), q.status.deserved.Get("cpu")));
      rows.push_back(std::move(row));
      const std::string below = parent.empty() ? "" : prefix + (last ? "   " : "│  ");
      self(self, q.meta.name, below);
    }
  };
  visit(visit, "", "");
  return Table(rows);
}

std::string FormatExplanation(const std::string& what, const PodGroup& group, Clock::WallTime now,
                              std::optional<Clock::WallTime> newest_pod) {
  const PodGroupStatus& s = group.status;
  std::string out = what;
  if (what.find(group.meta.Key()) == std::string::npos || what.rfind("PodGroup", 0) != 0) {
    out += " (PodGroup " + group.meta.Key() + ")";
  }
  out += ": " + std::string(PodGroupPhaseName(s.phase)) + ", " + std::to_string(s.running) + "/" +
         std::to_string(group.spec.min_member) + " running, in queue " + group.spec.queue;
  if (s.phase == PodGroupPhase::kPending || s.phase == PodGroupPhase::kInqueue) {
    out += ", waiting for " + ShortDuration(now - group.meta.creation_timestamp);
  }
  out += "\n";
  const Condition* unschedulable = TrueCondition(s, "Unschedulable");
  if (!s.explanation.has_value()) {
    if (unschedulable != nullptr) {
      out +=
          "Reason:     " + unschedulable->reason + "\nMessage:    " + unschedulable->message + "\n";
    } else if (s.phase == PodGroupPhase::kPending &&
               now - std::max(group.meta.creation_timestamp,
                              newest_pod.value_or(Clock::WallTime{})) <
                   kPodsArrivalGrace) {
      // The scheduler says nothing of a group short of pods within the grace (outcome.h).
      out += "No reason recorded yet: a group is given " +
             std::to_string(kPodsArrivalGrace.count()) +
             " s for its pods to arrive before it is found short of them.\n";
    } else {
      out += "Nothing holds it: the scheduler's last session recorded no reason for it to wait.\n";
    }
    return out;
  }
  const PendingExplanation& e = *s.explanation;
  std::vector<Row> rows;
  rows.push_back({"Gate:", e.gate + " (" + e.reason + ")"});
  if (unschedulable != nullptr) rows.push_back({"Message:", unschedulable->message});
  rows.push_back({"Needs:", FormatResources(e.needs)});
  if (!e.queue.empty()) rows.push_back({"Queue:", e.queue});
  if (!e.queue.empty() && e.QueueIsTheGate()) {
    rows.push_back({"  allocated:", FormatResources(e.queue_allocated)});
    if (!e.queue_deserved.empty())
      rows.push_back({"  deserved:", FormatResources(e.queue_deserved)});
    rows.push_back({"  capability:", e.queue_capability.empty()
                                         ? std::string("unlimited")
                                         : FormatResources(e.queue_capability)});
    if (!e.queue_room.empty()) {
      rows.push_back({"  may still take:", FormatResources(e.queue_room)});
    }
  }
  if (e.nodes > 0 || !e.excluded.empty()) {
    std::string nodes = "0/" + std::to_string(e.nodes) + " nodes are available";
    if (!e.pod.empty()) nodes += " for pod " + e.pod;
    rows.push_back({"Nodes:", nodes});
    for (const NodeExclusion& x : e.excluded) {
      rows.push_back({"", std::to_string(x.nodes) + " " + x.reason});
    }
  }
  if (!e.shortfall.empty()) {
    rows.push_back(
        {"Shortfall:", FormatResources(e.shortfall) + " (beyond the most any node has free)"});
  }
  for (std::size_t i = 0; i < e.node_classes.size(); ++i) {
    const NodeClassRoom& c = e.node_classes[i];
    std::string room = std::to_string(c.nodes) + (c.nodes == 1 ? " node of " : " nodes of ") +
                       FormatResources(c.allocatable);
    if (!c.instance_type.empty()) room += " (" + c.instance_type + ")";
    room += ": at most " + FormatResources(c.most_free) + " free on one";
    rows.push_back({i == 0 ? "Free room:" : "", std::move(room)});
  }
  if (e.position > 0) {
    std::string position =
        e.position > PendingExplanation::kMaxPosition
            ? "after the first " + std::to_string(PendingExplanation::kMaxPosition)
            : std::to_string(e.position);
    position += " in queue " + e.queue;
    if (!e.ahead.empty()) {
      position += "; ahead:";
      for (const std::string& a : e.ahead) position += " " + a;
      if (e.position - 1 > static_cast<std::int32_t>(e.ahead.size())) position += " ...";
    }
    rows.push_back({"Position:", position});
  }
  if (s.reservation) {
    for (Row& row : ReservationRows(*s.reservation, now)) rows.push_back(std::move(row));
  }
  if (e.estimate) {
    for (Row& row : EstimateRows(*e.estimate, now)) rows.push_back(std::move(row));
  }
  return out + Table(rows);
}

}  // namespace arbiter::ctl
