// The BatchJob state machine, driven through a small in-memory world that applies its plans the
// way arbiter-controller does (status first, then deletions, then creations) and plays the
// kubelet. Statuses go through their JSON patch and the decoder, so what a restarted controller
// would read back is what the next plan starts from.
#include "arbiter/controllers/batchjob_sync.h"

#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::controllers {
namespace {

using k8s::test_util::Decode;
using nlohmann::json;

BatchJob ParseJob(const std::string& spec_json) {
  StatusOr<BatchJob> job = Decode<BatchJob>(
      R"({"metadata": {"name": "j", "namespace": "ns", "uid": "job-uid", "generation": 1,
                       "resourceVersion": "1"}, "spec": )" +
      spec_json + "}");
  EXPECT_TRUE(job.ok()) << job.status();
  return job.ok() ? *job : BatchJob{};
}

std::int32_t AttemptOf(const Pod& pod) {
  return std::stoi(pod.meta.labels.at(std::string(kJobAttemptLabel)));
}

// What the API server, the garbage collector and the kubelet would do with the plans.
class World {
 public:
  explicit World(BatchJob job) : job_(std::move(job)) {}

  // One reconcile: plans from what is observed, applies the plan (or its first `steps` parts:
  // 1 status, 2 + group/deletions, 3 + creations; a controller that stops part-way).
  JobPlan Sync(int steps = 3) {
    JobObservation obs;
    obs.job = &job_;
    for (const auto& [name, pod] : pods_) obs.pods.push_back(&pod);
    obs.group = group_ ? &*group_ : nullptr;
    obs.gone = gone_;
    obs.now = now_;
    JobPlan plan = PlanBatchJob(obs);
    gone_.clear();
    if (plan.status.has_value()) WriteStatus(*plan.status);
    if (steps < 2) return plan;
    if (plan.create_group.has_value() && !group_) group_ = plan.create_group;
    if (plan.set_group_topology.has_value() && group_) {
      group_->spec.topology = *plan.set_group_topology;
    }
    if (plan.set_group_locality.has_value() && group_) {
      group_->spec.locality = *plan.set_group_locality;
    }
    deleted_job_ = deleted_job_ || plan.delete_job;
    for (const PodToDelete& d : plan.delete_pods) {
      auto it = pods_.find(d.name);
      if (it == pods_.end() || it->second.meta.uid != d.uid) continue;
      if (it->second.status.phase == PodPhase::kSucceeded ||
          it->second.status.phase == PodPhase::kFailed) {
        pods_.erase(it);  // the API server removes finished pods at once
      } else {
        it->second.meta.deletion_timestamp = now_;
      }
    }
    if (steps < 3) return plan;
    for (const PodToCreate& c : plan.create_pods) {
      StatusOr<Pod> pod = Decode<Pod>(c.json);
      AssertOk(pod);
      if (pods_.contains(pod->meta.name)) continue;  // AlreadyExists
      for (const auto& [name, other] : pods_) {
        // Never an old and a new attempt side by side.
        EXPECT_EQ(AttemptOf(other), AttemptOf(*pod)) << other.meta.name << " beside " << c.name;
      }
      pod->meta.uid = "uid-" + std::to_string(++uids_);
      pods_.emplace(pod->meta.name, *pod);
    }
    return plan;
  }

  // Syncs until a plan changes nothing (the kubelet finishing deletions in between).
  void Settle() {
    for (int i = 0; i < 20; ++i) {
      JobPlan plan = Sync();
      FinishDeletions();
      if (!plan.status && plan.delete_pods.empty() && plan.create_pods.empty() &&
          !plan.create_group) {
        return;
      }
    }
    ADD_FAILURE() << "did not settle";
  }

