#include "arbiter/framework/config.h"

#include <fstream>
#include <set>
#include <sstream>

namespace arbiter {

namespace {

Status Invalid(std::string_view source, const std::string& where, const std::string& what) {
  return InvalidArgumentError(std::string(source) + ": " + where + ": " + what);
}

Status CheckKeys(std::string_view source, const std::string& where, const YAML::Node& node,
                 const std::set<std::string>& allowed) {
  for (const auto& kv : node) {
    const auto key = kv.first.as<std::string>();
    if (!allowed.contains(key)) {
      std::string list;
      for (const std::string& a : allowed) {
        if (!list.empty()) list += ", ";
        list += a;
      }
      std::string what = "unknown key \"";
      what.append(key).append("\" (known: ").append(list).append(")");
      return Invalid(source, where, what);
    }
  }
  return Status::Ok();
}

// Reads <section>.<key>, if present, as a whole number in [min, max].
Status ReadWhole(std::string_view source, const YAML::Node& section, const std::string& key,
                 std::int64_t min, std::int64_t max, std::int64_t& out,
                 const std::string& section_name = "preemption") {
  const YAML::Node node = section[key];
  if (!node) return Status::Ok();
  std::int64_t value = 0;
  if (!node.IsScalar() || !YAML::convert<std::int64_t>::decode(node, value) || value < min ||
      value > max) {
    return Invalid(
        source, section_name + "." + key,
        "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  out = value;
  return Status::Ok();
}

StatusOr<SchedulerConfig> Convert(const YAML::Node& root, std::string_view source) {
  SchedulerConfig config;
  if (!root.IsMap()) return Invalid(source, "(root)", "expected a mapping");
  ARBITER_RETURN_IF_ERROR(CheckKeys(
      source, "(root)", root, {"actions", "tiers", "filterThreads", "preemption", "reservation"}));
  if (const YAML::Node reservation = root["reservation"]) {
    if (!reservation.IsMap()) return Invalid(source, "reservation", "expected a mapping");
    ARBITER_RETURN_IF_ERROR(CheckKeys(source, "reservation", reservation,
                                      {"enabled", "waitSeconds", "maxReservations"}));
    ReservationConfig& r = config.reservation;
    if (const YAML::Node enabled = reservation["enabled"]) {
      if (!enabled.IsScalar() || !YAML::convert<bool>::decode(enabled, r.enabled)) {
        return Invalid(source, "reservation.enabled", "expected true or false");
      }
    }
    ARBITER_RETURN_IF_ERROR(
        ReadWhole(source, reservation, "waitSeconds", 0, 604800, r.wait_seconds, "reservation"));
    std::int64_t most = r.max_reservations;
    ARBITER_RETURN_IF_ERROR(
        ReadWhole(source, reservation, "maxReservations", 0, 16, most, "reservation"));
    r.max_reservations = static_cast<std::int32_t>(most);
  }
  if (const YAML::Node preemption = root["preemption"]) {
    if (!preemption.IsMap()) return Invalid(source, "preemption", "expected a mapping");
    ARBITER_RETURN_IF_ERROR(
        CheckKeys(source, "preemption", preemption,
                  {"maxGracePeriodSeconds", "nominationTimeoutSeconds", "minRuntimeSeconds",
                   "evictionsPerMinutePerQueue", "quotaGraceSeconds", "brokenGangTimeoutSeconds"}));
    PreemptionConfig& p = config.preemption;
    ARBITER_RETURN_IF_ERROR(ReadWhole(source, preemption, "maxGracePeriodSeconds", 0, 3600,
                                      p.max_grace_period_seconds));
    ARBITER_RETURN_IF_ERROR(ReadWhole(source, preemption, "nominationTimeoutSeconds", 1, 3600,
                                      p.nomination_timeout_seconds));
    ARBITER_RETURN_IF_ERROR(
        ReadWhole(source, preemption, "minRuntimeSeconds", 0, 86400, p.min_runtime_seconds));
    std::int64_t budget = p.evictions_per_minute_per_queue;
    ARBITER_RETURN_IF_ERROR(
        ReadWhole(source, preemption, "evictionsPerMinutePerQueue", 0, 1'000'000, budget));
    p.evictions_per_minute_per_queue = static_cast<std::int32_t>(budget);
    ARBITER_RETURN_IF_ERROR(
        ReadWhole(source, preemption, "quotaGraceSeconds", 0, 86400, p.quota_grace_seconds));
    ARBITER_RETURN_IF_ERROR(ReadWhole(source, preemption, "brokenGangTimeoutSeconds", 0, 86400,
                                      p.broken_gang_timeout_seconds));
  }
  if (const YAML::Node threads = root["filterThreads"]) {
    int value = -1;
    if (!threads.IsScalar() || !YAML::convert<int>::decode(threads, value) || value < 0 ||
        value > 64) {
      return Invalid(source, "filterThreads", "expected a whole number from 0 to 64");
    }
    config.filter_threads = value;
  }
  const YAML::Node actions = root["actions"];
  if (!actions || !actions.IsSequence() || actions.size() == 0) {
    return Invalid(source, "actions", "expected a non-empty list of action names");
  }
  std::set<std::string> seen_actions;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (!actions[i].IsScalar()) {
      return Invalid(source, "actions[" + std::to_string(i) + "]", "expected a name");
    }
    auto name = actions[i].as<std::string>();
    if (!seen_actions.insert(name).second) {
      return Invalid(source, "actions[" + std::to_string(i) + "]",
                     "action \"" + name + "\" listed twice");
    }
    config.actions.push_back(std::move(name));
  }
  const YAML::Node tiers = root["tiers"];
  if (!tiers || !tiers.IsSequence()) return Invalid(source, "tiers", "expected a list of tiers");
  std::set<std::string> seen_plugins;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const std::string where = "tiers[" + std::to_string(t) + "]";
    const YAML::Node tier = tiers[t];
    if (!tier.IsMap()) return Invalid(source, where, "expected a mapping with \"plugins\"");
    ARBITER_RETURN_IF_ERROR(CheckKeys(source, where, tier, {"plugins"}));
    const YAML::Node plugins = tier["plugins"];
    if (!plugins || !plugins.IsSequence()) {
      return Invalid(source, where + ".plugins", "expected a list of plugins");
    }
    TierConfig tier_config;
    for (std::size_t p = 0; p < plugins.size(); ++p) {
      const std::string pwhere = where + ".plugins[" + std::to_string(p) + "]";
      const YAML::Node plugin = plugins[p];
      if (!plugin.IsMap()) return Invalid(source, pwhere, "expected a mapping with \"name\"");
      ARBITER_RETURN_IF_ERROR(CheckKeys(source, pwhere, plugin, {"name", "arguments"}));
      if (!plugin["name"] || !plugin["name"].IsScalar()) {
        return Invalid(source, pwhere + ".name", "required");
      }
      PluginConfig pc;
      pc.name = plugin["name"].as<std::string>();
      if (!seen_plugins.insert(pc.name).second) {
        return Invalid(source, pwhere, "plugin \"" + pc.name + "\" listed twice");
      }
      if (plugin["arguments"]) {
        if (!plugin["arguments"].IsMap() && !plugin["arguments"].IsNull()) {
          return Invalid(source, pwhere + ".arguments", "expected a mapping");
        }
        pc.arguments = plugin["arguments"];
      }
      tier_config.plugins.push_back(std::move(pc));
    }
    config.tiers.push_back(std::move(tier_config));
  }
  return config;
}

}  // namespace

StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml, std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(source) + ": not valid YAML: " + e.what());
  }
  try {
    return Convert(root, source);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string(source) + ": " + e.what());
  }
}

StatusOr<SchedulerConfig> LoadSchedulerConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("scheduler config " + path + ": cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseSchedulerConfig(buffer.str(), path);
}

SchedulerConfig DefaultSchedulerConfig() {
  SchedulerConfig config;
  config.actions = {"enqueue", "allocate", "preempt", "reclaim", "backfill"};
  config.tiers.push_back(TierConfig{{PluginConfig{"priority", {}}, PluginConfig{"gang", {}},
                                     PluginConfig{"drf", {}}, PluginConfig{"proportion", {}}}});
  config.tiers.push_back(TierConfig{{PluginConfig{"predicates", {}}, PluginConfig{"nodeorder", {}},
                                     PluginConfig{"topology", {}}, PluginConfig{"locality", {}},
                                     PluginConfig{"straggler", {}}}});
  return config;
}

}  // namespace arbiter
