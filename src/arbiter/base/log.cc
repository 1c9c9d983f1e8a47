#include "arbiter/base/log.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace arbiter {
namespace {

std::atomic<int> verbosity{0};

struct Sink {
  std::mutex mu;
  std::shared_ptr<spdlog::logger> logger;
};

Sink& TheSink() {
  static Sink sink;
  return sink;
}

std::shared_ptr<spdlog::logger> Logger() {
  Sink& s = TheSink();
  std::lock_guard lock(s.mu);
  if (!s.logger) {
    s.logger = std::make_shared<spdlog::logger>("arbiter",
                                                std::make_shared<spdlog::sinks::stderr_sink_mt>());
    s.logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %L %v", spdlog::pattern_time_type::utc);
    s.logger->set_level(spdlog::level::trace);
  }
  return s.logger;
}

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarning:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

}  // namespace

void SetLogVerbosity(int v) { verbosity = v; }
int LogVerbosity() { return verbosity.load(); }

void SetLogStream(std::ostream* sink) {
  Sink& s = TheSink();
  std::lock_guard lock(s.mu);
  if (sink == nullptr) {
    s.logger.reset();
    return;
  }
  s.logger = std::make_shared<spdlog::logger>(
      "arbiter", std::make_shared<spdlog::sinks::ostream_sink_mt>(*sink, /*force_flush=*/true));
  s.logger->set_pattern("%L %v");
  s.logger->set_level(spdlog::level::trace);
}

namespace internal {

LogLine::LogLine(LogLevel level, const char* file, int line) : level_(level) {
  const char* base = std::strrchr(file, '/');
  stream_ << (base != nullptr ? base + 1 : file) << ":" << line << "] ";
}

LogLine::~LogLine() { Logger()->log(ToSpdlog(level_), "{}", stream_.str()); }

}  // namespace internal
}  // namespace arbiter