  // The kubelet: pods being deleted go away; the watch reports each as gone.
  void FinishDeletions() {
    for (auto it = pods_.begin(); it != pods_.end();) {
      if (it->second.meta.deletion_timestamp.has_value()) {
        gone_.push_back(GonePod{it->second, now_});
        it = pods_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void Run(const std::string& name) {
    Pod& p = pods_.at(name);
    p.status.phase = PodPhase::kRunning;
    p.status.conditions = {Condition{"Ready", "True", "", "", now_}};
  }
  void RunAll() {
    for (auto& [name, pod] : pods_) {
      if (pod.status.phase == PodPhase::kPending && !pod.meta.deletion_timestamp) Run(name);
    }
  }
  // Started now on `node` (what the straggler rule times a pod by).
  void RunOn(const std::string& name, const std::string& node) {
    Run(name);
    Pod& p = pods_.at(name);
    p.spec.node_name = node;
    p.status.start_time = now_;
  }
  void Succeed(const std::string& name) {
    Pod& p = pods_.at(name);
    p.status.finished_at = now_;
    p.status.phase = PodPhase::kSucceeded;
    p.status.exit_code = 0;
    p.status.conditions = {Condition{"Ready", "False", "PodCompleted", "", now_}};
  }
  void Fail(const std::string& name, std::int32_t code) {
    Pod& p = pods_.at(name);
    p.status.phase = PodPhase::kFailed;
    p.status.exit_code = code;
    p.status.conditions = {Condition{"Ready", "False", "PodFailed", "", now_}};
  }
  // Evicted through the Eviction API after the scheduler marked it preempted (or not).
  void Evict(const std::string& name, bool preempted) {
    Pod p = pods_.at(name);
    if (preempted) {
      p.status.conditions.push_back(
          Condition{std::string(kPreemptedCondition), "True", "PreemptionByScheduler", "", now_});
    }
    p.status.conditions.push_back(
        Condition{"DisruptionTarget", "True", "EvictionByEvictionAPI", "", now_});
    pods_.erase(name);
    gone_.push_back(GonePod{p, now_});
  }
  // Deleted with kubectl delete pod: nothing on it says why.
  void DeleteByHand(const std::string& name) {
    Pod p = pods_.at(name);
    pods_.erase(name);
    gone_.push_back(GonePod{p, now_});
  }
  void SetUnschedulable(Clock::WallTime since) {
    ASSERT_TRUE(group_.has_value());
    group_->status.conditions = {
        Condition{"Unschedulable", "True", "NotEnoughResources", "0/3 nodes", since}};
  }
  void Advance(std::chrono::seconds s) { now_ += s; }
  // A controller that starts afresh never heard of the deletions its predecessor watched.
  void ForgetWatchedDeletions() { gone_.clear(); }
  void SetTopology(std::optional<TopologyRequest> topology) {
    job_.spec.topology = std::move(topology);
    ++job_.meta.generation;
  }
  void SetLocality(std::optional<LocalityRequest> locality) {
    job_.spec.locality = std::move(locality);
    ++job_.meta.generation;
  }
  // The group made by someone else, with the job's name (not owned by the job).
  void DisownGroup() {
    ASSERT_TRUE(group_.has_value());
    group_->meta.owner_references.clear();
  }
  void SetSuspend(bool suspend) {
    job_.spec.suspend = suspend;
    ++job_.meta.generation;
  }

  const BatchJob& job() const { return job_; }
  const BatchJobStatus& status() const { return job_.status; }
  const std::map<std::string, Pod>& pods() const { return pods_; }
  const std::optional<PodGroup>& group() const { return group_; }
  bool deleted_job() const { return deleted_job_; }
  Clock::WallTime now() const { return now_; }
  std::vector<std::string> PodNames() const {
    std::vector<std::string> names;
    names.reserve(pods_.size());
    for (const auto& [name, pod] : pods_) names.push_back(name);
    return names;
  }

 private:
  // The patch, applied and read back as a restarted controller would read it.
  void WriteStatus(const BatchJobStatus& status) {
    json patch = json::parse(JobStatusPatchJson(job_, status));
    EXPECT_EQ(patch["metadata"]["resourceVersion"], job_.meta.resource_version);
    json object = {{"metadata",
                    {{"name", job_.meta.name},
                     {"namespace", job_.meta.namespace_name},
                     {"uid", job_.meta.uid},
                     {"generation", job_.meta.generation},
                     {"resourceVersion", std::to_string(++rv_)}}},
                   {"status", patch["status"]}};
    StatusOr<BatchJob> read = Decode<BatchJob>(object.dump());
    AssertOk(read);
    job_.status = read->status;
    job_.meta.resource_version = read->meta.resource_version;
  }

  static void AssertOk(const StatusOr<Pod>& s) { ASSERT_TRUE(s.ok()) << s.status(); }
  static void AssertOk(const StatusOr<BatchJob>& s) { ASSERT_TRUE(s.ok()) << s.status(); }

  BatchJob job_;
  std::map<std::string, Pod> pods_;
  std::optional<PodGroup> group_;
  std::vector<GonePod> gone_;
  Clock::WallTime now_ = Clock::WallTime(std::chrono::seconds(1'800'000'000));
  int uids_ = 0;
  int rv_ = 1;
  bool deleted_job_ = false;
};

constexpr const char* kPsWorkers = R"({
  "queue": "research", "priorityClassName": "high", "maxRetry": 1,
  "tasks": [
    {"name": "ps", "replicas": 1,
     "template": {"metadata": {"annotations": {"arbiter.dev/run-for": "5s"}},
                  "spec": {"containers": [{"name": "c", "image": "busybox",
                                           "env": [{"name": "KEEP", "value": "1"}]}]}}},
    {"name": "worker", "replicas": 3, "minAvailable": 2,
     "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}]})";

TEST(BatchJobSyncTest, MakesThePodGroupFirstThenPodsNamedAndLabelledForTheirTask) {
  World world(ParseJob(kPsWorkers));
  JobPlan first = world.Sync();
  ASSERT_TRUE(first.create_group.has_value());
  EXPECT_TRUE(first.create_pods.empty()) << "no pod before its group is observed";
  EXPECT_EQ(first.create_group->spec.min_member, 3);
  EXPECT_EQ(first.create_group->spec.min_task_member,
            (std::map<std::string, std::int32_t>{{"ps", 1}, {"worker", 2}}));
  EXPECT_EQ(first.create_group->spec.queue, "research");
  EXPECT_EQ(first.create_group->spec.priority_class_name, "high");
  ASSERT_EQ(first.create_group->meta.owner_references.size(), 1U);
  EXPECT_TRUE(first.create_group->meta.owner_references[0].controller);

  JobPlan second = world.Sync();
  ASSERT_EQ(second.create_pods.size(), 4U);
  EXPECT_EQ(world.PodNames(),
            (std::vector<std::string>{"j-ps-0", "j-worker-0", "j-worker-1", "j-worker-2"}));
  json pod = json::parse(second.create_pods[2].json);
  EXPECT_EQ(pod["metadata"]["name"], "j-worker-1");
  EXPECT_EQ(pod["metadata"]["labels"]["arbiter.dev/pod-group"], "j");
  EXPECT_EQ(pod["metadata"]["labels"]["arbiter.dev/task"], "worker");
  EXPECT_EQ(pod["metadata"]["labels"]["arbiter.dev/job-name"], "j");
  EXPECT_EQ(pod["metadata"]["labels"]["arbiter.dev/job-attempt"], "0");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "job-uid");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(pod["spec"]["schedulerName"], "arbiter");
  EXPECT_EQ(pod["spec"]["hostname"], "j-worker-1");
  EXPECT_EQ(pod["spec"]["subdomain"], "j");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(pod["spec"]["priorityClassName"], "high");
  json env = pod["spec"]["containers"][0]["env"];
  EXPECT_EQ(env, json::parse(R"([{"name": "ARBITER_JOB_NAME", "value": "j"},
                                 {"name": "ARBITER_TASK_NAME", "value": "worker"},
                                 {"name": "ARBITER_TASK_INDEX", "value": "1"},
                                 {"name": "ARBITER_TASK_REPLICAS", "value": "3"}])"));
  json ps = json::parse(second.create_pods[0].json);
  EXPECT_EQ(ps["metadata"]["annotations"]["arbiter.dev/run-for"], "5s");
  EXPECT_EQ(ps["spec"]["containers"][0]["env"][0]["name"], "KEEP");
  EXPECT_TRUE(second.ensure_service);
  EXPECT_TRUE(second.ensure_hosts);
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending);
  EXPECT_EQ(world.status().tasks.at("worker").pending, 0) << "counted once observed";
  world.Sync();
  EXPECT_EQ(world.status().tasks.at("worker").pending, 3);
}

TEST(BatchJobSyncTest, RunsOnceMinAvailablePodsRunEvenWithAWorkerLeftPending) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.Run("j-ps-0");
  world.Run("j-worker-0");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending) << "2 of 3";
  world.Run("j-worker-1");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
  EXPECT_EQ(world.status().running, 3);
  EXPECT_EQ(world.status().min_available, 3);
  EXPECT_EQ(world.status().tasks.at("worker"), (TaskCounts{1, 2, 0, 0, 0}));
  EXPECT_TRUE(world.status().start_time.has_value());
}

TEST(BatchJobSyncTest, CompletesWhenEveryTaskSucceededAndIsDeletedAfterItsTtl) {
  World world(ParseJob(R"({"ttlSecondsAfterFinished": 30, "tasks": [
      {"name": "a", "replicas": 2}, {"name": "b", "replicas": 1}]})"));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Succeed("j-a-0");
  world.Succeed("j-a-1");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning) << "task b still runs";
  world.Succeed("j-b-0");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleted);
  EXPECT_TRUE(world.status().completion_time.has_value());
  EXPECT_EQ(world.pods().size(), 3U) << "finished pods stay until the TTL";
  world.Advance(std::chrono::seconds(29));
  world.Settle();
  EXPECT_FALSE(world.deleted_job());
  world.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(world.Sync().delete_job);
}

