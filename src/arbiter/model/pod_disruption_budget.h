// PodDisruptionBudget (policy/v1): what the Eviction API consults before it evicts a pod. The
// scheduler keeps only what decides whether an eviction would be refused: the pods the budget
// selects and how many disruptions it allows now (status.disruptionsAllowed, kept by the
// disruption controller). Plain value, no I/O; thread safety: a value type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "arbiter/model/label_selector.h"
#include "arbiter/model/object_meta.h"

namespace arbiter {

struct PodDisruptionBudget {
  ObjectMeta meta;
  // spec.selector: absent selects no pod; empty selects every pod of the namespace (policy/v1).
  std::optional<LabelSelector> selector;
  std::int32_t disruptions_allowed = 0;
  // status.observedGeneration: the Eviction API refuses every eviction the budget covers while
  // the controller has not seen the budget's latest spec (observedGeneration < generation).
  std::int64_t observed_generation = 0;

  // Whether the budget covers a pod of its namespace with these labels.
  bool Selects(const Labels& labels) const {
    return selector.has_value() && selector->Matches(labels);
  }
  // How many more evictions of pods it covers the API server would accept now.
  std::int32_t Allowed() const {
    return observed_generation < meta.generation ? 0 : std::max(disruptions_allowed, 0);
  }
  friend bool operator==(const PodDisruptionBudget&, const PodDisruptionBudget&) = default;
};

}  // namespace arbiter
