// Clusters of racks for the placement plugins' tests (topology, locality).
#pragma once

#include <string>
#include <utility>

#include "arbiter/plugins/topology.h"
#include "arbiter/testing/builders.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter::test_util {

// Nodes of 8 cpu: rack "a" of `a` nodes (a0, a1...), rack "b" of `b` nodes, labelled with the
// topology plugin's default rack label.
inline void AddRacks(testing::FakeCluster& cluster, int a, int b) {
  for (auto [rack, n] : {std::pair{"a", a}, std::pair{"b", b}}) {
    for (int i = 0; i < n; ++i) {
      cluster.Add(testing::MakeNode(std::string(rack) + std::to_string(i))
                      .Cpu("8")
                      .Label(std::string(kDefaultRackLabel), rack)
                      .Build());
    }
  }
}

}  // namespace arbiter::test_util
