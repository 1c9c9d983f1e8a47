// The locality plugin (data locality with delay scheduling, docs/placement.md#data-locality) with
// allocate, on in-memory clusters of racks: one behaviour per test.
#include "arbiter/plugins/locality.h"

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arbiter/plugins/rack_test_util.h"
#include "arbiter/plugins/topology.h"
#include "arbiter/testing/fake_cluster.h"

namespace arbiter {
namespace {

using test_util::AddRacks;
using testing::FakeCluster;
using ::testing::HasSubstr;
using testing::MakePod;
using testing::MakePodGroup;
using testing::MakeQueue;

// A job of `size` pods of `cpu` whose data is on `nodes` (and `racks`).
void AddJob(FakeCluster& cluster, const std::string& name, int size, const std::string& cpu,
            std::vector<std::string> nodes, std::vector<std::string> racks = {},
            const std::string& queue = "default") {
  cluster.Add(MakePodGroup(name)
                  .MinMember(size)
                  .Queue(queue)
                  .Locality(std::move(nodes), std::move(racks))
                  .Build());
  for (int i = 0; i < size; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", cpu).Build());
  }
}

// A pod that fills `node` (8 cpu) and runs until deleted.
void Fill(FakeCluster& cluster, const std::string& node, const std::string& queue = "default") {
  cluster.Add(MakePodGroup("fill-" + node).Queue(queue).Build());
  cluster.Add(
      MakePod("fill-" + node).Group("fill-" + node).Request("cpu", "8").OnNode(node).Build());
}

// Where the group's pods are bound: node -> pods.
std::map<std::string, int> NodesOf(const FakeCluster& cluster, const std::string& group) {
  std::map<std::string, int> nodes;
  for (const auto& [uid, pod] : cluster.pods()) {
    if (PodGroupNameOf(pod) != group || pod.spec.node_name.empty()) continue;
    ++nodes[pod.spec.node_name];
  }
  return nodes;
}

std::string UnschedulableMessage(const FakeCluster& cluster, const std::string& group) {
  const Condition* c =
      FindCondition(cluster.group("default/" + group).status.conditions, "Unschedulable");
  return c == nullptr || c->status != "True" ? "" : c->message;
}

double Waited(const FakeCluster& cluster) {
  return std::chrono::duration<double>(cluster.now() - testing::TestEpoch()).count();
}

// Without hints the default scoring spreads over the emptiest nodes; with them the pods go on
// the nodes holding their data while those have room.
TEST(Locality, PodsGoOnTheNodesHoldingTheirData) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  AddJob(cluster, "g", 2, "2", {"b1"});
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g"), (std::map<std::string, int>{{"b1", 2}}));
}

// What was achieved is reported: the PodGroup's status.locality counts its pods by where they are
// against its data, and the session's result counts the binds (arbiter_locality_binds_total).
// b1 (8 cpu) holds 2 of the 3 pods of 3 cpu; the third goes to b0, in its rack, once the wait is
// over. A group naming no data has no status.locality.
TEST(Locality, WhatWasAchievedIsReported) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  AddJob(cluster, "g", 2, "3", {"b1"});
  cluster.Add(MakePodGroup("plain").Build());
  cluster.Add(MakePod("plain-0").Group("plain").Request("cpu", "1").Build());
  SessionResult first = cluster.RunSession();
  EXPECT_EQ(first.stats.locality_binds, (std::array<std::int64_t, 3>{2, 0, 0}));
  cluster.RunSession();
  EXPECT_EQ(cluster.group("default/g").status.locality, (LocalityStatus{2, 0, 0}));
  EXPECT_FALSE(cluster.group("default/plain").status.locality.has_value());

  cluster.Add(MakePod("g-2").Group("g").Request("cpu", "3").Build());
  std::array<std::int64_t, 3> binds{};
  while (NodesOf(cluster, "g").size() < 2 && Waited(cluster) < 60) {
    const SessionResult r = cluster.RunSession();
    for (std::size_t i = 0; i < binds.size(); ++i) binds[i] += r.stats.locality_binds[i];
  }
  EXPECT_EQ(binds, (std::array<std::int64_t, 3>{0, 1, 0}));
  cluster.RunSession();
  EXPECT_EQ(cluster.group("default/g").status.locality, (LocalityStatus{2, 1, 0}));
}

// Data in a rack (not on a node): the pods go in that rack.
TEST(Locality, ARackHintKeepsThePodsInTheRack) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  AddJob(cluster, "g", 4, "3", {}, {"b"});
  cluster.RunSession();
  const std::map<std::string, int> nodes = NodesOf(cluster, "g");
  int in_b = 0;
  for (const auto& [node, pods] : nodes) in_b += node.front() == 'b' ? pods : 0;
  EXPECT_EQ(in_b, 4);
}

