// The scenario files (tests/scenarios/*.yaml), each its own test case, and the scenario loader and
// runner themselves: their errors name the file, the line and the key, and their checks do fail
// when the scheduler misbehaves.
#include "arbiter/sim/scenario.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/sim/scenario_runner.h"

namespace arbiter::sim {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

namespace fs = std::filesystem;

// Tests run from the project root (ctest's working directory); from elsewhere, the scenarios are
// found next to this source file.
fs::path ScenarioDir() {
  fs::path from_root = "tests/scenarios";
  if (fs::is_directory(from_root)) return from_root;
  return fs::path(__FILE__).parent_path() / "../../../tests/scenarios";
}

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(ScenarioDir(), ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Stem(const std::string& path) { return fs::path(path).stem().string(); }

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = Stem(info.param);
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

// Scheduling-core bugs that scenarios show and that are not fixed yet: a scenario's failures
// containing one of `symptoms` are the bug's; the case is skipped when they are its only
// failures, and fails once they are gone, so that the entry is removed with the fix.
struct KnownBug {
  std::string note;
  std::vector<std::string> symptoms;
};

const std::map<std::string, KnownBug>& KnownBugs() {
  static const auto* const kBugs = [] {
    // None at the moment: add an entry here (file stem -> description and failure texts) to
    // keep a scenario that shows an open bug without failing the build.
    return new std::map<std::string, KnownBug>{};
  }();
  return *kBugs;
}

class ScenarioFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioFile, HoldsEveryExpectationAndInvariant) {
  StatusOr<Scenario> scenario = LoadScenarioFile(GetParam());
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  StatusOr<ScenarioOutcome> outcome = RunScenario(*scenario);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_GT(outcome->sessions, 0);

  auto bug = KnownBugs().find(Stem(GetParam()));
  std::vector<std::string> known;
  for (const std::string& failure : outcome->failures) {
    const bool is_known =
        bug != KnownBugs().end() &&
        std::any_of(bug->second.symptoms.begin(), bug->second.symptoms.end(),
                    [&](const std::string& s) { return failure.find(s) != std::string::npos; });
    if (is_known) {
      known.push_back(failure);
    } else {
      ADD_FAILURE() << failure;
    }
  }
  if (bug == KnownBugs().end()) return;
  if (known.empty()) {
    ADD_FAILURE() << "the known bug no longer shows; remove it from KnownBugs(): "
                  << bug->second.note;
    return;
  }
  std::string shown;
  for (const std::string& k : known) shown += "\n  " + k;
  GTEST_SKIP() << "bug: " << bug->second.note << shown;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioFile, ::testing::ValuesIn(ScenarioFiles()), TestName);

TEST(ScenarioFiles, AtLeastTenAreFound) { EXPECT_GE(ScenarioFiles().size(), 10U); }

// --- The loader -------------------------------------------------------------------------------

constexpr char kMinimal[] = R"(
nodes:
  - {name: n0, cpu: 4}
pods:
  - {name: p, requests: {cpu: 1}}
sessions:
  - expect: {binds: {p: n0}}
)";

