#include "arbiter/ctl/top.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

namespace arbiter::ctl {
namespace {

using Labels = std::map<std::string, std::string>;

// Parses `value` (a float, or +Inf, -Inf, NaN as the format writes them).
bool ParseValue(std::string_view text, double& value) {
  if (text == "+Inf" || text == "Inf") {
    value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Inf") {
    value = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "NaN") {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool Matches(const MetricSample& s, const Labels& match) {
  return std::ranges::all_of(match, [&s](const auto& kv) {
    auto it = s.labels.find(kv.first);
    return it != s.labels.end() && it->second == kv.second;
  });
}

// Sum of the samples named `name` whose labels include `match`.
double Sum(const std::vector<MetricSample>& samples, std::string_view name,
           const Labels& match = {}) {
  double sum = 0;
  for (const MetricSample& s : samples) {
    if (s.name == name && Matches(s, match)) sum += s.value;
  }
  return sum;
}

double Rate(const std::vector<MetricSample>& before, const std::vector<MetricSample>& after,
            std::string_view name, double seconds, const Labels& match = {}) {
  if (seconds <= 0) return 0;
  // A counter that went down was reset (a restart): count from zero.
  const double a = Sum(after, name, match);
  const double b = Sum(before, name, match);
  return (a >= b ? a - b : a) / seconds;
}

// The q-quantile of the observations of histogram `name` (with `match`) between the scrapes.
std::string Quantile(const std::vector<MetricSample>& before,
                     const std::vector<MetricSample>& after, const std::string& name,
                     const Labels& match, double q) {
  std::map<double, double> buckets;  // le -> observations in the interval, cumulative
  const auto add = [&](const std::vector<MetricSample>& samples, double sign) {
    for (const MetricSample& s : samples) {
      if (s.name != name + "_bucket" || !Matches(s, match)) continue;
      auto le = s.labels.find("le");
      double bound = 0;
      if (le == s.labels.end() || !ParseValue(le->second, bound)) continue;
      buckets[bound] += sign * s.value;
    }
  };
  add(after, 1);
  add(before, -1);
  if (buckets.empty()) return "-";
  const double total = buckets.rbegin()->second;
  if (total <= 0) return "-";
  const double rank = q * total;
  double lower = 0;
  double below = 0;
  for (const auto& [le, count] : buckets) {
    if (count >= rank) {
      if (std::isinf(le)) return fmt::format("> {}", lower);
      const double fraction = count > below ? (rank - below) / (count - below) : 1;
      const double seconds = lower + (le - lower) * fraction;
      return seconds < 1 ? fmt::format("{:.1f}ms", seconds * 1000)
                         : fmt::format("{:.2f}s", seconds);
    }
    lower = le;
    below = count;
  }
  return "-";
}

std::string Bar(double value, double of) {
  constexpr int kWidth = 20;
  if (of <= 0) return "";
  const int filled = std::clamp(static_cast<int>(std::lround(value / of * kWidth)), 0, kWidth);
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(kWidth - filled), '.') + "] " +
         fmt::format("{:.0f}%", value / of * 100);
}

}  // namespace

StatusOr<std::vector<MetricSample>> ParseExposition(std::string_view text) {
  std::vector<MetricSample> out;
  int line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const auto bad = [&](std::string_view why) {
      return InvalidArgumentError(
          fmt::format("metrics line {}: {}: \"{}\"", line_number, why, line.substr(0, 120)));
    };
    MetricSample sample;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    sample.name = std::string(line.substr(0, i));
    if (sample.name.empty()) return bad("no metric name");
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find('=', i);
        if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') {
          return bad("a label is not name=\"value\"");
        }
        std::string key(line.substr(i, eq - i));
        std::string value;
        std::size_t j = eq + 2;
        for (; j < line.size() && line[j] != '"'; ++j) {
          if (line[j] == '\\' && j + 1 < line.size()) {
            ++j;
            value += line[j] == 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        if (j >= line.size()) return bad("a label value is not closed");
        sample.labels[std::move(key)] = std::move(value);
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) return bad("the labels are not closed");
      ++i;
    }
    while (i < line.size() && line[i] == ' ') ++i;
    std::string_view value = line.substr(i);
    if (const std::size_t space = value.find(' '); space != std::string_view::npos) {
      value = value.substr(0, space);  // a timestamp follows
    }
    if (!ParseValue(value, sample.value)) return bad("the value is not a number");
    out.push_back(std::move(sample));
  }
  return out;
}

