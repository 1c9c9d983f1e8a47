// Snapshots that carry unchanged jobs and nodes over from the one before (CacheOptions::
// share_unchanged) are the snapshots that building them all gives: two caches fed the same
// random stream of events, one sharing and one not, are compared field by field after each burst,
// with the previous snapshot sometimes still held (its jobs copied) and sometimes not (moved).
// And a scheduler that relies on carried-over jobs to skip quiet groups decides the same.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/base/check.h"
#include "arbiter/cache/cluster_cache.h"
#include "arbiter/framework/config.h"
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

const Clock::MonotonicTime kT0 = Clock::MonotonicTime(std::chrono::seconds(1000));

void ExpectSameTask(const TaskInfo& a, const TaskInfo& b, const std::string& where) {
  SCOPED_TRACE(where + " task " + b.Key());
  EXPECT_EQ(*a.pod, *b.pod);
  EXPECT_EQ(a.task_name, b.task_name);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.request, b.request);
  EXPECT_EQ(a.host_ports, b.host_ports);
  EXPECT_EQ(a.constraint_hash, b.constraint_hash);
  EXPECT_EQ(a.placement_hash, b.placement_hash);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(a.nominated, b.nominated);
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.pdb, b.pdb);
  EXPECT_EQ(a.eviction_refused, b.eviction_refused);
}

void ExpectSameJob(const JobInfo& a, const JobInfo& b, const std::string& where) {
  SCOPED_TRACE(where + " job " + b.Key());
  EXPECT_EQ(a.namespace_name, b.namespace_name);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.uid, b.uid);
  ASSERT_EQ(a.group == nullptr, b.group == nullptr);
  if (a.group != nullptr) {
    EXPECT_EQ(*a.group, *b.group);
  }
  ASSERT_EQ(a.data_set == nullptr, b.data_set == nullptr);
  if (a.data_set != nullptr) {
    EXPECT_EQ(*a.data_set, *b.data_set);
  }
  EXPECT_EQ(a.group_missing, b.group_missing);
  EXPECT_EQ(a.queue, b.queue);
  EXPECT_EQ(a.queue_index, b.queue_index);
  EXPECT_EQ(a.min_member, b.min_member);
  EXPECT_EQ(a.min_task_member, b.min_task_member);
  EXPECT_EQ(a.priority_class_name, b.priority_class_name);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.min_resources, b.min_resources);
  EXPECT_EQ(a.phase, b.phase);
  EXPECT_EQ(a.creation, b.creation);
  EXPECT_EQ(a.tasks, b.tasks);
}

void ExpectSameNode(const NodeInfo& a, const NodeInfo& b, const std::string& where) {
  SCOPED_TRACE(where + " node " + b.name());
  EXPECT_EQ(*a.node, *b.node);
  EXPECT_EQ(a.allocatable, b.allocatable);
  EXPECT_EQ(a.used, b.used);
  EXPECT_EQ(a.host_ports_in_use, b.host_ports_in_use);
  EXPECT_EQ(a.pod_count, b.pod_count);
  EXPECT_EQ(a.in_scope, b.in_scope);
  EXPECT_EQ(a.out_of_scope_why, b.out_of_scope_why);
}