TEST(ParseScenario, ReadsAMinimalScenario) {
  StatusOr<Scenario> s = ParseScenario(kMinimal, "min.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_THAT(s->nodes, SizeIs(1));
  EXPECT_EQ(s->nodes[0].allocatable.Get("cpu"), 4000);
  EXPECT_EQ(s->nodes[0].allocatable.Get("pods"), 110);
  EXPECT_TRUE(s->nodes[0].Ready());
  ASSERT_THAT(s->pods, SizeIs(1));
  EXPECT_EQ(s->pods[0].meta.uid, "default/p");
  EXPECT_EQ(s->pods[0].spec.scheduler_name, "arbiter");
  ASSERT_THAT(s->steps, SizeIs(1));
  ASSERT_THAT(s->steps[0].expect.binds, SizeIs(1));
  EXPECT_EQ(s->steps[0].expect.binds[0].pod, "default/p");
  EXPECT_EQ(s->steps[0].expect.binds[0].nodes, std::vector<std::string>{"n0"});
}

TEST(ParseScenario, ReplicasNameObjectsWithAnIndex) {
  StatusOr<Scenario> s = ParseScenario(R"(
nodes: [{name: n, replicas: 2, cpu: 1}]
pods: [{name: w, replicas: 3, namespace: ml, group: g}]
sessions: [{}]
)",
                                       "r.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_THAT(s->nodes, SizeIs(2));
  EXPECT_EQ(s->nodes[1].meta.name, "n-1");
  ASSERT_THAT(s->pods, SizeIs(3));
  EXPECT_EQ(s->pods[2].meta.Key(), "ml/w-2");
  EXPECT_EQ(PodGroupNameOf(s->pods[2]), "g");
}

TEST(ParseScenario, AStepsObjectsAreCreatedAtItsTime) {
  StatusOr<Scenario> s = ParseScenario(R"(
nodes: [{name: n0, cpu: 1}]
sessions:
  - repeat: 3
  - add: {pods: [{name: late}, {name: dated, created: 1}]}
)",
                                       "t.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_THAT(s->steps[1].add_pods, SizeIs(2));
  EXPECT_EQ(s->steps[1].add_pods[0].meta.creation_timestamp,
            ScenarioEpoch() + std::chrono::seconds(3));
  EXPECT_EQ(s->steps[1].add_pods[1].meta.creation_timestamp,
            ScenarioEpoch() + std::chrono::seconds(1));
}

TEST(ParseScenario, APreBoundPodIsRunning) {
  StatusOr<Scenario> s = ParseScenario(R"(
nodes: [{name: n0, cpu: 1}]
pods: [{name: p, nodeName: n0}, {name: q, nodeName: n0, phase: Pending}]
sessions: [{}]
)",
                                       "b.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->pods[0].status.phase, PodPhase::kRunning);
  EXPECT_EQ(s->pods[1].status.phase, PodPhase::kPending);
}

TEST(ParseScenario, UnknownTopLevelKeyNamesFileAndKey) {
  StatusOr<Scenario> s = ParseScenario("nodez: []\nsessions: [{}]\n", "tests/x.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              AllOf(HasSubstr("tests/x.yaml:1: (root): unknown key \"nodez\""),
                    HasSubstr("known: description, nodes,")));
}

TEST(ParseScenario, UnknownPodKeyNamesLineAndPath) {
  StatusOr<Scenario> s = ParseScenario(R"(nodes: [{name: n0, cpu: 1}]
pods:
  - {name: a}
  - name: b
    reqests: {cpu: 1}
sessions: [{}]
)",
                                       "pods.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("pods.yaml:5: pods[1]: unknown key \"reqests\""));
}

TEST(ParseScenario, UnknownExpectationKeyNamesPath) {
  StatusOr<Scenario> s = ParseScenario("sessions:\n  - expect: {bindcount: 1}\n", "e.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("e.yaml:2: sessions[0].expect: unknown key \"bindcount\""));
}

