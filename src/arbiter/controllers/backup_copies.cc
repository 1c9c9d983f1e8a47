#include "arbiter/controllers/backup_copies.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace arbiter::controllers {
namespace {

double Seconds(Clock::WallTime from, Clock::WallTime to) {
  return std::chrono::duration<double>(to - from).count();
}

// The median run time of the task's succeeded runs; none before `min_finished` of them (or half
// the replicas, when fewer).
std::optional<double> Median(std::span<const TaskRun> runs, std::int32_t replicas,
                             const BackupRule& rule) {
  std::vector<double> durations;
  for (const TaskRun& r : runs) {
    if (r.succeeded && r.started.has_value() && r.finished.has_value()) {
      durations.push_back(std::max(0.0, Seconds(*r.started, *r.finished)));
    }
  }
  const std::int32_t needed = std::max(1, std::min(rule.min_finished, (replicas + 1) / 2));
  if (std::ssize(durations) < needed) return std::nullopt;
  std::sort(durations.begin(), durations.end());
  const std::size_t mid = durations.size() / 2;
  const double median =
      durations.size() % 2 == 1 ? durations[mid] : (durations[mid - 1] + durations[mid]) / 2;
  // A task that takes no time has no stragglers worth a copy.
  if (median <= 0) return std::nullopt;
  return median;
}

// Indexes that may still get a copy: none yet, and none of their runs succeeded.
std::set<std::int32_t> Closed(std::span<const TaskRun> runs) {
  std::set<std::int32_t> closed;
  for (const TaskRun& r : runs) {
    if (r.backup || r.succeeded) closed.insert(r.index);
  }
  return closed;
}

bool MayBeCopied(const TaskRun& r, const std::set<std::int32_t>& closed) {
  return !r.backup && !r.succeeded && !r.failed && !r.finished.has_value() &&
         r.started.has_value() && !closed.contains(r.index);
}

}  // namespace

std::vector<BackupChoice> ChooseBackups(std::span<const TaskRun> runs, std::int32_t replicas,
                                        Clock::WallTime now, const BackupRule& rule) {
  const std::optional<double> median_or = Median(runs, replicas, rule);
  if (!median_or.has_value()) return {};
  const double median = *median_or;
  const double behind = rule.behind_ratio * median;

  const std::set<std::int32_t> closed = Closed(runs);
  std::set<std::string> slow;
  std::int32_t live_copies = 0;
  for (const TaskRun& r : runs) {
    if (r.backup && !r.succeeded && !r.failed) ++live_copies;
    if (r.node.empty() || !r.started.has_value()) continue;
    const Clock::WallTime end = r.finished.value_or(now);
    if ((r.succeeded || (!r.failed && !r.finished.has_value())) &&
        Seconds(*r.started, end) > behind) {
      slow.insert(r.node);
    }
  }

  struct Candidate {
    double ran;
    const TaskRun* run;
  };
  std::vector<Candidate> candidates;
  for (const TaskRun& r : runs) {
    if (!MayBeCopied(r, closed)) continue;
    const double ran = Seconds(*r.started, now);
    if (ran > behind) candidates.push_back(Candidate{ran, &r});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.ran != b.ran) return a.ran > b.ran;
    return a.run->index < b.run->index;
  });
  const auto cap = std::max<std::int32_t>(
      1, static_cast<std::int32_t>(std::ceil(rule.cap_fraction * std::max(0, replicas))));
  const std::int32_t room = std::max(0, cap - live_copies);
  if (std::ssize(candidates) > room) candidates.resize(static_cast<std::size_t>(room));

  std::vector<BackupChoice> out;
  out.reserve(candidates.size());
  const std::vector<std::string> avoid(slow.begin(), slow.end());
  for (const Candidate& c : candidates) {
    out.push_back(BackupChoice{
        c.run->index, avoid,
        fmt::format("ran {:.0f}s on {}, {:.1f}x its task's median of {:.0f}s", c.ran,
                    c.run->node.empty() ? std::string("?") : c.run->node, c.ran / median, median)});
  }
  return out;
}

std::optional<Clock::WallTime> NextBehind(std::span<const TaskRun> runs, std::int32_t replicas,
                                          Clock::WallTime now, const BackupRule& rule) {
  const std::optional<double> median = Median(runs, replicas, rule);
  if (!median.has_value()) return std::nullopt;
  const auto behind = std::chrono::duration_cast<Clock::WallTime::duration>(
      std::chrono::duration<double>(rule.behind_ratio * *median));
  const std::set<std::int32_t> closed = Closed(runs);
  std::optional<Clock::WallTime> next;
  for (const TaskRun& r : runs) {
    if (!MayBeCopied(r, closed)) continue;
    const Clock::WallTime at = *r.started + behind;
    if (at >= now && (!next.has_value() || at < *next)) next = at;
  }
  return next;
}

void ExcludeNodes(std::optional<NodeSelector>& affinity, std::span<const std::string> nodes) {
  if (nodes.empty()) return;
  if (!affinity.has_value()) affinity.emplace();
  if (affinity->terms.empty()) affinity->terms.emplace_back();
  for (NodeSelectorTerm& term : affinity->terms) {
    for (const std::string& node : nodes) {
      term.match_fields.push_back(
          NodeSelectorRequirement{"metadata.name", NodeSelectorOperator::kNotIn, {node}});
    }
  }
}

}  // namespace arbiter::controllers
