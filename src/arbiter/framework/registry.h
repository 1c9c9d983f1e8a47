// Registry: the names under which plugins and actions can be configured, with their factories.
// Built in main() (and in tests), never global (STYLE.md §9):
//
//   Registry registry;
//   RegisterBuiltinPlugins(registry);   // plugins/builtin.h
//   RegisterBuiltinActions(registry);   // actions/builtin.h
//
// A plugin factory receives the plugin's `arguments` node (null when none) and must reject
// unknown keys and ill-typed values with an error naming the plugin and the key (PluginArgs
// helps). Thread safety: build, then read only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "arbiter/base/status.h"
#include "arbiter/framework/plugin.h"

namespace arbiter {

using PluginFactory = std::function<StatusOr<std::unique_ptr<Plugin>>(const YAML::Node& args)>;
// An action's factory receives the whole configuration (preempt and reclaim read its preemption
// section, validated when it was parsed).
struct SchedulerConfig;
using ActionFactory = std::function<std::unique_ptr<Action>(const SchedulerConfig& config)>;

class Registry {
 public:
  // Fails on a duplicate name.
  Status AddPlugin(std::string name, PluginFactory factory);
  Status AddAction(std::string name, ActionFactory factory);

  StatusOr<std::unique_ptr<Plugin>> MakePlugin(const std::string& name,
                                               const YAML::Node& args) const;
  StatusOr<std::unique_ptr<Action>> MakeAction(const std::string& name,
                                               const SchedulerConfig& config) const;

 private:
  std::map<std::string, PluginFactory, std::less<>> plugins_;
  std::map<std::string, ActionFactory, std::less<>> actions_;
};

// Typed, validated reading of a plugin's arguments: every key must be read by a Get* call or
// Finish() reports it as unknown.
//
//   PluginArgs args("nodeorder", node);
//   ARBITER_ASSIGN_OR_RETURN(double w, args.GetDouble("leastAllocatedWeight", 1.0));
//   ARBITER_RETURN_IF_ERROR(args.Finish());
class PluginArgs {
 public:
  PluginArgs(std::string plugin, const YAML::Node& node);
  Status Check() const;  // the node is null or a map
  StatusOr<double> GetDouble(const std::string& key, double fallback, double min, double max);
  StatusOr<bool> GetBool(const std::string& key, bool fallback);
  StatusOr<std::string> GetString(const std::string& key, const std::string& fallback,
                                  const std::set<std::string>& allowed);
  // The argument's node as given (null when absent), for structured arguments a plugin reads
  // itself; `key` counts as known.
  YAML::Node Get(const std::string& key);
  Status Finish() const;

 private:
  std::string plugin_;
  YAML::Node node_;
  std::set<std::string> read_;
};

}  // namespace arbiter
