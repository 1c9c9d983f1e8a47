// SchedulerConfig parsing (config.h) and the checks Scheduler::Create makes with the built-in
// registry: unknown names, plugin arguments (registry.h's PluginArgs through each factory).
#include "arbiter/framework/config.h"

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/actions/builtin.h"
#include "arbiter/framework/registry.h"
#include "arbiter/framework/scheduler.h"
#include "arbiter/plugins/builtin.h"

namespace arbiter {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;
using ::testing::Not;
using ::testing::SizeIs;

std::vector<std::string> PluginNames(const TierConfig& tier) {
  std::vector<std::string> out;
  out.reserve(tier.plugins.size());
  for (const PluginConfig& p : tier.plugins) out.push_back(p.name);
  return out;
}

// The error of parsing `yaml`, or "" when it parses.
std::string ParseError(const std::string& yaml) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(yaml, "arbiter.yaml");
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  return config.status().message();
}

Registry BuiltinRegistry() {
  Registry registry;
  RegisterBuiltinPlugins(registry);
  RegisterBuiltinActions(registry);
  return registry;
}

// The error of building a scheduler from `yaml` with the built-in registry, or "" on success.
std::string CreateError(const std::string& yaml) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(yaml, "arbiter.yaml");
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return "parse error";
  const Registry registry = BuiltinRegistry();
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(*config, registry);
  return scheduler.ok() ? "" : scheduler.status().message();
}

// A config with nodeorder's arguments given as `arguments` (a YAML flow mapping).
std::string WithNodeOrderArgs(const std::string& arguments) {
  return "actions: [allocate]\n"
         "tiers:\n"
         "  - plugins:\n"
         "      - name: nodeorder\n"
         "        arguments: " +
         arguments + "\n";
}

// --- The default ---

TEST(DefaultSchedulerConfig, ActionsAndTiers) {
  const SchedulerConfig config = DefaultSchedulerConfig();
  EXPECT_THAT(config.actions, ElementsAre("enqueue", "allocate", "preempt", "reclaim", "backfill"));
  ASSERT_THAT(config.tiers, SizeIs(2));
  // Orders and gang rules first (priority decides before anything later in its tier), then the
  // node rules.
  EXPECT_THAT(PluginNames(config.tiers[0]), IsSupersetOf({"priority", "gang"}));
  EXPECT_EQ(PluginNames(config.tiers[0]).front(), "priority");
  EXPECT_THAT(PluginNames(config.tiers[1]),
              ElementsAre("predicates", "nodeorder", "topology", "locality", "straggler"));
}

TEST(DefaultSchedulerConfig, BuildsWithTheBuiltinRegistry) {
  const SchedulerConfig config = DefaultSchedulerConfig();
  const Registry registry = BuiltinRegistry();
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(config, registry);
  ASSERT_TRUE(scheduler.ok()) << scheduler.status();
  const PluginSet& plugins = (*scheduler)->plugins();
  EXPECT_THAT(plugins.owned,
              SizeIs(config.tiers[0].plugins.size() + config.tiers[1].plugins.size()));
  // Extension points resolved per tier: priority orders jobs and tasks, gang is valid/ready in
  // tier 0; predicates and locality (its delay) filter, nodeorder, locality and straggler score in
  // tier 1.
  ASSERT_THAT(plugins.job_order, SizeIs(2));
  EXPECT_THAT(plugins.job_order[0], Not(IsEmpty()));
  EXPECT_THAT(plugins.job_order[1], IsEmpty());
  EXPECT_THAT(plugins.task_order[0], SizeIs(1));
  EXPECT_THAT(plugins.job_valid[0], Not(IsEmpty()));
  EXPECT_THAT(plugins.job_ready[0], SizeIs(1));
  EXPECT_THAT(plugins.filter[0], IsEmpty());
  EXPECT_THAT(plugins.filter[1], SizeIs(2));
  EXPECT_THAT(plugins.score[0], IsEmpty());
  EXPECT_THAT(plugins.score[1], SizeIs(3));
}

// --- Parsing ---