TEST(ParseScenario, BadQuantityNamesResource) {
  StatusOr<Scenario> s = ParseScenario(
      "nodes: [{name: n0, cpu: 4}]\npods: [{name: p, requests: {cpu: 1x}}]\n"
      "sessions: [{}]\n",
      "q.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("q.yaml:2: pods[0].requests.cpu: "));
}

TEST(ParseScenario, ExpectationOnAnUnknownPodFailsAtLoad) {
  StatusOr<Scenario> s = ParseScenario(R"(nodes: [{name: n0, cpu: 4}]
pods: [{name: p}]
sessions:
  - expect: {unbound: [q]}
)",
                                       "u.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("sessions[0].expect.unbound[0]: no pod default/q"));
}

TEST(ParseScenario, BindToAnUnknownNodeFailsAtLoad) {
  StatusOr<Scenario> s = ParseScenario(R"(nodes: [{name: n0, cpu: 4}]
pods: [{name: p}]
sessions:
  - expect: {binds: {p: [n0, n9]}}
)",
                                       "n.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("sessions[0].expect.binds.p: no node n9"));
}

TEST(ParseScenario, AnEventOnADeletedPodFailsAtLoad) {
  StatusOr<Scenario> s = ParseScenario(R"(pods: [{name: p}]
sessions:
  - delete: [p]
  - succeed: [p]
)",
                                       "d.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("d.yaml:4: sessions[1].succeed[0]: no pod"));
}

TEST(ParseScenario, DuplicatePodFails) {
  StatusOr<Scenario> s =
      ParseScenario("pods: [{name: w, replicas: 2}, {name: w-1}]\nsessions: [{}]\n", "dup.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("pods[1].name: pod default/w-1 defined twice"));
}

TEST(ParseScenario, BadEnumerationsNameTheChoices) {
  StatusOr<Scenario> taint = ParseScenario(
      "nodes: [{name: n, taints: [{key: k, effect: Never}]}]\nsessions: [{}]\n", "t.yaml");
  ASSERT_FALSE(taint.ok());
  EXPECT_THAT(taint.status().message(),
              HasSubstr("nodes[0].taints[0].effect: expected NoSchedule, PreferNoSchedule"));
  StatusOr<Scenario> phase =
      ParseScenario("pods: [{name: p, phase: Done}]\nsessions: [{}]\n", "p.yaml");
  ASSERT_FALSE(phase.ok());
  EXPECT_THAT(phase.status().message(), HasSubstr("pods[0].phase: expected Pending, Running"));
}

TEST(ParseScenario, WrongTypesAreReported) {
  StatusOr<Scenario> s =
      ParseScenario("podGroups: [{name: g, minMember: many}]\nsessions: [{}]\n", "w.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("podGroups[0].minMember: expected an integer, got \"many\""));
  StatusOr<Scenario> zero =
      ParseScenario("podGroups: [{name: g, minMember: 0}]\nsessions: [{}]\n", "z.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("podGroups[0].minMember: 0 is out of range"));
}

TEST(ParseScenario, NoSessionsIsAnError) {
  StatusOr<Scenario> s = ParseScenario("nodes: []\n", "s.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("sessions: expected at least one session"));
}

TEST(ParseScenario, InvalidYamlNamesTheLine) {
  StatusOr<Scenario> s = ParseScenario("nodes:\n  - {name: n0\n", "y.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("y.yaml:"));
  EXPECT_THAT(s.status().message(), HasSubstr("not valid YAML"));
}

TEST(ParseScenario, SchedulerConfigErrorsAreReported) {
  StatusOr<Scenario> s =
      ParseScenario("scheduler: {actions: [allocate], tierz: []}\nsessions: [{}]\n", "c.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("c.yaml:1: scheduler: (root): unknown key \"tierz\""));
}

TEST(LoadScenarioFile, AMissingFileIsNotFound) {
  StatusOr<Scenario> s = LoadScenarioFile("tests/scenarios/does-not-exist.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr("does-not-exist.yaml"));
}

// --- The runner -------------------------------------------------------------------------------

TEST(RunScenario, AMetExpectationGivesNoFailure) {
  StatusOr<Scenario> s = ParseScenario(kMinimal, "min.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  StatusOr<ScenarioOutcome> outcome = RunScenario(*s);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(outcome->failures, IsEmpty());
  EXPECT_EQ(outcome->sessions, 1);
}

TEST(RunScenario, AnUnmetExpectationNamesFileStepAndSession) {
  StatusOr<Scenario> s = ParseScenario(R"(
nodes: [{name: n0, cpu: 1}, {name: n1, cpu: 1}]
pods: [{name: p, requests: {cpu: 2}}]
sessions:
  - name: too big
    repeat: 2
    expect: {binds: {p: n1}}
)",
                                       "big.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  StatusOr<ScenarioOutcome> outcome = RunScenario(*s);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_THAT(outcome->failures, SizeIs(2));
  EXPECT_EQ(outcome->failures[1],
            "big.yaml: sessions[0] (too big), session 2: expected default/p bound to n1 by this "
            "session, but it was not (verdict: 0/2 nodes are available: 2 Insufficient cpu. The "
            "pod requests 2 cpu; the most free on one node is 1 on n0.)");
}

// Without the gang plugin nothing holds a gang together: the invariant check catches the
// partial start that the expectations do not mention. (The group starts admitted, so no
// admission policy stands in the way.)
TEST(RunScenario, InvariantsCatchAPartiallyStartedGang) {
  StatusOr<Scenario> s = ParseScenario(R"(
scheduler:
  actions: [allocate, backfill]
  tiers: [{plugins: [{name: priority}, {name: predicates}]}]
nodes: [{name: n0, cpu: 2}]
podGroups: [{name: g, minMember: 3, phase: Inqueue}]
pods: [{name: g, replicas: 3, group: g, requests: {cpu: 1}}]
sessions: [{}]
)",
                                       "nogang.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  StatusOr<ScenarioOutcome> outcome = RunScenario(*s);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_THAT(outcome->failures,
              Contains(HasSubstr("invariant gang: gang default/g started partially: 2 of "
                                 "minMember 3 counted")));
}

TEST(RunScenario, AnUnknownPluginIsAnError) {
  StatusOr<Scenario> s = ParseScenario(R"(
scheduler: {actions: [allocate], tiers: [{plugins: [{name: nosuch}]}]}
sessions: [{}]
)",
                                       "p.yaml");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(RunScenario(*s).ok());
}

}  // namespace
}  // namespace arbiter::sim
