// Writers of a SimulationReport (sim/simulator.h): JSON for tools and tests, and a single
// self-contained HTML page for people (inline SVG charts and CSS, no external resources).
//
// JSON: an object with the inputs, "summary" (counts, wait/completion percentiles, utilisation,
// Jain's index), "utilisation" (series), "queues", "jobs" (one entry per job) and, last,
// "performance" (measured: session times, decisions/s, peak memory). Everything before
// "performance" depends on the inputs and the seed alone; ReportJson(report, false) leaves
// "performance" out, so the rest can be compared byte for byte.
//
// HTML: a summary table, then four charts, each an <svg class="chart"> with an id: utilisation
// over time (chart-utilisation), queue allocation against deserved (chart-queues), the
// distribution of job wait times (chart-waits) and session times (chart-sessions). A small inline
// script marks each chart data-rendered="true" once the browser has laid it out with a non-empty
// box, which is what the headless-browser test checks.
#pragma once

#include <string>

#include "arbiter/sim/simulator.h"

namespace arbiter::sim {

// The report as JSON text (two-space indented, keys in a fixed order).
std::string ReportJson(const SimulationReport& report, bool include_performance = true);

// The report as one HTML page.
std::string ReportHtml(const SimulationReport& report);

}  // namespace arbiter::sim
