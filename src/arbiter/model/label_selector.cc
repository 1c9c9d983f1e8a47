#include "arbiter/model/label_selector.h"

#include <algorithm>

namespace arbiter {

std::string_view SelectorOperatorName(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn:
      return "In";
    case SelectorOperator::kNotIn:
      return "NotIn";
    case SelectorOperator::kExists:
      return "Exists";
    case SelectorOperator::kDoesNotExist:
      return "DoesNotExist";
  }
  return "?";
}

StatusOr<SelectorOperator> ParseSelectorOperator(std::string_view text) {
  for (SelectorOperator op : {SelectorOperator::kIn, SelectorOperator::kNotIn,
                              SelectorOperator::kExists, SelectorOperator::kDoesNotExist}) {
    if (SelectorOperatorName(op) == text) return op;
  }
  return InvalidArgumentError("unknown operator \"" + std::string(text) +
                              "\" (want In, NotIn, Exists or DoesNotExist)");
}

namespace {

bool Holds(const LabelSelectorRequirement& req, const Labels& labels) {
  auto it = labels.find(req.key);
  bool has = it != labels.end();
  auto listed = [&] {
    return has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
  };
  switch (req.op) {
    case SelectorOperator::kIn:
      return listed();
    case SelectorOperator::kNotIn:
      return !listed();
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
  }
  return false;
}

}  // namespace

bool LabelSelector::Matches(const Labels& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(match_expressions.begin(), match_expressions.end(),
                     [&](const LabelSelectorRequirement& req) { return Holds(req, labels); });
}

Status LabelSelector::Validate() const {
  for (std::size_t i = 0; i < match_expressions.size(); ++i) {
    const LabelSelectorRequirement& req = match_expressions[i];
    std::string where = "matchExpressions[" + std::to_string(i) + "]";
    if (req.key.empty()) return InvalidArgumentError(where + ".key: empty");
    bool wants_values = req.op == SelectorOperator::kIn || req.op == SelectorOperator::kNotIn;
    if (wants_values && req.values.empty()) {
      return InvalidArgumentError(where + ".values: " + std::string(SelectorOperatorName(req.op)) +
                                  " needs values");
    }
    if (!wants_values && !req.values.empty()) {
      return InvalidArgumentError(where + ".values: " + std::string(SelectorOperatorName(req.op)) +
                                  " takes no values");
    }
  }
  return Status::Ok();
}

}  // namespace arbiter
