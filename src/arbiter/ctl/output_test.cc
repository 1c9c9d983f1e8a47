#include "arbiter/ctl/output.h"

#include <gtest/gtest.h>

namespace arbiter::ctl {
namespace {

TEST(JsonToYamlTest, BlockStyleInTheJsonsOrder) {
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(
      R"({"kind": "PodGroup", "explanation": {"gate": "Placement", "nodes": 3,
          "needs": {"cpu": "1500m"}, "ahead": ["ml/a", "ml/b"]}, "ready": false, "none": null})");
  EXPECT_EQ(JsonToYaml(json),
            "kind: PodGroup\n"
            "explanation:\n"
            "  gate: Placement\n"
            "  nodes: 3\n"
            "  needs:\n"
            "    cpu: 1500m\n"
            "  ahead:\n"
            "    - ml/a\n"
            "    - ml/b\n"
            "ready: false\n"
            "none: ~\n");
}

}  // namespace
}  // namespace arbiter::ctl
