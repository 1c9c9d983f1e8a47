#include "arbiter/runtime/process.h"

#include <cstdio>
#include <cstdlib>
#include <random>

#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

namespace arbiter::runtime {

void LimitMallocArenas(int arenas) {
#ifdef __GLIBC__
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, arenas);
#else
  (void)arenas;
#endif
}

void ReleaseFreeMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::string Hostname(std::string_view fallback) {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return std::string(fallback);
  return name;
}

std::string LeaderIdentity(std::string_view fallback) {
  std::random_device device;
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%08x%08x", device(), device());
  return Hostname(fallback) + "_" + suffix;
}

std::vector<std::string> NormalizeArgs(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::string& arg : args) {
    if (arg.starts_with("-v=")) arg = "--v=" + arg.substr(3);
  }
  return args;
}

sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

}  // namespace arbiter::runtime
