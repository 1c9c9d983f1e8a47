#include "arbiter/sim/invariants.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "arbiter/cache/snapshot.h"
#include "arbiter/framework/outcome.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter::sim {

namespace {

// The job a pod belongs to: its group, or itself when it names none.
std::string JobKeyOf(const Pod& pod) {
  const std::string group = PodGroupNameOf(pod);
  return pod.meta.namespace_name + "/" + (group.empty() ? "pod:" + pod.meta.name : group);
}

// On a node and not finished: holds room there.
bool HoldsNode(const Pod& pod) { return !pod.spec.node_name.empty() && !pod.Finished(); }

class Checker {
 public:
  Checker(const SimulatedCluster& cluster, const SessionRecord& record,
          const std::set<std::string>& disturbed)
      : cluster_(cluster), record_(record), disturbed_(disturbed) {
    for (const BindDecision& b : record_.result.binds) bound_now_[b.pod_uid()] = b.node_name();
  }

  std::vector<Violation> Run() {
    for (const std::string& refused : record_.refused_binds) Fail(Invariant::kBind, refused);
    for (const BindDecision& b : record_.result.binds) CheckPlacement(b);
    CheckCapacity();
    CheckGangs();
    CheckVerdicts();
    CheckEvictions();
    CheckNominatedRoom();
    return std::move(violations_);
  }

 private:
  void Fail(Invariant invariant, std::string what) {
    violations_.push_back({invariant, std::move(what)});
  }

  const Pod* FindPod(const std::string& uid) const {
    auto it = cluster_.pods().find(uid);
    return it == cluster_.pods().end() ? nullptr : &it->second;
  }

  void CheckPlacement(const BindDecision& b) {
    const Pod* pod = FindPod(b.pod_uid());
    auto node_it = cluster_.nodes().find(b.node_name());
    if (pod == nullptr || node_it == cluster_.nodes().end()) return;  // refused, reported
    const Node& node = node_it->second;
    const std::string who = "pod " + pod->meta.Key() + " bound to " + node.meta.name;
    if (pod->spec.scheduler_name != cluster_.scheduler_name()) {
      Fail(Invariant::kBind, who + ", though it is for scheduler " + pod->spec.scheduler_name);
    }
    if (!node.Ready()) Fail(Invariant::kPlacement, who + ", which is not Ready");
    if (node.unschedulable) Fail(Invariant::kPlacement, who + ", which is unschedulable");
    if (!MatchesNodeSelector(pod->spec.node_selector, node.meta.labels)) {
      Fail(Invariant::kPlacement, who + ", whose labels do not match its nodeSelector");
    }
    if (pod->spec.required_node_affinity.has_value() &&
        !MatchesNodeAffinity(*pod->spec.required_node_affinity, node)) {
      Fail(Invariant::kPlacement, who + ", which its required node affinity excludes");
    }
    if (const Taint* t = FirstUntoleratedTaint(pod->spec.tolerations, node.taints)) {
      Fail(Invariant::kPlacement, who + ", whose taint " + t->key + "=" + t->value + ":" +
                                      t->effect + " it does not tolerate");
    }
    const std::vector<HostPort> wanted = HostPortsOf(*pod);
    if (wanted.empty()) return;
    std::vector<HostPort> others;
    for (const auto& [uid, other] : cluster_.pods()) {
      if (uid == pod->meta.uid || !HoldsNode(other) || other.spec.node_name != node.meta.name) {
        continue;
      }
      for (const HostPort& p : HostPortsOf(other)) others.push_back(p);
    }
    if (HostPortsConflict(wanted, others))
      Fail(Invariant::kPlacement, who + ", where one of its host ports is taken");
  }

