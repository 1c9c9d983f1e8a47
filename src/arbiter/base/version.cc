#include "arbiter/base/version.h"

#ifndef ARBITER_REVISION
#define ARBITER_REVISION "unknown"
#endif

namespace arbiter {

std::string_view Version() { return "0.1.0"; }
std::string_view Revision() { return ARBITER_REVISION; }

}  // namespace arbiter
