#include "arbiter/sim/generate.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace arbiter::sim {

namespace {

std::string ClusterYaml(std::int64_t nodes, const std::string& queues) {
  return fmt::format(
      "description: {} nodes of 4 CPU / 32Gi / 110 pods, as upstream scheduler_perf\n"
      "nodes:\n"
      "  - {{name: node, replicas: {}, cpu: \"4\", memory: 32Gi, pods: 110}}\n"
      "{}",
      nodes, nodes, queues);
}

std::string GangJobs(std::string_view name, std::int64_t jobs, std::int64_t size,
                     std::string_view cpu, std::string_view memory, std::string_view arrival,
                     std::string_view duration, std::string_view queue = "default") {
  return fmt::format(
      "  - name: {}\n"
      "    replicas: {}\n"
      "    queue: {}\n"
      "    minMember: {}\n"
      "    {}\n"
      "    duration: {}\n"
      "    tasks:\n"
      "      - {{name: worker, replicas: {}, requests: {{cpu: {}, memory: {}}}}}\n",
      name, jobs, queue, size, arrival, duration, size, cpu, memory);
}

// A cluster file of `racks` racks of `per_rack` nodes of 16 CPU / 64Gi (rR-0 ...), labelled with
// the topology plugin's rack label.
std::string RacksYaml(std::int64_t racks, std::int64_t per_rack) {
  std::string nodes;
  for (std::int64_t r = 0; r < racks; ++r) {
    nodes += fmt::format(
        "  - {{name: r{}, replicas: {}, cpu: \"16\", memory: 64Gi, pods: 110,\n"
        "     labels: {{topology.arbiter.dev/rack: r{}}}}}\n",
        r, per_rack, r);
  }
  return fmt::format(
      "description: {} racks of {} nodes of 16 CPU / 64Gi (nodes rR-0 ... rR-{})\nnodes:\n{}",
      racks, per_rack, per_rack - 1, nodes);
}

}  // namespace

std::vector<std::string> GeneratorShapes() {
  return {"basic-pods", "small-gangs", "big-gangs", "tensorflow", "multi-queue", "contention",
          "starvation", "topology",    "locality",  "stragglers", "scale"};
}