  void CheckCapacity() {
    // Per node that got binds: the resources those pods ask for (pods always).
    std::map<std::string, std::set<std::string>> checked;
    for (const auto& [uid, node] : bound_now_) {
      const Pod* pod = FindPod(uid);
      if (pod == nullptr) continue;
      StatusOr<ResourceList> request = pod->EffectiveRequest();
      if (!request.ok()) continue;
      for (const ResourceEntry& e : request->entries()) {
        if (e.amount > 0) checked[node].insert(e.name.str());
      }
    }
    // One pass over the pods for every node that got binds.
    std::map<std::string, ResourceList> used_on;
    std::set<std::string> overflowed;
    for (const auto& [uid, pod] : cluster_.pods()) {
      if (!HoldsNode(pod) || !checked.contains(pod.spec.node_name)) continue;
      StatusOr<ResourceList> request = pod.EffectiveRequest();
      if (!request.ok() || !used_on[pod.spec.node_name].Add(*request).ok()) {
        overflowed.insert(pod.spec.node_name);
      }
    }
    for (const auto& [node_name, resources] : checked) {
      auto node_it = cluster_.nodes().find(node_name);
      if (node_it == cluster_.nodes().end()) continue;
      if (overflowed.contains(node_name)) {
        Fail(Invariant::kCapacity, "node " + node_name + ": the requests of its pods overflow");
        continue;
      }
      const ResourceList& used = used_on[node_name];
      for (const std::string& r : resources) {
        const std::int64_t allocatable = node_it->second.allocatable.Get(r);
        if (used.Get(r) > allocatable) {
          std::string what = "node " + node_name + " is over its allocatable ";
          what.append(r).append(": ").append(std::to_string(used.Get(r)));
          what.append(" requested of ").append(std::to_string(allocatable));
          Fail(Invariant::kCapacity, what.append(" (canonical units)"));
        }
      }
    }
  }

  void CheckGangs() {
    struct Count {
      std::int32_t all = 0;
      std::map<std::string, std::int32_t> by_task;
      std::int32_t holding = 0;  // of `all`, the pods that hold a node
      bool bound_now = false;
    };
    std::map<std::string, Count> counts;
    for (const auto& [uid, pod] : cluster_.pods()) {
      const std::string group = PodGroupNameOf(pod);
      if (group.empty() || pod.spec.scheduler_name != cluster_.scheduler_name()) continue;
      Count& c = counts[pod.meta.namespace_name + "/" + group];
      c.bound_now = c.bound_now || bound_now_.contains(uid);
      if (HoldsNode(pod) || pod.status.phase == PodPhase::kSucceeded) {
        ++c.all;
        // A pod being deleted is leaving, not placed: a gang evicted whole keeps its node until
        // it has gone, after its finished pods may have gone first.
        c.holding += HoldsNode(pod) && !pod.meta.deletion_timestamp.has_value() ? 1 : 0;
        auto task = pod.meta.labels.find(kTaskLabel);
        ++c.by_task[task == pod.meta.labels.end() ? "" : task->second];
      }
    }
    for (const auto& [key, group] : cluster_.groups()) {
      const Count& c = counts[key];
      const std::int32_t min = group.spec.min_member;
      const std::string gang = "gang " + key;
      std::string counted = std::to_string(c.all) + " of minMember " + std::to_string(min);
      counted += " counted";
      if (c.bound_now) {
        if (c.all < min) Fail(Invariant::kGang, gang + " started partially: " += counted);
        for (const auto& [task, task_min] : group.spec.min_task_member) {
          auto it = c.by_task.find(task);
          const std::int32_t n = it == c.by_task.end() ? 0 : it->second;
          if (n < task_min) {
            std::string what = gang + " started with " + std::to_string(n);
            what.append(" of minTaskMember ").append(std::to_string(task_min));
            Fail(Invariant::kGang, what.append(" pods of task ").append(task));
          }
        }
      } else if (c.holding > 0 && c.all < min && !disturbed_.contains(key)) {
        // A gang below its minimum that holds no node (only finished pods left, the rest
        // evicted whole) wastes nothing and waits for its pods: not partially placed.
        Fail(Invariant::kGang, gang + " is partially placed: " += counted);
      }
    }
  }