TEST(BatchJobSyncTest, SuccessPolicyAnyCompletesAndStopsThePodsStillRunning) {
  World world(ParseJob(R"({"successPolicy": {"operator": "Any", "tasks": ["worker"]},
      "tasks": [{"name": "ps", "replicas": 1}, {"name": "worker", "replicas": 2}]})"));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Succeed("j-worker-0");
  world.Succeed("j-worker-1");
  JobPlan plan = world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleting);
  ASSERT_EQ(plan.delete_pods.size(), 1U);
  EXPECT_EQ(plan.delete_pods[0].name, "j-ps-0");
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleted);
  EXPECT_EQ(world.PodNames(), (std::vector<std::string>{"j-worker-0", "j-worker-1"}));
}

TEST(BatchJobSyncTest, MaxRetryOneRestartsOnceWithoutOverlapThenFails) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Fail("j-worker-1", 3);
  JobPlan restart = world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
  EXPECT_EQ(world.status().retry_count, 1);
  EXPECT_EQ(world.status().preemption_count, 0);
  EXPECT_EQ(world.status().attempt, 1);
  EXPECT_EQ(restart.delete_pods.size(), 4U);
  EXPECT_TRUE(restart.create_pods.empty());
  const JobCondition& why = world.status().conditions.back();
  EXPECT_EQ(why.condition.type, "Restarting");
  EXPECT_EQ(why.condition.reason, "PodFailed");
  EXPECT_NE(why.condition.message.find("pod j-worker-1 failed (exit code 3)"), std::string::npos)
      << why.condition.message;
  // Blocking: nothing new while the old pods still terminate.
  EXPECT_TRUE(world.Sync().create_pods.empty());
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending);
  ASSERT_EQ(world.pods().size(), 4U);
  for (const auto& [name, pod] : world.pods()) EXPECT_EQ(AttemptOf(pod), 1) << name;
  world.RunAll();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
  world.Fail("j-worker-0", 3);
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailing);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "MaxRetryExceeded");
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailed);
  EXPECT_EQ(world.status().retry_count, 1);
  for (const auto& [name, pod] : world.pods()) {
    EXPECT_EQ(pod.status.phase, PodPhase::kFailed) << name << ": no pod left running";
  }
}