TEST(ParseSchedulerConfig, FullConfig) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(R"(
actions: [enqueue, allocate, backfill]
tiers:
  - plugins:
      - name: priority
      - name: gang
  - plugins:
      - name: predicates
      - name: nodeorder
        arguments: {leastAllocatedWeight: 1, mostAllocatedWeight: 0, balancedWeight: 2}
)",
                                                          "arbiter.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->actions, ElementsAre("enqueue", "allocate", "backfill"));
  ASSERT_THAT(config->tiers, SizeIs(2));
  EXPECT_THAT(PluginNames(config->tiers[0]), ElementsAre("priority", "gang"));
  EXPECT_THAT(PluginNames(config->tiers[1]), ElementsAre("predicates", "nodeorder"));
  EXPECT_FALSE(config->tiers[0].plugins[0].arguments.IsDefined() &&
               !config->tiers[0].plugins[0].arguments.IsNull());
  const YAML::Node& args = config->tiers[1].plugins[1].arguments;
  ASSERT_TRUE(args.IsMap());
  EXPECT_EQ(args["balancedWeight"].as<int>(), 2);
}

TEST(ParseSchedulerConfig, EmptyArgumentsAreAccepted) {
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins:\n"
                       "      - name: gang\n"
                       "        arguments:\n"),
            "");
}

TEST(ParseSchedulerConfig, UnknownRootKey) {
  EXPECT_EQ(
      ParseError("actions: [allocate]\ntiers: []\nactoins: [enqueue]\n"),
      "arbiter.yaml: (root): unknown key \"actoins\" (known: actions, filterThreads, preemption, "
      "reservation, tiers)");
}

TEST(ParseSchedulerConfig, Reservation) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(
      "actions: [allocate]\ntiers: []\nreservation: {enabled: false, waitSeconds: 60, "
      "maxReservations: 4}\n",
      "arbiter.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->reservation,
            (ReservationConfig{.enabled = false, .wait_seconds = 60, .max_reservations = 4}));
  EXPECT_EQ(DefaultSchedulerConfig().reservation, ReservationConfig{});
}

TEST(ParseSchedulerConfig, ReservationErrorsNameTheField) {
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\nreservation: {maxReservations: 17}\n"),
            "arbiter.yaml: reservation.maxReservations: expected a whole number from 0 to 16");
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\nreservation: {enabled: maybe}\n"),
            "arbiter.yaml: reservation.enabled: expected true or false");
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\nreservation: {wait: 5}\n"),
            "arbiter.yaml: reservation: unknown key \"wait\" (known: enabled, maxReservations, "
            "waitSeconds)");
}

TEST(ParseSchedulerConfig, FilterThreads) {
  StatusOr<SchedulerConfig> config =
      ParseSchedulerConfig("actions: [allocate]\ntiers: []\nfilterThreads: 2\n", "arbiter.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->filter_threads, 2);
  EXPECT_EQ(DefaultSchedulerConfig().filter_threads, 0);
  for (const char* bad : {"-1", "65", "two", "[1]"}) {
    EXPECT_EQ(ParseError(std::string("actions: [allocate]\ntiers: []\nfilterThreads: ") + bad),
              "arbiter.yaml: filterThreads: expected a whole number from 0 to 64")
        << bad;
  }
}

TEST(ParseSchedulerConfig, UnknownTierKey) {
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins: []\n"
                       "    weight: 2\n"),
            "arbiter.yaml: tiers[0]: unknown key \"weight\" (known: plugins)");
}

TEST(ParseSchedulerConfig, UnknownPluginKey) {
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins: [{name: gang}]\n"
                       "  - plugins:\n"
                       "      - name: nodeorder\n"
                       "        args: {balancedWeight: 1}\n"),
            "arbiter.yaml: tiers[1].plugins[0]: unknown key \"args\" (known: arguments, name)");
}

TEST(ParseSchedulerConfig, DuplicateAction) {
  EXPECT_EQ(ParseError("actions: [enqueue, allocate, enqueue]\ntiers: []\n"),
            "arbiter.yaml: actions[2]: action \"enqueue\" listed twice");
}

TEST(ParseSchedulerConfig, DuplicatePluginAcrossTiers) {
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins: [{name: gang}, {name: priority}]\n"
                       "  - plugins: [{name: predicates}, {name: gang}]\n"),
            "arbiter.yaml: tiers[1].plugins[1]: plugin \"gang\" listed twice");
}

TEST(ParseSchedulerConfig, ArgumentsMustBeAMapping) {
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins:\n"
                       "      - name: nodeorder\n"
                       "        arguments: [1, 2]\n"),
            "arbiter.yaml: tiers[0].plugins[0].arguments: expected a mapping");
  EXPECT_EQ(ParseError("actions: [allocate]\n"
                       "tiers:\n"
                       "  - plugins:\n"
                       "      - name: nodeorder\n"
                       "        arguments: 3\n"),
            "arbiter.yaml: tiers[0].plugins[0].arguments: expected a mapping");
}

