#include "arbiter/sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace arbiter::sim {

namespace {

using Json = nlohmann::ordered_json;

Json SummaryJson(const Summary& s) {
  return Json{{"count", s.count}, {"p50", s.p50}, {"p90", s.p90},
              {"p99", s.p99},     {"max", s.max}, {"mean", s.mean}};
}

// ----------------------------------------------------------------------------------------------
// HTML.

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      case '"':
        out.append("&quot;");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string Seconds(double ms) {
  if (ms >= 3'600'000) return fmt::format("{:.1f} h", ms / 3'600'000);
  if (ms >= 60'000) return fmt::format("{:.1f} min", ms / 60'000);
  if (ms >= 1000) return fmt::format("{:.1f} s", ms / 1000);
  return fmt::format("{:.0f} ms", ms);
}

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten, at least `value`.
double NiceCeiling(double value) {
  if (value <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= value) return m * power;
  }
  return 10 * power;
}

struct Series {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (x, y)
  bool dashed = false;
};

constexpr int kWidth = 720;
constexpr int kHeight = 260;
constexpr int kLeft = 70;
constexpr int kRight = 20;
constexpr int kTop = 30;
constexpr int kBottom = 45;

// Opens a chart: the frame, the title, y gridlines labelled by `y_label` of their value.
template <typename YLabel>
void OpenChart(std::string& out, std::string_view id, std::string_view title, double y_max,
               YLabel y_label) {
  out.append(fmt::format(
      "<svg class=\"chart\" id=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\"><title>{}</title>\n<text x=\"{}\" y=\"18\" class=\"title\">{}</text>\n",
      id, kWidth, kHeight, kWidth, kHeight, Escape(title), kLeft, Escape(title)));
  const int plot_h = kHeight - kTop - kBottom;
  for (int i = 0; i <= 4; ++i) {
    const double y = kTop + plot_h - plot_h * i / 4.0;
    out.append(
        fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
                    "<text x=\"{}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"end\">{}</text>\n",
                    kLeft, kWidth - kRight, y, y, kLeft - 6, y + 4, y_label(y_max * i / 4.0)));
  }
}

void LineChart(std::string& out, std::string_view id, std::string_view title,
               const std::vector<Series>& series, double x_min, double x_max, double y_max,
               const std::function<std::string(double)>& x_label,
               const std::function<std::string(double)>& y_label) {
  if (x_max <= x_min) x_max = x_min + 1;
  OpenChart(out, id, title, y_max, y_label);
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + plot_w * (x - x_min) / (x_max - x_min); };
  auto py = [&](double y) { return kTop + plot_h - plot_h * std::min(y, y_max) / y_max; };
  for (int i = 0; i <= 4; ++i) {
    const double x = x_min + (x_max - x_min) * i / 4.0;
    out.append(
        fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}"
                    "</text>\n",
                    px(x), kHeight - kBottom + 16, Escape(x_label(x))));
  }
  int legend_x = kLeft;
  for (const Series& s : series) {
    std::string path;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      // A step function: each value holds until the next sample.
      const auto [x, y] = s.points[i];
      if (i == 0) {
        path.append(fmt::format("M{:.1f},{:.1f}", px(x), py(y)));
      } else {
        path.append(fmt::format("H{:.1f}V{:.1f}", px(x), py(y)));
      }
    }
    if (!s.points.empty()) path.append(fmt::format("H{:.1f}", px(x_max)));
    out.append(fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{}/>\n",
                           path, s.color, s.dashed ? " stroke-dasharray=\"5,3\"" : ""));
    out.append(fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
        "class=\"legend\">{}</text>\n",
        legend_x, kHeight - 12, s.color, legend_x + 16, kHeight - 8, Escape(s.name)));
    legend_x += 28 + static_cast<int>(s.name.size()) * 7;
  }
  out.append("</svg>\n");
}

void BarChart(std::string& out, std::string_view id, std::string_view title,
              const std::vector<std::string>& labels, const std::vector<double>& values,
              std::string_view color, std::string_view y_unit) {
  double top = 0;
  for (double v : values) top = std::max(top, v);
  const double y_max = NiceCeiling(top);
  OpenChart(out, id, title, y_max, [&](double v) { return fmt::format("{:g}{}", v, y_unit); });
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const double bar_w = values.empty() ? 0 : plot_w / static_cast<double>(values.size());
  const std::size_t label_every = std::max<std::size_t>(1, (labels.size() + 7) / 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double h = plot_h * values[i] / y_max;
    const double x = kLeft + bar_w * static_cast<double>(i);
    out.append(fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{}: {:g}</title></rect>\n",
        x + 1, kTop + plot_h - h, std::max(bar_w - 2, 1.0), h, color, Escape(labels[i]),
        values[i]));
    if (i % label_every == 0) {
      out.append(fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"axis\">{}</text>\n", x + 2,
                             kHeight - kBottom + 16, Escape(labels[i])));
    }
  }
  out.append("</svg>\n");
}