TEST(BatchJobSyncTest, APreemptedPodRestartsTheJobWithoutUsingARetry) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Evict("j-worker-2", /*preempted=*/true);
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
  EXPECT_EQ(world.status().retry_count, 0);
  EXPECT_EQ(world.status().preemption_count, 1);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "PodPreempted");
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending);
  EXPECT_EQ(world.pods().size(), 4U);
}

TEST(BatchJobSyncTest, APodDeletedByHandIsAnEvictionNotAFailure) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.DeleteByHand("j-ps-0");
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "PodEvicted");
  EXPECT_EQ(world.status().retry_count, 0);
}

TEST(BatchJobSyncTest, TheLauncherIsMadeOnlyOnceItsWorkersAreReady) {
  World world(ParseJob(R"({"tasks": [
      {"name": "launcher", "replicas": 1,
       "dependsOn": [{"task": "worker", "condition": "Ready"}]},
      {"name": "worker", "replicas": 2}]})"));
  JobPlan first = world.Sync();
  ASSERT_TRUE(first.create_group.has_value());
  EXPECT_EQ(first.create_group->spec.min_member, 2) << "the gang the workers can form alone";
  world.Settle();
  EXPECT_EQ(world.PodNames(), (std::vector<std::string>{"j-worker-0", "j-worker-1"}));
  world.Run("j-worker-0");
  world.Settle();
  EXPECT_FALSE(world.pods().contains("j-launcher-0"));
  world.Run("j-worker-1");
  world.Settle();
  EXPECT_TRUE(world.pods().contains("j-launcher-0"));
  world.Run("j-launcher-0");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
}

TEST(BatchJobSyncTest, RestartTaskByExitCodeRestartsOnlyThatTask) {
  World world(ParseJob(R"({"maxRetry": 5, "tasks": [
      {"name": "ps", "replicas": 1},
      {"name": "worker", "replicas": 2, "policies": [
        {"event": "PodFailed", "exitCodes": {"operator": "In", "values": [42]},
         "action": "RestartTask"}]}]})"));
  world.Settle();
  world.RunAll();
  world.Settle();
  const std::string ps_uid = world.pods().at("j-ps-0").meta.uid;
  world.Fail("j-worker-0", 42);
  JobPlan plan = world.Sync();
  EXPECT_EQ(plan.delete_pods.size(), 2U);
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
  EXPECT_EQ(world.status().retry_count, 1);
  EXPECT_EQ(world.status().tasks.at("worker").attempt, 1);
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.pods().at("j-ps-0").meta.uid, ps_uid) << "ps untouched";
  EXPECT_EQ(world.pods().at("j-worker-0").meta.labels.at("arbiter.dev/task-attempt"), "1");
  // Another exit code falls through to the default: the whole job restarts.
  world.RunAll();
  world.Settle();
  world.Fail("j-worker-1", 1);
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
}

