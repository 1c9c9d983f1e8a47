// Parsing of the scheduler's command-line values that are more than a number: durations
// ("1s", "500ms", "1m30s", as Go's time.ParseDuration reads them), the --node-selector
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

#include "arbiter/base/status.h"
#include "arbiter/model/object_meta.h"

namespace arbiter::runtime {

// A Go duration: one or more decimal numbers, each with an optional fraction and a unit (ns, us,
// µs, ms, s, m, h), e.g. "1s", "500ms", "1.5s", "1m30s"; "0" alone is zero. No sign, no spaces.
// Fractions finer than a nanosecond are truncated; a total above about 292 years is an error.
StatusOr<std::chrono::nanoseconds> ParseDuration(std::string_view text);

// "1s", "500ms", "1m30s", "1.5s", "250us", "17ns": the shortest exact spelling, for logs.
std::string FormatDuration(std::chrono::nanoseconds d);

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