TEST(ParseSchedulerConfig, ActionsRequired) {
  EXPECT_EQ(ParseError("tiers: []\n"),
            "arbiter.yaml: actions: expected a non-empty list of action names");
  EXPECT_EQ(ParseError("actions: []\ntiers: []\n"),
            "arbiter.yaml: actions: expected a non-empty list of action names");
}

TEST(ParseSchedulerConfig, PluginNameRequired) {
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers:\n  - plugins: [{arguments: {}}]\n"),
            "arbiter.yaml: tiers[0].plugins[0].name: required");
}

TEST(ParseSchedulerConfig, WrongShapes) {
  EXPECT_EQ(ParseError("- allocate\n"), "arbiter.yaml: (root): expected a mapping");
  EXPECT_EQ(ParseError("actions: [allocate]\n"), "arbiter.yaml: tiers: expected a list of tiers");
  EXPECT_EQ(ParseError("actions: [[allocate]]\ntiers: []\n"),
            "arbiter.yaml: actions[0]: expected a name");
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: [gang]\n"),
            "arbiter.yaml: tiers[0]: expected a mapping with \"plugins\"");
}

TEST(ParseSchedulerConfig, PreemptionSection) {
  StatusOr<SchedulerConfig> config = ParseSchedulerConfig(
      "actions: [allocate, preempt]\ntiers: []\npreemption:\n  maxGracePeriodSeconds: 60\n"
      "  nominationTimeoutSeconds: 120\n  minRuntimeSeconds: 30\n"
      "  evictionsPerMinutePerQueue: 0\n  quotaGraceSeconds: 45\n"
      "  brokenGangTimeoutSeconds: 0\n",
      "arbiter.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->preemption.max_grace_period_seconds, 60);
  EXPECT_EQ(config->preemption.nomination_timeout_seconds, 120);
  EXPECT_EQ(config->preemption.min_runtime_seconds, 30);
  EXPECT_EQ(config->preemption.evictions_per_minute_per_queue, 0);
  EXPECT_EQ(config->preemption.quota_grace_seconds, 45);
  EXPECT_EQ(config->preemption.broken_gang_timeout_seconds, 0);
  // Absent: the safe defaults.
  StatusOr<SchedulerConfig> plain =
      ParseSchedulerConfig("actions: [allocate]\ntiers: []\n", "arbiter.yaml");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->preemption, PreemptionConfig{});
}

TEST(ParseSchedulerConfig, PreemptionSectionErrorsNameTheKey) {
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\npreemption:\n  graceCap: 5\n"),
            "arbiter.yaml: preemption: unknown key \"graceCap\" (known: "
            "brokenGangTimeoutSeconds, evictionsPerMinutePerQueue, maxGracePeriodSeconds, "
            "minRuntimeSeconds, nominationTimeoutSeconds, quotaGraceSeconds)");
  EXPECT_EQ(
      ParseError("actions: [allocate]\ntiers: []\npreemption:\n  brokenGangTimeoutSeconds: 1e9\n"),
      "arbiter.yaml: preemption.brokenGangTimeoutSeconds: expected a whole number from 0 to "
      "86400");
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\npreemption:\n  minRuntimeSeconds: -1\n"),
            "arbiter.yaml: preemption.minRuntimeSeconds: expected a whole number from 0 to 86400");
  EXPECT_EQ(
      ParseError("actions: [allocate]\ntiers: []\npreemption:\n  nominationTimeoutSeconds: x\n"),
      "arbiter.yaml: preemption.nominationTimeoutSeconds: expected a whole number from 1 to 3600");
  EXPECT_EQ(ParseError("actions: [allocate]\ntiers: []\npreemption: [1]\n"),
            "arbiter.yaml: preemption: expected a mapping");
}

TEST(ParseSchedulerConfig, InvalidYamlNamesTheSource) {
  EXPECT_THAT(ParseError("actions: [allocate\n"), HasSubstr("arbiter.yaml: not valid YAML"));
}

// --- Scheduler::Create: names and plugin arguments ---

TEST(SchedulerCreate, UnknownPluginIsNamed) {
  const std::string error =
      CreateError("actions: [allocate]\ntiers:\n  - plugins: [{name: binpack}]\n");
  // The known names follow, sorted.
  EXPECT_THAT(error, HasSubstr("unknown plugin \"binpack\" (known: "));
  EXPECT_THAT(error, HasSubstr("gang, locality, nodeorder, predicates, priority"));
}

