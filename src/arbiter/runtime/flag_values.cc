#include "arbiter/runtime/flag_values.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace arbiter::runtime {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The comma-separated items of `text`, trimmed; one empty item for an empty text.
std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  while (true) {
    std::size_t comma = text.find(',');
    items.push_back(Trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsDns1123Subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (!IsLowerAlnum(name.front()) || !IsLowerAlnum(name.back())) return false;
  for (char c : name) {
    if (!IsLowerAlnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

bool IsValidLabelKey(std::string_view key) {
  std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsLabelName(key);
  return IsDns1123Subdomain(key.substr(0, slash)) && IsLabelName(key.substr(slash + 1));
}

bool IsValidLabelValue(std::string_view value) { return value.empty() || IsLabelName(value); }

bool IsDns1123Label(std::string_view name) {
  return name.size() <= 63 && IsDns1123Subdomain(name) && name.find('.') == std::string::npos;
}

StatusOr<Labels> ParseNodeSelector(std::string_view text) {
  Labels selector;
  if (Trim(text).empty()) return selector;
  for (std::string_view item : SplitCommas(text)) {
    if (item.empty()) return InvalidArgumentError(Quote(text) + ": empty item between commas");
    if (item.find("!=") != std::string_view::npos) {
      return InvalidArgumentError(Quote(item) + ": only key=value pairs are supported");
    }
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgumentError(Quote(item) + ": expected key=value");
    }
    std::string_view key = Trim(item.substr(0, eq));
    std::string_view value = item.substr(eq + 1);
    if (!value.empty() && value.front() == '=') value.remove_prefix(1);  // key==value
    value = Trim(value);
    if (!IsValidLabelKey(key)) {
      return InvalidArgumentError(Quote(item) + ": " + Quote(key) + " is not a valid label key");
    }
    if (!IsValidLabelValue(value)) {
      return InvalidArgumentError(Quote(item) + ": " + Quote(value) +
                                  " is not a valid label value");
    }
    auto [it, inserted] = selector.emplace(key, value);
    if (!inserted) {
      return InvalidArgumentError(Quote(item) + ": label " + Quote(key) + " is given twice");
    }
  }
  return selector;
}

StatusOr<std::set<std::string>> ParseNamespaceList(std::string_view text) {
  std::set<std::string> namespaces;
  if (Trim(text).empty()) return namespaces;
  for (std::string_view item : SplitCommas(text)) {
    if (item.empty()) return InvalidArgumentError(Quote(text) + ": empty item between commas");
    if (!IsDns1123Label(item)) {
      return InvalidArgumentError(Quote(item) +
                                  " is not a valid namespace name (lower-case letters, digits and "
                                  "'-', at most 63 characters)");
    }
    namespaces.emplace(item);
  }
  return namespaces;
}

}  // namespace arbiter::runtime
