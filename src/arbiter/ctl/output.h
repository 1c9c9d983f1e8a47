// arbiterctl's -o yaml: the same document -o json prints, as YAML (block style, keys in the JSON's
// order, strings quoted only where YAML needs it).
//
// Thread safety: reentrant.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace arbiter::ctl {

std::string JsonToYaml(const nlohmann::ordered_json& json);

}  // namespace arbiter::ctl
