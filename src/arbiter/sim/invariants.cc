#include "arbiter/sim/invariants.h"

#include <cstdint>
#include <map>
#include <utility>

#include "arbiter/cache/snapshot.h"
#include "arbiter/model/placement_rules.h"

namespace arbiter::sim {

namespace {

bool Terminal(const Pod& pod) {
  return pod.status.phase == PodPhase::kSucceeded || pod.status.phase == PodPhase::kFailed;
}

// The job a pod belongs to: its group, or itself when it names none.
std::string JobKeyOf(const Pod& pod) {
  const std::string group = PodGroupNameOf(pod);
  return pod.meta.namespace_name + "/" + (group.empty() ? "pod:" + pod.meta.name : group);
}

// On a node and not finished: holds room there.
bool HoldsNode(const Pod& pod) { return !pod.spec.node_name.empty() && !Terminal(pod); }

class Checker {
 public:
  Checker(const SimulatedCluster& cluster, const SessionRecord& record,
          const std::set<std::string>& disturbed)
      : cluster_(cluster), record_(record), disturbed_(disturbed) {
    for (const BindDecision& b : record_.result.binds) bound_now_[b.pod_uid] = b.node_name;
  }

  std::vector<Violation> Run() {
    for (const std::string& refused : record_.refused_binds) Fail(Invariant::kBind, refused);
    for (const BindDecision& b : record_.result.binds) CheckPlacement(b);
    CheckCapacity();
    CheckGangs();
    CheckVerdicts();
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
    const Pod* pod = FindPod(b.pod_uid);
    auto node_it = cluster_.nodes().find(b.node_name);
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
        if (e.amount > 0) checked[node].insert(e.name);
      }
    }
    for (const auto& [node_name, resources] : checked) {
      auto node_it = cluster_.nodes().find(node_name);
      if (node_it == cluster_.nodes().end()) continue;
      ResourceList used;
      for (const auto& [uid, pod] : cluster_.pods()) {
        if (!HoldsNode(pod) || pod.spec.node_name != node_name) continue;
        StatusOr<ResourceList> request = pod.EffectiveRequest();
        if (!request.ok() || !used.Add(*request).ok()) {
          Fail(Invariant::kCapacity, "node " + node_name + ": the requests of its pods overflow");
          break;
        }
      }
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
        c.holding += HoldsNode(pod) ? 1 : 0;
        auto task = pod.meta.labels.find(std::string(kTaskLabel));
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
      if (verdicts.contains(uid) || GroupSaysWhy(pod)) continue;
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

  const SimulatedCluster& cluster_;
  const SessionRecord& record_;
  const std::set<std::string>& disturbed_;
  std::map<std::string, std::string> bound_now_;  // pod uid -> node, by this session
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