TEST(BatchJobSyncTest, IgnoredFailuresFailTheTaskWhenItCanNoLongerReachItsMinimum) {
  World world(ParseJob(R"({"policies": [{"event": "PodFailed", "action": "Ignore"}],
      "tasks": [{"name": "w", "replicas": 3, "minAvailable": 2}]})"));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Fail("j-w-0", 1);
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning) << "one failure is affordable";
  world.Fail("j-w-1", 1);
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailing);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "TaskFailed");
}

TEST(BatchJobSyncTest, UnschedulableFailsTheJobOnlyAfterItsTimeout) {
  World world(ParseJob(R"({"policies": [{"event": "Unschedulable", "action": "FailJob",
      "timeoutSeconds": 60}], "tasks": [{"name": "w", "replicas": 2}]})"));
  world.Settle();
  world.SetUnschedulable(world.now());
  world.Advance(std::chrono::seconds(59));
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending);
  world.Advance(std::chrono::seconds(1));
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailing);
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailed);
  EXPECT_TRUE(world.pods().empty());
}

TEST(BatchJobSyncTest, ThePodGroupCarriesTheJobsRunTimeForStartEstimates) {
  BatchJob job = ParseJob(R"({"activeDeadlineSeconds": 100, "tasks": [{"name": "w"}]})");
  job.meta.annotations["arbiter.dev/run-for"] = "20m";
  const PodGroup group = JobPodGroup(job);
  EXPECT_EQ(group.meta.annotations.at("arbiter.dev/run-for"), "20m");
  EXPECT_EQ(group.meta.annotations.at("arbiter.dev/active-deadline-seconds"), "100");
}

TEST(BatchJobSyncTest, ThePodGroupCarriesTheJobsTopology) {
  const BatchJob job = ParseJob(
      R"({"topology": {"mode": "Preferred", "level": "rack", "maxWaitSeconds": 60},
          "tasks": [{"name": "w"}]})");
  EXPECT_EQ(JobPodGroup(job).spec.topology,
            (TopologyRequest{TopologyMode::kPreferred, "rack", 60}));
  EXPECT_FALSE(JobPodGroup(ParseJob(R"({"tasks": [{"name": "w"}]})")).spec.topology.has_value());
}

// A topology changed once the PodGroup exists (a Required gang made Preferred while it waits)
// reaches the PodGroup; removed, it is removed there; a group the job does not own is left alone.
TEST(BatchJobSyncTest, AChangedTopologyReachesThePodGroup) {
  World world(
      ParseJob(R"({"topology": {"mode": "Required", "level": "rack"}, "tasks": [{"name": "w"}]})"));
  world.Settle();
  ASSERT_TRUE(world.group().has_value());
  EXPECT_EQ(world.group()->spec.topology, (TopologyRequest{TopologyMode::kRequired, "rack", 0}));
  EXPECT_FALSE(world.Sync().set_group_topology.has_value());  // unchanged: nothing to write

  world.SetTopology(TopologyRequest{TopologyMode::kPreferred, "rack", 60});
  JobPlan plan = world.Sync();
  ASSERT_TRUE(plan.set_group_topology.has_value());
  EXPECT_EQ(world.group()->spec.topology, (TopologyRequest{TopologyMode::kPreferred, "rack", 60}));
  EXPECT_FALSE(world.Sync().set_group_topology.has_value());

  world.SetTopology(std::nullopt);
  plan = world.Sync();
  ASSERT_TRUE(plan.set_group_topology.has_value());
  EXPECT_FALSE(plan.set_group_topology->has_value());
  EXPECT_FALSE(world.group()->spec.topology.has_value());
  EXPECT_EQ(PodGroupTopologyPatchJson(std::nullopt), R"({"spec":{"topology":null}})");
  EXPECT_EQ(PodGroupTopologyPatchJson(TopologyRequest{TopologyMode::kPreferred, "rack", 60}),
            R"({"spec":{"topology":{"level":"rack","maxWaitSeconds":60,"mode":"Preferred"}}})");

  world.DisownGroup();
  world.SetTopology(TopologyRequest{TopologyMode::kRequired, "zone", 0});
  EXPECT_FALSE(world.Sync().set_group_topology.has_value());
}