  // Whether the pod's PodGroup carries the reason instead: Unschedulable=True after the session
  // (a condition the session did not reaffirm is cleared, so it is this session's reason).
  bool GroupSaysWhy(const Pod& pod) const {
    const std::string group = PodGroupNameOf(pod);
    if (group.empty()) return false;
    auto it = cluster_.groups().find(pod.meta.namespace_name + "/" + group);
    if (it == cluster_.groups().end()) return false;
    const Condition* c = FindCondition(it->second.status.conditions, "Unschedulable");
    return c != nullptr && c->IsTrue();
  }

  void CheckVerdicts() {
    std::map<std::string, std::int32_t> verdicts;
    std::set<std::string> reported_jobs;
    for (const PodVerdict& v : record_.result.unschedulable) {
      if (const Pod* pod = FindPod(v.pod_uid)) reported_jobs.insert(JobKeyOf(*pod));
      if (++verdicts[v.pod_uid] == 2)
        Fail(Invariant::kVerdict, "pod " + v.pod_uid + " has two verdicts");
      if (bound_now_.contains(v.pod_uid)) {
        Fail(Invariant::kVerdict,
             "pod " + v.pod_uid + " was bound and also given a verdict: " + v.message);
      }
    }
    for (const auto& [uid, pod] : cluster_.pods()) {
      if (pod.spec.scheduler_name != cluster_.scheduler_name() || !pod.spec.node_name.empty() ||
          pod.status.phase != PodPhase::kPending || pod.meta.deletion_timestamp.has_value() ||
          cluster_.Assumed(uid)) {
        continue;
      }
      if (verdicts.contains(uid) || GroupSaysWhy(pod) || GroupGathering(pod)) continue;
      if (reported_jobs.contains(JobKeyOf(pod))) {
        Fail(Invariant::kOwnVerdict, "pod " + pod.meta.Key() +
                                         " is pending with no FailedScheduling verdict, though "
                                         "other pods of its group have one");
      } else {
        Fail(Invariant::kVerdict,
             "pod " + pod.meta.Key() + " is pending with no FailedScheduling verdict");
      }
    }
  }

  // Whether the pod's PodGroup is short of pods within its arrival grace, when it is not yet
  // told why (framework/outcome.h, kPodsArrivalGrace: from the group's creation and its newest
  // pod's): fewer of its pods exist, not finished badly nor being deleted, than its minMember or
  // one of its minTaskMember.
  bool GroupGathering(const Pod& pod) {
    const std::string group = PodGroupNameOf(pod);
    if (group.empty()) return false;
    const std::string key = pod.meta.namespace_name + "/" + group;
    auto it = cluster_.groups().find(key);
    if (it == cluster_.groups().end()) return false;
    const PodGroup& g = it->second;
    const Arrivals* arrivals = nullptr;
    if (auto a = ArrivalsByGroup().find(key); a != ArrivalsByGroup().end()) arrivals = &a->second;
    Clock::WallTime newest = g.meta.creation_timestamp;
    if (arrivals != nullptr) newest = std::max(newest, arrivals->newest);
    if (cluster_.now() - newest >= kPodsArrivalGrace) return false;
    if ((arrivals == nullptr ? 0 : arrivals->all) < g.spec.min_member) return true;
    for (const auto& [task, task_min] : g.spec.min_task_member) {
      std::int32_t n = 0;
      if (arrivals != nullptr) {
        auto t = arrivals->by_task.find(task);
        if (t != arrivals->by_task.end()) n = t->second;
      }
      if (n < task_min) return true;
    }
    return false;
  }

  // The pods of each group ("namespace/name"), counted once per check (a pass over every pod for
  // each pending pod would cost pending x pods while big groups gather): the newest creation,
  // and those not finished badly nor being deleted, in all and per task.
  struct Arrivals {
    Clock::WallTime newest{};
    std::int32_t all = 0;
    std::map<std::string, std::int32_t> by_task;
  };
  const std::map<std::string, Arrivals>& ArrivalsByGroup() {
    if (arrivals_) return *arrivals_;
    arrivals_.emplace();
    for (const auto& [uid, pod] : cluster_.pods()) {
      const std::string group = PodGroupNameOf(pod);
      if (group.empty()) continue;
      Arrivals& a = (*arrivals_)[pod.meta.namespace_name + "/" + group];
      a.newest = std::max(a.newest, pod.meta.creation_timestamp);
      if (pod.meta.deletion_timestamp.has_value() || pod.status.phase == PodPhase::kFailed) {
        continue;
      }
      ++a.all;
      auto task = pod.meta.labels.find(kTaskLabel);
      ++a.by_task[task == pod.meta.labels.end() ? "" : task->second];
    }
    return *arrivals_;
  }

