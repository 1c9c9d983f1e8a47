// PreemptFor visits the nodes in the order of the least their victims may cost and stops at the
// first choice none of the rest can beat (VictimIndex, preemption.cc). A differential test: on
// random full clusters (gangs with pods to spare, start times ahead of the clock, budgets, host
// ports, pods that may not be evicted, preemptors that become victims of later ones), several
// preemptors planned one after the other in one session make exactly the plans of building every
// node's victims for every pod (PreemptionOptions::visit_every_node), the reference.
#include "arbiter/actions/preemption.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/plugins/builtin.h"
#include "arbiter/testing/builders.h"

namespace arbiter {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;
using testing::MakeQueue;
using testing::TestEpoch;

// What the plans of one session did, in order.
struct Outcome {
  std::vector<bool> committed;
  std::vector<std::string> why_not;
  std::vector<std::string> evicted;                            // victims, in eviction order
  std::vector<std::pair<std::string, std::string>> nominated;  // pod, node
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

std::string Describe(const Outcome& o) {
  std::string out;
  for (std::size_t i = 0; i < o.committed.size(); ++i) {
    out += "plan " + std::to_string(i) + (o.committed[i] ? " committed" : " not committed") +
           (o.why_not[i].empty() ? "" : " (" + o.why_not[i] + ")") + "\n";
  }
  out += "evicted:";
  for (const std::string& e : o.evicted) out += " " + e;
  out += "\nnominated:";
  for (const auto& [pod, node] : o.nominated) out.append(" ").append(pod).append("->").append(node);
  return out + "\n";
}

class PreemptionDifferentialTest : public ::testing::Test {
 protected:
  PreemptionDifferentialTest() {
    RegisterBuiltinPlugins(registry_);
    RegisterBuiltinActions(registry_);
    auto scheduler = Scheduler::Create(DefaultSchedulerConfig(), registry_);
    EXPECT_TRUE(scheduler.ok()) << scheduler.status();
    scheduler_ = std::move(*scheduler);
  }

  // A full cluster drawn from `seed`, and the names of its pending high-priority gangs.
  std::shared_ptr<const Snapshot> RandomCluster(std::uint32_t seed,
                                                std::vector<std::string>& preemptors) {
    std::mt19937 rng(seed);
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution(lo, hi)(rng); };
    cache_ = std::make_unique<ClusterCache>(CacheOptions());
    cache_->UpsertQueue(MakeQueue("default"));
    cache_->UpsertPriorityClass(MakePriorityClass("p10", 10));
    cache_->UpsertPriorityClass(MakePriorityClass("p20", 20));
    const int nodes = pick(3, 14);
    std::vector<int> free(static_cast<std::size_t>(nodes));
    for (int n = 0; n < nodes; ++n) {
      free[static_cast<std::size_t>(n)] = pick(0, 1) == 0 ? 4 : 8;
      cache_->UpsertNode(MakeNode("n" + std::to_string(n))
                             .Cpu(std::to_string(free[static_cast<std::size_t>(n)]))
                             .Build());
    }
    const auto place = [&](int cpu) -> std::optional<int> {
      std::vector<int> room;
      for (int n = 0; n < nodes; ++n) {
        if (free[static_cast<std::size_t>(n)] >= cpu) room.push_back(n);
      }
      if (room.empty()) return std::nullopt;
      const int n = room[static_cast<std::size_t>(pick(0, static_cast<int>(room.size()) - 1))];
      free[static_cast<std::size_t>(n)] -= cpu;
      return n;
    };
    // Pending gangs of rising priority that can start only by preempting. Some already run
    // workers enough for their minMember but wait for their "ps" (minTaskMember): once a plan
    // nominates it, those workers are pods to spare for the next, higher preemptor.
    const int gangs = pick(1, 4);
    for (int g = 0; g < gangs; ++g) {
      const std::string group = "high" + std::to_string(g);
      const std::string priority_class = "h" + std::to_string(g);
      cache_->UpsertPriorityClass(MakePriorityClass(priority_class, 100 + 10 * g));
      const int cpu = pick(1, 4);
      const bool port = pick(0, 5) == 0;
      int running = 0;
      if (pick(0, 1) == 0) {
        for (int i = 0; i < 2; ++i) {
          const std::optional<int> n = place(1);
          if (!n.has_value()) break;
          cache_->UpsertPod(MakePod(group + "-worker-" + std::to_string(i))
                                .Group(group)
                                .Task("worker")
                                .Request("cpu", "1")
                                .OnNode("n" + std::to_string(*n))
                                .StartedAt(-pick(1, 5000))
                                .Build());
          ++running;
        }
      }
      const int pending = running > 0 ? 1 : pick(1, 3);
      auto pg = MakePodGroup(group)
                    .MinMember(running > 0 ? running : pending)
                    .PriorityClass(priority_class)
                    .Created(g);
      if (running > 0) pg.MinTaskMember("ps", 1);
      cache_->UpsertPodGroup(pg.Build());
      for (int i = 0; i < pending; ++i) {
        auto pod = MakePod(group + "-" + std::to_string(i))
                       .Group(group)
                       .Request("cpu", std::to_string(cpu))
                       .Created(g);
        if (running > 0) pod.Task("ps");
        if (port) pod.HostPort(8080);
        cache_->UpsertPod(pod.Build());
      }
      preemptors.push_back(group);
    }
    // Running gangs until the cluster is (nearly) full.
    for (int g = 0; g < 200; ++g) {
      const std::string group = "run" + std::to_string(g);
      const int size = pick(1, 4);
      const int cpu = pick(1, 2);
      std::vector<int> on;
      for (int i = 0; i < size; ++i) {
        const std::optional<int> n = place(cpu);
        if (!n.has_value()) break;
        on.push_back(*n);
      }
      if (on.empty()) break;
      auto pg = MakePodGroup(group)
                    .MinMember(pick(1, static_cast<int>(on.size())))
                    .PriorityClass(pick(0, 2) == 0 ? "p20" : "p10")
                    .Created(-10000);
      if (pick(0, 15) == 0) pg.Label(std::string(kPreemptableLabel), "false");
      cache_->UpsertPodGroup(pg.Build());
      for (std::size_t i = 0; i < on.size(); ++i) {
        auto pod = MakePod(group + "-" + std::to_string(i))
                       .Group(group)
                       .Request("cpu", std::to_string(cpu))
                       .OnNode("n" + std::to_string(on[i]))
                       .Created(-10000)
                       // Some started ahead of the scheduler's clock (skew).
                       .StartedAt(pick(0, 9) == 0 ? pick(1, 30) : -pick(1, 5000))
                       .Label("app", pick(0, 4) == 0 ? "db" : "web");
        if (pick(0, 12) == 0) pod.HostPort(8080);
        cache_->UpsertPod(pod.Build());
      }
    }
    if (pick(0, 1) == 0) {
      PodDisruptionBudget pdb;
      pdb.meta.namespace_name = "default";
      pdb.meta.name = "db";
      pdb.selector.emplace().match_labels["app"] = "db";
      pdb.disruptions_allowed = pick(0, 2);
      cache_->UpsertPodDisruptionBudget(pdb);
    }
    return cache_->TakeSnapshot(TestEpoch());
  }