TEST(BatchJobSyncTest, ItsDataLocalityReachesThePodGroupAndFollowsChanges) {
  World world(ParseJob(R"({"locality": {"nodes": ["n1", "n2"]}, "tasks": [{"name": "w"}]})"));
  world.Settle();
  ASSERT_TRUE(world.group().has_value());
  EXPECT_EQ(world.group()->spec.locality, (LocalityRequest{{"n1", "n2"}, {}, ""}));
  EXPECT_FALSE(world.Sync().set_group_locality.has_value());  // unchanged: nothing to write

  world.SetLocality(LocalityRequest{{"n3"}, {"r1"}, ""});
  JobPlan plan = world.Sync();
  ASSERT_TRUE(plan.set_group_locality.has_value());
  EXPECT_EQ(world.group()->spec.locality, (LocalityRequest{{"n3"}, {"r1"}, ""}));
  EXPECT_FALSE(world.Sync().set_group_locality.has_value());
  // What the job no longer names is removed from the group (null in a merge patch).
  EXPECT_EQ(PodGroupLocalityPatchJson(LocalityRequest{{"n3"}, {"r1"}, ""}),
            R"({"spec":{"locality":{"dataSet":null,"nodes":["n3"],"racks":["r1"]}}})");

  world.SetLocality(LocalityRequest{{}, {}, "clicks"});
  plan = world.Sync();
  ASSERT_TRUE(plan.set_group_locality.has_value());
  EXPECT_EQ(world.group()->spec.locality, (LocalityRequest{{}, {}, "clicks"}));
  EXPECT_EQ(PodGroupLocalityPatchJson(LocalityRequest{{}, {}, "clicks"}),
            R"({"spec":{"locality":{"dataSet":"clicks","nodes":null,"racks":null}}})");
  EXPECT_EQ(LocalityJson(LocalityRequest{{}, {}, "clicks"}), R"({"dataSet":"clicks"})");

  world.SetLocality(std::nullopt);
  plan = world.Sync();
  ASSERT_TRUE(plan.set_group_locality.has_value());
  EXPECT_FALSE(world.group()->spec.locality.has_value());
  EXPECT_EQ(PodGroupLocalityPatchJson(std::nullopt), R"({"spec":{"locality":null}})");

  world.DisownGroup();
  world.SetLocality(LocalityRequest{{"n4"}, {}, ""});
  EXPECT_FALSE(world.Sync().set_group_locality.has_value());
}

TEST(BatchJobSyncTest, ActiveDeadlineFailsARunningJob) {
  World world(
      ParseJob(R"({"activeDeadlineSeconds": 100, "tasks": [{"name": "w", "replicas": 1}]})"));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Advance(std::chrono::seconds(100));
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kFailing);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "DeadlineExceeded");
}

TEST(BatchJobSyncTest, SuspendStopsEveryPodAndResumeMakesThemAgain) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.SetSuspend(true);
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kSuspended);
  EXPECT_EQ(world.status().observed_generation, 2);
  world.FinishDeletions();
  world.Settle();
  EXPECT_TRUE(world.pods().empty());
  world.SetSuspend(false);
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kPending);
  EXPECT_EQ(world.pods().size(), 4U);
}

TEST(BatchJobSyncTest, APodDeletedWhileTheControllerWasDownCountsAsAnEviction) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Evict("j-worker-0", /*preempted=*/true);
  world.ForgetWatchedDeletions();
  world.Sync();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRestarting);
  EXPECT_EQ(world.status().conditions.back().condition.reason, "PodEvicted");
  EXPECT_EQ(world.status().retry_count, 0);
  EXPECT_EQ(world.status().preemption_count, 1);
}

TEST(BatchJobSyncTest, ConditionsKeepOnePerPhaseWithOnlyTheCurrentTrue) {
  World world(ParseJob(kPsWorkers));
  world.Settle();
  world.RunAll();
  world.Settle();
  world.Fail("j-worker-1", 3);
  world.Sync();
  std::map<std::string, std::string> seen;
  for (const JobCondition& c : world.status().conditions)
    seen[c.condition.type] = c.condition.status;
  EXPECT_EQ(seen,
            (std::map<std::string, std::string>{{"Running", "False"}, {"Restarting", "True"}}));
}

// The end state that matters: phase, counters, and the pods with their attempts and phases.
std::string Digest(const World& world) {
  std::string out = std::string(BatchJobPhaseName(world.status().phase)) +
                    " retries=" + std::to_string(world.status().retry_count) +
                    " preemptions=" + std::to_string(world.status().preemption_count) +
                    " attempt=" + std::to_string(world.status().attempt);
  for (const auto& [name, pod] : world.pods()) {
    out += " " + name + "@" + std::to_string(AttemptOf(pod)) + ":" +
           std::string(PodPhaseName(pod.status.phase));
  }
  return out;
}

std::vector<std::function<void(World&)>> RestartScript() {
  return {
      [](World& w) { w.RunAll(); },
      [](World& w) { w.Fail("j-worker-1", 3); },
      [](World& w) { w.FinishDeletions(); },
      [](World& w) { w.RunAll(); },
      [](World& w) { w.Evict("j-worker-0", true); },
      [](World& w) { w.FinishDeletions(); },
      [](World& w) { w.RunAll(); },
      [](World& w) { w.Fail("j-ps-0", 1); },
      [](World& w) { w.FinishDeletions(); },
  };
}