void ExpectSameSnapshot(const Snapshot& shared, const Snapshot& built, const std::string& where) {
  ASSERT_EQ(shared.nodes.size(), built.nodes.size()) << where;
  for (std::size_t n = 0; n < built.nodes.size(); ++n) {
    ExpectSameNode(shared.nodes[n], built.nodes[n], where);
  }
  ASSERT_EQ(shared.jobs.size(), built.jobs.size()) << where;
  ASSERT_EQ(shared.tasks.size(), built.tasks.size()) << where;
  for (std::size_t j = 0; j < built.jobs.size(); ++j) {
    ExpectSameJob(shared.jobs[j], built.jobs[j], where);
  }
  for (std::size_t t = 0; t < built.tasks.size(); ++t) {
    ExpectSameTask(shared.tasks[t], built.tasks[t], where);
  }
  // What every snapshot builds whole (a patched one included).
  EXPECT_EQ(shared.now, built.now) << where;
  ASSERT_EQ(shared.queues.size(), built.queues.size()) << where;
  for (std::size_t q = 0; q < built.queues.size(); ++q) {
    EXPECT_EQ(*shared.queues[q].queue, *built.queues[q].queue) << where;
    EXPECT_EQ(shared.queues[q].quota_cap, built.queues[q].quota_cap) << where;
  }
  ASSERT_EQ(shared.pdbs.size(), built.pdbs.size()) << where;
  for (std::size_t p = 0; p < built.pdbs.size(); ++p) {
    EXPECT_EQ(*shared.pdbs[p].pdb, *built.pdbs[p].pdb) << where;
    EXPECT_EQ(shared.pdbs[p].allowed, built.pdbs[p].allowed) << where;
  }
  EXPECT_EQ(shared.namespace_labels, built.namespace_labels) << where;
  ASSERT_EQ(shared.priority_classes.size(), built.priority_classes.size()) << where;
  for (std::size_t p = 0; p < built.priority_classes.size(); ++p) {
    EXPECT_EQ(shared.priority_classes[p].meta.name, built.priority_classes[p].meta.name) << where;
    EXPECT_EQ(shared.priority_classes[p].value, built.priority_classes[p].value) << where;
    EXPECT_EQ(shared.priority_classes[p].global_default, built.priority_classes[p].global_default)
        << where;
  }
}

// One random event, applied to both caches alike.
class EventStream {
 public:
  explicit EventStream(std::uint32_t seed) : rng_(seed) {}

