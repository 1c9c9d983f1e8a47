// Small text helpers for messages. Thread safety: reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace arbiter {

// The first `shown` names, comma-separated, then "and N more": a message names a few of many.
std::string JoinSome(const std::vector<std::string>& names, std::size_t shown);

}  // namespace arbiter
