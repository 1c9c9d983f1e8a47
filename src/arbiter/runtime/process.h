// What both daemons' main() share (arbiter-scheduler, arbiter-controller): their identity for
// leader election and events, klog-style verbosity flags, and running until SIGTERM or SIGINT.
//
// Thread safety: BlockStopSignals before any thread starts; the rest from main's thread.
#pragma once

#include <chrono>
#include <csignal>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "arbiter/base/log.h"
#include "arbiter/base/status.h"

namespace arbiter::runtime {

// The host's name, else `fallback`.
std::string Hostname(std::string_view fallback);
// hostname_<random hex>: unique per process, as client-go's identities are.
std::string LeaderIdentity(std::string_view fallback);
// argv as strings, with klog's "-v=2" spelled "--v=2" (CLI11 reads a short option's value only
// as -v2 or -v 2).
std::vector<std::string> NormalizeArgs(int argc, char** argv);

// glibc's malloc gives busy threads arenas of their own (up to 8 per core), and a daemon whose
// transient peaks land in many arenas keeps their freed memory scattered: the soak saw the heap's
// footprint grow by about 0.5 MB a minute while what was in use stayed flat. Before any thread
// starts, LimitMallocArenas caps the arenas (unless MALLOC_ARENA_MAX is set); ReleaseFreeMemory
// hands free pages back (malloc_trim), which RunUntilStopped does once a minute. No-ops without
// glibc.
void LimitMallocArenas(int arenas);
void ReleaseFreeMemory();

// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it starts later), for
// RunUntilStopped to take them.
sigset_t BlockStopSignals();

// Runs a started runtime (Start() done; it has done(), Stop() and Wait()) until it ends by itself
// or SIGTERM/SIGINT asks it to stop; returns Wait()'s status.
template <typename Runtime>
Status RunUntilStopped(Runtime& runtime, const sigset_t& stop_signals) {
  auto last_release = std::chrono::steady_clock::now();
  while (!runtime.done()) {
    if (std::chrono::steady_clock::now() - last_release >= std::chrono::minutes(1)) {
      ReleaseFreeMemory();
      last_release = std::chrono::steady_clock::now();
    }
    timespec timeout{0, 200'000'000};
    const int signal = sigtimedwait(&stop_signals, nullptr, &timeout);
    if (signal == SIGTERM || signal == SIGINT) {
      ARBITER_LOG(kInfo) << "stopping signal=" << (signal == SIGTERM ? "SIGTERM" : "SIGINT");
      runtime.Stop();
    }
  }
  return runtime.Wait();
}

}  // namespace arbiter::runtime