  void ApplyOne(ClusterCache& a, ClusterCache& b) {
    const auto both = [&](const auto& f) {
      f(a);
      f(b);
    };
    const std::string ns = Pick({"ml", "web", "batch"});
    const std::uint32_t index = Below(40);
    // Now and then a pod named like a group (a singleton beside the group's job of that name), or
    // one renamed or moved to another namespace under the same uid.
    const std::string pod = Below(6) == 0    ? "g" + std::to_string(Below(8))
                            : Below(12) == 0 ? "q" + std::to_string(index)
                                             : "p" + std::to_string(index);
    const std::string uid = "uid-" + std::to_string(index);
    const std::string group = "g" + std::to_string(Below(8));
    const std::string node = "n" + std::to_string(Below(6));
    const Clock::MonotonicTime until = kT0 + std::chrono::seconds(Below(60));
    switch (Below(22)) {
      case 0:
      case 1:
      case 2:
      case 3: {  // pods come, move, finish, are deleted
        auto p = MakePod(pod).Namespace(ns).Uid(uid).Request("cpu", std::to_string(1 + Below(3)));
        if (Below(3) != 0) p.Group(group);
        if (Below(4) == 0) p.Task(Pick({"ps", "worker"}));
        if (Below(3) == 0) p.OnNode(node);
        if (Below(5) == 0)
          p.Phase(Pick({PodPhase::kRunning, PodPhase::kSucceeded, PodPhase::kFailed}));
        if (Below(8) == 0) p.SchedulerName("other");
        if (Below(6) == 0) p.Label("app", Pick({"db", "web"}));
        if (Below(10) == 0) p.HostPort(8080);
        if (Below(6) == 0) p.Priority(static_cast<std::int32_t>(Below(100)));
        Pod built = p.Build();
        if (Below(12) == 0) built.meta.deletion_timestamp = TestEpoch();
        if (Below(10) == 0) built.status.nominated_node_name = node;
        both([&](ClusterCache& c) { c.UpsertPod(built); });
        break;
      }
      case 4:
        both([&](ClusterCache& c) { c.DeletePod(MakePod(pod).Namespace(ns).Uid(uid).Build()); });
        break;
      case 5: {
        auto g =
            MakePodGroup(group).Namespace(ns).MinMember(static_cast<std::int32_t>(1 + Below(3)));
        if (Below(2) == 0) g.Queue(Pick({"default", "research", "gone"}));
        if (Below(3) == 0) g.PriorityClass(Pick({"high", "low"}));
        if (Below(4) == 0) g.DataSetName("clicks");
        if (Below(4) == 0)
          g.Dialect(Pick({PodGroupDialect::kKubernetes, PodGroupDialect::kVolcano}));
        PodGroup built = g.Build();
        both([&](ClusterCache& c) { c.UpsertPodGroup(built); });
        break;
      }
      case 6: {
        PodGroup built = MakePodGroup(group).Namespace(ns).Build();
        if (Below(3) == 0) built.dialect = PodGroupDialect::kKubernetes;
        both([&](ClusterCache& c) { c.DeletePodGroup(built); });
        break;
      }
      case 7: {
        auto n = MakeNode(node).Cpu(std::to_string(4 + Below(8)));
        if (Below(5) == 0) n.Unschedulable();
        if (Below(5) == 0) n.NotReady();
        if (Below(2) == 0) n.Label("pool", Pick({"gpu", "cpu"}));
        Node built = n.Build();
        if (Below(10) == 0) built.meta.deletion_timestamp = TestEpoch();
        both([&](ClusterCache& c) { c.UpsertNode(built); });
        break;
      }
      case 8:
        if (Below(3) == 0) both([&](ClusterCache& c) { c.DeleteNode(node); });
        break;
      case 9: {
        const std::string queue = Pick({"default", "research", "extra"});
        if (Below(3) == 0) {
          both([&](ClusterCache& c) { c.DeleteQueue(queue); });
        } else {
          both([&](ClusterCache& c) { c.UpsertQueue(MakeQueue(queue)); });
        }
        break;
      }
      case 10: {
        PodDisruptionBudget pdb;
        pdb.meta.namespace_name = ns;
        pdb.meta.name = Pick({"db", "web"});
        if (Below(6) != 0) pdb.selector.emplace().match_labels["app"] = Pick({"db", "web"});
        pdb.disruptions_allowed = static_cast<std::int32_t>(Below(3));
        if (Below(4) == 0) {
          both([&](ClusterCache& c) { c.DeletePodDisruptionBudget(pdb); });
        } else {
          both([&](ClusterCache& c) { c.UpsertPodDisruptionBudget(pdb); });
        }
        break;
      }
      case 11:
        if (Below(4) == 0) {
          PriorityClass pc =
              MakePriorityClass(Pick({"high", "low"}), static_cast<std::int32_t>(Below(1000)));
          pc.global_default = Below(3) == 0;
          if (Below(4) == 0) {
            both([&](ClusterCache& c) { c.DeletePriorityClass(pc.meta.name); });
          } else {
            both([&](ClusterCache& c) { c.UpsertPriorityClass(pc); });
          }
        }
        break;
      case 12:
        if (Below(4) == 0) {
          DataSet d;
          d.meta.namespace_name = ns;
          d.meta.name = "clicks";
          d.blocks = {DataBlock{"b" + std::to_string(Below(3)), {node}}};
          if (Below(3) == 0) {
            both([&](ClusterCache& c) { c.DeleteDataSet(d); });
          } else {
            both([&](ClusterCache& c) { c.UpsertDataSet(d); });
          }
        }
        break;
      case 13:
        both([&](ClusterCache& c) { c.Assume(uid, node); });
        break;
      case 14:
        both([&, ttl = std::chrono::seconds(Below(60))](ClusterCache& c) {
          c.BindFailed(uid, kT0, ttl);
        });
        break;
      case 15:
        both([&](ClusterCache& c) { c.Forget(uid); });
        break;
      case 16:
        if (Below(2) == 0) {
          both([&](ClusterCache& c) { c.AssumeEvicting(uid, until); });
        } else {
          both([&](ClusterCache& c) { c.ForgetEvicting(uid); });
        }
        break;
      case 17:
        if (Below(2) == 0) {
          both([&, to = Below(4) == 0 ? std::string() : node](ClusterCache& c) {
            c.AssumeNominated(uid, to, until);
          });
        } else {
          both([&](ClusterCache& c) { c.ForgetNominated(uid); });
        }
        break;
      case 18:
        both([&](ClusterCache& c) { c.AssumeEvictionRefused(uid, until); });
        break;
      case 19: {
        PodGroupStatus status;
        status.phase = Pick({PodGroupPhase::kInqueue, PodGroupPhase::kRunning});
        status.running = static_cast<std::int32_t>(Below(4));
        if (Below(3) == 0) {
          both([&](ClusterCache& c) { c.ForgetGroupStatus(ns, group); });
        } else {
          both([&](ClusterCache& c) { c.AssumeGroupStatus(ns, group, status, until); });
        }
        break;
      }
      case 20: {
        const Clock::MonotonicTime now = kT0 + std::chrono::seconds(Below(70));
        both([&](ClusterCache& c) { c.ExpireAssumed(now); });
        break;
      }
      default: {
        Namespace n;
        n.meta.name = ns;
        n.meta.labels = {{"team", Pick({"a", "b"})}};
        if (Below(4) == 0) {
          both([&](ClusterCache& c) { c.DeleteNamespace(ns); });
        } else {
          both([&](ClusterCache& c) { c.UpsertNamespace(n); });
        }
        break;
      }
    }
  }