// A histogram of `values` in `bins` equal bins from 0 to the maximum.
void Histogram(std::string& out, std::string_view id, std::string_view title,
               const std::vector<double>& values, int bins,
               const std::function<std::string(double)>& label) {
  double top = 0;
  for (double v : values) top = std::max(top, v);
  top = NiceCeiling(top);
  std::vector<double> counts(static_cast<std::size_t>(bins), 0);
  for (double v : values) {
    auto bin = static_cast<std::size_t>(v / top * bins);
    counts[std::min(bin, counts.size() - 1)] += 1;
  }
  std::vector<std::string> labels;
  labels.reserve(counts.size());
  for (int b = 0; b < bins; ++b) labels.push_back(label(top * b / bins));
  BarChart(out, id, title, labels, counts, "#4e79a7", "");
}

const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

constexpr std::string_view kStyle = R"(<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:980px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.chart{display:block;margin:8px 0;background:#fff;border:1px solid #ddd}
.chart .grid{stroke:#e5e5e5}.chart .axis{font-size:11px;fill:#555}
.chart .title{font-size:13px;font-weight:600}.chart .legend{font-size:11px}
.bad{color:#b00;font-weight:600}.note{color:#555;font-size:13px}
</style>)";

// Marks each chart as rendered once it has a laid-out, non-empty box.
constexpr std::string_view kScript = R"(<script>
window.addEventListener('load', function () {
  var n = 0;
  document.querySelectorAll('svg.chart').forEach(function (c) {
    var r = c.getBoundingClientRect();
    var ok = r.width > 0 && r.height > 0 && c.querySelectorAll('path,rect').length > 0;
    c.setAttribute('data-rendered', ok ? 'true' : 'false');
    if (ok) n++;
  });
  document.body.setAttribute('data-charts-rendered', String(n));
});
</script>)";

}  // namespace

