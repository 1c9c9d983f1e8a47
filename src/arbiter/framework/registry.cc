#include "arbiter/framework/registry.h"

#include <cmath>
#include <utility>

namespace arbiter {

Status Registry::AddPlugin(std::string name, PluginFactory factory) {
  if (plugins_.contains(name))
    return AlreadyExistsError("plugin \"" + name + "\" registered twice");
  plugins_.emplace(std::move(name), std::move(factory));
  return Status::Ok();
}

Status Registry::AddAction(std::string name, ActionFactory factory) {
  if (actions_.contains(name))
    return AlreadyExistsError("action \"" + name + "\" registered twice");
  actions_.emplace(std::move(name), std::move(factory));
  return Status::Ok();
}

namespace {

template <typename Map>
std::string Known(const Map& map) {
  std::string out;
  for (const auto& [name, factory] : map) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<Plugin>> Registry::MakePlugin(const std::string& name,
                                                       const YAML::Node& args) const {
  auto it = plugins_.find(name);
  if (it == plugins_.end()) {
    return NotFoundError("unknown plugin \"" + name + "\" (known: " + Known(plugins_) + ")");
  }
  return it->second(args);
}

StatusOr<std::unique_ptr<Action>> Registry::MakeAction(const std::string& name,
                                                       const SchedulerConfig& config) const {
  auto it = actions_.find(name);
  if (it == actions_.end()) {
    return NotFoundError("unknown action \"" + name + "\" (known: " + Known(actions_) + ")");
  }
  return it->second(config);
}

PluginArgs::PluginArgs(std::string plugin, const YAML::Node& node)
    : plugin_(std::move(plugin)), node_(node) {}

Status PluginArgs::Check() const {
  if (!node_ || node_.IsNull() || node_.IsMap()) return Status::Ok();
  return InvalidArgumentError("plugin " + plugin_ + ": arguments: expected a mapping");
}

StatusOr<double> PluginArgs::GetDouble(const std::string& key, double fallback, double min,
                                       double max) {
  read_.insert(key);
  if (!node_ || !node_.IsMap() || !node_[key]) return fallback;
  double value = 0;
  try {
    value = node_[key].as<double>();
  } catch (const YAML::Exception&) {
    return InvalidArgumentError("plugin " + plugin_ + ": arguments." + key + ": expected a number");
  }
  if (!std::isfinite(value) || value < min || value > max) {
    return InvalidArgumentError("plugin " + plugin_ + ": arguments." + key + ": " +
                                std::to_string(value) + " is outside [" + std::to_string(min) +
                                ", " + std::to_string(max) + "]");
  }
  return value;
}

StatusOr<bool> PluginArgs::GetBool(const std::string& key, bool fallback) {
  read_.insert(key);
  if (!node_ || !node_.IsMap() || !node_[key]) return fallback;
  try {
    return node_[key].as<bool>();
  } catch (const YAML::Exception&) {
    return InvalidArgumentError("plugin " + plugin_ + ": arguments." + key +
                                ": expected true or false");
  }
}

StatusOr<std::string> PluginArgs::GetString(const std::string& key, const std::string& fallback,
                                            const std::set<std::string>& allowed) {
  read_.insert(key);
  if (!node_ || !node_.IsMap() || !node_[key]) return fallback;
  if (!node_[key].IsScalar()) {
    return InvalidArgumentError("plugin " + plugin_ + ": arguments." + key + ": expected a string");
  }
  auto value = node_[key].as<std::string>();
  if (!allowed.empty() && !allowed.contains(value)) {
    std::string list;
    for (const std::string& a : allowed) {
      if (!list.empty()) list += ", ";
      list += a;
    }
    return InvalidArgumentError("plugin " + plugin_ + ": arguments." + key + ": \"" + value +
                                "\" is not one of " + list);
  }
  return value;
}

YAML::Node PluginArgs::Get(const std::string& key) {
  read_.insert(key);
  if (!node_ || !node_.IsMap() || !node_[key]) return {};
  return node_[key];
}

Status PluginArgs::Finish() const {
  ARBITER_RETURN_IF_ERROR(Check());
  if (!node_ || !node_.IsMap()) return Status::Ok();
  for (const auto& kv : node_) {
    const auto key = kv.first.as<std::string>();
    if (!read_.contains(key)) {
      std::string list;
      for (const std::string& k : read_) {
        if (!list.empty()) list += ", ";
        list += k;
      }
      std::string what = "plugin ";
      what.append(plugin_).append(": arguments: unknown key \"").append(key);
      what.append("\" (known: ").append(list).append(")");
      return InvalidArgumentError(what);
    }
  }
  return Status::Ok();
}

}  // namespace arbiter
