// Parsing of the scheduler's command-line values that are more than a number: durations
// (base/duration.h), the --node-selector
// ("zone=a,tier=batch") and the --namespaces list ("team-a,team-b"). Pure functions, so main()
// only wires them to flags and every rule is unit-tested here.
//
// Errors are INVALID_ARGUMENT and quote the offending text, ready to be printed after the flag's
// name: `--node-selector: "zone": expected key=value`.
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <string_view>

#include "arbiter/base/duration.h"
#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"

namespace arbiter::runtime {

// Durations are arbiter::ParseDuration's (base/duration.h), here too for the flags' callers.
using arbiter::FormatDuration;
using arbiter::ParseDuration;

// Comma-separated key=value (or key==value) pairs, each a valid Kubernetes label key and value;
// an empty text is the empty selector (every node). A key given twice is an error, and so are
// set-based operators (!=, in, notin, exists), which a static zone does not need.
StatusOr<Labels> ParseNodeSelector(std::string_view text);

// Comma-separated namespace names (RFC 1123 labels); an empty text is the empty set (every
// namespace). Duplicates are allowed and merged; empty items ("a,,b") are errors.
StatusOr<std::set<std::string>> ParseNamespaceList(std::string_view text);

// Whether `key` is a valid label key: an optional DNS-subdomain prefix and '/', then a name of
// at most 63 characters of [A-Za-z0-9_.-] that starts and ends alphanumeric.
bool IsValidLabelKey(std::string_view key);
// Whether `value` is a valid label value: empty, or as a key's name part.
bool IsValidLabelValue(std::string_view value);
// Whether `name` is an RFC 1123 label (a namespace name): at most 63 of [a-z0-9-], starting and
// ending alphanumeric.
bool IsDns1123Label(std::string_view name);

}  // namespace arbiter::runtime
