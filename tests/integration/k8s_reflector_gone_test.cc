// A reflector whose resourceVersion was compacted away while it was stopped re-lists, delivers
// synthetic deletes for what vanished meanwhile, and ends equal to a fresh LIST. Runs on a
// cluster of its own whose API server has no watch cache (--watch-cache=false), so that watches
// go to etcd and etcd's compaction is what the reflector meets (tests/CMakeLists.txt).
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "reflector_fixture.h"

namespace arbiter::k8s {
namespace {

using ReflectorGoneTest = ReflectorTestBase;
using Strings = std::vector<std::string>;

// Compacts etcd at its current revision, with the cluster's etcdctl.
void CompactEtcd(const std::filesystem::path& cluster_dir) {
  std::string env = testing_support::ReadFile(cluster_dir / "cluster.env");
  auto value = [&env](const std::string& key) {
    std::size_t at = env.find(key + "=");
    return env.substr(at + key.size() + 1, env.find('\n', at) - at - key.size() - 1);
  };
  std::string etcdctl = value("BIN_DIR") + "/etcdctl --endpoints=" + value("ETCD_URL");
  std::string command = etcdctl + " endpoint status -w fields | awk '/\"Revision\"/ {print $3}'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[64] = {};
  ASSERT_NE(std::fgets(buf, sizeof(buf), pipe), nullptr);
  pclose(pipe);
  std::string revision(buf);
  while (!revision.empty() && (revision.back() == '\n' || revision.back() == ' ')) {
    revision.pop_back();
  }
  ASSERT_FALSE(revision.empty());
  ASSERT_EQ(std::system((etcdctl + " compact " + revision + " >/dev/null").c_str()), 0);
}

TEST_F(ReflectorGoneTest, RelistsAfterCompactionWithSyntheticDeletes) {
  EventLog log;
  ListWatchOptions options;
  options.path = PodsPath();
  Reflector<Pod> reflector(*transport_, options, log.Handlers<Pod>());
  Running first(reflector);
  ASSERT_TRUE(WaitUntil([&] { return reflector.HasSynced(); }));
  CreatePod("stays");
  CreatePod("goes");
  ASSERT_TRUE(WaitUntil([&] { return Store(reflector) == FreshList(); }));
  first.Stop();
  std::string stale = reflector.last_resource_version();

  // While it is away: one pod goes, one comes, and etcd forgets the history in between.
  DeletePod("goes");
  CreatePod("comes");
  CompactEtcd(cluster_dir_);

  Running second(reflector);
  ASSERT_TRUE(WaitUntil([&] { return Store(reflector) == FreshList(); }))
      << "store never matched a fresh LIST";
  second.Stop();

  EXPECT_EQ(reflector.lists(), 2) << "resuming from " << stale << " should have forced a LIST";
  EXPECT_EQ(log.About("goes"), (Strings{"add goes", "delete goes"}));
  EXPECT_EQ(log.About("comes"), (Strings{"add comes"}));
  EXPECT_EQ(log.About("stays"), (Strings{"add stays"}));
}

}  // namespace
}  // namespace arbiter::k8s