  // Plans for each preemptor in turn in one session, as the preempt action does (one index).
  Outcome Plan(const Snapshot& snapshot, const std::vector<std::string>& preemptors,
               bool visit_every_node) {
    Session session(snapshot, scheduler_->plugins(), snapshot.now);
    PreemptionOptions options;
    options.visit_every_node = visit_every_node;
    const VictimFilter lower = [](const Session& s, JobIndex preemptor, TaskIndex v) {
      return s.job(s.task(v).job).priority < s.job(preemptor).priority;
    };
    VictimIndex index(session, options);
    Outcome out;
    for (const std::string& name : preemptors) {
      const std::optional<JobIndex> j = snapshot.FindJob("default", name);
      EXPECT_TRUE(j.has_value()) << name;
      if (!j.has_value()) continue;
      PreemptionPlan plan = PreemptFor(session, *j, EvictionKind::kPreempt, lower, options,
                                       /*guard=*/nullptr, /*within=*/nullptr, &index);
      out.committed.push_back(plan.committed);
      out.why_not.push_back(plan.why_not);
    }
    for (const Session::Eviction& e : session.evictions()) {
      out.evicted.push_back(session.task(e.victim).name());
    }
    for (TaskIndex t : session.nominations()) {
      out.nominated.emplace_back(session.task(t).name(), session.node(session.task_node(t)).name());
    }
    return out;
  }

  Registry registry_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<ClusterCache> cache_;
};

TEST_F(PreemptionDifferentialTest, BoundedVisitMakesThePlansOfVisitingEveryNode) {
  int committed = 0;
  int refused = 0;
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    std::vector<std::string> preemptors;
    const std::shared_ptr<const Snapshot> snapshot = RandomCluster(seed, preemptors);
    const Outcome reference = Plan(*snapshot, preemptors, /*visit_every_node=*/true);
    const Outcome bounded = Plan(*snapshot, preemptors, /*visit_every_node=*/false);
    ASSERT_EQ(bounded, reference) << "seed " << seed << "\nbounded:\n"
                                  << Describe(bounded) << "every node:\n"
                                  << Describe(reference);
    for (bool c : reference.committed) (c ? committed : refused) += 1;
  }
  // The clusters exercise both outcomes, often.
  EXPECT_GT(committed, 100);
  EXPECT_GT(refused, 20);
}

}  // namespace
}  // namespace arbiter
