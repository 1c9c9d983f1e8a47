// Logging: levelled, structured (key=value) lines on stderr through spdlog, with a klog-style
// verbosity for debug detail: ARBITER_VLOG(4) << ... is printed only with -v=4 or more.
//
//   ARBITER_LOG(kInfo) << "bound pod=" << key << " node=" << node;
//   ARBITER_VLOG(6) << "GET " << url << " status=" << status;
//
// Secrets (tokens, keys, certificates' private parts) are never passed to a log line; callers
// that print requests mask the Authorization header (see k8s/http_transport.cc).
//
// The sink and the verbosity are process-wide, set once in main() (or by a test that captures
// the output); lines are written whole, so threads do not interleave within a line.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

namespace spdlog {
class logger;
}  // namespace spdlog

namespace arbiter {

enum class LogLevel : std::uint8_t { kDebug, kInfo, kWarning, kError };

// -v: 0 (default) prints info and above; N > 0 also prints ARBITER_VLOG(n) for n <= N.
void SetLogVerbosity(int verbosity);
int LogVerbosity();

// Sends log lines to `sink` instead of stderr (tests); nullptr restores stderr.
void SetLogStream(std::ostream* sink);

namespace internal {

class LogLine {
 public:
  LogLine(LogLevel level, const char* file, int line);
  ~LogLine();
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

struct LogVoidify {
  void operator&(std::ostream& /*unused*/) {}
};

}  // namespace internal
}  // namespace arbiter

// NOLINTBEGIN(bugprone-macro-parentheses): the stream stays open for the caller's <<.
#define ARBITER_LOG(level) \
  ::arbiter::internal::LogLine(::arbiter::LogLevel::level, __FILE__, __LINE__).stream()
#define ARBITER_VLOG(n)                     \
  (::arbiter::LogVerbosity() < (n))         \
      ? static_cast<void>(0)                \
      : ::arbiter::internal::LogVoidify() & \
            ::arbiter::internal::LogLine(::arbiter::LogLevel::kDebug, __FILE__, __LINE__).stream()
// NOLINTEND(bugprone-macro-parentheses)
