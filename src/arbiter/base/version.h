// The version of this build: the release it is part of, and the git commit it was built from
// (set by CMake when it configures; "unknown" outside a git checkout).
//
// Thread safety: constants.
#pragma once

#include <string_view>

namespace arbiter {

std::string_view Version();
std::string_view Revision();

}  // namespace arbiter