TEST(BatchJobSyncTest, AControllerStoppedBetweenAnyTwoWritesEndsWhereAnUninterruptedOneDoes) {
  const auto run = [](int crash_at, int steps_done) {
    World world(ParseJob(kPsWorkers));
    world.Settle();
    int sync = 0;
    for (const auto& event : RestartScript()) {
      event(world);
      // The controller stops part-way through this sync; the one started after it forgets
      // what the watch had told the old one (pods it saw deleted).
      if (sync++ == crash_at) {
        world.Sync(steps_done);
        world.FinishDeletions();
        world.ForgetWatchedDeletions();
        continue;
      }
      world.Settle();
    }
    world.Settle();
    return Digest(world);
  };
  const std::string uninterrupted = run(-1, 3);
  EXPECT_NE(uninterrupted.find("Failed retries=1 preemptions=1 attempt=2"), std::string::npos)
      << uninterrupted;
  for (int crash_at = 0; crash_at < static_cast<int>(RestartScript().size()); ++crash_at) {
    for (int steps = 1; steps <= 2; ++steps) {
      EXPECT_EQ(run(crash_at, steps), uninterrupted)
          << "stopped in sync " << crash_at << " after part " << steps;
    }
  }
}

// ---- Backup copies (idempotent tasks) ----

constexpr const char* kIdempotentMap = R"({"tasks": [{"name": "map", "replicas": 4,
    "idempotent": true, "template": {"spec": {"containers": [{"name": "c"}]}}}]})";

// The four map pods run on n0..n3; three succeed after 40 s and j-map-3 straggles on n3 until
// it is past 1.5 x 40 s and has its copy (its body in `copy_json`, when asked).
void StraggleUntilACopy(World& world, json* copy_json = nullptr) {
  world.Settle();
  for (int i = 0; i < 4; ++i) world.RunOn("j-map-" + std::to_string(i), "n" + std::to_string(i));
  world.Settle();
  world.Advance(std::chrono::seconds(40));
  for (int i = 0; i < 3; ++i) world.Succeed("j-map-" + std::to_string(i));
  world.Settle();
  world.Advance(std::chrono::seconds(19));
  world.Settle();
  ASSERT_FALSE(world.pods().contains("j-map-3-backup")) << "59 s is not behind 1.5 x 40 s";
  world.Advance(std::chrono::seconds(2));
  JobPlan plan = world.Sync();
  world.Settle();
  ASSERT_TRUE(world.pods().contains("j-map-3-backup"));
  ASSERT_EQ(plan.create_pods.size(), 1U);
  if (copy_json != nullptr) *copy_json = json::parse(plan.create_pods[0].json);
}

TEST(BatchJobSyncTest, AStragglerOfAnIdempotentTaskGetsACopyOffItsNodeAndTheCopyWins) {
  World world(ParseJob(kIdempotentMap));
  json body;
  StraggleUntilACopy(world, &body);
  EXPECT_FALSE(body["spec"].contains("hostname")) << "not one of the task's host names";
  EXPECT_EQ(body["spec"]["containers"][0]["env"][2],
            json::parse(R"({"name": "ARBITER_TASK_INDEX", "value": "3"})"));
  const Pod& copy = world.pods().at("j-map-3-backup");
  EXPECT_EQ(copy.meta.labels.at("arbiter.dev/backup"), "true");
  EXPECT_EQ(copy.meta.labels.at("arbiter.dev/task-index"), "3");
  EXPECT_EQ(copy.meta.labels.at("arbiter.dev/task"), "map");
  ASSERT_TRUE(copy.spec.required_node_affinity.has_value());
  ASSERT_EQ(copy.spec.required_node_affinity->terms.size(), 1U);
  const NodeSelectorTerm& term = copy.spec.required_node_affinity->terms[0];
  ASSERT_EQ(term.match_fields.size(), 1U);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].op, NodeSelectorOperator::kNotIn);
  EXPECT_EQ(term.match_fields[0].values, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(world.status().tasks.at("map").backups, 1);
  EXPECT_EQ(world.status().tasks.at("map").running, 1) << "an index counts once";

  world.RunOn("j-map-3-backup", "n0");
  world.Advance(std::chrono::seconds(40));
  world.Succeed("j-map-3-backup");
  JobPlan plan = world.Sync();
  ASSERT_EQ(plan.delete_pods.size(), 1U);
  EXPECT_EQ(plan.delete_pods[0].name, "j-map-3") << "the copy succeeded first";
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleted);
  EXPECT_EQ(world.status().tasks.at("map").succeeded, 4);
  EXPECT_EQ(world.status().preemption_count, 0) << "deleting the loser is no eviction";
  EXPECT_EQ(world.status().retry_count, 0);
}

