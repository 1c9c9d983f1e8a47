#include "arbiter/ctl/output.h"

#include <yaml-cpp/yaml.h>

namespace arbiter::ctl {

namespace {

void Emit(YAML::Emitter& out, const nlohmann::ordered_json& json) {
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, value] : json.items()) {
        out << YAML::Key << key << YAML::Value;
        Emit(out, value);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::ordered_json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& value : json) Emit(out, value);
      out << YAML::EndSeq;
      return;
    case nlohmann::ordered_json::value_t::string:
      out << json.get<std::string>();
      return;
    case nlohmann::ordered_json::value_t::boolean:
      out << json.get<bool>();
      return;
    case nlohmann::ordered_json::value_t::number_integer:
      out << json.get<std::int64_t>();
      return;
    case nlohmann::ordered_json::value_t::number_unsigned:
      out << json.get<std::uint64_t>();
      return;
    case nlohmann::ordered_json::value_t::number_float:
      out << json.get<double>();
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string JsonToYaml(const nlohmann::ordered_json& json) {
  YAML::Emitter out;
  Emit(out, json);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace arbiter::ctl
