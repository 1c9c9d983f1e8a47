// LabelSelector: Kubernetes' standard label selector (metav1.LabelSelector): matchLabels and
// matchExpressions, ANDed. Used by Queue.spec.namespaceSelector (which namespaces may submit to a
// queue) and anywhere else a selector is stored in the model.
//
// Semantics follow metav1.LabelSelectorAsSelector: an empty selector (no labels, no expressions)
// selects everything; a selector stored as absent (std::optional without value) is the caller's
// business (for a queue: all namespaces). `In` with no values selects nothing; `NotIn` selects
// objects that lack the key. Validate() reports selectors the API server would reject (In/NotIn
// without values, Exists/DoesNotExist with values).
//
// Thread safety: a value type.
//
//   LabelSelector s;
//   s.match_labels["team"] = "ml";
//   s.match_expressions.push_back({"tier", SelectorOperator::kIn, {"gold", "silver"}});
//   if (s.Matches(ns.meta.labels)) ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"

namespace arbiter {

enum class SelectorOperator : std::uint8_t { kIn, kNotIn, kExists, kDoesNotExist };

// "In", "NotIn", "Exists", "DoesNotExist".
std::string_view SelectorOperatorName(SelectorOperator op);
// The operator named by the API's string; an error names the unknown text.
StatusOr<SelectorOperator> ParseSelectorOperator(std::string_view text);

struct LabelSelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool Empty() const { return match_labels.empty() && match_expressions.empty(); }
  // True when every matchLabels pair and every expression holds for `labels`.
  bool Matches(const Labels& labels) const;
  // OK, or an error naming the offending expression (by index) and why.
  Status Validate() const;

  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

}  // namespace arbiter