std::string FormatTop(const std::vector<MetricSample>& before,
                      const std::vector<MetricSample>& after, double seconds) {
  std::ostringstream out;
  const bool leading = Sum(after, "arbiter_leader") > 0;
  out << fmt::format("arbiter-scheduler  {}  over the last {:.1f}s\n",
                     leading ? "leading" : "standing by (no sessions)", seconds);
  const Labels total = {{"phase", "total"}};
  out << fmt::format("sessions  {:.1f}/s  p50 {}  p99 {}\n",
                     Rate(before, after, "arbiter_sessions_total", seconds),
                     Quantile(before, after, "arbiter_session_duration_seconds", total, 0.5),
                     Quantile(before, after, "arbiter_session_duration_seconds", total, 0.99));
  out << "decisions";
  for (const char* d : {"bind", "evict", "nominate", "unschedulable"}) {
    out << fmt::format("  {} {:.1f}/s", d,
                       Rate(before, after, "arbiter_decisions_total", seconds, {{"decision", d}}));
  }
  out << "\nsent     ";
  for (const char* r : {"bound", "failed"}) {
    out << fmt::format("  {} {:.1f}/s", r,
                       Rate(before, after, "arbiter_binds_total", seconds, {{"result", r}}));
  }
  for (const char* r : {"evicted", "refused"}) {
    out << fmt::format("  {} {:.1f}/s", r,
                       Rate(before, after, "arbiter_evictions_total", seconds, {{"result", r}}));
  }
  double errors = 0;
  for (const MetricSample& s : after) {
    if (s.name != "arbiter_api_requests_total") continue;
    const std::string& code = s.labels.count("code") ? s.labels.at("code") : std::string();
    if (code == "error" || code == "429" || code.starts_with("5")) {
      errors += Rate(before, after, "arbiter_api_requests_total", seconds, s.labels);
    }
  }
  out << fmt::format("\napi       {:.1f} requests/s  {:.1f} errors/s\n",
                     Rate(before, after, "arbiter_api_requests_total", seconds), errors);

  // Pending jobs by queue and gate, most first.
  std::vector<std::pair<double, std::pair<std::string, std::string>>> pending;
  for (const MetricSample& s : after) {
    if (s.name != "arbiter_pending_jobs" || s.value <= 0) continue;
    pending.push_back({s.value,
                       {s.labels.count("queue") ? s.labels.at("queue") : "",
                        s.labels.count("gate") ? s.labels.at("gate") : ""}});
  }
  std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  out << "\nPENDING  QUEUE                GATE                   JOBS\n";
  if (pending.empty()) out << "         (none)\n";
  for (const auto& [jobs, key] : pending) {
    out << fmt::format("         {:<20} {:<22} {:.0f}\n", key.first, key.second, jobs);
  }

  // Each queue's CPU, allocated against deserved.
  std::set<std::string> queues;
  for (const MetricSample& s : after) {
    if ((s.name == "arbiter_queue_allocated" || s.name == "arbiter_queue_deserved") &&
        s.labels.count("queue")) {
      queues.insert(s.labels.at("queue"));
    }
  }
  out << "\nQUEUE                CPU ALLOCATED  DESERVED\n";
  for (const std::string& q : queues) {
    const double allocated =
        Sum(after, "arbiter_queue_allocated", {{"queue", q}, {"resource", "cpu"}});
    const double deserved =
        Sum(after, "arbiter_queue_deserved", {{"queue", q}, {"resource", "cpu"}});
    out << fmt::format("{:<20} {:>13.3g}  {:>8.3g}  {}\n", q, allocated, deserved,
                       Bar(allocated, deserved));
  }
  return out.str();
}

}  // namespace arbiter::ctl
