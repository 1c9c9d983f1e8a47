// Simulate, ReportJson, ReportHtml and the generators, on small inputs: exact times on a tiny
// cluster, gangs that cannot fit holding nothing, queues by weight, the same seed giving the same
// report, and every generated shape running with no partial gang.
#include "arbiter/sim/simulator.h"

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arbiter/sim/generate.h"
#include "arbiter/sim/report.h"

namespace arbiter::sim {
namespace {

using ::testing::HasSubstr;

ClusterSpec Cluster(const std::string& yaml) {
  StatusOr<ClusterSpec> c = ParseClusterSpec(yaml, "c.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : ClusterSpec();
}

Workload Jobs(const std::string& yaml, std::uint64_t seed = 1) {
  StatusOr<Workload> w = ParseWorkload(yaml, "w.yaml", seed);
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? *w : Workload();
}

SimulationReport SimulateOk(const ClusterSpec& c, const Workload& w, std::uint64_t seed = 1) {
  SimulationOptions options;
  options.seed = seed;
  StatusOr<SimulationReport> r = Simulate(c, w, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SimulationReport();
}

const JobOutcome& Job(const SimulationReport& r, const std::string& name) {
  for (const JobOutcome& o : r.job_outcomes) {
    if (o.name == name) return o;
  }
  ADD_FAILURE() << "no job " << name;
  static const JobOutcome kNone;
  return kNone;
}

TEST(Summarize, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Summary s = Summarize(v);
  EXPECT_EQ(s.count, 100);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p90, 90);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_EQ(Summarize({}).count, 0);
}

TEST(Simulate, AGangWaitsForRoomAndStartsWhenTheJobBeforeItFinishes) {
  const ClusterSpec c = Cluster("nodes: [{name: n, cpu: \"4\", memory: 8Gi}]\n");
  const Workload w = Jobs(R"(jobs:
  - {name: a, arrival: 0s, duration: 10s, tasks: [{name: t, replicas: 2, requests: {cpu: "1"}}]}
  - {name: b, arrival: 2s, duration: 5s, tasks: [{name: t, replicas: 4, requests: {cpu: "1"}}]}
)");
  const SimulationReport r = SimulateOk(c, w);
  const JobOutcome& a = Job(r, "default/a");
  const JobOutcome& b = Job(r, "default/b");
  EXPECT_EQ(a.start_ms, 0);
  EXPECT_EQ(a.finish_ms, 10'000);
  // b needs all 4 CPUs: it waits for a, then starts in the session where a's pods are gone.
  EXPECT_EQ(b.start_ms, 10'000);
  EXPECT_EQ(b.finish_ms, 15'000);
  EXPECT_EQ(r.partial_gangs, 0);
  EXPECT_EQ(r.jobs_started, 2);
  EXPECT_EQ(r.jobs_finished, 2);
  EXPECT_EQ(r.end_reason, "all jobs finished");
  EXPECT_EQ(r.makespan_ms, 15'000);
  EXPECT_EQ(r.binds, 6);
  EXPECT_EQ(r.wait_ms.max, 8000);
  EXPECT_EQ(r.completion_ms.max, 13'000);
  // Half the CPU for 10 s, all of it for 5 s, over 15 s.
  EXPECT_NEAR(r.mean_cpu_utilisation, (0.5 * 10 + 1.0 * 5) / 15, 1e-9);
  EXPECT_EQ(static_cast<std::int64_t>(r.performance.session_ms.size()), r.sessions);
  EXPECT_GT(r.performance.peak_rss_bytes, 0);
}

// 2 nodes of 4 CPU; a 1-CPU job of 6 s arrives every second (6 CPU busy, all 8 now and then)
// for a minute, stating its run time; a gang of 8 arrives at 5 s. Without a reservation it never
// sees 8 CPU free before the stream ends; with one (elected after 10 s) it starts once the jobs
// on its nodes end: within 10 s + 6 s + a few sessions of its arrival.
TEST(Simulate, AReservationBoundsABigGangsWaitUnderAStream) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 2, cpu: \"4\", memory: 8Gi}]\n");
  const Workload w = Jobs(R"(jobs:
  - {name: small, replicas: 60, interval: 1s, duration: 6s, runForHint: 1,
     tasks: [{name: t, requests: {cpu: "1"}}]}
  - {name: big, arrival: 5s, duration: 10s, runForHint: 1,
     tasks: [{name: t, replicas: 8, requests: {cpu: "1"}}]}
)");
  SimulationOptions options;
  options.seed = 1;
  StatusOr<SimulationReport> off = Simulate(c, w, options);
  ASSERT_TRUE(off.ok()) << off.status().message();
  options.config.reservation.enabled = true;
  options.config.reservation.wait_seconds = 10;
  StatusOr<SimulationReport> on = Simulate(c, w, options);
  ASSERT_TRUE(on.ok()) << on.status().message();
  const JobOutcome& big_off = Job(*off, "default/big");
  const JobOutcome& big_on = Job(*on, "default/big");
  EXPECT_GT(big_off.start_ms - big_off.arrival_ms, 50'000);
  EXPECT_GE(big_on.start_ms - big_on.arrival_ms, 10'000);
  EXPECT_LE(big_on.start_ms - big_on.arrival_ms, 10'000 + 6'000 + 3'000);
  EXPECT_EQ(on->partial_gangs, 0);
  EXPECT_EQ(on->jobs_finished, on->jobs);
}

// A copy evicted while its job runs on: created again as the same copy (not a second one, nor
// a pod of its own), and the job no longer ends when the evicted copy would have. The copy of
// wide's straggler (on n-2, 240 s) is placed at 91 s and would end at 151 s; urgent (higher
// priority, 3 nodes) evicts it at 100 s (grace 30 s) and runs 130–160 s; the copy, placed again
// at 160 s, ends at 220 s, before the straggler: the job ends then.
TEST(Simulate, AnEvictedCopyComesBackAsTheSameCopy) {
  const ClusterSpec c = Cluster(R"(nodes: [{name: n, replicas: 4, cpu: "4", memory: 16Gi}]
priorityClasses: [{name: low, value: 10}, {name: high, value: 100}]
)");
  const Workload w = Jobs(R"(nodeSpeeds: [{nodes: [n-2], speed: 0.25}]
jobs:
  - {name: wide, duration: 60s, idempotent: true, priorityClassName: low,
     tasks: [{name: t, replicas: 4, requests: {cpu: "4"}}]}
  - {name: urgent, arrival: 100s, duration: 30s, priorityClassName: high,
     tasks: [{name: t, replicas: 3, requests: {cpu: "4"}}]}
)");
  const SimulationReport r = SimulateOk(c, w);
  EXPECT_EQ(r.evictions, 1);
  EXPECT_EQ(r.stragglers.copies, 1);
  EXPECT_EQ(r.stragglers.copies_won, 1);
  EXPECT_EQ(Job(r, "default/urgent").start_ms, 130'000);
  EXPECT_EQ(Job(r, "default/wide").finish_ms, 220'000);
  EXPECT_EQ(r.invariant_violations, 0);
  EXPECT_EQ(r.partial_gangs, 0);
}

// Jobs with no run time, each holding 1 CPU for 2 minutes (one every 20 s: 6 CPU busy of 8): a
// reservation keeps new ones off its nodes, but must wait for those there to end, up to 2
// minutes after the gang is elected. Marked preemptable, they are evicted for the gang once it is
// elected (10 s after its arrival, at the next session: sessions follow events), and the gang
// starts when their grace period (30 s) is over; the evicted job runs again later.
TEST(Simulate, JobsThatAcceptPreemptionLeaveAReservedGangsNodesWhenItIsElected) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 2, cpu: \"4\", memory: 8Gi}]\n");
  const std::string jobs = R"(jobs:
  - {name: small, replicas: 12, interval: 20s, duration: 120s, PREEMPTABLE
     tasks: [{name: t, requests: {cpu: "1"}}]}
  - {name: big, arrival: 5s, duration: 10s, runForHint: 1,
     tasks: [{name: t, replicas: 8, requests: {cpu: "1"}}]}
)";
  auto with = [&](const std::string& preemptable) {
    std::string text = jobs;
    text.replace(text.find("PREEMPTABLE"), std::string("PREEMPTABLE").size(), preemptable);
    return Jobs(text);
  };
  SimulationOptions options;
  options.seed = 1;
  options.config.reservation.enabled = true;
  options.config.reservation.wait_seconds = 10;
  StatusOr<SimulationReport> plain = Simulate(c, with(""), options);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  StatusOr<SimulationReport> accepting = Simulate(c, with("preemptable: true,"), options);
  ASSERT_TRUE(accepting.ok()) << accepting.status().message();
  const JobOutcome& big_plain = Job(*plain, "default/big");
  const JobOutcome& big_accepting = Job(*accepting, "default/big");
  // Elected at 15 s or so; the last small job placed before then ends at 120 s.
  EXPECT_GE(big_plain.start_ms - big_plain.arrival_ms, 100'000);
  EXPECT_EQ(plain->evictions, 0);
  EXPECT_GE(big_accepting.start_ms - big_accepting.arrival_ms, 10'000 + 30'000);
  EXPECT_LE(big_accepting.start_ms - big_accepting.arrival_ms, 20'000 + 30'000);
  EXPECT_GT(accepting->evictions, 0);
  EXPECT_EQ(accepting->evictions_by_kind.at("reservation"), accepting->evictions);
  EXPECT_EQ(accepting->invariant_violations, 0);
  EXPECT_EQ(accepting->partial_gangs, 0);
  EXPECT_EQ(accepting->jobs_finished, accepting->jobs);
}

TEST(Simulate, AGangThatCanNeverFitHoldsNothingAndIsReported) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 4, cpu: \"4\", memory: 8Gi}]\n");
  // Five pods of 3 CPU need five nodes; the small gangs behind it must all run.
  const Workload w = Jobs(R"(jobs:
  - {name: unfit, duration: 1m, tasks: [{name: t, replicas: 5, requests: {cpu: "3"}}]}
  - {name: small, replicas: 8, arrival: 1s, duration: 1m,
     tasks: [{name: t, replicas: 2, requests: {cpu: "1"}}]}
)");
  const SimulationReport r = SimulateOk(c, w);
  EXPECT_EQ(r.partial_gangs, 0);
  EXPECT_EQ(r.jobs_started, 8);
  EXPECT_EQ(r.jobs_finished, 8);
  EXPECT_EQ(r.end_reason, "no progress possible");
  ASSERT_EQ(r.never_started.size(), 1U);
  EXPECT_EQ(r.never_started[0], "default/unfit");
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(Job(r, "default/small-" + std::to_string(i)).start_ms, 1000);
}

// Nodes labelled in racks: the report counts gangs whose pods started in more than one rack.
// Two racks of 2 nodes × 4 CPU; a gang of 4 × 2 CPU asks for one rack. With the topology plugin
// (the default configuration) it starts in one; without it the node scorer spreads it over both.
TEST(Simulate, CountsGangsAcrossRacksWithAndWithoutTheTopologyPlugin) {
  const ClusterSpec c = Cluster(R"(nodes:
  - {name: a, replicas: 2, cpu: "4", memory: 8Gi,
     labels: {topology.kubernetes.io/zone: z, topology.arbiter.dev/rack: a}}
  - {name: b, replicas: 2, cpu: "4", memory: 8Gi,
     labels: {topology.kubernetes.io/zone: z, topology.arbiter.dev/rack: b}}
)");
  const Workload w = Jobs(R"(jobs:
  - {name: g, duration: 1m, topology: {mode: Required, level: rack},
     tasks: [{name: t, replicas: 4, requests: {cpu: "2"}}]}
  - {name: single, arrival: 2m, duration: 1m, tasks: [{name: t, requests: {cpu: "1"}}]}
)");
  SimulationOptions options;
  StatusOr<SimulationReport> on = Simulate(c, w, options);
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_TRUE(on->topology.labelled);
  EXPECT_EQ(on->topology.gangs, 1);  // a job of one pod is no gang
  EXPECT_EQ(on->topology.cross_rack, 0);
  EXPECT_EQ(on->topology.cross_zone, 0);
  EXPECT_EQ(on->topology.racks_per_gang.mean, 1);
  const nlohmann::json summary = nlohmann::json::parse(ReportJson(*on, false))["summary"];
  EXPECT_EQ(summary["topology"]["crossRack"], 0);
  EXPECT_EQ(summary["topology"]["gangs"], 1);

  for (TierConfig& tier : options.config.tiers) {
    std::erase_if(tier.plugins, [](const PluginConfig& p) { return p.name == "topology"; });
  }
  StatusOr<SimulationReport> off = Simulate(c, w, options);
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(off->topology.gangs, 1);
  EXPECT_EQ(off->topology.cross_rack, 1);
  EXPECT_EQ(off->topology.racks_per_gang.mean, 2);
  EXPECT_EQ(off->topology.cross_zone, 0);

  // Nodes in no rack or zone: nothing is reported.
  StatusOr<SimulationReport> plain =
      Simulate(Cluster("nodes: [{name: n, replicas: 4, cpu: \"4\", memory: 8Gi}]\n"), w,
               SimulationOptions());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->topology.labelled);
  EXPECT_FALSE(nlohmann::json::parse(ReportJson(*plain, false))["summary"].contains("topology"));
}

// Jobs naming their data: the report counts their pods by how local they were bound. Two racks of
// 2 nodes × 4 CPU; a job of 2 × 2 CPU whose data is on b-1 and one whose data is in rack a. With
// the locality plugin (the default configuration) both are local; without it the node scorer
// spreads the first over the emptiest nodes.
TEST(Simulate, CountsPodsOnTheirDataWithAndWithoutTheLocalityPlugin) {
  const ClusterSpec c = Cluster(R"(nodes:
  - {name: a, replicas: 2, cpu: "4", memory: 8Gi, labels: {topology.arbiter.dev/rack: a}}
  - {name: b, replicas: 2, cpu: "4", memory: 8Gi, labels: {topology.arbiter.dev/rack: b}}
)");
  const Workload w = Jobs(R"(jobs:
  - {name: on-node, duration: 1m, locality: {nodes: [b-1]},
     tasks: [{name: t, replicas: 2, requests: {cpu: "2"}}]}
  - {name: in-rack, arrival: 2m, duration: 1m, locality: {racks: [a]},
     tasks: [{name: t, replicas: 2, requests: {cpu: "2"}}]}
  - {name: plain, arrival: 4m, duration: 1m, tasks: [{name: t, requests: {cpu: "1"}}]}
)");
  SimulationOptions options;
  StatusOr<SimulationReport> on = Simulate(c, w, options);
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_EQ(on->locality.pods, 4);  // the plain job's pod is not counted
  EXPECT_EQ(on->locality.node_local, 2);
  EXPECT_EQ(on->locality.rack_local, 2);
  EXPECT_EQ(on->locality.remote, 0);
  const nlohmann::json summary = nlohmann::json::parse(ReportJson(*on, false))["summary"];
  EXPECT_EQ(summary["locality"]["nodeLocal"], 2);
  EXPECT_EQ(summary["locality"]["pods"], 4);

  for (TierConfig& tier : options.config.tiers) {
    std::erase_if(tier.plugins, [](const PluginConfig& p) { return p.name == "locality"; });
  }
  StatusOr<SimulationReport> off = Simulate(c, w, options);
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(off->locality.pods, 4);
  EXPECT_LT(off->locality.node_local, 2);

  // No job names its data: nothing is reported.
  StatusOr<SimulationReport> plain = Simulate(
      c, Jobs("jobs: [{name: p, duration: 1m, tasks: [{name: t, requests: {cpu: \"1\"}}]}]\n"),
      SimulationOptions());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(nlohmann::json::parse(ReportJson(*plain, false))["summary"].contains("locality"));
}

// A job naming a DataSet of the cluster file goes on the node holding most of its blocks; a job
// naming one the cluster file does not define is an error that names it.
TEST(Simulate, ADataSetOfTheClusterFileSaysWhereAJobsDataIs) {
  const ClusterSpec c = Cluster(R"(nodes:
  - {name: a, replicas: 2, cpu: "4", memory: 8Gi, labels: {topology.arbiter.dev/rack: a}}
  - {name: b, replicas: 2, cpu: "4", memory: 8Gi, labels: {topology.arbiter.dev/rack: b}}
dataSets:
  - {name: clicks, blocks: [{name: b0, nodes: [b-0, a-1]}, {name: b1, nodes: [b-0]}]}
)");
  StatusOr<SimulationReport> r = Simulate(c, Jobs(R"(jobs:
  - {name: reader, duration: 1m, locality: {dataSet: clicks},
     tasks: [{name: t, replicas: 2, requests: {cpu: "2"}}]}
)"),
                                          SimulationOptions());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->locality.pods, 2);
  EXPECT_EQ(r->locality.node_local, 2);  // both on b-0, which holds both blocks

  StatusOr<SimulationReport> bad = Simulate(c, Jobs(R"(jobs:
  - {name: reader, duration: 1m, locality: {dataSet: views}, tasks: [{name: t}]}
)"),
                                            SimulationOptions());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("job default/reader names data set \"views\", which the cluster file"));
}

// A pod on a node of speed 0.5 runs twice its duration, and its job ends with it; its peers
// finish at the duration and free their room (a job needing it starts then, not at the end).
TEST(Simulate, APodOnASlowNodeRunsLongerAndItsPeersFreeTheirRoomEarlier) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 4, cpu: \"4\", memory: 16Gi}]\n");
  const Workload w = Jobs(R"(nodeSpeeds: [{nodes: [n-0, n-1, n-2, n-3], speed: 1}]
jobs:
  - {name: wide, duration: 60s, tasks: [{name: t, replicas: 4, requests: {cpu: "4"}}]}
)");
  ASSERT_EQ(w.node_speeds.size(), 4U);
  const SimulationReport even = SimulateOk(c, w);
  EXPECT_EQ(even.job_outcomes[0].finish_ms - even.job_outcomes[0].start_ms, 60'000);
  EXPECT_EQ(even.stragglers.slow_nodes, 0);

  const Workload slow = Jobs(R"(nodeSpeeds: [{nodes: [n-2], speed: 0.5}]
jobs:
  - {name: wide, duration: 60s, tasks: [{name: t, replicas: 4, requests: {cpu: "4"}}]}
  - {name: next, arrival: 70s, duration: 10s,
     tasks: [{name: t, replicas: 3, requests: {cpu: "4"}}]}
)");
  const SimulationReport r = SimulateOk(c, slow);
  ASSERT_EQ(r.job_outcomes.size(), 2U);
  EXPECT_EQ(r.job_outcomes[0].finish_ms - r.job_outcomes[0].start_ms, 120'000);
  EXPECT_EQ(r.job_outcomes[1].start_ms, 70'000);  // on the three nodes freed at 60 s
  EXPECT_EQ(r.stragglers.slow_nodes, 1);
  EXPECT_EQ(r.stragglers.pods, 7);
  EXPECT_EQ(r.stragglers.pods_on_slow_nodes, 1);
  EXPECT_EQ(nlohmann::json::parse(ReportJson(r, false))["summary"]["stragglers"]["slowNodes"], 1);

  const StatusOr<SimulationReport> bad =
      Simulate(c,
               Jobs("nodeSpeeds: [{nodes: [m-1], speed: 0.5}]\njobs: [{name: j, duration: 1m, "
                    "tasks: [{name: t}]}]\n"),
               SimulationOptions());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("nodeSpeeds names node m-1"));
}

// An idempotent job's straggler gets a copy (the BatchJob controller's rule) once it has run 1.5
// times its peers' median: on a fast node freed by those peers, the copy ends first, the
// straggler is deleted, and the job ends with the copy instead of 4 times its duration.
TEST(Simulate, AnIdempotentJobsStragglerGetsACopyThatEndsTheJobSooner) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 4, cpu: \"4\", memory: 16Gi}]\n");
  const std::string jobs = R"(nodeSpeeds: [{nodes: [n-2], speed: 0.25}]
jobs:
  - {name: wide, duration: 60s, IDEMPOTENT tasks: [{name: t, replicas: 4, requests: {cpu: "4"}}]}
)";
  auto with = [&](const std::string& idempotent) {
    std::string text = jobs;
    text.replace(text.find("IDEMPOTENT"), std::string("IDEMPOTENT").size(), idempotent);
    return Jobs(text);
  };
  const SimulationReport plain = SimulateOk(c, with(""));
  ASSERT_EQ(plain.job_outcomes.size(), 1U);
  EXPECT_EQ(plain.job_outcomes[0].finish_ms - plain.job_outcomes[0].start_ms, 240'000);
  EXPECT_EQ(plain.stragglers.copies, 0);

  const SimulationReport r = SimulateOk(c, with("idempotent: true,"));
  ASSERT_EQ(r.job_outcomes.size(), 1U);
  EXPECT_EQ(r.stragglers.copies, 1);
  EXPECT_EQ(r.stragglers.copies_won, 1);
  // Behind past 90 s (1.5 x 60 s): the copy is made and placed at 91 s, and runs 60 s.
  EXPECT_EQ(r.job_outcomes[0].finish_ms - r.job_outcomes[0].start_ms, 151'000);
  EXPECT_EQ(r.invariant_violations, 0);
  EXPECT_EQ(r.stragglers.pods, 5) << "the 4 pods and the copy";
  const nlohmann::json summary = nlohmann::json::parse(ReportJson(r, false))["summary"];
  EXPECT_EQ(summary["stragglers"]["copies"], 1);
  EXPECT_EQ(summary["stragglers"]["copiesWon"], 1);

  // A straggler whose copy is slower than itself ends first and the copy goes: with n-2 only
  // a little slow (speed 0.6: 100 s) the copy made at 91 s would end at 151 s.
  const SimulationReport mild = SimulateOk(c, Jobs(R"(nodeSpeeds: [{nodes: [n-2], speed: 0.6}]
jobs:
  - {name: wide, duration: 60s, idempotent: true, tasks: [{name: t, replicas: 4, requests: {cpu: "4"}}]}
)"));
  EXPECT_EQ(mild.stragglers.copies, 1);
  EXPECT_EQ(mild.stragglers.copies_won, 0);
  EXPECT_EQ(mild.job_outcomes[0].finish_ms - mild.job_outcomes[0].start_ms, 100'000);
  EXPECT_EQ(mild.invariant_violations, 0);
}

// The straggler plugin learns which node is slow from the first gang that ran there and keeps
// the next gangs off it. `big` is the default scoring's first choice (the most CPU: it takes 2
// pods of each gang of 6), and slow: without the plugin every gang has 2 pods there; with it only
// the first (whose 4 other pods, finished, are the peers that judge it).
TEST(Simulate, TheStragglerPluginKeepsLaterGangsOffASlowNode) {
  const ClusterSpec c = Cluster(R"(nodes:
  - {name: n, replicas: 8, cpu: "2", memory: 16Gi}
  - {name: big, cpu: "4", memory: 16Gi}
)");
  const Workload w = Jobs(R"(nodeSpeeds: [{nodes: [big], speed: 0.25}]
jobs:
  - {name: g, replicas: 5, interval: 5m, duration: 60s,
     tasks: [{name: worker, replicas: 6, requests: {cpu: "2"}}]}
)");
  SimulationOptions options;
  const StatusOr<SimulationReport> on = Simulate(c, w, options);
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_EQ(on->stragglers.pods, 30);
  EXPECT_EQ(on->stragglers.pods_on_slow_nodes, 2);

  for (TierConfig& tier : options.config.tiers) {
    std::erase_if(tier.plugins, [](const PluginConfig& p) { return p.name == "straggler"; });
  }
  const StatusOr<SimulationReport> off = Simulate(c, w, options);
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(off->stragglers.pods_on_slow_nodes, 10);
  EXPECT_LT(on->completion_ms.mean, off->completion_ms.mean);
}

TEST(Simulate, QueuesShareByWeight) {
  const ClusterSpec c = Cluster(R"(nodes: [{name: n, replicas: 4, cpu: "4", memory: 16Gi}]
queues: [{name: a, weight: 1}, {name: b, weight: 3}]
)");
  const Workload w = Jobs(R"(jobs:
  - {name: a, replicas: 40, queue: a, duration: 30s, tasks: [{name: t, requests: {cpu: "1"}}]}
  - {name: b, replicas: 40, queue: b, duration: 30s, tasks: [{name: t, requests: {cpu: "1"}}]}
)");
  const SimulationReport r = SimulateOk(c, w);
  ASSERT_EQ(r.queues.size(), 2U);
  // While both are flooded, a gets 4 CPUs and b 12; the first session's split shows it.
  ASSERT_FALSE(r.queues[0].series.empty());
  EXPECT_EQ(r.queues[0].series.front().allocated_millicores, 4000);
  EXPECT_EQ(r.queues[1].series.front().allocated_millicores, 12'000);
  EXPECT_EQ(r.queues[0].series.front().deserved_millicores, 4000);
  EXPECT_EQ(r.queues[1].series.front().deserved_millicores, 12'000);
  EXPECT_GT(r.jain_index, 0.99);
  EXPECT_EQ(r.partial_gangs, 0);
}

// Preemption on the virtual clock: queue a floods 16 CPUs first, queue b (weight 3) arrives
// later and reclaims its share, and a high-priority gang of a arrives later still and preempts
// inside a. Evicted pods take their grace period (30 s), are created again and start over; no
// gang is ever partial and nothing thrashes.
TEST(Simulate, PreemptionAndReclaimAreAccountedAndNeverBreakAGang) {
  const ClusterSpec c = Cluster(R"(nodes: [{name: n, replicas: 4, cpu: "4", memory: 16Gi}]
queues: [{name: a, weight: 1}, {name: b, weight: 3}]
priorityClasses: [{name: high, value: 1000}]
)");
  const Workload w = Jobs(R"(jobs:
  - {name: a, replicas: 16, queue: a, duration: 300s, tasks: [{name: t, requests: {cpu: "1"}}]}
  - {name: b, arrival: 60s, replicas: 12, queue: b, duration: 300s, tasks: [{name: t, requests: {cpu: "1"}}]}
  - {name: urgent, arrival: 120s, queue: a, minMember: 2, priorityClassName: high, duration: 60s,
     tasks: [{name: t, replicas: 2, requests: {cpu: "1"}}]}
)");
  const SimulationReport r = SimulateOk(c, w);
  EXPECT_EQ(r.partial_gangs, 0);
  EXPECT_TRUE(r.thrash.empty()) << r.thrash.front();
  EXPECT_EQ(r.end_reason, "all jobs finished");
  // b reclaims its 12 of the 16 CPUs from a; urgent then takes 2 more from a's own jobs.
  EXPECT_EQ(r.evictions_by_kind.at("reclaim"), 12);
  EXPECT_EQ(r.evictions_by_kind.at("preempt"), 2);
  EXPECT_EQ(r.evictions_by_queue.at("a"), 14);
  EXPECT_EQ(r.evictions, 14);
  // Each evicted pod had run since 0 s: 12 for 60 s, 2 for 120 s (or more, if re-placed pods).
  EXPECT_GE(r.work_lost_pod_seconds, 12 * 60 + 2 * 120 - 1);
  EXPECT_EQ(Job(r, "default/urgent").start_ms, 150'000);  // its victims' 30 s grace
  // Every pod of a had run for 60 s when b reclaimed 12 of them: no choice loses less.
  EXPECT_DOUBLE_EQ(r.reclaim_work_lost_pod_seconds, 12 * 60);
  EXPECT_DOUBLE_EQ(r.reclaim_work_lost_bound_pod_seconds, 12 * 60);
  EXPECT_TRUE(r.invariants_checked);
  EXPECT_EQ(r.invariant_violations, 0) << r.violations.front();
  const nlohmann::json j = nlohmann::json::parse(ReportJson(r, false));
  EXPECT_EQ(j["summary"]["preemption"]["evictions"], 14);
  EXPECT_EQ(j["summary"]["preemption"]["byKind"]["reclaim"], 12);
  EXPECT_EQ(j["summary"]["invariantViolations"], 0);
}

TEST(Simulate, StopsAtTheHorizon) {
  const ClusterSpec c = Cluster("nodes: [{name: n, cpu: \"1\"}]\n");
  const Workload w = Jobs(R"(horizon: 30s
jobs: [{name: j, replicas: 10, duration: 20s, tasks: [{name: t, requests: {cpu: "1"}}]}]
)");
  const SimulationReport r = SimulateOk(c, w);
  EXPECT_EQ(r.end_reason, "horizon");
  EXPECT_EQ(r.end_ms, 30'000);
  EXPECT_EQ(r.jobs_finished, 1);
  EXPECT_EQ(r.jobs_started, 2);
}

TEST(Simulate, AJobNamingAMissingQueueOrPriorityClassIsAnErrorWithItsLine) {
  const ClusterSpec c = Cluster("nodes: [{name: n, cpu: \"1\"}]\n");
  SimulationOptions options;
  StatusOr<SimulationReport> r = Simulate(
      c, Jobs("jobs:\n  - {name: j, queue: nope, duration: 1s, tasks: [{name: t}]}\n"), options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("w.yaml:2: jobs[0].queue: job default/j names "
                                              "queue \"nope\", which the cluster file c.yaml"));
  r = Simulate(
      c,
      Jobs("jobs:\n  - name: j\n    priorityClassName: top\n    duration: 1s\n    tasks: [{name: "
           "t}]\n"),
      options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("w.yaml:3: jobs[0].priorityClassName"));
}

constexpr char kRandomWorkload[] = R"(jobs:
  - name: g
    replicas: 60
    minMember: 3
    interval: {exponential: 2s}
    duration: {uniform: [10s, 2m]}
    tasks: [{name: w, replicas: 3, requests: {cpu: 700m, memory: 1Gi}}]
)";

TEST(Simulate, TheSameSeedGivesTheSameReportByteForByte) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 5, cpu: \"4\", memory: 16Gi}]\n");
  const std::string first = ReportJson(SimulateOk(c, Jobs(kRandomWorkload, 9), 9), false);
  const std::string second = ReportJson(SimulateOk(c, Jobs(kRandomWorkload, 9), 9), false);
  const std::string other = ReportJson(SimulateOk(c, Jobs(kRandomWorkload, 10), 10), false);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
  EXPECT_THAT(first, ::testing::Not(HasSubstr("performance")));
  EXPECT_THAT(ReportJson(SimulateOk(c, Jobs(kRandomWorkload, 9), 9), true),
              HasSubstr("\"performance\""));
}

// A single-pod job whose bind fails is held assumed for the failed-bind ttl (30 s), then placed
// again: it starts 30 s later, the sessions keep coming while it waits, and a bind latency delays
// each start by one session. The same seed injects the same faults.
TEST(Simulate, AFailedBindIsPlacedAgainAfterTheTtl) {
  const ClusterSpec c = Cluster("nodes: [{name: n, cpu: \"4\", memory: 8Gi}]\n");
  const Workload w = Jobs(R"(jobs:
  - {name: a, arrival: 0s, duration: 10s, tasks: [{name: t, replicas: 1, requests: {cpu: "1"}}]}
)");
  SimulationOptions options;
  options.bind_faults.failure_rate = 1.0;  // nothing would ever start: refused
  EXPECT_FALSE(Simulate(c, w, options).ok());

  options.bind_faults.failure_rate = 0.5;
  options.bind_faults.seed = 8;  // fails the first bind, not the second
  StatusOr<SimulationReport> once = Simulate(c, w, options);
  StatusOr<SimulationReport> twice = Simulate(c, w, options);
  ASSERT_TRUE(once.ok() && twice.ok());
  EXPECT_EQ(ReportJson(*once, false), ReportJson(*twice, false));
  EXPECT_EQ(once->jobs_finished, 1);
  EXPECT_EQ(once->bind_failures, 1);
  EXPECT_EQ(Job(*once, "default/a").start_ms, 30'000 * once->bind_failures);

  options.bind_faults.failure_rate = 0;
  options.bind_faults.latency = std::chrono::milliseconds(1500);
  StatusOr<SimulationReport> slow = Simulate(c, w, options);
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(Job(*slow, "default/a").start_ms, 2000);  // bound by the session 2 s later
  EXPECT_EQ(Job(*slow, "default/a").finish_ms, 12'000);
}

TEST(ReportJson, HasTheSummaryQueuesJobsAndPerformance) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 5, cpu: \"4\", memory: 16Gi}]\n");
  const nlohmann::json j = nlohmann::json::parse(ReportJson(SimulateOk(c, Jobs(kRandomWorkload))));
  EXPECT_EQ(j["summary"]["partialGangs"], 0);
  EXPECT_EQ(j["summary"]["jobsFinished"], 60);
  EXPECT_EQ(j["jobOutcomes"]["rows"].size(), 60U);
  EXPECT_EQ(j["queues"][0]["name"], "default");
  EXPECT_GT(j["performance"]["sessionMs"]["count"].get<int>(), 0);
  EXPECT_LE(j["utilisation"]["points"].size(), SimulationReport::kMaxSeriesPoints);
}

TEST(ReportHtml, IsOnePageWithTheFourChartsAndNoExternalResources) {
  const ClusterSpec c = Cluster("nodes: [{name: n, replicas: 5, cpu: \"4\", memory: 16Gi}]\n");
  const std::string html = ReportHtml(SimulateOk(c, Jobs(kRandomWorkload)));
  for (const char* id : {"chart-utilisation", "chart-queues", "chart-waits", "chart-sessions"}) {
    EXPECT_THAT(html, HasSubstr(std::string("id=\"") + id + "\"")) << id;
  }
  EXPECT_THAT(html, ::testing::Not(HasSubstr("src=")));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("href=")));
  EXPECT_THAT(html, HasSubstr("</html>"));
}

TEST(Generate, EveryShapeLoadsAndRunsSmallWithNoPartialGang) {
  for (const std::string& shape : GeneratorShapes()) {
    GenerateOptions options;
    options.shape = shape;
    options.nodes = 40;  // room for one big gang of 1,000 pods of 100m
    options.jobs = 6;
    StatusOr<GeneratedFiles> files = Generate(options);
    ASSERT_TRUE(files.ok()) << shape << ": " << files.status().message();
    const SimulationReport r = SimulateOk(Cluster(files->cluster_yaml), Jobs(files->workload_yaml));
    EXPECT_EQ(r.partial_gangs, 0) << shape;
    EXPECT_GT(r.jobs_started, 0) << shape;
    EXPECT_EQ(r.nodes, 40) << shape;
  }
  GenerateOptions bad;
  bad.shape = "huge";
  EXPECT_THAT(Generate(bad).status().message(), HasSubstr("unknown shape \"huge\" (known: "));
}

}  // namespace
}  // namespace arbiter::sim
