// Randomized contention: a random cluster, many gangs of random shapes arriving over many sessions,
// random completions, failures and deletions in between; after every session the invariants of
// ARCHITECTURE.md §6 (sim/invariants.h) must hold, and once arrivals stop and everything finishes,
// every gang that fits in the empty cluster must have run. Each seed is its own test case and
// replays exactly (the generator is a seeded std::mt19937_64 and the scheduler is deterministic).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/model/placement_rules.h"
#include "arbiter/sim/invariants.h"
#include "arbiter/sim/scenario_runner.h"
#include "arbiter/testing/builders.h"

namespace arbiter::sim {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakePriorityClass;

constexpr std::uint64_t kSeeds[] = {1, 7, 42, 1234, 99991, 20240601, 987654321};
constexpr int kArrivalSessions = 50;
// The drain stops once every gang that can run has, or when this many sessions in a row (each
// on an empty cluster) start no gang: the same state then gives the same decisions forever.
constexpr int kStalledDrainSessions = 5;

// One gang as the workload made it: identical pods (so whether it fits in the empty cluster is
// exactly computable), optionally a parameter-server task with its own minimum.
struct Gang {
  std::string key;  // namespace/name
  std::int32_t min_member = 1;
  Pod prototype;                  // requests and placement constraints every pod of the gang shares
  std::vector<std::string> pods;  // uids, deleted ones included
  std::string ps;                 // the parameter server's uid, when minTaskMember {ps: 1}
  std::set<std::string> deleted;
  std::set<std::string> failed;
  std::map<std::string, Pod> specs;  // each pod as created, by uid: what a controller recreates
  std::int32_t recreated = 0;
  bool ran = false;  // reached minMember counted pods after some session
};

// What one seed's run produced.
struct Report {
  std::vector<std::string> violations;          // every invariant but kOwnVerdict
  std::vector<std::string> own_verdicts;        // kOwnVerdict violations
  std::vector<std::string> starved;             // gangs that fit the empty cluster but never ran
  std::size_t starved_by_reservations = 0;      // of which enqueue kept out (see HeldOut...)
  std::vector<std::string> infeasible_ran;      // gangs that cannot fit but ran (impossible)
  std::vector<std::string> admitted_never_ran;  // Inqueue at the end without having run
  std::int64_t sessions = 0;
  std::int64_t binds = 0;
  std::int64_t gangs = 0;
  std::int64_t gangs_ran = 0;
  std::int64_t evicted = 0;  // pods preemption and reclaim evicted
  std::map<std::string, std::int32_t> evicted_per_gang;
};

class Contention {
 public:
  explicit Contention(std::uint64_t seed) : rng_(seed) {
    auto cluster = SimulatedCluster::Create(DefaultSchedulerConfig());
    ARBITER_CHECK(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
  }

  Report Run() {
    BuildCluster();
    for (int s = 0; s < kArrivalSessions; ++s) {
      Arrive();
      Churn();
      Session();
    }
    for (int stalled = 0; stalled < kStalledDrainSessions && !AllFeasibleRan();) {
      const std::int64_t before = GangsRan();
      FinishEverything();
      Session();
      stalled = GangsRan() > before ? 0 : stalled + 1;
    }
    for (const auto& [key, gang] : gangs_) {
      ++report_.gangs;
      report_.gangs_ran += gang.ran ? 1 : 0;
      const bool fits = FitsEmptyCluster(gang);
      if (fits && Valid(gang) && !gang.ran) {
        report_.starved.push_back(Describe(gang));
        report_.starved_by_reservations += HeldOutByReservations(gang) ? 1 : 0;
      }
      if (!gang.ran && cluster_->groups().at(key).status.phase == PodGroupPhase::kInqueue) {
        report_.admitted_never_ran.push_back(Describe(gang) + (fits ? "" : " [cannot fit]") +
                                             (Valid(gang) ? "" : " [too few pods left]"));
      }
      if (!fits && gang.ran) report_.infeasible_ran.push_back(Describe(gang));
    }
    report_.sessions = cluster_->sessions_run();
    return report_;
  }

 private:
  std::int64_t Between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) { return static_cast<double>(rng_() % 1'000'000) < p * 1'000'000; }
  template <typename T>
  T Pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(Between(0, static_cast<std::int64_t>(v.size()) - 1))];
  }

  std::int64_t Now() const { return cluster_->sessions_run(); }

  // 5-40 nodes of random size in zones a/b/c; a few carry GPUs behind a taint, a few are cordoned
  // or not ready; other schedulers' pods already hold part of some nodes.
  void BuildCluster() {
    cluster_->Add(MakePriorityClass("high", 1000));
    const std::int64_t n = Between(5, 40);
    for (std::int64_t i = 0; i < n; ++i) {
      auto node = MakeNode("n" + std::to_string(i))
                      .Cpu(std::to_string(Pick<int>({4, 8, 16, 32, 64})))
                      .Memory(std::to_string(Pick<int>({8, 16, 32, 64, 128})) + "Gi")
                      .Pods(std::to_string(Pick<int>({8, 16, 32, 110})))
                      .Label("zone", Pick<std::string>({"a", "b", "c"}));
      if (Chance(0.15)) {
        node.Resource("nvidia.com/gpu", std::to_string(Pick<int>({1, 2, 4, 8})))
            .Taint("dedicated", "gpu", "NoSchedule");
      }
      if (Chance(0.05)) node.Unschedulable();
      if (Chance(0.05)) node.NotReady();
      const Node built = node.Build();
      cluster_->Add(built);
      nodes_.push_back(built);
      if (Chance(0.3)) {
        cluster_->Add(MakePod("sys-" + std::to_string(i))
                          .Namespace("kube-system")
                          .SchedulerName("default-scheduler")
                          .Request("cpu", Pick<std::string>({"500m", "1", "2"}))
                          .Request("memory", "1Gi")
                          .OnNode(built.meta.name)
                          .Build());
      }
    }
  }

  // 0-3 new gangs: minMember 1-12 (sometimes more than the cluster holds), 0-3 extras, identical
  // pods; some with a priority class, minResources, a zone selector, GPUs or a host port.
  void Arrive() {
    const std::int64_t count = Between(0, 4);
    for (std::int64_t g = 0; g < count; ++g) AddGang();
  }

  void AddGang() {
    const std::string name = "g" + std::to_string(next_gang_++);
    const auto min = static_cast<std::int32_t>(Chance(0.03) ? Between(20, 200) : Between(1, 16));
    const std::int64_t extras = Chance(0.3) ? Between(1, 3) : 0;
    const bool with_ps = min >= 2 && Chance(0.2);
    const auto cpu = Pick<std::string>({"250m", "500m", "1", "2", "4", "8"});
    const auto memory = Pick<std::string>({"256Mi", "1Gi", "4Gi"});
    const bool gpu = Chance(0.1);
    const bool zoned = Chance(0.2);
    const auto zone = Pick<std::string>({"a", "b", "c"});
    const bool port = Chance(0.1);
    const auto host_port = static_cast<std::int32_t>(Between(7000, 7002));

    auto group = MakePodGroup(name).MinMember(min).Created(Now());
    if (Chance(0.3)) group.PriorityClass("high");
    if (with_ps) group.MinTaskMember("ps", 1);
    if (Chance(0.3)) {
      // What the minimum needs in all: min pods' cpu.
      const std::int64_t milli = testing::Canonical("cpu", cpu) * min;
      group.MinResource("cpu", std::to_string(milli) + "m");
    }
    const PodGroup built_group = group.Build();
    cluster_->Add(built_group);

    Gang gang;
    gang.key = built_group.meta.Key();
    gang.min_member = min;
    const std::int64_t pods = min + extras;
    for (std::int64_t i = 0; i < pods; ++i) {
      const bool ps = with_ps && i == pods - 1;  // the last, so task order has work to do
      auto pod = MakePod(name + "-" + std::to_string(i))
                     .Group(name)
                     .Task(ps ? "ps" : "worker")
                     .Priority(ps ? 100 : 1)
                     .Request("cpu", cpu)
                     .Request("memory", memory)
                     .Created(Now());
      if (gpu) pod.Request("nvidia.com/gpu", "1").Tolerate("dedicated", "gpu", "NoSchedule");
      if (zoned) pod.NodeSelector("zone", zone);
      if (port) pod.HostPort(host_port);
      const Pod built = pod.Build();
      if (i == 0) gang.prototype = built;
      if (ps) gang.ps = built.meta.uid;
      gang.pods.push_back(built.meta.uid);
      gang.specs.emplace(built.meta.uid, built);
      cluster_->Add(built);
    }
    gangs_.emplace(gang.key, std::move(gang));
  }

  // Between sessions: running pods finish (whole gangs at once, or one pod), now and then one
  // fails; a gang or a single pod is deleted now and then.
  void Churn() {
    for (auto& [key, gang] : gangs_) {
      const bool whole_gang_done = Chance(0.1);
      const bool delete_gang = Chance(0.02);
      for (const std::string& uid : gang.pods) {
        if (gang.deleted.contains(uid)) continue;
        const Pod& pod = cluster_->pods().at(uid);
        const bool holds = !pod.spec.node_name.empty() && pod.status.phase == PodPhase::kRunning;
        if (delete_gang || Chance(0.003)) {
          Delete(gang, uid);
        } else if (holds && Chance(0.005)) {
          Fail(gang, uid);
        } else if (holds && (whole_gang_done || Chance(0.05))) {
          ARBITER_CHECK(cluster_->FinishPod(uid, PodPhase::kSucceeded).ok());
          succeeded_.insert(uid);
        }
      }
    }
  }

  void Delete(Gang& gang, const std::string& uid) {
    ARBITER_CHECK(cluster_->DeletePod(uid).ok());
    gang.deleted.insert(uid);
    disturbed_.insert(gang.key);
  }

  void Fail(Gang& gang, const std::string& uid) {
    ARBITER_CHECK(cluster_->FinishPod(uid, PodPhase::kFailed).ok());
    gang.failed.insert(uid);
    disturbed_.insert(gang.key);
  }

  // The drain: every pod holding a node finishes, ours and the other schedulers'.
  void FinishEverything() {
    std::vector<std::string> running;
    for (const auto& [uid, pod] : cluster_->pods()) {
      if (!pod.spec.node_name.empty() && pod.status.phase == PodPhase::kRunning) {
        running.push_back(uid);
      }
    }
    for (const std::string& uid : running) {
      ARBITER_CHECK(cluster_->FinishPod(uid, PodPhase::kSucceeded).ok());
      succeeded_.insert(uid);
    }
  }

  // A pod that preemption evicted is recreated under a new name, as its job's controller would
  // (the simulated API server deleted it once its grace period passed).
  void RecreateEvicted() {
    for (auto& [key, gang] : gangs_) {
      std::vector<std::string> gone;
      for (const std::string& uid : gang.pods) {
        if (gang.deleted.contains(uid) || cluster_->pods().contains(uid)) continue;
        // A pod that finished while it was being evicted is gone too, and stays finished.
        if (gang.failed.contains(uid) || succeeded_.contains(uid)) {
          gang.deleted.insert(uid);
        } else {
          gone.push_back(uid);
        }
      }
      for (const std::string& uid : gone) {
        gang.deleted.insert(uid);
        Pod again = gang.specs.at(uid);
        again.meta.name = key.substr(key.find('/') + 1) + "-r" + std::to_string(gang.recreated++);
        again.meta.uid = again.meta.namespace_name + "/" + again.meta.name;
        again.meta.creation_timestamp = testing::TestEpoch() + std::chrono::seconds(Now());
        if (uid == gang.ps) gang.ps = again.meta.uid;
        gang.pods.push_back(again.meta.uid);
        gang.specs.emplace(again.meta.uid, again);
        cluster_->Add(again);
      }
    }
  }

  void Session() {
    const SessionRecord record = cluster_->RunSession();
    report_.binds += static_cast<std::int64_t>(record.result.binds.size());
    for (const EvictDecision& e : record.result.evictions) {
      ++report_.evicted;
      ++report_.evicted_per_gang[e.victim_job];
    }
    const std::string at = "session " + std::to_string(cluster_->sessions_run()) + ": ";
    for (const Violation& v : CheckSessionInvariants(*cluster_, record, disturbed_)) {
      auto& into =
          v.invariant == Invariant::kOwnVerdict ? report_.own_verdicts : report_.violations;
      into.push_back(at + ToString(v));
    }
    for (std::string& over : NodesOverAllocatable()) report_.violations.push_back(at + over);
    for (auto& [key, gang] : gangs_) {
      std::int32_t counted = 0;
      for (const std::string& uid : gang.pods) {
        auto it = cluster_->pods().find(uid);
        if (it == cluster_->pods().end()) continue;
        const Pod& pod = it->second;
        counted += ((!pod.spec.node_name.empty() && pod.status.phase == PodPhase::kRunning) ||
                    pod.status.phase == PodPhase::kSucceeded)
                       ? 1
                       : 0;
      }
      gang.ran = gang.ran || counted >= gang.min_member;
    }
    RecreateEvicted();
  }

  // Nothing here overcommits a node, so every node, every resource, must stay within its
  // allocatable: the sum of the requests of the non-terminal pods bound there, all schedulers'.
  std::vector<std::string> NodesOverAllocatable() const {
    std::map<std::string, ResourceList> used;
    for (const auto& [uid, pod] : cluster_->pods()) {
      if (pod.spec.node_name.empty() || pod.status.phase == PodPhase::kSucceeded ||
          pod.status.phase == PodPhase::kFailed) {
        continue;
      }
      StatusOr<ResourceList> request = pod.EffectiveRequest();
      ARBITER_CHECK(request.ok()) << request.status();
      const Status added = used[pod.spec.node_name].Add(*request);
      ARBITER_CHECK(added.ok()) << added;
    }
    std::vector<std::string> over;
    for (const auto& [name, sum] : used) {
      const ResourceList& allocatable = cluster_->nodes().at(name).allocatable;
      if (!sum.FitsIn(allocatable)) {
        over.push_back("capacity: node " + name + " holds " + sum.ToString() +
                       ", over its allocatable " + allocatable.ToString());
      }
    }
    return over;
  }

  // Whether the gang's pods (all alike) can number minMember in the empty cluster: per eligible
  // node, how many copies fit its allocatable (one at most with a host port), summed. For
  // identical pods any greedy placement reaches this number, so it is exact.
  bool FitsEmptyCluster(const Gang& gang) const {
    const Pod& pod = gang.prototype;
    StatusOr<ResourceList> request = pod.EffectiveRequest();
    ARBITER_CHECK(request.ok());
    std::int64_t total = 0;
    for (const Node& node : nodes_) {
      if (node.unschedulable || !node.Ready() ||
          !MatchesNodeSelector(pod.spec.node_selector, node.meta.labels) ||
          FirstUntoleratedTaint(pod.spec.tolerations, node.taints) != nullptr) {
        continue;
      }
      std::int64_t copies = HostPortsOf(pod).empty() ? std::numeric_limits<std::int64_t>::max() : 1;
      for (const ResourceEntry& e : request->entries()) {
        if (e.amount > 0) copies = std::min(copies, node.allocatable.Get(e.name) / e.amount);
      }
      total += copies;
      if (total >= gang.min_member) return true;
    }
    return false;
  }

  // Enough pods still exist (not deleted, not failed) to reach minMember and minTaskMember.
  static bool Valid(const Gang& gang) {
    const auto left =
        static_cast<std::int64_t>(gang.pods.size() - gang.deleted.size() - gang.failed.size());
    const bool ps_left =
        gang.ps.empty() || (!gang.deleted.contains(gang.ps) && !gang.failed.contains(gang.ps));
    return left >= gang.min_member && ps_left;
  }

  std::int64_t GangsRan() const {
    std::int64_t n = 0;
    for (const auto& [key, gang] : gangs_) n += gang.ran ? 1 : 0;
    return n;
  }

  // Never admitted, because admitted groups that never start keep the cluster reserved.
  bool HeldOutByReservations(const Gang& gang) const {
    const PodGroup& group = cluster_->groups().at(gang.key);
    const Condition* c = FindCondition(group.status.conditions, "Unschedulable");
    return group.status.phase == PodGroupPhase::kPending && c != nullptr &&
           c->reason == "NotEnoughResources" &&
           c->message.find("that no admitted group has reserved") != std::string::npos;
  }

  bool AllFeasibleRan() const {
    for (const auto& [key, gang] : gangs_) {
      if (!gang.ran && Valid(gang) && FitsEmptyCluster(gang)) return false;
    }
    return true;
  }

  // The gang's shape and where its PodGroup stands, for failure messages.
  std::string Describe(const Gang& gang) const {
    std::string out = gang.key + " (minMember " + std::to_string(gang.min_member) + ", " +
                      std::to_string(gang.pods.size()) + " pods";
    StatusOr<ResourceList> request = gang.prototype.EffectiveRequest();
    if (request.ok()) out += " of " + request->ToString();
    const PodGroup& group = cluster_->groups().at(gang.key);
    if (!group.spec.min_resources.empty()) {
      out += ", minResources " + group.spec.min_resources.ToString();
    }
    out += "): phase " + std::string(PodGroupPhaseName(group.status.phase));
    if (const Condition* c = FindCondition(group.status.conditions, "Unschedulable")) {
      out += ", Unschedulable=" + c->status + " " + c->reason + ": " + c->message;
    }
    return out;
  }

  std::mt19937_64 rng_;
  std::unique_ptr<SimulatedCluster> cluster_;
  std::vector<Node> nodes_;
  std::map<std::string, Gang> gangs_;
  std::set<std::string> disturbed_;
  std::set<std::string> succeeded_;  // uids of the pods made to succeed
  std::int64_t next_gang_ = 0;
  Report report_;
};

