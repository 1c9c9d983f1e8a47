// Go durations ("1s", "500ms", "1m30s", as Go's time.ParseDuration reads them), which flags,
// annotations (arbiter.dev/run-for) and kwok's hints all spell the same way.
//
// Errors are INVALID_ARGUMENT and quote the offending text.
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "arbiter/base/status.h"

namespace arbiter {

// A Go duration: one or more decimal numbers, each with an optional fraction and a unit (ns, us,
// µs, ms, s, m, h), e.g. "1s", "500ms", "1.5s", "1m30s"; "0" alone is zero. No sign, no spaces.
// Fractions finer than a nanosecond are truncated; a total above about 292 years is an error.
StatusOr<std::chrono::nanoseconds> ParseDuration(std::string_view text);

// "1s", "500ms", "1m30s", "1.5s", "250us", "17ns": the shortest exact spelling, for logs.
std::string FormatDuration(std::chrono::nanoseconds d);

}  // namespace arbiter
