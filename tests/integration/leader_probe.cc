// leader_probe: one leader-election candidate, for leader_election_test.sh. It prints, one line
// each, flushed:
//   LEADING <identity> <wall ns>   when it becomes leader (the time it knew)
//   ACT <identity> <wall ns>       every 50 ms while IsLeader() is true; the time is read before
//                                  the check, so it is no later than the decision to act
//   STOPPED <identity> <wall ns>   when it stops leading; then it exits
// SIGTERM stops it cleanly (releasing the lease if it holds it).
// Usage: leader_probe IDENTITY LEASE_NAME   (cluster from KUBECONFIG, see cluster_env.h)
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "cluster_env.h"

#include "arbiter/k8s/api_client.h"
#include "arbiter/k8s/leader_election.h"

namespace {

std::atomic<bool> terminate_requested{false};

void OnSigterm(int /*signal*/) { terminate_requested = true; }

long long WallNanos() {  // NOLINT(google-runtime-int)
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: leader_probe IDENTITY LEASE_NAME\n");
    return 2;
  }
  std::optional<arbiter::testing_support::LocalCluster> cluster =
      arbiter::testing_support::LocalCluster::FromEnvironment();
  if (!cluster) {
    std::fprintf(stderr, "leader_probe: KUBECONFIG is not set\n");
    return 2;
  }
  auto transport = arbiter::k8s::HttpTransport::Create(cluster->AdminOptions());
  if (!transport.ok()) {
    std::fprintf(stderr, "leader_probe: %s\n", transport.status().ToString().c_str());
    return 1;
  }
  arbiter::k8s::ApiClient api(**transport);
  arbiter::k8s::LeaderElectionConfig config;
  config.identity = argv[1];
  config.lease_name = argv[2];
  config.lease_duration = std::chrono::milliseconds(3000);
  config.renew_deadline = std::chrono::milliseconds(2000);
  config.retry_period = std::chrono::milliseconds(500);
  if (arbiter::Status valid = config.Validate(); !valid.ok()) {
    std::fprintf(stderr, "leader_probe: %s\n", valid.ToString().c_str());
    return 2;
  }
  arbiter::k8s::LeaderElector elector(api, config, arbiter::RealClock::Instance());
  std::signal(SIGTERM, OnSigterm);

  std::atomic<bool> done{false};
  std::thread runner([&] {
    elector.Run([&] { std::printf("LEADING %s %lld\n", argv[1], WallNanos()); },
                [&] { std::printf("STOPPED %s %lld\n", argv[1], WallNanos()); });
    std::fflush(stdout);
    done = true;
  });
  while (!done) {
    if (terminate_requested.exchange(false)) elector.Stop();
    long long before = WallNanos();  // NOLINT(google-runtime-int)
    if (elector.IsLeader()) std::printf("ACT %s %lld\n", argv[1], before);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  runner.join();
  return 0;
}