  // A pod as the gang plugin counts it, now that the session is applied: on a node (bound, or
  // bound by this session) and not finished nor being deleted, or finished well.
  bool Counts(const std::string& uid, const Pod& pod) const {
    if (pod.status.phase == PodPhase::kSucceeded) return true;
    if (pod.Finished() || pod.meta.deletion_timestamp.has_value()) return false;
    return !pod.spec.node_name.empty() || bound_now_.contains(uid);
  }

  const PodGroup* GroupOf(const Pod& pod) const {
    const std::string group = PodGroupNameOf(pod);
    if (group.empty()) return nullptr;
    auto it = cluster_.groups().find(pod.meta.namespace_name + "/" + group);
    return it == cluster_.groups().end() ? nullptr : &it->second;
  }

  bool NeverVictim(const Pod& pod) const {
    if (pod.meta.namespace_name == "kube-system") return true;
    if (pod.spec.priority_class_name == "system-node-critical" ||
        pod.spec.priority_class_name == "system-cluster-critical") {
      return true;
    }
    const auto says_no = [](const Labels& labels) {
      auto it = labels.find("arbiter.dev/preemptable");
      return it != labels.end() && it->second == "false";
    };
    const PodGroup* group = GroupOf(pod);
    return says_no(pod.meta.labels) || (group != nullptr && says_no(group->meta.labels));
  }

  void CheckEvictions() {
    std::set<std::string> victim_groups;
    std::set<std::string> preemptors;
    std::set<std::string> reclaimed;
    for (const EvictDecision& e : record_.evicted) {
      const Pod* pod = FindPod(e.pod_uid);
      if (pod == nullptr) continue;
      if (NeverVictim(*pod)) {
        Fail(Invariant::kNeverVictim, "pod " + pod->meta.Key() + " was evicted for " + e.preemptor +
                                          ", though it may never be a victim");
      }
      if (GroupOf(*pod) != nullptr) {
        victim_groups.insert(pod->meta.namespace_name + "/" + PodGroupNameOf(*pod));
      }
      if (!e.preemptor.empty()) preemptors.insert(e.preemptor);  // a quota eviction has none
      if (e.kind == EvictionKind::kReclaim) reclaimed.insert(e.queue);
      // A reservation takes back its nodes from other queues only down to their share.
      if (e.kind == EvictionKind::kReservation) {
        auto preemptor = cluster_.groups().find(e.preemptor);
        if (preemptor != cluster_.groups().end() && preemptor->second.spec.queue != e.queue) {
          reclaimed.insert(e.queue);
        }
      }
    }
    for (const std::string& key : victim_groups) CheckVictimGang(key);
    for (const std::string& key : preemptors) CheckPreemptorPlaced(key);
    for (const std::string& queue : reclaimed) CheckReclaimedQueue(queue);
  }

  void CheckVictimGang(const std::string& key) {
    const PodGroup& group = cluster_.groups().at(key);
    std::int32_t n = 0;
    std::int32_t running = 0;  // of n, those holding a node
    std::map<std::string, std::int32_t> by_task;
    for (const auto& [uid, pod] : cluster_.pods()) {
      if (pod.meta.namespace_name != group.meta.namespace_name ||
          PodGroupNameOf(pod) != group.meta.name || !Counts(uid, pod)) {
        continue;
      }
      ++n;
      running += pod.status.phase == PodPhase::kSucceeded ? 0 : 1;
      auto task = pod.meta.labels.find(kTaskLabel);
      ++by_task[task == pod.meta.labels.end() ? "" : task->second];
    }
    // Evicted whole: what is left of it (finished pods at most) holds nothing.
    if (running == 0) return;
    const std::string counted = std::to_string(n) + " of minMember " +
                                std::to_string(group.spec.min_member) + " pods left counted";
    if (n < group.spec.min_member) {
      Fail(Invariant::kEviction, "gang " + key + " was broken by an eviction: " + counted);
    }
    for (const auto& [task, task_min] : group.spec.min_task_member) {
      if (by_task[task] < task_min) {
        std::string what = "gang " + key + " was left with " + std::to_string(by_task[task]);
        what.append(" of minTaskMember ").append(std::to_string(task_min));
        what.append(" pods of task ").append(task).append(" by an eviction");
        Fail(Invariant::kEviction, std::move(what));
      }
    }
  }

