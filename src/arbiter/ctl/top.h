// What `arbiterctl top` prints (docs/arbiterctl.md): a frame computed from two scrapes of
// arbiter-scheduler's /metrics (docs/metrics.md) taken `seconds` apart: sessions per second and
// their duration (p50, p99 from the histogram's buckets over the interval, as PromQL's
// histogram_quantile interpolates), decisions and binds per second, API requests and errors,
// pending jobs by queue and gate, and each queue's CPU allocated against deserved as a bar.
//
// Pure: the command does the scraping. Thread safety: reentrant.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"

namespace arbiter::ctl {

// One sample of the Prometheus text exposition format.
struct MetricSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// The samples of an exposition (comments and blank lines skipped); INVALID_ARGUMENT naming the
// line that is not `name{label="value",...} number`.
StatusOr<std::vector<MetricSample>> ParseExposition(std::string_view text);

// The frame, from the scrape before and the scrape after.
std::string FormatTop(const std::vector<MetricSample>& before,
                      const std::vector<MetricSample>& after, double seconds);

}  // namespace arbiter::ctl