  std::uint32_t Below(std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_);
  }

 private:
  template <typename T>
  T Pick(std::initializer_list<T> choices) {
    return *(choices.begin() + Below(static_cast<std::uint32_t>(choices.size())));
  }
  std::string Pick(std::initializer_list<const char*> choices) {
    return *(choices.begin() + Below(static_cast<std::uint32_t>(choices.size())));
  }

  std::mt19937 rng_;
};

TEST(SnapshotSharingTest, CarriedOverJobsAreWhatBuildingEveryJobGives) {
  int patched = 0;  // snapshots that were the previous one, patched where it was
  int taken = 0;
  for (std::uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CacheOptions sharing;
    CacheOptions building;
    building.share_unchanged = false;
    // A namespace filter (groups of other namespaces without pods are left out), and a node
    // selector (other nodes out of scope).
    if (seed % 4 == 0) {
      sharing.namespaces = {"ml", "web"};
      building.namespaces = sharing.namespaces;
    }
    if (seed % 3 == 0) {
      sharing.node_selector = {{"pool", "gpu"}};
      building.node_selector = sharing.node_selector;
    }
    ClusterCache a(sharing);
    ClusterCache b(building);
    EventStream events(seed);
    // A snapshot still held while later ones are taken, and the one built in full beside it.
    std::shared_ptr<const Snapshot> held;
    std::shared_ptr<const Snapshot> held_built;
    // The last snapshot's address, compared only: when nobody held it, the next is that very
    // object patched (a snapshot built anew is allocated while the previous one still exists).
    const Snapshot* last = nullptr;
    for (int burst = 0; burst < 150; ++burst) {
      const std::uint32_t count = events.Below(6);
      for (std::uint32_t i = 0; i < count; ++i) events.ApplyOne(a, b);
      const Clock::WallTime now = TestEpoch() + std::chrono::seconds(burst);
      std::shared_ptr<const Snapshot> shared = a.TakeSnapshot(now);
      std::shared_ptr<const Snapshot> built = b.TakeSnapshot(now);
      if (count > 0) {
        ++taken;
        if (shared.get() == last) ++patched;
      }
      last = shared.get();
      ExpectSameSnapshot(*shared, *built, "burst " + std::to_string(burst));
      if (held != nullptr) {
        ExpectSameSnapshot(*held, *held_built, "held since before burst " + std::to_string(burst));
      }
      if (::testing::Test::HasFailure()) return;
      // Held: the next snapshot copies what it carries over; dropped: it moves it.
      if (events.Below(2) == 0) {
        held = shared;
        held_built = built;
      } else if (events.Below(2) == 0) {
        held = nullptr;
        held_built = nullptr;
      }
    }
  }
  // The randomised stream reaches the patching (most of the rest carries over a copy, because
  // the last snapshot is held, or builds every job, after a node, budget or class change).
  EXPECT_GT(patched, taken / 10) << patched << " of " << taken;
}