// With another task still running the job goes on: the loser's deletion is seen (gone) and is no
// occurrence, and the loser is not made again.
TEST(BatchJobSyncTest, ALoserDeletedWhileTheJobRunsOnIsNoOccurrenceAndIsNotMadeAgain) {
  World world(ParseJob(R"({"tasks": [{"name": "map", "replicas": 4, "idempotent": true,
      "template": {"spec": {"containers": [{"name": "c"}]}}},
      {"name": "reduce", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}]})"));
  world.Settle();
  for (int i = 0; i < 4; ++i) world.RunOn("j-map-" + std::to_string(i), "n" + std::to_string(i));
  world.RunOn("j-reduce-0", "n0");
  world.Settle();
  world.Advance(std::chrono::seconds(40));
  for (int i = 0; i < 3; ++i) world.Succeed("j-map-" + std::to_string(i));
  world.Settle();
  world.Advance(std::chrono::seconds(21));
  world.Settle();
  ASSERT_TRUE(world.pods().contains("j-map-3-backup"));
  world.RunOn("j-map-3-backup", "n1");
  world.Advance(std::chrono::seconds(40));
  world.Succeed("j-map-3-backup");
  world.Settle();  // deletes j-map-3; the kubelet ends it; the watch reports it gone
  EXPECT_FALSE(world.pods().contains("j-map-3")) << "the loser is not made again";
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
  EXPECT_EQ(world.status().attempt, 0);
  EXPECT_EQ(world.status().preemption_count, 0);
  EXPECT_EQ(world.status().tasks.at("map").succeeded, 4);
  EXPECT_EQ(world.status().tasks.at("map").running, 0);
  world.Succeed("j-reduce-0");
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleted);
}

TEST(BatchJobSyncTest, WhenTheStragglerSucceedsFirstItsCopyIsDeleted) {
  World world(ParseJob(kIdempotentMap));
  StraggleUntilACopy(world);
  world.RunOn("j-map-3-backup", "n0");
  world.Advance(std::chrono::seconds(5));
  world.Succeed("j-map-3");
  JobPlan plan = world.Sync();
  ASSERT_EQ(plan.delete_pods.size(), 1U);
  EXPECT_EQ(plan.delete_pods[0].name, "j-map-3-backup");
  world.FinishDeletions();
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kCompleted);
  EXPECT_EQ(world.status().tasks.at("map").succeeded, 4);
  EXPECT_EQ(world.status().preemption_count, 0);
}

TEST(BatchJobSyncTest, ACopyThatFailsOrIsDeletedIsNoOccurrenceAndOnlyAFailedOneStaysTheLast) {
  World world(ParseJob(kIdempotentMap));
  StraggleUntilACopy(world);
  world.RunOn("j-map-3-backup", "n0");
  world.Fail("j-map-3-backup", 1);
  world.Settle();
  EXPECT_EQ(world.status().phase, BatchJobPhase::kRunning);
  EXPECT_EQ(world.status().retry_count, 0) << "a copy's failure is not the task's";
  EXPECT_TRUE(world.pods().contains("j-map-3"));
  world.Advance(std::chrono::seconds(600));
  world.Settle();
  EXPECT_EQ(world.status().tasks.at("map").backups, 1) << "one copy per index";

  World other(ParseJob(kIdempotentMap));
  StraggleUntilACopy(other);
  other.DeleteByHand("j-map-3-backup");
  other.Settle();
  EXPECT_EQ(other.status().phase, BatchJobPhase::kRunning);
  EXPECT_EQ(other.status().preemption_count, 0);
  EXPECT_EQ(other.status().attempt, 0);
  // Nothing remembers a copy that is gone (the scheduler may have preempted it): the pod is
  // still behind, so it gets one again, within the cap.
  EXPECT_TRUE(other.pods().contains("j-map-3-backup"));
}

TEST(BatchJobSyncTest, ATaskNotMarkedIdempotentGetsNoCopy) {
  World world(ParseJob(R"({"tasks": [{"name": "map", "replicas": 4,
      "template": {"spec": {"containers": [{"name": "c"}]}}}]})"));
  world.Settle();
  for (int i = 0; i < 4; ++i) world.RunOn("j-map-" + std::to_string(i), "n" + std::to_string(i));
  world.Advance(std::chrono::seconds(40));
  for (int i = 0; i < 3; ++i) world.Succeed("j-map-" + std::to_string(i));
  world.Advance(std::chrono::seconds(600));
  world.Settle();
  EXPECT_EQ(world.PodNames(),
            (std::vector<std::string>{"j-map-0", "j-map-1", "j-map-2", "j-map-3"}));
  EXPECT_EQ(world.status().tasks.at("map").backups, 0);
}

}  // namespace
}  // namespace arbiter::controllers