std::string ReportJson(const SimulationReport& r, bool include_performance) {
  Json j;
  j["cluster"] = r.cluster;
  j["workload"] = r.workload;
  j["description"] = r.description;
  j["seed"] = r.seed;
  j["periodMs"] = r.period_ms;
  j["nodes"] = r.nodes;
  j["pods"] = r.pods;
  j["jobs"] = r.jobs;
  Json summary;
  summary["sessions"] = r.sessions;
  summary["binds"] = r.binds;
  summary["partialGangs"] = r.partial_gangs;
  if (r.invariants_checked) {
    summary["invariantViolations"] = r.invariant_violations;
    summary["violations"] = r.violations;
  }
  Json preemption;
  preemption["evictions"] = r.evictions;
  preemption["byQueue"] = r.evictions_by_queue;
  preemption["byKind"] = r.evictions_by_kind;
  preemption["workLostPodSeconds"] = r.work_lost_pod_seconds;
  preemption["reclaimWorkLostPodSeconds"] = r.reclaim_work_lost_pod_seconds;
  preemption["reclaimWorkLostBoundPodSeconds"] = r.reclaim_work_lost_bound_pod_seconds;
  preemption["jobsPreempted"] = r.jobs_preempted;
  preemption["maxPreemptionsPerJob"] = r.max_preemptions_per_job;
  preemption["thrash"] = r.thrash;
  summary["preemption"] = std::move(preemption);
  summary["jobsStarted"] = r.jobs_started;
  summary["jobsFinished"] = r.jobs_finished;
  summary["neverStarted"] = r.never_started;
  summary["endMs"] = r.end_ms;
  summary["endReason"] = r.end_reason;
  summary["makespanMs"] = r.makespan_ms;
  summary["waitMs"] = SummaryJson(r.wait_ms);
  summary["gangWaitMs"] = SummaryJson(r.gang_wait_ms);
  summary["completionMs"] = SummaryJson(r.completion_ms);
  summary["meanCpuUtilisation"] = r.mean_cpu_utilisation;
  summary["meanMemoryUtilisation"] = r.mean_memory_utilisation;
  summary["jainIndex"] = r.jain_index;
  if (r.topology.labelled) {
    Json topology;
    topology["gangs"] = r.topology.gangs;
    topology["crossRack"] = r.topology.cross_rack;
    topology["crossZone"] = r.topology.cross_zone;
    topology["racksPerGang"] = SummaryJson(r.topology.racks_per_gang);
    summary["topology"] = std::move(topology);
  }
  if (r.stragglers.slow_nodes > 0) {
    Json stragglers;
    stragglers["slowNodes"] = r.stragglers.slow_nodes;
    stragglers["pods"] = r.stragglers.pods;
    stragglers["podsOnSlowNodes"] = r.stragglers.pods_on_slow_nodes;
    if (r.stragglers.copies > 0) {
      stragglers["copies"] = r.stragglers.copies;
      stragglers["copiesWon"] = r.stragglers.copies_won;
    }
    summary["stragglers"] = std::move(stragglers);
  }
  if (r.locality.pods > 0) {
    Json locality;
    locality["pods"] = r.locality.pods;
    locality["nodeLocal"] = r.locality.node_local;
    locality["rackLocal"] = r.locality.rack_local;
    locality["remote"] = r.locality.remote;
    summary["locality"] = std::move(locality);
  }
  j["summary"] = std::move(summary);
  Json utilisation = Json::array();
  for (const UtilisationPoint& p : r.utilisation) {
    utilisation.push_back(Json::array({p.t_ms, p.cpu, p.memory, p.pods}));
  }
  j["utilisation"] =
      Json{{"columns", {"tMs", "cpu", "memory", "pods"}}, {"points", std::move(utilisation)}};
  Json queues = Json::array();
  for (const QueueOutcome& q : r.queues) {
    Json series = Json::array();
    for (const QueuePoint& p : q.series) {
      series.push_back(Json::array({p.t_ms, p.allocated_millicores, p.deserved_millicores}));
    }
    queues.push_back(Json{{"name", q.name},
                          {"weight", q.weight},
                          {"jobs", q.jobs},
                          {"busyMs", q.busy_ms},
                          {"meanAllocatedMillicores", q.mean_allocated_millicores},
                          {"meanDeservedMillicores", q.mean_deserved_millicores},
                          {"columns", {"tMs", "allocatedMillicores", "deservedMillicores"}},
                          {"series", std::move(series)}});
  }
  j["queues"] = std::move(queues);
  // The estimates' column only when there are estimates, so that other reports keep their shape.
  const bool eta = r.eta.estimated > 0;
  Json jobs = Json::array();
  for (const JobOutcome& o : r.job_outcomes) {
    jobs.push_back(Json::array(
        {o.name, o.queue, o.pods, o.min_member, o.arrival_ms, o.start_ms, o.finish_ms}));
    if (eta) jobs.back().push_back(o.estimated_start_ms);
  }
  Json columns = {"name", "queue", "pods", "minMember", "arrivalMs", "startMs", "finishMs"};
  if (eta) columns.push_back("estimatedStartMs");
  j["jobOutcomes"] = Json{{"columns", std::move(columns)}, {"rows", std::move(jobs)}};
  if (eta) {
    j["eta"] = Json{{"estimated", r.eta.estimated},
                    {"compared", r.eta.compared},
                    {"missed", r.eta.missed},
                    {"minWaitMs", EtaAccuracy::kMinWaitMs},
                    {"errorMs", SummaryJson(r.eta.error_ms)},
                    {"relativeError", SummaryJson(r.eta.relative_error)},
                    {"lateMs", SummaryJson(r.eta.late_ms)}};
  }
  if (r.bind_faults.failure_rate > 0 || r.bind_faults.latency.count() > 0) {
    j["bindFaults"] = Json{{"failureRate", r.bind_faults.failure_rate},
                           {"latencyMs", r.bind_faults.latency.count()},
                           {"seed", r.bind_faults.seed},
                           {"failedBinds", r.bind_failures}};
  }
  if (include_performance) {
    const Performance& p = r.performance;
    Json actions = Json::object();
    for (const auto& [name, ms] : p.action_ms) actions[name] = ms;
    Json plugins = Json::object();
    for (const auto& [name, ms] : p.plugin_ms) plugins[name] = ms;
    j["performance"] = Json{
        {"sessionMs", SummaryJson(p.session)},     {"snapshotMs", SummaryJson(p.snapshot)},
        {"schedulerSeconds", p.scheduler_seconds}, {"decisionsPerSecond", p.decisions_per_second},
        {"wallSeconds", p.wall_seconds},           {"peakRssBytes", p.peak_rss_bytes},
        {"actionMs", std::move(actions)},          {"pluginOpenCloseMs", std::move(plugins)},
        {"nodesFiltered", p.nodes_filtered}};
  }
  return j.dump(2) + "\n";
}