// A snapshot still held keeps what the next one carried over from it.
TEST(SnapshotSharingTest, ASnapshotNobodyHoldsIsPatchedIntoTheNext) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache.UpsertPod(MakePod("a").Uid("uid-a").Group("g").Build());
  cache.UpsertPod(MakePod("b").Uid("uid-b").Group("h").Build());
  auto snapshot = cache.TakeSnapshot(TestEpoch());
  const Snapshot* was = snapshot.get();
  const std::uint64_t g = snapshot->jobs[0].revision;
  const std::uint64_t h = snapshot->jobs[1].revision;
  snapshot.reset();
  cache.Assume("uid-b", "n1");  // h changes, its pods stay where they are
  snapshot = cache.TakeSnapshot(TestEpoch() + std::chrono::seconds(1));
  EXPECT_EQ(snapshot.get(), was);
  EXPECT_EQ(snapshot->now, TestEpoch() + std::chrono::seconds(1));
  ASSERT_EQ(snapshot->jobs.size(), 2U);
  EXPECT_EQ(snapshot->jobs[0].revision, g);  // not built again
  EXPECT_NE(snapshot->jobs[1].revision, h);
  ASSERT_EQ(snapshot->tasks.size(), 2U);
  EXPECT_EQ(snapshot->tasks[1].state, TaskState::kBinding);
  EXPECT_EQ(snapshot->tasks[1].node, NodeIndex::Of(0));

  snapshot.reset();
  cache.UpsertPod(MakePod("c").Uid("uid-c").Group("g").Build());  // g gains a task: h moves
  snapshot = cache.TakeSnapshot(TestEpoch() + std::chrono::seconds(2));
  EXPECT_EQ(snapshot.get(), was);
  ASSERT_EQ(snapshot->tasks.size(), 3U);
  EXPECT_EQ(snapshot->tasks[0].name(), "a");
  EXPECT_EQ(snapshot->tasks[1].name(), "c");
  EXPECT_EQ(snapshot->tasks[2].name(), "b");
  EXPECT_EQ(snapshot->tasks[2].job, JobIndex::Of(1));
  EXPECT_EQ(snapshot->jobs[1].tasks, std::vector<TaskIndex>{TaskIndex::Of(2)});
  const std::uint64_t moved_h = snapshot->jobs[1].revision;

  snapshot.reset();
  cache.UpsertPod(MakePod("d").Uid("uid-d").Group("f").Build());  // a job before g: all move right
  cache.UpsertPod(MakePod("e").Uid("uid-e").Group("i").Build());  // and one after h
  cache.DeletePod(MakePod("c").Uid("uid-c").Group("g").Build());  // g loses a task
  snapshot = cache.TakeSnapshot(TestEpoch() + std::chrono::seconds(3));
  EXPECT_EQ(snapshot.get(), was);
  ASSERT_EQ(snapshot->jobs.size(), 4U);
  ASSERT_EQ(snapshot->tasks.size(), 4U);
  for (std::size_t t = 0; t < 4; ++t) {
    const TaskInfo& task = snapshot->tasks[t];
    EXPECT_EQ(task.name(), std::vector<std::string>({"d", "a", "b", "e"})[t]);
    EXPECT_EQ(task.job, JobIndex::Of(t));
    EXPECT_EQ(snapshot->jobs[t].tasks, std::vector<TaskIndex>{TaskIndex::Of(t)});
  }
  EXPECT_EQ(snapshot->jobs[2].name, "h");
  EXPECT_EQ(snapshot->jobs[2].revision, moved_h);  // moved, not built again
}

TEST(SnapshotSharingTest, AHeldSnapshotKeepsItsJobsWhenTheNextCarriesThemOver) {
  ClusterCache cache{CacheOptions()};
  cache.UpsertNode(MakeNode("n1").Cpu("4").Build());
  cache.UpsertPod(MakePod("a").Group("g").Build());
  cache.UpsertPod(MakePod("b").Group("h").Build());
  auto held = cache.TakeSnapshot(TestEpoch());
  cache.UpsertPod(MakePod("c").Group("h").Build());
  auto next = cache.TakeSnapshot(TestEpoch());
  ASSERT_EQ(held->jobs.size(), 2U);
  ASSERT_EQ(held->tasks.size(), 2U);
  EXPECT_EQ(held->jobs[0].name, "g");
  EXPECT_EQ(held->tasks[0].name(), "a");
  ASSERT_EQ(next->tasks.size(), 3U);
  EXPECT_EQ(next->tasks[0].name(), "a");
  EXPECT_EQ(next->jobs[1].tasks.size(), 2U);
}

