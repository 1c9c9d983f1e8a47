// `arbiterctl whatif FILE`: "when would this job start if I submitted it now?", answered by the
// same forecast as the PodGroups' estimates (sim/forecast.h), with the job added as if submitted
// and nothing written to the cluster. The pure parts are here: reading the file into the job the
// forecast adds, and the answer's wording.
//
// FILE holds YAML or JSON documents (separated by `---`, as kubectl apply takes them):
//   * a PodGroup and its Pods (pods that name no group are put into it), or
//   * one Pod (a job of its own), or
//   * a BatchJob: its PodGroup and pods are made as arbiter-controller would make them.
// Objects without a namespace take `default_namespace`. The job's own run time (what jobs
// behind it wait for) is taken as the scheduler would (sim/run_time.h).
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbiter/base/clock.h"
#include "arbiter/base/status.h"
#include "arbiter/sim/forecast.h"

namespace arbiter::ctl {

// The documents of a YAML (or JSON) stream, as JSON; empty documents are skipped. Errors name
// `source` and the line.
StatusOr<std::vector<nlohmann::json>> ParseManifests(std::string_view text,
                                                     std::string_view source);

struct WhatIfJob {
  std::string kind;  // "PodGroup", "Pod" or "BatchJob": what the file held
  std::string key;   // the job's namespace/name (its PodGroup's, or the lone pod's)
  sim::ExtraJob job;
};

// Errors name the document (its index and kind/name) and the field.
StatusOr<WhatIfJob> WhatIfJobFrom(const std::vector<nlohmann::json>& documents,
                                  const std::string& default_namespace,
                                  const std::string& scheduler_name, Clock::WallTime now);

// The answer, for people: when, how sure, what it assumed.
std::string FormatWhatIf(const WhatIfJob& job, const sim::ForecastResult& forecast);

}  // namespace arbiter::ctl