std::string ReportHtml(const SimulationReport& r) {
  std::string out;
  out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
  out.append(Escape("Arbiter simulation: " + r.workload));
  out.append("</title>\n");
  out.append(kStyle);
  out.append("\n</head><body>\n<h1>Arbiter simulation</h1>\n");
  out.append(
      fmt::format("<p>{}<br><span class=\"note\">cluster {} &middot; workload {} &middot; "
                  "seed {} &middot; session period {}</span></p>\n",
                  Escape(r.description), Escape(r.cluster), Escape(r.workload), r.seed,
                  Seconds(static_cast<double>(r.period_ms))));

  const Performance& p = r.performance;
  out.append("<h2>Summary</h2>\n<table>\n");
  auto row = [&](std::string_view name, const std::string& value, bool bad = false) {
    out.append(fmt::format("<tr><td>{}</td><td{}>{}</td></tr>\n", name, bad ? " class=\"bad\"" : "",
                           Escape(value)));
  };
  row("nodes / jobs / pods", fmt::format("{} / {} / {}", r.nodes, r.jobs, r.pods));
  row("jobs started / finished", fmt::format("{} / {}", r.jobs_started, r.jobs_finished));
  row("partial gangs (must be 0)", std::to_string(r.partial_gangs), r.partial_gangs != 0);
  row("invariant violations (must be 0)",
      r.invariants_checked ? std::to_string(r.invariant_violations) : "not checked",
      r.invariant_violations != 0);
  row("evictions (preempt + reclaim) / jobs preempted / most per job",
      fmt::format("{} / {} / {}", r.evictions, r.jobs_preempted, r.max_preemptions_per_job));
  row("work lost to evictions", fmt::format("{:.0f} pod-seconds", r.work_lost_pod_seconds));
  row("work lost to reclaim / least possible",
      fmt::format("{:.0f} / {:.0f} pod-seconds", r.reclaim_work_lost_pod_seconds,
                  r.reclaim_work_lost_bound_pod_seconds));
  row("thrash flags (must be none)", r.thrash.empty() ? "none" : fmt::format("{}", r.thrash.size()),
      !r.thrash.empty());
  row("ended", fmt::format("{} at {}", r.end_reason, Seconds(static_cast<double>(r.end_ms))));
  row("makespan", Seconds(static_cast<double>(r.makespan_ms)));
  row("job wait p50 / p99 / max", fmt::format("{} / {} / {}", Seconds(r.wait_ms.p50),
                                              Seconds(r.wait_ms.p99), Seconds(r.wait_ms.max)));
  row("gang wait p50 / p99",
      fmt::format("{} / {}", Seconds(r.gang_wait_ms.p50), Seconds(r.gang_wait_ms.p99)));
  if (r.topology.labelled) {
    row("gangs started / across racks / across zones",
        fmt::format("{} / {} / {}", r.topology.gangs, r.topology.cross_rack,
                    r.topology.cross_zone));
  }
  if (r.locality.pods > 0) {
    const auto percent = [&](std::int64_t n) {
      return 100 * static_cast<double>(n) / static_cast<double>(r.locality.pods);
    };
    row("pods on their data: node / rack / elsewhere",
        fmt::format("{:.1f} % / {:.1f} % / {:.1f} %", percent(r.locality.node_local),
                    percent(r.locality.rack_local), percent(r.locality.remote)));
  }
  if (r.stragglers.slow_nodes > 0) {
    row("pods on slow nodes",
        fmt::format("{} of {} ({} slow nodes)", r.stragglers.pods_on_slow_nodes, r.stragglers.pods,
                    r.stragglers.slow_nodes));
    if (r.stragglers.copies > 0) {
      row("backup copies: made / ended first",
          fmt::format("{} / {}", r.stragglers.copies, r.stragglers.copies_won));
    }
  }
  row("completion p50 / p99",
      fmt::format("{} / {}", Seconds(r.completion_ms.p50), Seconds(r.completion_ms.p99)));
  row("mean utilisation cpu / memory",
      fmt::format("{:.1f} % / {:.1f} %", 100 * r.mean_cpu_utilisation,
                  100 * r.mean_memory_utilisation));
  row("Jain's index over queues", fmt::format("{:.3f}", r.jain_index));
  row("sessions / binds", fmt::format("{} / {}", r.sessions, r.binds));
  row("session time p50 / p99 / max (measured)",
      fmt::format("{:.2f} / {:.2f} / {:.2f} ms", p.session.p50, p.session.p99, p.session.max));
  row("of which snapshot p50 / p99 (measured)",
      fmt::format("{:.2f} / {:.2f} ms", p.snapshot.p50, p.snapshot.p99));
  row("decisions per second (measured)", fmt::format("{:.0f}", p.decisions_per_second));
  row("peak memory (measured)",
      fmt::format("{:.0f} MiB", static_cast<double>(p.peak_rss_bytes) / (1 << 20)));
  out.append("</table>\n");
  if (!r.never_started.empty()) {
    std::string names;
    for (const std::string& n : r.never_started) names.append(n + " ");
    out.append(fmt::format("<p class=\"note\">Never started (first {}): {}</p>\n",
                           r.never_started.size(), Escape(names)));
  }

  const double t0 = r.utilisation.empty() ? 0 : static_cast<double>(r.utilisation.front().t_ms);
  const double t1 = std::max(static_cast<double>(r.end_ms), t0 + 1);
  auto time_label = [](double ms) { return Seconds(ms); };
  auto percent = [](double v) { return fmt::format("{:.0f} %", v * 100); };

  out.append("<h2>Utilisation over time</h2>\n");
  std::vector<Series> util(3);
  util[0] = {"cpu", kColors[0], {}, false};
  util[1] = {"memory", kColors[1], {}, false};
  util[2] = {"pods", kColors[2], {}, true};
  for (const UtilisationPoint& u : r.utilisation) {
    const auto t = static_cast<double>(u.t_ms);
    util[0].points.emplace_back(t, u.cpu);
    util[1].points.emplace_back(t, u.memory);
    util[2].points.emplace_back(t, u.pods);
  }
  LineChart(out, "chart-utilisation", "Requests of placed pods / allocatable", util, t0, t1, 1.0,
            time_label, percent);

  out.append("<h2>Queues: allocated against deserved</h2>\n");
  std::vector<Series> queue_series;
  double queue_max = 0;
  for (std::size_t i = 0; i < r.queues.size(); ++i) {
    const QueueOutcome& q = r.queues[i];
    const char* color = kColors[i % std::size(kColors)];
    Series allocated{q.name + " allocated", color, {}, false};
    Series deserved{q.name + " deserved", color, {}, true};
    for (const QueuePoint& pt : q.series) {
      const auto t = static_cast<double>(pt.t_ms);
      allocated.points.emplace_back(t, static_cast<double>(pt.allocated_millicores) / 1000);
      deserved.points.emplace_back(t, static_cast<double>(pt.deserved_millicores) / 1000);
      queue_max =
          std::max({queue_max, allocated.points.back().second, deserved.points.back().second});
    }
    queue_series.push_back(std::move(allocated));
    queue_series.push_back(std::move(deserved));
  }
  LineChart(out, "chart-queues", "CPU allocated (solid) and deserved (dashed) per queue",
            queue_series, t0, t1, NiceCeiling(queue_max), time_label,
            [](double v) { return fmt::format("{:g} cpu", v); });
  out.append(
      "<table><tr><th>queue</th><th>weight</th><th>jobs</th><th>mean allocated cpu</th>"
      "<th>mean deserved cpu</th><th>allocated / deserved</th></tr>\n");
  for (const QueueOutcome& q : r.queues) {
    out.append(fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2f}</td><td>{:.2f}</td><td>{}</td></tr>\n",
        Escape(q.name), q.weight, q.jobs, q.mean_allocated_millicores / 1000,
        q.mean_deserved_millicores / 1000,
        q.mean_deserved_millicores > 0
            ? fmt::format("{:.3f}", q.mean_allocated_millicores / q.mean_deserved_millicores)
            : std::string("-")));
  }
  out.append("</table>\n");

  out.append("<h2>Job wait times (arrival to start)</h2>\n");
  std::vector<double> waits;
  for (const JobOutcome& o : r.job_outcomes) {
    if (o.start_ms >= 0) waits.push_back(static_cast<double>(o.start_ms - o.arrival_ms));
  }
  Histogram(out, "chart-waits", "Jobs by wait time", waits, 20, time_label);

  out.append("<h2>Session times (measured)</h2>\n");
  Histogram(out, "chart-sessions", "Sessions by wall time (snapshot + session)", p.session_ms, 20,
            [](double ms) {
              return ms >= 10 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.2g} ms", ms);
            });

  out.append(kScript);
  out.append("\n</body></html>\n");
  return out;
}

}  // namespace arbiter::sim
