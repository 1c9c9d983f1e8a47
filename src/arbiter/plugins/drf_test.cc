// drf through whole sessions: progressive filling gives each next task to the job with the
// lowest dominant share.
#include "arbiter/plugins/drf.h"

#include <string>

#include <gtest/gtest.h>

#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using testing::FakeCluster;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;

// Ghodsi et al. §4: 9 CPUs and 18 GB; job A runs tasks of <1 CPU, 4 GB>, job B <3 CPUs, 1 GB>.
// Each next task goes to the job with the lowest dominant share until no task fits: A gets 3
// tasks (3 CPU, 12 GB: share 12/18 = 2/3), B gets 2 (6 CPU, 2 GB: 6/9 = 2/3).
TEST(Drf, PaperExample) {
  FakeCluster cluster;
  cluster.Add(MakeNode("n").Cpu("9").Memory("18Gi").Build());
  for (const std::string g : {"a", "b"}) {
    cluster.Add(MakePodGroup(g).MinMember(1).Created(g == "a" ? 0 : 1).Build());
    for (int i = 0; i < 10; ++i) {
      cluster.Add(MakePod(g + std::to_string(i))
                      .Group(g)
                      .Request("cpu", g == "a" ? "1" : "3")
                      .Request("memory", g == "a" ? "4Gi" : "1Gi")
                      .Build());
    }
  }
  cluster.RunSession();
  int a = 0;
  int b = 0;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (pod.spec.node_name.empty()) continue;
    (PodGroupNameOf(pod) == "a" ? a : b)++;
  }
  EXPECT_EQ(a, 3);
  EXPECT_EQ(b, 2);
}

}  // namespace
}  // namespace arbiter