TEST(SchedulerCreate, UnknownActionIsNamed) {
  const std::string error = CreateError("actions: [enqueue, preemt]\ntiers: []\n");
  EXPECT_EQ(error,
            "unknown action \"preemt\" (known: allocate, backfill, enqueue, preempt, reclaim)");
}

TEST(SchedulerCreate, NoActions) {
  const Registry registry = BuiltinRegistry();
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(SchedulerConfig{}, registry);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_THAT(scheduler.status().message(), HasSubstr("no actions"));
}

TEST(SchedulerCreate, DuplicatePluginInAHandBuiltConfig) {
  SchedulerConfig config = DefaultSchedulerConfig();
  config.tiers[1].plugins.push_back(PluginConfig{"gang", {}});
  const Registry registry = BuiltinRegistry();
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(config, registry);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_THAT(scheduler.status().message(), HasSubstr("plugin \"gang\" listed twice"));
}

TEST(SchedulerCreate, NodeOrderWeightsInRange) {
  EXPECT_EQ(CreateError(WithNodeOrderArgs(
                "{leastAllocatedWeight: 0, mostAllocatedWeight: 100, balancedWeight: 0.5}")),
            "");
}

TEST(SchedulerCreate, NodeOrderWeightAboveRange) {
  EXPECT_THAT(CreateError(WithNodeOrderArgs("{leastAllocatedWeight: 101}")),
              HasSubstr("plugin nodeorder: arguments.leastAllocatedWeight: 101"));
  EXPECT_THAT(CreateError(WithNodeOrderArgs("{leastAllocatedWeight: 101}")),
              HasSubstr("is outside [0"));
}

TEST(SchedulerCreate, NodeOrderWeightBelowRange) {
  EXPECT_THAT(CreateError(WithNodeOrderArgs("{balancedWeight: -1}")),
              HasSubstr("plugin nodeorder: arguments.balancedWeight: -1"));
}

TEST(SchedulerCreate, NodeOrderWeightNotANumber) {
  EXPECT_EQ(CreateError(WithNodeOrderArgs("{mostAllocatedWeight: lots}")),
            "plugin nodeorder: arguments.mostAllocatedWeight: expected a number");
  EXPECT_THAT(CreateError(WithNodeOrderArgs("{mostAllocatedWeight: .nan}")),
              HasSubstr("arguments.mostAllocatedWeight"));
}

TEST(SchedulerCreate, NodeOrderUnknownArgument) {
  EXPECT_EQ(CreateError(WithNodeOrderArgs("{leastAllocatedWeight: 1, leastAllocated: 2}")),
            "plugin nodeorder: arguments: unknown key \"leastAllocated\" (known: balancedWeight, "
            "leastAllocatedWeight, mostAllocatedWeight)");
}

TEST(SchedulerCreate, PluginWithoutArgumentsRejectsAny) {
  const std::string error = CreateError(
      "actions: [allocate]\n"
      "tiers:\n"
      "  - plugins:\n"
      "      - name: gang\n"
      "        arguments: {minAvailable: 3}\n");
  EXPECT_THAT(error, HasSubstr("plugin gang: arguments: unknown key \"minAvailable\""));
}

TEST(SchedulerCreate, HandBuiltNonMapArgumentsAreRejectedByTheFactory) {
  SchedulerConfig config;
  config.actions = {"allocate"};
  config.tiers.push_back(TierConfig{{PluginConfig{"nodeorder", YAML::Load("[1, 2]")}}});
  const Registry registry = BuiltinRegistry();
  StatusOr<std::unique_ptr<Scheduler>> scheduler = Scheduler::Create(config, registry);
  ASSERT_FALSE(scheduler.ok());
  EXPECT_EQ(scheduler.status().message(), "plugin nodeorder: arguments: expected a mapping");
}

// --- Registry ---

TEST(Registry, DuplicateNamesAreRefused) {
  Registry registry = BuiltinRegistry();
  const Status plugin = registry.AddPlugin("gang", [](const YAML::Node&) {
    return StatusOr<std::unique_ptr<Plugin>>(InvalidArgumentError("unused"));
  });
  EXPECT_EQ(plugin.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(plugin.message(), HasSubstr("plugin \"gang\" registered twice"));
  const Status action =
      registry.AddAction("allocate", [](const SchedulerConfig&) { return nullptr; });
  EXPECT_EQ(action.code(), StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace arbiter
