// Session's plugin dispatch (session.h): each question asked of the plugins in tier order, as
// plugin.h says tiers combine. Apart from the working state (session.cc) so that each file has
// one job.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "arbiter/base/check.h"
#include "arbiter/framework/session.h"

namespace arbiter {

namespace {

template <typename T, typename Fn>
int FirstDecidingTier(const PluginSet::Tiers<T>& tiers, Fn&& compare) {
  for (const auto& tier : tiers) {
    for (const T* plugin : tier) {
      if (int c = compare(*plugin); c != 0) return c;
    }
  }
  return 0;
}

// The first answer a plugin gives, tier by tier: the first reason to refuse, say.
template <typename T, typename Fn>
auto FirstAnswer(const PluginSet::Tiers<T>& tiers, Fn&& ask)
    -> decltype(ask(std::declval<const T&>())) {
  for (const auto& tier : tiers) {
    for (const T* plugin : tier) {
      if (auto answer = ask(*plugin)) return answer;
    }
  }
  return std::nullopt;
}

}  // namespace

void Session::CheckOpen() const {
  ARBITER_CHECK(!opening_) << "a plugin's OnSessionOpen asked for other plugins' verdicts";
}

bool Session::QueueBefore(QueueIndex a, QueueIndex b) const {
  CheckOpen();
  if (a == b) return false;
  const int c = FirstDecidingTier(plugins_.queue_order, [&](const QueueOrderExtension& p) {
    return p.CompareQueues(*this, a, b);
  });
  if (c != 0) return c < 0;
  // Queues are sorted by name in the snapshot; kNoQueue (a missing queue) goes last.
  if (a == kNoQueue || b == kNoQueue) return b == kNoQueue;
  return a < b;
}

bool Session::JobBefore(JobIndex a, JobIndex b) const {
  CheckOpen();
  if (a == b) return false;
  const int c = FirstDecidingTier(
      plugins_.job_order, [&](const JobOrderExtension& p) { return p.CompareJobs(*this, a, b); });
  if (c != 0) return c < 0;
  const JobInfo& ja = job(a);
  const JobInfo& jb = job(b);
  if (ja.creation != jb.creation) return ja.creation < jb.creation;
  if (ja.uid != jb.uid) return ja.uid < jb.uid;
  return a < b;
}

bool Session::TaskBefore(TaskIndex a, TaskIndex b) const {
  CheckOpen();
  if (a == b) return false;
  const int c = FirstDecidingTier(plugins_.task_order, [&](const TaskOrderExtension& p) {
    return p.CompareTasks(*this, a, b);
  });
  if (c != 0) return c < 0;
  const Pod& pa = *task(a).pod;
  const Pod& pb = *task(b).pod;
  if (pa.meta.creation_timestamp != pb.meta.creation_timestamp) {
    return pa.meta.creation_timestamp < pb.meta.creation_timestamp;
  }
  if (pa.meta.name != pb.meta.name) return pa.meta.name < pb.meta.name;
  return pa.meta.uid < pb.meta.uid;
}

std::optional<JobVerdict> Session::CheckJob(JobIndex j) const {
  CheckOpen();
  return FirstAnswer(plugins_.job_valid,
                     [&](const JobValidExtension& p) { return p.JobInvalid(*this, j); });
}

std::optional<std::string> Session::JobInvalid(JobIndex j) const {
  std::optional<JobVerdict> verdict = CheckJob(j);
  if (!verdict.has_value()) return std::nullopt;
  return std::move(verdict->message);
}

bool Session::JobReady(JobIndex j) const {
  CheckOpen();
  for (const auto& tier : plugins_.job_ready) {
    for (const JobReadyExtension* p : tier) {
      if (!p->JobReady(*this, j)) return false;
    }
  }
  return true;
}

std::int32_t Session::TasksStillNeeded(JobIndex j, const std::string& task_name) const {
  CheckOpen();
  std::int32_t needed = 0;
  for (const auto& tier : plugins_.job_ready) {
    for (const JobReadyExtension* p : tier) {
      needed = std::max(needed, p->TasksStillNeeded(*this, j, task_name));
    }
  }
  return needed;
}

std::optional<JobVerdict> Session::JobNotEnqueueable(JobIndex j) const {
  CheckOpen();
  return FirstAnswer(plugins_.job_enqueue,
                     [&](const JobEnqueueExtension& p) { return p.JobNotEnqueueable(*this, j); });
}

std::optional<std::string> Session::QueueOverused(QueueIndex q) const {
  CheckOpen();
  return FirstAnswer(plugins_.queue_limit,
                     [&](const QueueLimitExtension& p) { return p.QueueOverused(*this, q); });
}

std::optional<std::string> Session::ExceedsCapability(QueueIndex q, TaskIndex t) const {
  CheckOpen();
  return FirstAnswer(plugins_.queue_limit, [&](const QueueLimitExtension& p) {
    return p.ExceedsCapability(*this, q, t);
  });
}

std::optional<ResourceVector> Session::QueueDeserved(QueueIndex q) const {
  CheckOpen();
  return FirstAnswer(plugins_.queue_share, [&](const QueueShareExtension& p) {
    return std::optional<ResourceVector>(p.Deserved(*this, q));
  });
}

std::optional<LocalityLevel> Session::LocalityOf(TaskIndex t, NodeIndex n) const {
  CheckOpen();
  return FirstAnswer(plugins_.locality,
                     [&](const LocalityExtension& p) { return p.Locality(*this, t, n); });
}

std::string_view LocalityLevelName(LocalityLevel level) {
  switch (level) {
    case LocalityLevel::kNode:
      return "node";
    case LocalityLevel::kRack:
      return "rack";
    case LocalityLevel::kAny:
      return "any";
  }
  return "any";
}

std::optional<TopologyPlan> Session::TopologyPlanOf(JobIndex j) const {
  CheckOpen();
  return FirstAnswer(plugins_.topology,
                     [&](const TopologyExtension& p) { return p.PlanTopology(*this, j); });
}

}  // namespace arbiter
