// Generators of standard simulator inputs (`arbiterctl generate SHAPE`): a cluster file and a
// workload file (formats in sim/workload.h) for the shapes the benchmarks use. The files are
// compact (replicas and distributions, no expansion), so they can be read, edited and checked in;
// the seed given to `arbiterctl simulate` draws their random times.
//
// Shapes (defaults in brackets; nodes are 4 CPU / 32Gi / 110 pods, as upstream scheduler_perf):
//   basic-pods    [5,000 nodes, 10,000 jobs] single pods of 100m / 500Mi, all at once
//   small-gangs   [5,000 nodes, 1,000 jobs]  gangs of 3 pods of 100m / 500Mi (minMember 3)
//   big-gangs     [5,000 nodes, 3 jobs]      gangs of 1,000 pods of 100m / 500Mi, and first one
//                                            gang of nodes + 1 pods of 3 CPU, which can never fit
//                                            (no two fit on one node) and must hold nothing
//   tensorflow    [1,000 nodes, 500 jobs]    1 parameter server (2 CPU / 4Gi, priority 100) and
//                                            8 workers (1 CPU / 2Gi), all 9 together, Poisson
//                                            arrivals every 2 s on average, 5-30 min each
//   multi-queue   [200 nodes, 900 jobs]      queues a, b, c of weights 1, 2, 3, each flooding the
//                                            cluster with gangs of 4 x 1 CPU at once, 2-10 min
//   contention    [100 nodes, 300 jobs]      preemption and reclaim: queue a floods the cluster
//                                            with gangs of 4 x 1 CPU (10-30 min); b (weight 1)
//                                            comes after 2 min with gangs of 4, c (weight 2)
//                                            after 5 with gangs of 8 (5-20 min), and
//                                            high-priority gangs of 8 of a after 8 (5 min)
//   starvation    [32 nodes, 600 jobs]       a stream of single pods of 1 CPU (1-4 min, Poisson,
//                                            about 70 % of the CPU) and jobs / 150 gangs of half
//                                            the cluster's CPU (3 min) every 6 min from minute 2;
//                                            every job states its run time (runForHint 1)
//   stragglers    [64 nodes, 600 jobs]       4 racks of nodes of 16 CPU, an eighth of them slow
//                                            (speed 0.4, fixed); Poisson streams of gangs of 4,
//                                            6 and 8 pods of 2 CPU (2-5 min, about 60 % of the
//                                            CPU); a gang ends with its slowest pod
//   scale         [10,000 nodes, 50,000 jobs] gangs of 3 x 100m / 500Mi (150,000 pods, the
//                                            Kubernetes scale limit), Poisson arrivals over about
//                                            10 minutes, 10-30 min each
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arbiter/base/status.h"

namespace arbiter::sim {

struct GenerateOptions {
  std::string shape;
  std::int64_t nodes = 0;  // 0: the shape's default
  std::int64_t jobs = 0;   // 0: the shape's default
};

struct GeneratedFiles {
  std::string cluster_yaml;
  std::string workload_yaml;
};

// InvalidArgument for an unknown shape (the message lists the known ones) or a bad count.
StatusOr<GeneratedFiles> Generate(const GenerateOptions& options);

// The known shapes, in the order above.
std::vector<std::string> GeneratorShapes();

}  // namespace arbiter::sim