// One run per seed, shared by the tests of that seed (the run is deterministic).
const Report& RunFor(std::uint64_t seed) {
  static auto* const kReports = new std::map<std::uint64_t, Report>();
  auto it = kReports->find(seed);
  if (it == kReports->end()) it = kReports->emplace(seed, Contention(seed).Run()).first;
  return it->second;
}

std::string Lines(const std::vector<std::string>& lines, std::size_t at_most = 20) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < at_most; ++i) out += "\n  " + lines[i];
  if (lines.size() > at_most) out += "\n  ... and " + std::to_string(lines.size() - at_most);
  return out;
}

class ContentionTest : public ::testing::TestWithParam<std::uint64_t> {};

// Binds accepted and placed by the rules, no node over its allocatable, no gang partially
// started or left partial by the scheduler, every pending pod reported (at least through its
// group), after every one of the sessions.
TEST_P(ContentionTest, InvariantsHoldAfterEverySession) {
  const Report& report = RunFor(GetParam());
  EXPECT_GT(report.gangs, 50);
  EXPECT_GT(report.binds, 300);  // the workload is not trivial
  EXPECT_TRUE(report.violations.empty())
      << report.violations.size() << " violations:" << Lines(report.violations);
}

// Once arrivals stop and every pod finishes as soon as it runs, every gang that still has its
// minimum of pods and fits in the empty cluster has run; none that cannot fit ever did.
TEST_P(ContentionTest, EveryGangThatFitsEventuallyRuns) {
  const Report& report = RunFor(GetParam());
  EXPECT_TRUE(report.starved.empty())
      << report.starved.size() << " of " << report.gangs
      << " gangs never ran:" << Lines(report.starved)
      << "\nwhile these were admitted and never ran:" << Lines(report.admitted_never_ran);
  EXPECT_TRUE(report.infeasible_ran.empty()) << Lines(report.infeasible_ran);
  EXPECT_GT(report.gangs_ran, 0);
}

// Every pending pod has a reason of its own, not only its group's others.
TEST_P(ContentionTest, EveryPendingPodHasItsOwnVerdict) {
  const Report& report = RunFor(GetParam());
  EXPECT_TRUE(report.own_verdicts.empty())
      << report.own_verdicts.size() << " pods without:" << Lines(report.own_verdicts);
}

std::string SeedName(const ::testing::TestParamInfo<std::uint64_t>& seed) {
  return "seed_" + std::to_string(seed.param);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ContentionTest, ::testing::ValuesIn(kSeeds), SeedName);

}  // namespace
}  // namespace arbiter::sim
