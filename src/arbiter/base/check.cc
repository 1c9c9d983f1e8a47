#include "arbiter/base/check.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace arbiter::internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": check failed: " << condition << " ";
}

CheckFailure::~CheckFailure() {
  std::string message = stream_.str();
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace arbiter::internal