// Delay scheduling: the node holding the data is full, so the job waits nodeWaitSeconds for it
// (saying so), then takes a node in the same rack (rack-local), not one in the other rack.
TEST(Locality, AJobWaitsForItsDataNodeThenTakesItsRack) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b1");
  AddJob(cluster, "g", 1, "4", {"b1"});
  cluster.RunSession();
  EXPECT_TRUE(NodesOf(cluster, "g").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "g"),
              HasSubstr("not holding the job's data (delay scheduling: it waits"));
  while (NodesOf(cluster, "g").empty() && Waited(cluster) < 60) cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g"), (std::map<std::string, int>{{"b0", 1}}));
  EXPECT_GE(Waited(cluster), 10);  // nodeWaitSeconds, the default
  EXPECT_LT(Waited(cluster), 20);
}

// When the data's node frees during the wait, the job gets it.
TEST(Locality, AJobGetsItsDataNodeWhenItFreesDuringTheWait) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b1");
  AddJob(cluster, "g", 1, "4", {"b1"});
  for (int s = 0; s < 3; ++s) cluster.RunSession();
  cluster.DeletePod("default/fill-b1");
  while (NodesOf(cluster, "g").empty() && Waited(cluster) < 60) cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g"), (std::map<std::string, int>{{"b1", 1}}));
  EXPECT_LT(Waited(cluster), 10);
}

// The wait counts from when room elsewhere could have taken the job, not from its creation:
// after 30 s of a full cluster, a node outside its data frees, and the job still waits for its
// data's node (which frees 5 s later) rather than taking that room at once (its clock started in
// the session that saw a0's room: the one after the delete, the pod's room freed).
TEST(Locality, TheWaitStartsWhenRoomElsewhereFrees) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  for (const char* node : {"a0", "a1", "b0", "b1"}) Fill(cluster, node);
  AddJob(cluster, "g", 1, "4", {"b1"});
  for (int s = 0; s < 30; ++s) cluster.RunSession();
  cluster.DeletePod("default/fill-a0");
  for (int s = 0; s < 5; ++s) cluster.RunSession();
  EXPECT_TRUE(NodesOf(cluster, "g").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "g"),
              HasSubstr("(delay scheduling: it waits 6s more for a node holding its data)"));
  cluster.DeletePod("default/fill-b1");
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g"), (std::map<std::string, int>{{"b1", 1}}));
}

// Its whole rack full too: after both waits it goes anywhere; the wait is bounded.
TEST(Locality, AJobGoesAnywhereAfterBothWaits) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b0");
  Fill(cluster, "b1");
  AddJob(cluster, "g", 1, "4", {"b1"});
  cluster.RunSession();
  while (NodesOf(cluster, "g").empty() && Waited(cluster) < 60) cluster.RunSession();
  const std::map<std::string, int> nodes = NodesOf(cluster, "g");
  ASSERT_EQ(nodes.size(), 1U);
  EXPECT_EQ(nodes.begin()->first.front(), 'a');
  EXPECT_GE(Waited(cluster), 20);  // nodeWaitSeconds + rackWaitSeconds
  EXPECT_LT(Waited(cluster), 30);
}

// Locality waiting must not starve a queue: q1 holds 24 cpu of 32, above its deserved share (16:
// q2 asks for as much), q2 holds nothing. q2's job does not wait for its data's node (full, in
// q1's hands): it takes the free room elsewhere at once.
TEST(Locality, WaitingForDataDoesNotStarveAQueueOwedItsShare) {
  FakeCluster cluster;
  cluster.Add(MakeQueue("q1"));
  cluster.Add(MakeQueue("q2"));
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b0", "q1");
  Fill(cluster, "b1", "q1");
  Fill(cluster, "a0", "q1");
  AddJob(cluster, "big", 1, "12", {}, {}, "q2");  // fits no node, but counts in q2's share
  AddJob(cluster, "g", 1, "4", {"b1"}, {}, "q2");
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g"), (std::map<std::string, int>{{"a1", 1}}));
}

// The same job in a queue not owed anything (alone in the cluster) waits for its data.
TEST(Locality, AQueueNotOwedItsShareWaits) {
  FakeCluster cluster;
  cluster.Add(MakeQueue("q2"));
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b0", "q2");
  Fill(cluster, "b1", "q2");
  Fill(cluster, "a0", "q2");
  AddJob(cluster, "g", 1, "4", {"b1"}, {}, "q2");
  cluster.RunSession();
  EXPECT_TRUE(NodesOf(cluster, "g").empty());
}

// Hints that name nothing in the cluster hold nothing: the job is placed at once.
TEST(Locality, HintsNamingNoNodeOfTheClusterAreIgnored) {
  FakeCluster cluster;
  AddRacks(cluster, 1, 1);
  AddJob(cluster, "g", 1, "4", {"elsewhere"}, {"nowhere"});
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "g").size(), 1U);
}

