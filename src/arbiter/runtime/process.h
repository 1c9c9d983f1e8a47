// What both daemons' main() share (arbiter-scheduler, arbiter-controller): their identity for
// leader election and events, klog-style verbosity flags, and running until SIGTERM or SIGINT.
//
// Thread safety: BlockStopSignals before any thread starts; the rest from main's thread.
#pragma once

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

// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it starts later), for
// RunUntilStopped to take them.
sigset_t BlockStopSignals();

// Runs a started runtime (Start() done; it has done(), Stop() and Wait()) until it ends by itself
// or SIGTERM/SIGINT asks it to stop; returns Wait()'s status.
template <typename Runtime>
Status RunUntilStopped(Runtime& runtime, const sigset_t& stop_signals) {
  while (!runtime.done()) {
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
