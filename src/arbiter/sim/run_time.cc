#include "arbiter/sim/run_time.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <vector>

#include "arbiter/base/duration.h"

namespace arbiter::sim {

std::string_view RunTimeSourceName(RunTimeSource source) {
  switch (source) {
    case RunTimeSource::kExact:
      return "exact";
    case RunTimeSource::kHint:
      return "run-for";
    case RunTimeSource::kDeadline:
      return "activeDeadlineSeconds";
    case RunTimeSource::kLearned:
      return "learned";
    case RunTimeSource::kUnknown:
      return "unknown";
  }
  return "unknown";
}

namespace {

bool Done(TaskState state) { return state == TaskState::kSucceeded; }

std::int32_t RunningOrDone(const Snapshot& snapshot, const JobInfo& job) {
  std::int32_t n = 0;
  for (TaskIndex t : job.tasks) {
    const TaskState state = snapshot.tasks[t.pos()].state;
    n += (state == TaskState::kRunning || Done(state)) ? 1 : 0;
  }
  return n;
}

std::optional<std::chrono::milliseconds> Hint(const Labels& annotations) {
  auto it = annotations.find(kRunForAnnotation);
  if (it == annotations.end()) return std::nullopt;
  StatusOr<std::chrono::nanoseconds> d = ParseDuration(it->second);
  // A hint that does not parse is no hint: the webhook and the controller name the field; the
  // estimate falls back to the next source rather than failing.
  if (!d.ok() || d->count() <= 0) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

}  // namespace

void RunTimeHistory::Observe(const Snapshot& snapshot) {
  std::set<std::string, std::less<>> seen;
  for (const JobInfo& job : snapshot.jobs) {
    if (job.tasks.empty()) continue;
    std::string key = job.Key();
    const bool all_done = std::all_of(job.tasks.begin(), job.tasks.end(), [&](TaskIndex t) {
      return Done(snapshot.tasks[t.pos()].state);
    });
    auto it = running_since_.find(key);
    if (all_done) {
      if (it != running_since_.end()) {
        const auto took =
            std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.now - it->second);
        if (took.count() > 0) Record(job.queue, took);
        running_since_.erase(it);
      }
      continue;
    }
    // A job below its minimum (preempted, failed) is left out of `seen`, so it is forgotten.
    if (RunningOrDone(snapshot, job) < job.min_member) continue;
    if (it == running_since_.end()) {
      running_since_.emplace(key, JobStart(snapshot, job, snapshot.now));
    }
    seen.insert(std::move(key));
  }
  // A job gone before it was seen done, or that fell below its minimum: not a sample.
  std::erase_if(running_since_, [&](const auto& entry) { return !seen.contains(entry.first); });
}

void RunTimeHistory::Record(const std::string& queue, std::chrono::milliseconds run_time) {
  std::deque<std::chrono::milliseconds>& samples = samples_[queue];
  samples.push_back(run_time);
  if (samples.size() > kHistory) samples.pop_front();
}

std::size_t RunTimeHistory::Samples(std::string_view queue) const {
  auto it = samples_.find(queue);
  return it == samples_.end() ? 0 : it->second.size();
}

std::optional<std::chrono::milliseconds> RunTimeHistory::Learned(std::string_view queue) const {
  auto it = samples_.find(queue);
  if (it == samples_.end() || it->second.size() < kMinSamples) return std::nullopt;
  std::vector<std::chrono::milliseconds> sorted(it->second.begin(), it->second.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

RunTime RunTimeOfObjects(const PodGroup* group, const std::vector<const Pod*>& pods) {
  std::optional<std::int64_t> deadline;
  if (group != nullptr) {
    if (auto d = Hint(group->meta.annotations)) return {d, RunTimeSource::kHint};
    auto it = group->meta.annotations.find(kActiveDeadlineAnnotation);
    if (it != group->meta.annotations.end()) {
      std::int64_t seconds = 0;
      const std::string& text = it->second;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
      if (error == std::errc() && end == text.data() + text.size() && seconds > 0) {
        deadline = seconds;
      }
    }
  }
  std::optional<std::chrono::milliseconds> pods_hint;
  for (const Pod* pod : pods) {
    if (auto d = Hint(pod->meta.annotations)) pods_hint = std::max(pods_hint.value_or(*d), *d);
    if (pod->spec.active_deadline_seconds && *pod->spec.active_deadline_seconds > 0) {
      deadline = std::max(deadline.value_or(0), *pod->spec.active_deadline_seconds);
    }
  }
  if (pods_hint) return {pods_hint, RunTimeSource::kHint};
  if (deadline) return {std::chrono::seconds(*deadline), RunTimeSource::kDeadline};
  return {std::nullopt, RunTimeSource::kUnknown};
}

RunTime RunTimeOf(const Snapshot& snapshot, const JobInfo& job, const RunTimeHistory* history) {
  std::vector<const Pod*> pods;
  pods.reserve(job.tasks.size());
  for (TaskIndex t : job.tasks) pods.push_back(snapshot.tasks[t.pos()].pod.get());
  RunTime run_time = RunTimeOfObjects(job.group.get(), pods);
  if (run_time.source != RunTimeSource::kUnknown || history == nullptr) return run_time;
  if (auto d = history->Learned(job.queue)) return {d, RunTimeSource::kLearned};
  return run_time;
}

Clock::WallTime JobStart(const Snapshot& snapshot, const JobInfo& job, Clock::WallTime fallback) {
  std::optional<Clock::WallTime> start;
  for (TaskIndex t : job.tasks) {
    const TaskInfo& task = snapshot.tasks[t.pos()];
    if (!HoldsNode(task.state) && !CountsTowardGang(task.state)) continue;
    if (const auto& s = task.pod->status.start_time) start = start ? std::min(*start, *s) : *s;
  }
  return start.value_or(fallback);
}

}  // namespace arbiter::sim