// A scheduler that skips the PodGroups quiet since its last session (framework/outcome.h
// QuietGroups, which relies on the revisions of carried-over jobs) decides what one that drafts
// every group each session decides: both are given each snapshot of a sharing cache fed a random
// stream of events, the second with the revisions taken out (so it skips nothing), and what they
// decided is applied to the cache as the runtime's Applier does.
TEST(SnapshotSharingTest, SkippingQuietGroupsDecidesWhatDraftingEveryGroupDoes) {
  Registry registry;
  RegisterBuiltinPlugins(registry);
  RegisterBuiltinActions(registry);
  std::int64_t skipped = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ClusterCache cache{CacheOptions()};
    ClusterCache unused{CacheOptions()};  // EventStream feeds two caches
    auto skipping = Scheduler::Create(DefaultSchedulerConfig(), registry);
    auto drafting = Scheduler::Create(DefaultSchedulerConfig(), registry);
    ASSERT_TRUE(skipping.ok() && drafting.ok());
    EventStream events(seed);
    for (int burst = 0; burst < 150; ++burst) {
      const std::uint32_t count = events.Below(4);
      for (std::uint32_t i = 0; i < count; ++i) events.ApplyOne(cache, unused);
      const Clock::WallTime now = TestEpoch() + std::chrono::seconds(burst);
      std::shared_ptr<const Snapshot> snapshot = cache.TakeSnapshot(now);
      Snapshot unrevised = *snapshot;
      for (JobInfo& job : unrevised.jobs) job.revision = 0;
      const SessionResult ra = (*skipping)->RunSession(*snapshot, now);
      const SessionResult rb = (*drafting)->RunSession(unrevised, now);
      const std::string where = "burst " + std::to_string(burst);
      EXPECT_EQ(rb.stats.group_drafts_skipped, 0) << where;
      skipped += ra.stats.group_drafts_skipped;
      ASSERT_EQ(ra.group_updates.size(), rb.group_updates.size()) << where;
      for (std::size_t i = 0; i < rb.group_updates.size(); ++i) {
        const PodGroupUpdate& x = ra.group_updates[i];
        const PodGroupUpdate& y = rb.group_updates[i];
        EXPECT_EQ(x.namespace_name + "/" + x.name, y.namespace_name + "/" + y.name) << where;
        EXPECT_EQ(x.status, y.status) << where << " group " << y.namespace_name << "/" << y.name;
        EXPECT_EQ(x.resource_version, y.resource_version) << where;
      }
      ASSERT_EQ(ra.binds.size(), rb.binds.size()) << where;
      ASSERT_EQ(ra.evictions.size(), rb.evictions.size()) << where;
      ASSERT_EQ(ra.queue_updates.size(), rb.queue_updates.size()) << where;
      for (std::size_t i = 0; i < rb.queue_updates.size(); ++i) {
        EXPECT_EQ(ra.queue_updates[i].status, rb.queue_updates[i].status) << where;
      }
      if (::testing::Test::HasFailure()) return;
      const Clock::MonotonicTime until = kT0 + std::chrono::seconds(30);
      for (const BindDecision& d : ra.binds) cache.Assume(d.pod_uid(), d.node_name());
      for (const PodGroupUpdate& u : ra.group_updates) {
        cache.AssumeGroupStatus(u.namespace_name, u.name, u.status, until);
      }
      for (const EvictDecision& e : ra.evictions) cache.AssumeEvicting(e.pod_uid, until);
    }
  }
  EXPECT_GT(skipped, 0);  // the skipping scheduler did skip
}

// A default scheduler over a cache, each session's binds and group statuses assumed back into
// the cache as the runtime's Applier does.
class AssumingScheduler {
 public:
  AssumingScheduler() {
    RegisterBuiltinPlugins(registry_);
    RegisterBuiltinActions(registry_);
    auto created = Scheduler::Create(DefaultSchedulerConfig(), registry_);
    ARBITER_CHECK(created.ok());
    scheduler_ = std::move(*created);
  }
  ClusterCache& cache() { return cache_; }
  SessionResult Run(int second) {
    const Clock::WallTime now = TestEpoch() + std::chrono::seconds(second);
    SessionResult result = scheduler_->RunSession(*cache_.TakeSnapshot(now), now);
    const Clock::MonotonicTime until = kT0 + std::chrono::seconds(30);
    for (const BindDecision& d : result.binds) cache_.Assume(d.pod_uid(), d.node_name());
    for (const PodGroupUpdate& u : result.group_updates) {
      cache_.AssumeGroupStatus(u.namespace_name, u.name, u.status, until);
    }
    return result;
  }

 private:
  Registry registry_;
  std::unique_ptr<Scheduler> scheduler_;
  ClusterCache cache_{CacheOptions()};
};