  // `key` is the job's namespace/name: a PodGroup's, or a pod's that names no group.
  void CheckPreemptorPlaced(const std::string& key) {
    auto group_it = cluster_.groups().find(key);
    const std::int32_t min =
        group_it != cluster_.groups().end() ? group_it->second.spec.min_member : 1;
    std::int32_t placed = 0;
    for (const auto& [uid, pod] : cluster_.pods()) {
      const std::string group = PodGroupNameOf(pod);
      const std::string job =
          pod.meta.namespace_name + "/" + (group.empty() ? pod.meta.name : group);
      if (job != key || pod.spec.scheduler_name != cluster_.scheduler_name()) continue;
      const bool nominated = pod.spec.node_name.empty() && !pod.Finished() &&
                             !pod.meta.deletion_timestamp.has_value() &&
                             !pod.status.nominated_node_name.empty();
      placed += (Counts(uid, pod) || nominated) ? 1 : 0;
    }
    if (placed < min) {
      Fail(Invariant::kPreemptor, "pods were evicted for " + key + ", which then has " +
                                      std::to_string(placed) + " of its minimum " +
                                      std::to_string(min) + " placed or nominated");
    }
  }

  void CheckReclaimedQueue(const std::string& name) {
    auto queue_it = cluster_.queues().find(name);
    if (queue_it == cluster_.queues().end()) return;
    const Queue& queue = queue_it->second;
    // What the queue holds, and its pods this session nominated to room being freed for them
    // (their victims already evicted): reclaim counts those as the queue's, as it counts what it
    // places in the session. Nominations of earlier sessions it does not count, nor does this.
    std::set<std::string> nominated_now;
    for (const NominationDecision& n : record_.result.nominations) {
      if (!n.node_name.empty()) nominated_now.insert(n.pod_uid);
    }
    ResourceList allocated;
    for (const auto& [uid, pod] : cluster_.pods()) {
      const bool nominated = nominated_now.contains(uid);
      if (pod.spec.scheduler_name != cluster_.scheduler_name() || pod.Finished() ||
          pod.meta.deletion_timestamp.has_value() ||
          (pod.spec.node_name.empty() && !bound_now_.contains(uid) && !nominated)) {
        continue;
      }
      const PodGroup* group = GroupOf(pod);
      const std::string& pod_queue =
          group != nullptr ? group->spec.queue : std::string(kDefaultQueueName);
      if (pod_queue != name) continue;
      StatusOr<ResourceList> request = pod.EffectiveRequest();
      if (request.ok()) static_cast<void>(allocated.Add(*request));
    }
    for (const ResourceEntry& g : queue.spec.guarantee.entries()) {
      if (allocated.Get(g.name) < g.amount) {
        Fail(Invariant::kReclaim, "queue " + name + " was reclaimed below its guarantee of " +
                                      g.name + ": " + std::to_string(allocated.Get(g.name)) +
                                      " of " + std::to_string(g.amount) + " (canonical units)");
      }
    }
    bool at_share = false;
    bool deserves = false;
    for (const ResourceEntry& d : queue.status.deserved.entries()) {
      if (d.amount <= 0) continue;
      deserves = true;
      at_share = at_share || allocated.Get(d.name) >= d.amount;
    }
    if (deserves && !at_share) {
      Fail(Invariant::kReclaim, "queue " + name + " was reclaimed below its deserved share: it " +
                                    "holds " + allocated.ToString() + " of " +
                                    queue.status.deserved.ToString());
    }
  }