// A DataSet (blocks, each on the nodes holding a replica).
DataSet MakeDataSet(const std::string& name,
                    const std::vector<std::vector<std::string>>& block_nodes) {
  DataSet d;
  d.meta.name = name;
  d.meta.namespace_name = "default";
  d.meta.uid = "ds-" + name;
  for (std::size_t i = 0; i < block_nodes.size(); ++i) {
    d.blocks.push_back(DataBlock{"block-" + std::to_string(i), block_nodes[i]});
  }
  return d;
}

// A job of `size` pods of `cpu` that names the DataSet `data_set`.
void AddDataSetJob(FakeCluster& cluster, const std::string& name, int size, const std::string& cpu,
                   const std::string& data_set) {
  cluster.Add(MakePodGroup(name).MinMember(size).DataSetName(data_set).Build());
  for (int i = 0; i < size; ++i) {
    cluster.Add(MakePod(name + "-" + std::to_string(i)).Group(name).Request("cpu", cpu).Build());
  }
}

// A job naming a DataSet goes on the node holding most of its blocks, then on the next: b0 holds
// 3 blocks, a1 2, b1 1 (a block's replicas on a node count once).
TEST(Locality, ADataSetsBlocksSayWhichNodesHoldTheData) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  cluster.Add(MakeDataSet("clicks", {{"b0", "a1"}, {"b0", "b0", "a1"}, {"b0", "b1"}}));
  AddDataSetJob(cluster, "first", 1, "6", "clicks");
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "first"), (std::map<std::string, int>{{"b0", 1}}));
  AddDataSetJob(cluster, "second", 1, "6", "clicks");
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "second"), (std::map<std::string, int>{{"a1", 1}}));
  AddDataSetJob(cluster, "third", 1, "6", "clicks");
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "third"), (std::map<std::string, int>{{"b1", 1}}));
  EXPECT_EQ(cluster.group("default/third").status.locality, (LocalityStatus{1, 0, 0}));
}

// Delay scheduling holds a DataSet's job as it holds one with hints.
TEST(Locality, ADataSetJobWaitsForItsDataNode) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  Fill(cluster, "b1");
  cluster.Add(MakeDataSet("on-b1", {{"b1"}, {"b1"}}));
  AddDataSetJob(cluster, "held", 1, "4", "on-b1");
  cluster.RunSession();
  EXPECT_TRUE(NodesOf(cluster, "held").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "held"),
              HasSubstr("node(s) not holding the job's data (delay scheduling"));
  while (NodesOf(cluster, "held").empty() && Waited(cluster) < 60) cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "held"), (std::map<std::string, int>{{"b0", 1}}));  // its rack
}

// A DataSet not known yet (created just before its job, it may arrive later on its own watch)
// holds the job, saying so; once it is known the job goes on its data. One that never comes
// holds its job for nodeWaitSeconds + rackWaitSeconds (20 s by default), not for ever.
TEST(Locality, ADataSetNotKnownYetHoldsItsJobForTheWaitsOnly) {
  FakeCluster cluster;
  AddRacks(cluster, 2, 2);
  AddDataSetJob(cluster, "early", 1, "4", "clicks");
  cluster.RunSession();
  EXPECT_TRUE(NodesOf(cluster, "early").empty());
  EXPECT_THAT(UnschedulableMessage(cluster, "early"),
              HasSubstr("DataSet default/clicks not found (delay scheduling: it waits 20s more"));
  cluster.Add(MakeDataSet("clicks", {{"a1"}}));
  cluster.RunSession();
  EXPECT_EQ(NodesOf(cluster, "early"), (std::map<std::string, int>{{"a1", 1}}));

  const auto start = cluster.now();
  AddDataSetJob(cluster, "typo", 1, "4", "clickz");
  while (NodesOf(cluster, "typo").empty() && cluster.now() - start < std::chrono::seconds(60)) {
    cluster.RunSession();
  }
  EXPECT_EQ(NodesOf(cluster, "typo").size(), 1U);
  EXPECT_GE(cluster.now() - start, std::chrono::seconds(20));
  EXPECT_LT(cluster.now() - start, std::chrono::seconds(30));
}

TEST(LocalityPlugin, ArgumentsAreChecked) {
  EXPECT_TRUE(LocalityPlugin::Create(YAML::Load("{}")).ok());
  EXPECT_TRUE(
      LocalityPlugin::Create(YAML::Load("{weight: 5, nodeWaitSeconds: 3, rackWaitSeconds: 0, "
                                        "rackLabel: example.com/rack}"))
          .ok());
  StatusOr<std::unique_ptr<Plugin>> bad = LocalityPlugin::Create(YAML::Load("{weight: -1}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("plugin locality: arguments.weight"));
  bad = LocalityPlugin::Create(YAML::Load("{rackLabel: \"\"}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "plugin locality: arguments.rackLabel: must not be empty");
  bad = LocalityPlugin::Create(YAML::Load("{nodeWait: 3}"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("nodeWait"));
}

}  // namespace
}  // namespace arbiter
