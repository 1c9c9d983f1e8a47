#include "arbiter/runtime/controller_runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace arbiter::runtime {
namespace {

TEST(PodGroupCreateJson, CarriesSpecLabelsAndOwner) {
  PodGroup group;
  group.meta.namespace_name = "ml";
  group.meta.name = "mpi";
  group.meta.labels["arbiter.dev/created-by"] = "arbiter-controller";
  group.meta.annotations["arbiter.dev/run-for"] = "20m";
  group.meta.owner_references.push_back({"batch/v1", "Job", "mpi", "uid-1", false});
  group.spec.min_member = 3;
  group.spec.queue = "team-a";
  group.spec.priority_class_name = "high";
  group.spec.topology = TopologyRequest{TopologyMode::kPreferred, "rack", 60};
  const nlohmann::json j = nlohmann::json::parse(PodGroupCreateJson(group));
  EXPECT_EQ(j["apiVersion"], "arbiter.dev/v1alpha1");
  EXPECT_EQ(j["kind"], "PodGroup");
  EXPECT_EQ(j["metadata"]["namespace"], "ml");
  EXPECT_EQ(j["metadata"]["name"], "mpi");
  EXPECT_EQ(j["metadata"]["labels"]["arbiter.dev/created-by"], "arbiter-controller");
  EXPECT_EQ(j["metadata"]["annotations"]["arbiter.dev/run-for"], "20m");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["kind"], "Job");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["uid"], "uid-1");
  EXPECT_EQ(j["metadata"]["ownerReferences"][0]["controller"], false);
  EXPECT_EQ(j["spec"]["minMember"], 3);
  EXPECT_EQ(j["spec"]["queue"], "team-a");
  EXPECT_EQ(j["spec"]["priorityClassName"], "high");
  EXPECT_EQ(j["spec"]["topology"],
            nlohmann::json({{"mode", "Preferred"}, {"level", "rack"}, {"maxWaitSeconds", 60}}));
}

TEST(PodGroupCreateJson, LeavesOutWhatIsEmpty) {
  PodGroup group;
  group.meta.namespace_name = "ml";
  group.meta.name = "g";
  const nlohmann::json j = nlohmann::json::parse(PodGroupCreateJson(group));
  EXPECT_FALSE(j["metadata"].contains("labels"));
  EXPECT_FALSE(j["metadata"].contains("annotations"));
  EXPECT_FALSE(j["metadata"].contains("ownerReferences"));
  EXPECT_FALSE(j["spec"].contains("priorityClassName"));
  EXPECT_FALSE(j["spec"].contains("topology"));
  EXPECT_EQ(j["spec"]["minMember"], 1);
  EXPECT_EQ(j["spec"]["queue"], "default");
}

}  // namespace
}  // namespace arbiter::runtime