  void CheckNominatedRoom() {
    // The nodes that matter: those where a pending pod is nominated and a pod bound this session
    // is not that nomination.
    std::set<std::string> nominated_to;
    for (const auto& [uid, pod] : cluster_.pods()) {
      if (!pod.status.nominated_node_name.empty() && pod.spec.node_name.empty()) {
        nominated_to.insert(pod.status.nominated_node_name);
      }
    }
    if (nominated_to.empty()) return;
    std::vector<const BindDecision*> binds;
    std::map<std::string, ResourceList> committed;  // by node
    for (const BindDecision& b : record_.result.binds) {
      const Pod* pod = FindPod(b.pod_uid());
      if (pod == nullptr || !nominated_to.contains(b.node_name()) ||
          pod->status.nominated_node_name == b.node_name()) {
        continue;
      }
      binds.push_back(&b);
      committed.try_emplace(b.node_name());
    }
    if (binds.empty()) return;
    for (const auto& [uid, pod] : cluster_.pods()) {
      if (pod.Finished() || pod.meta.deletion_timestamp.has_value()) continue;
      auto now = bound_now_.find(uid);
      const std::string& on =
          !pod.spec.node_name.empty()
              ? pod.spec.node_name
              : (now != bound_now_.end() ? now->second : pod.status.nominated_node_name);
      auto it = committed.find(on);
      if (it == committed.end()) continue;
      StatusOr<ResourceList> request = pod.EffectiveRequest();
      if (request.ok()) static_cast<void>(it->second.Add(*request));
    }
    for (const BindDecision* bp : binds) {
      const BindDecision& b = *bp;
      const Pod* pod = FindPod(b.pod_uid());
      auto node_it = cluster_.nodes().find(b.node_name());
      if (node_it == cluster_.nodes().end()) continue;
      StatusOr<ResourceList> request = pod->EffectiveRequest();
      if (!request.ok()) continue;
      const ResourceList& used = committed[b.node_name()];
      for (const ResourceEntry& e : request->entries()) {
        if (e.amount <= 0 || used.Get(e.name) <= node_it->second.allocatable.Get(e.name)) continue;
        Fail(Invariant::kNominatedRoom,
             "pod " + pod->meta.Key() + " was bound to " + b.node_name() +
                 ", taking room held for the pods nominated there (" + e.name + ": " +
                 std::to_string(used.Get(e.name)) + " committed of " +
                 std::to_string(node_it->second.allocatable.Get(e.name)) + ")");
        break;
      }
    }
  }

  const SimulatedCluster& cluster_;
  const SessionRecord& record_;
  const std::set<std::string>& disturbed_;
  std::map<std::string, std::string> bound_now_;             // pod uid -> node, by this session
  std::optional<std::map<std::string, Arrivals>> arrivals_;  // by ArrivalsByGroup, on first need
  std::vector<Violation> violations_;
};

}  // namespace

std::string_view InvariantName(Invariant invariant) {
  switch (invariant) {
    case Invariant::kBind:
      return "bind";
    case Invariant::kPlacement:
      return "placement";
    case Invariant::kCapacity:
      return "capacity";
    case Invariant::kGang:
      return "gang";
    case Invariant::kVerdict:
      return "verdict";
    case Invariant::kOwnVerdict:
      return "own-verdict";
    case Invariant::kEviction:
      return "eviction";
    case Invariant::kNeverVictim:
      return "never-victim";
    case Invariant::kPreemptor:
      return "preemptor";
    case Invariant::kReclaim:
      return "reclaim";
    case Invariant::kNominatedRoom:
      return "nominated-room";
  }
  return "?";
}

std::string ToString(const Violation& violation) {
  return std::string(InvariantName(violation.invariant)) + ": " + violation.message;
}

std::vector<Violation> CheckSessionInvariants(const SimulatedCluster& cluster,
                                              const SessionRecord& record,
                                              const std::set<std::string>& disturbed) {
  return Checker(cluster, record, disturbed).Run();
}

}  // namespace arbiter::sim