// A group quiet for sessions (at its minimum, its other pod waiting for room) whose waiting pod
// is placed once another job's pod leaves: the job itself is carried over unchanged, but the
// session changed it, so its status is drafted again (scheduled 1 -> 2).
TEST(SnapshotSharingTest, AQuietGroupWhosePodIsPlacedLaterIsDraftedAgain) {
  AssumingScheduler scheduler;
  ClusterCache& cache = scheduler.cache();
  cache.UpsertQueue(MakeQueue("default"));
  cache.UpsertNode(MakeNode("n1").Cpu("2").Build());
  cache.UpsertPodGroup(MakePodGroup("g").MinMember(1).Build());
  const Pod other =
      MakePod("x").Uid("x").Request("cpu", "1").OnNode("n1").Phase(PodPhase::kRunning).Build();
  cache.UpsertPod(other);
  cache.UpsertPod(MakePod("a")
                      .Uid("a")
                      .Group("g")
                      .Request("cpu", "1")
                      .OnNode("n1")
                      .Phase(PodPhase::kRunning)
                      .Build());
  cache.UpsertPod(MakePod("b").Uid("b").Group("g").Request("cpu", "1").Build());
  const auto run = [&](int second) { return scheduler.Run(second); };
  run(1);  // g's first status
  std::int64_t skipped = 0;
  for (int second = 2; second < 6; ++second) {
    const SessionResult quiet = run(second);
    EXPECT_TRUE(quiet.binds.empty());
    EXPECT_TRUE(quiet.group_updates.empty());
    skipped += quiet.stats.group_drafts_skipped;
  }
  ASSERT_GT(skipped, 0);  // g was quiet, and skipped
  cache.DeletePod(other);
  const SessionResult placed = run(6);
  ASSERT_EQ(placed.binds.size(), 1U);
  EXPECT_EQ(placed.binds[0].pod_name(), "b");
  ASSERT_EQ(placed.group_updates.size(), 1U);
  EXPECT_EQ(placed.group_updates[0].name, "g");
  EXPECT_EQ(placed.group_updates[0].status.scheduled, 2);
}

// Groups still gathering their pods, whose statuses already say why they wait, are not drafted
// again while nothing of theirs changes; once the group ahead of them starts, their places in
// the queue move up, and each is drafted again with its new place.
TEST(SnapshotSharingTest, GroupsGatheringTheirPodsAreSkippedUntilTheirPlaceMoves) {
  AssumingScheduler scheduler;
  ClusterCache& cache = scheduler.cache();
  cache.UpsertQueue(MakeQueue("default"));
  cache.UpsertNode(MakeNode("n1").Cpu("8").Build());
  constexpr int kGroups = 4;
  const auto pod = [](int g, int i) {
    const std::string name = "g" + std::to_string(g) + "-" + std::to_string(i);
    return MakePod(name).Uid(name).Group("g" + std::to_string(g)).Request("cpu", "1").Build();
  };
  for (int g = 0; g < kGroups; ++g) {
    cache.UpsertPodGroup(MakePodGroup("g" + std::to_string(g)).MinMember(3).Created(g).Build());
    cache.UpsertPod(pod(g, 0));
  }
  const auto run = [&](int second) { return scheduler.Run(second); };
  // After the groups' arrival grace (outcome.h), when they are found short of pods.
  const SessionResult first = run(15);
  ASSERT_EQ(first.group_updates.size(), static_cast<std::size_t>(kGroups));
  for (const PodGroupUpdate& u : first.group_updates) {
    ASSERT_TRUE(u.status.explanation.has_value()) << u.name;
    EXPECT_EQ(u.status.explanation->gate, "NotEnoughPods") << u.name;
  }
  run(16);  // drafts the statuses just assumed, to no change
  const SessionResult quiet = run(17);
  EXPECT_TRUE(quiet.group_updates.empty());
  EXPECT_EQ(quiet.stats.group_drafts_skipped, kGroups);

  cache.UpsertPod(pod(0, 1));
  cache.UpsertPod(pod(0, 2));
  const SessionResult moved = run(18);
  EXPECT_EQ(moved.binds.size(), 3U);
  std::map<std::string, std::int32_t> positions;
  for (const PodGroupUpdate& u : moved.group_updates) {
    if (u.status.explanation.has_value()) positions[u.name] = u.status.explanation->position;
  }
  EXPECT_EQ(positions, (std::map<std::string, std::int32_t>{{"g1", 1}, {"g2", 2}, {"g3", 3}}));
}

}  // namespace
}  // namespace arbiter