StatusOr<GeneratedFiles> Generate(const GenerateOptions& options) {
  if (options.nodes < 0 || options.nodes > 1'000'000) {
    return InvalidArgumentError("--nodes: expected 1 to 1000000");
  }
  if (options.jobs < 0 || options.jobs > 1'000'000) {
    return InvalidArgumentError("--jobs: expected 1 to 1000000");
  }
  auto pick = [](std::int64_t given, std::int64_t fallback) {
    return given > 0 ? given : fallback;
  };
  GeneratedFiles out;
  const std::string& shape = options.shape;
  if (shape == "basic-pods") {
    const std::int64_t nodes = pick(options.nodes, 5000);
    const std::int64_t jobs = pick(options.jobs, 10'000);
    out.cluster_yaml = ClusterYaml(nodes, "");
    out.workload_yaml = fmt::format(
                            "description: {} single pods of 100m / 500Mi at once (scheduler_perf "
                            "SchedulingBasic)\njobs:\n",
                            jobs) +
                        GangJobs("pod", jobs, 1, "100m", "500Mi", "arrival: 0s", "10m");
  } else if (shape == "small-gangs") {
    const std::int64_t nodes = pick(options.nodes, 5000);
    const std::int64_t jobs = pick(options.jobs, 1000);
    out.cluster_yaml = ClusterYaml(nodes, "");
    out.workload_yaml =
        fmt::format("description: {} gangs of 3 pods of 100m / 500Mi at once\njobs:\n", jobs) +
        GangJobs("gang", jobs, 3, "100m", "500Mi", "arrival: 0s", "10m");
  } else if (shape == "big-gangs") {
    const std::int64_t nodes = pick(options.nodes, 5000);
    const std::int64_t jobs = pick(options.jobs, 3);
    out.cluster_yaml = ClusterYaml(nodes, "");
    out.workload_yaml =
        fmt::format(
            "description: {} gangs of 1000 pods, after one gang of {} pods of 3 CPU "
            "that can never fit (at most one per node)\njobs:\n",
            jobs, nodes + 1) +
        GangJobs("unfit", 1, nodes + 1, "\"3\"", "1Gi", "arrival: 0s", "10m") +
        GangJobs("big", jobs, 1000, "100m", "500Mi", "arrival: 1s", "10m");
  } else if (shape == "tensorflow") {
    const std::int64_t nodes = pick(options.nodes, 1000);
    const std::int64_t jobs = pick(options.jobs, 500);
    out.cluster_yaml = ClusterYaml(nodes, "");
    out.workload_yaml = fmt::format(
        "description: {} TensorFlow jobs, 1 parameter server (first) and 8 workers started "
        "together\n"
        "jobs:\n"
        "  - name: tf\n"
        "    replicas: {}\n"
        "    minMember: 9\n"
        "    interval: {{exponential: 2s}}\n"
        "    duration: {{uniform: [5m, 30m]}}\n"
        "    tasks:\n"
        "      - {{name: ps, replicas: 1, priority: 100, requests: {{cpu: \"2\", memory: 4Gi}}}}\n"
        "      - {{name: worker, replicas: 8, requests: {{cpu: \"1\", memory: 2Gi}}}}\n",
        jobs, jobs);
  } else if (shape == "multi-queue") {
    const std::int64_t nodes = pick(options.nodes, 200);
    const std::int64_t jobs = pick(options.jobs, 900);
    out.cluster_yaml = ClusterYaml(nodes,
                                   "queues:\n"
                                   "  - {name: a, weight: 1}\n"
                                   "  - {name: b, weight: 2}\n"
                                   "  - {name: c, weight: 3}\n");
    out.workload_yaml =
        fmt::format(
            "description: queues of weights 1, 2, 3 each flooding {} nodes with {} gangs "
            "of 4 x 1 CPU\njobs:\n",
            nodes, jobs / 3) +
        GangJobs("a", jobs / 3, 4, "\"1\"", "1Gi", "arrival: 0s", "{uniform: [2m, 10m]}", "a") +
        GangJobs("b", jobs / 3, 4, "\"1\"", "1Gi", "arrival: 0s", "{uniform: [2m, 10m]}", "b") +
        GangJobs("c", jobs - 2 * (jobs / 3), 4, "\"1\"", "1Gi", "arrival: 0s",
                 "{uniform: [2m, 10m]}", "c");
  } else if (shape == "starvation") {
    // Big gangs under a stream of small jobs (docs/placement.md#reservation): the stream keeps
    // about 70 % of the CPU busy, spread over every node, so a gang of half the cluster rarely
    // sees its room free at once unless something keeps room for it; the gangs add a quarter. Every
    // job states its run time exactly.
    const std::int64_t nodes = pick(options.nodes, 32);
    const std::int64_t jobs = pick(options.jobs, 600);
    const std::int64_t gangs = std::max<std::int64_t>(1, jobs / 150);
    const std::int64_t stream = std::max<std::int64_t>(1, jobs - gangs);
    const std::int64_t cpus = nodes * 4;
    // Offered load 0.7 × cpus with 1-CPU jobs of 150 s on average: one every 150 / (0.7 cpus) s.
    const std::int64_t interval_ms = std::max<std::int64_t>(1, 1'500'000 / (7 * cpus));
    out.cluster_yaml = ClusterYaml(nodes, "");
    out.workload_yaml = fmt::format(
        "description: a stream of {} single pods of 1 CPU (1-4 min, Poisson arrivals, about 70 % "
        "of the CPU) and {} gangs of {} x 1 CPU (3 min) arriving every 6 min from minute 2; "
        "every job states its run time (runForHint 1)\n"
        "jobs:\n"
        "  - {{name: small, replicas: {}, interval: {{exponential: {}ms}}, runForHint: 1,\n"
        "     duration: {{uniform: [1m, 4m]}},\n"
        "     tasks: [{{name: main, replicas: 1, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n"
        "  - {{name: big, replicas: {}, minMember: {}, arrival: 2m, interval: 6m, runForHint: 1,\n"
        "     duration: 3m,\n"
        "     tasks: [{{name: worker, replicas: {}, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n",
        stream, gangs, cpus / 2, stream, interval_ms, gangs, cpus / 2, cpus / 2);
  } else if (shape == "topology") {
    // Racks of three sizes in two zones (docs/placement.md#topology): nodes of 16 CPU, racks of
    // 1, 2 and 3 units of nodes per zone (a unit is a 24th of the nodes); gangs of 4, 8, 16 and
    // 32 pods of 4 CPU, each asking for one rack, arriving (Poisson) to keep about 85 % of the
    // CPU asked for. With the topology plugin in the configuration each gang starts inside one
    // rack; without it, gangs spread as the node scorer likes (bench/sim/topology.sh runs both).
    const std::int64_t nodes = pick(options.nodes, 48);
    const std::int64_t jobs = pick(options.jobs, 200);
    const std::int64_t unit = std::max<std::int64_t>(1, nodes / 12);
    // What does not divide into units goes to the last rack.
    const std::int64_t extra = std::max<std::int64_t>(0, nodes - 12 * unit);
    std::string racks;
    for (const char* zone : {"z1", "z2"}) {
      for (std::int64_t size = 1; size <= 3; ++size) {
        const bool last = size == 3 && std::string_view(zone) == "z2";
        racks += fmt::format(
            "  - {{name: {}-r{}, replicas: {}, cpu: \"16\", memory: 64Gi, pods: 110,\n"
            "     labels: {{topology.kubernetes.io/zone: {}, topology.arbiter.dev/rack: "
            "{}-r{}}}}}\n",
            zone, size, unit * size + (last ? extra : 0), zone, zone, size);
      }
    }
    out.cluster_yaml = fmt::format(
        "description: {} nodes of 16 CPU / 64Gi in 2 zones of 3 racks each, racks of {}, {} and "
        "{} nodes{}\nnodes:\n{}",
        unit * 12 + extra, unit, 2 * unit, 3 * unit,
        extra > 0 ? fmt::format(" ({} more in the last)", extra) : std::string(), racks);
    // Offered CPU: gangs of 16 to 128 CPU (60 on average) for 10 min on average; 85 % of the
    // cluster's 16 × 12 units CPU is 0.85 × 192 × unit / 60 gangs running at once.
    const std::int64_t per_size = std::max<std::int64_t>(1, jobs / 4);
    const std::int64_t interval_ms = std::int64_t{4} * 600'000 * 60 / (163 * unit);
    std::string gangs;
    for (std::int64_t pods : {4, 8, 16, 32}) {
      gangs += fmt::format(
          "  - {{name: g{}, replicas: {}, minMember: {}, interval: {{exponential: {}ms}},\n"
          "     duration: {{uniform: [5m, 15m]}}, topology: {{mode: Required, level: rack}},\n"
          "     tasks: [{{name: worker, replicas: {}, requests: {{cpu: \"4\", memory: 8Gi}}}}]}}\n",
          pods, per_size, pods, interval_ms, pods);
    }
    out.workload_yaml = fmt::format(
        "description: {} gangs of 4, 8, 16 and 32 pods of 4 CPU (5-15 min, Poisson, about 85 % "
        "of the CPU), each asking for one rack\njobs:\n{}",
        4 * per_size, gangs);
  } else if (shape == "locality") {
    // Data locality (docs/placement.md#data-locality): 4 racks of nodes of 16 CPU; 64 data sets,
    // each stored as HDFS places blocks (one replica on a node of one rack, two on nodes of
    // another), each read by a stream of jobs (Poisson) of 1 to 4 pods of 2 CPU for 1 to 4
    // minutes, about 75 % of the CPU asked for. The data sets' nodes are drawn from a fixed seed,
    // so the files are the same on every run; the simulator's seed draws arrivals and durations.
    const std::int64_t racks = 4;
    const std::int64_t per_rack = std::max<std::int64_t>(3, pick(options.nodes, 32) / racks);
    const std::int64_t jobs = pick(options.jobs, 640);
    const std::int64_t sets = 64;
    const std::int64_t per_set = std::max<std::int64_t>(1, jobs / sets);
    out.cluster_yaml = RacksYaml(racks, per_rack);
    // A job asks 2.5 pods x 2 CPU for 150 s on average; 75 % of the CPU is
    // 0.75 x 16 x nodes CPU, so the 64 streams together bring that many jobs per 150 s.
    const std::int64_t total_cpu = 16 * racks * per_rack;
    const std::int64_t interval_ms = sets * 150'000 * 5 * 4 / (3 * total_cpu);
    std::mt19937_64 rng(20261204);  // NOLINT(cert-msc32-c,cert-msc51-cpp): fixed on purpose
    auto draw = [&](std::int64_t n) {
      return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n));
    };
    std::string streams;
    for (std::int64_t s = 0; s < sets; ++s) {
      const std::int64_t first = draw(racks);
      const std::int64_t second = (first + 1 + draw(racks - 1)) % racks;
      const std::int64_t a = draw(per_rack);
      const std::int64_t b = draw(per_rack);
      const std::int64_t c = (b + 1 + draw(per_rack - 1)) % per_rack;
      const std::int64_t pods = 1 + s % 4;
      streams += fmt::format(
          "  - {{name: d{}, replicas: {}, minMember: {}, arrival: {{exponential: {}ms}},\n"
          "     interval: {{exponential: {}ms}},\n"
          "     duration: {{uniform: [1m, 4m]}},\n"
          "     locality: {{nodes: [r{}-{}, r{}-{}, r{}-{}]}},\n"
          "     tasks: [{{name: task, replicas: {}, requests: {{cpu: \"2\", memory: 4Gi}}}}]}}\n",
          s, per_set, pods, interval_ms, interval_ms, first, a, second, b, second, c, pods);
    }
    out.workload_yaml = fmt::format(
        "description: {} jobs of 1-4 pods of 2 CPU (1-4 min, Poisson, about 75 % of the CPU) "
        "reading 64 data sets, each on 3 nodes in 2 racks\njobs:\n{}",
        per_set * sets, streams);
  } else if (shape == "stragglers") {
    // Stragglers (docs/placement.md#stragglers): 4 racks of nodes of 16 CPU, an eighth of them
    // slow (tasks take 2.5 times as long there: speed 0.4, drawn from a fixed seed so the files
    // are the same on every run), and three Poisson streams of gangs of 4, 6 and 8 workers of
    // 2 CPU for 2 to 5 minutes, about 60 % of the CPU asked for (more is used: the slow nodes
    // hold their pods longer). A gang ends with its slowest worker.
    const std::int64_t racks = 4;
    const std::int64_t per_rack = std::max<std::int64_t>(2, pick(options.nodes, 64) / racks);
    const std::int64_t jobs = pick(options.jobs, 600);
    out.cluster_yaml = RacksYaml(racks, per_rack);
    std::mt19937_64 rng(20261205);  // NOLINT(cert-msc32-c,cert-msc51-cpp): fixed on purpose
    std::vector<std::string> all;
    for (std::int64_t r = 0; r < racks; ++r) {
      for (std::int64_t i = 0; i < per_rack; ++i) all.push_back(fmt::format("r{}-{}", r, i));
    }
    // Fisher-Yates by hand: std::shuffle's draws differ between standard libraries.
    for (std::size_t i = all.size() - 1; i > 0; --i) {
      std::swap(all[i], all[static_cast<std::size_t>(rng() % (i + 1))]);
    }
    all.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, racks * per_rack / 8)));
    std::sort(all.begin(), all.end());
    // A job asks 6 pods x 2 CPU for 210 s on average; 60 % of the CPU is 0.6 x 16 x nodes, so
    // the three streams together bring that many jobs per 210 s, each stream a third.
    const std::int64_t total_cpu = 16 * racks * per_rack;
    const std::int64_t interval_ms = std::int64_t{3} * 210'000 * 12 * 10 / (6 * total_cpu);
    std::string streams;
    for (const std::int64_t size : {4, 6, 8}) {
      streams += fmt::format(
          "  - {{name: g{}, replicas: {}, minMember: {}, arrival: {{exponential: {}ms}},\n"
          "     interval: {{exponential: {}ms}}, duration: {{uniform: [2m, 5m]}},\n"
          "     tasks: [{{name: worker, replicas: {}, requests: {{cpu: \"2\", memory: 4Gi}}}}]}}\n",
          size, jobs / 3, size, interval_ms, interval_ms, size);
    }
    out.workload_yaml = fmt::format(
        "description: {} gangs of 4, 6 and 8 pods of 2 CPU (2-5 min, Poisson, about 60 % of the "
        "CPU), {} of the {} nodes slow (speed 0.4)\nnodeSpeeds:\n  - {{nodes: [{}], speed: 0.4}}\n"
        "jobs:\n{}",
        jobs / 3 * 3, all.size(), racks * per_rack, fmt::join(all, ", "), streams);
  } else if (shape == "contention") {
    // Preemption and reclaim at work: a floods the idle cluster, b and c arrive later and reclaim
    // their shares, and high-priority gangs of a preempt a's own jobs.
    const std::int64_t nodes = pick(options.nodes, 100);
    const std::int64_t jobs = pick(options.jobs, 300);
    out.cluster_yaml = ClusterYaml(nodes,
                                   "queues:\n"
                                   "  - {name: a, weight: 1}\n"
                                   "  - {name: b, weight: 1}\n"
                                   "  - {name: c, weight: 2}\n"
                                   "priorityClasses: [{name: high, value: 1000}]\n");
    // At least one job of each kind, however few are asked for.
    const std::int64_t flood = std::max<std::int64_t>(1, jobs / 2);
    const std::int64_t late_b = std::max<std::int64_t>(1, jobs / 4);
    const std::int64_t late_c = std::max<std::int64_t>(1, jobs / 8);
    const std::int64_t urgent = std::max<std::int64_t>(1, jobs - flood - late_b - late_c);
    out.workload_yaml = fmt::format(
        "description: queue a floods {} nodes with {} gangs of 4 x 1 CPU; queue b (weight 1) "
        "arrives after 2 minutes with {} such gangs, queue c (weight 2) after 5 with {} gangs of "
        "8, and {} high-priority gangs of 8 of queue a after 8\n"
        "jobs:\n"
        "  - {{name: a, replicas: {}, queue: a, minMember: 4, duration: {{uniform: [10m, 30m]}},\n"
        "     tasks: [{{name: worker, replicas: 4, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n"
        "  - {{name: b, replicas: {}, queue: b, minMember: 4, arrival: 2m, interval: 1s,\n"
        "     duration: {{uniform: [5m, 20m]}},\n"
        "     tasks: [{{name: worker, replicas: 4, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n"
        "  - {{name: c, replicas: {}, queue: c, minMember: 8, arrival: 5m, interval: 2s,\n"
        "     duration: {{uniform: [5m, 20m]}},\n"
        "     tasks: [{{name: worker, replicas: 8, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n"
        "  - {{name: urgent, replicas: {}, queue: a, minMember: 8, priorityClassName: high,\n"
        "     arrival: 8m, interval: 30s, duration: 5m,\n"
        "     tasks: [{{name: worker, replicas: 8, requests: {{cpu: \"1\", memory: 1Gi}}}}]}}\n",
        nodes, flood, late_b, late_c, urgent, flood, late_b, late_c, urgent);
  } else if (shape == "scale") {
    const std::int64_t nodes = pick(options.nodes, 10'000);
    const std::int64_t jobs = pick(options.jobs, 50'000);
    out.cluster_yaml = ClusterYaml(nodes, "");
    // Mean interval such that the arrivals span about ten minutes.
    const std::int64_t interval_us = std::max<std::int64_t>(1, 600'000'000 / jobs);
    out.workload_yaml =
        fmt::format(
            "description: {} gangs of 3 x 100m / 500Mi ({} pods) arriving over about "
            "10 minutes, 10-30 min each\njobs:\n",
            jobs, 3 * jobs) +
        GangJobs(
            "gang", jobs, 3, "100m", "500Mi",
            fmt::format("interval: {{exponential: {}ms}}", static_cast<double>(interval_us) / 1000),
            "{uniform: [10m, 30m]}");
  } else {
    std::string known;
    for (const std::string& s : GeneratorShapes()) known.append(known.empty() ? s : ", " + s);
    return InvalidArgumentError("unknown shape \"" + shape + "\" (known: " + known + ")");
  }
  return out;
}

}  // namespace arbiter::sim
