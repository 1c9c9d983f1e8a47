// Reflectors on the real API server: pods and nodes seen in order, the store equal to a fresh
// LIST, watches that end normally resumed without a LIST, and Stop() on an idle watch.
#include <thread>

#include "reflector_fixture.h"

#include "arbiter/model/node.h"

namespace arbiter::k8s {
namespace {

using ReflectorTest = ReflectorTestBase;
using Strings = std::vector<std::string>;

TEST_F(ReflectorTest, SeesPodChangesInOrderAndEqualsAFreshList) {
  CreatePod("before");  // exists before the reflector starts: delivered by the LIST
  EventLog log;
  ListWatchOptions options;
  options.path = PodsPath();
  options.page_size = 2;  // several pages even for a few pods
  Reflector<Pod> reflector(*transport_, options, log.Handlers<Pod>());
  Running runner(reflector);
  ASSERT_TRUE(WaitUntil([&] { return reflector.HasSynced(); }))
      << testing::PrintToString(log.Events());

  CreatePod("a");
  CreatePod("b");
  CreatePod("c");
  LabelPod("a", "1");
  LabelPod("a", "2");
  DeletePod("b");
  ASSERT_TRUE(WaitUntil([&] { return Store(reflector) == FreshList(); }))
      << "store never matched a fresh LIST: " << testing::PrintToString(Store(reflector)) << " vs "
      << testing::PrintToString(FreshList()) << "; events " << testing::PrintToString(log.Events());
  runner.Stop();

  EXPECT_EQ(log.About("before"), (Strings{"add before"}));
  EXPECT_EQ(log.About("a"), (Strings{"add a", "update a", "update a"}));
  // kwok marks nothing here (no node), but deletion goes through a graceful update first.
  Strings b = log.About("b");
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front(), "add b");
  EXPECT_EQ(b.back(), "delete b");
  EXPECT_EQ(log.About("c"), (Strings{"add c"}));
  EXPECT_EQ(reflector.lists(), 1);
  std::optional<Pod> a = reflector.Get(ns_ + "/a");
  ASSERT_TRUE(a.has_value());
  if (a) {  // a guard clang-tidy can follow (it does not see through ASSERT_TRUE)
    EXPECT_EQ(a->meta.labels.at("step"), "2");
  }
  EXPECT_FALSE(reflector.Get(ns_ + "/b").has_value());
}

TEST_F(ReflectorTest, ResumesEndedWatchesWithoutListing) {
  EventLog log;
  ListWatchOptions options;
  options.path = PodsPath();
  options.min_watch_timeout = std::chrono::seconds(1);  // watches end every 1-2 s
  Reflector<Pod> reflector(*transport_, options, log.Handlers<Pod>());
  Running runner(reflector);
  ASSERT_TRUE(WaitUntil([&] { return reflector.HasSynced(); }));
  for (int i = 0; i < 3; ++i) {
    CreatePod("p" + std::to_string(i));
    // Let the watch that saw this pod end and the next one start before the next pod.
    int started = reflector.watches();
    ASSERT_TRUE(WaitUntil([&] { return reflector.watches() > started; }));
  }
  ASSERT_TRUE(WaitUntil([&] { return Store(reflector) == FreshList(); }));
  runner.Stop();
  EXPECT_EQ(reflector.lists(), 1);
  EXPECT_GE(reflector.watches(), 4);
  EXPECT_EQ(log.Events(), (Strings{"add p0", "add p1", "add p2"}));
}

TEST_F(ReflectorTest, StopEndsAnIdleWatch) {
  EventLog log;
  ListWatchOptions options;
  options.path = PodsPath();
  Reflector<Pod> reflector(*transport_, options, log.Handlers<Pod>());
  Running runner(reflector);
  ASSERT_TRUE(WaitUntil([&] { return reflector.HasSynced(); }));
  runner.Stop();  // returns although the server would keep the watch open for minutes
  SUCCEED();
}

TEST_F(ReflectorTest, SeesNodesAddedAndRemoved) {
  EventLog log;
  ListWatchOptions options;
  options.path = "/api/v1/nodes";
  options.label_selector = "reflector-test=" + ns_;
  Reflector<Node> reflector(*transport_, options, log.Handlers<Node>());
  Running runner(reflector);
  ASSERT_TRUE(WaitUntil([&] { return reflector.HasSynced(); }));
  nlohmann::json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", ns_ + "-node"}, {"labels", {{"reflector-test", ns_}}}}},
  };
  ASSERT_TRUE(api_->Create("/api/v1/nodes", node.dump()).ok());
  ASSERT_TRUE(WaitUntil([&] { return reflector.Get(ns_ + "-node").has_value(); }));
  ASSERT_TRUE(api_->Delete("/api/v1/nodes/" + ns_ + "-node").ok());
  ASSERT_TRUE(WaitUntil([&] { return reflector.List().empty(); }));
  runner.Stop();
  Strings seen = log.About(ns_ + "-node");
  ASSERT_GE(seen.size(), 2U);
  EXPECT_EQ(seen.front(), "add " + ns_ + "-node");
  EXPECT_EQ(seen.back(), "delete " + ns_ + "-node");
}

}  // namespace
}  // namespace arbiter::k8s
