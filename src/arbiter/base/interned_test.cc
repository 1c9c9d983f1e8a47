#include "arbiter/base/interned.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(InternedStringTest, EqualTextIsTheSameStringOnce) {
  const std::string text = "app.kubernetes.io/instance";
  const InternedString a(text);
  const InternedString b(std::string_view("app.kubernetes.io/instance"));
  EXPECT_TRUE(a.interned());
  EXPECT_EQ(a.data(), b.data());  // one copy in the table
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "app.kubernetes.io/instance");
  EXPECT_EQ(a, text);
  EXPECT_EQ(a.str(), text);
  EXPECT_NE(a, InternedString("app.kubernetes.io/name"));
}

TEST(InternedStringTest, OrdersByContentAsStringsDo) {
  const InternedString z("zone"), a("arch"), empty;
  EXPECT_LT(a, z);
  EXPECT_LT(empty, a);
  EXPECT_LT(a, std::string_view("b"));
  EXPECT_GT(z, std::string("y"));
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty, InternedString(""));
  EXPECT_EQ(empty.size(), 0U);
}

TEST(InternedStringTest, CopiesAndMovesKeepTheText) {
  InternedString a("kubernetes.io/hostname");
  InternedString b = a;
  InternedString c = std::move(a);
  EXPECT_EQ(b, "kubernetes.io/hostname");
  EXPECT_EQ(c, "kubernetes.io/hostname");
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from handle is empty
  a = c;
  EXPECT_EQ(a, c);
}

TEST(InternedStringTest, ConcatenatesAsAStringDoes) {
  const InternedString ns("team-a");
  EXPECT_EQ(ns + "/" + "pod-1", "team-a/pod-1");
  EXPECT_EQ(std::string("ns ") + ns, "ns team-a");
  EXPECT_EQ("namespace " + ns, "namespace team-a");
  EXPECT_EQ(ns + std::string_view("/x"), "team-a/x");
  EXPECT_EQ(InternedString() + "/x", "/x");
}

TEST(InternedStringTest, ThreadsInterningTheSameTextsGetTheSameStrings) {
  std::vector<std::vector<const char*>> seen(4);
  std::vector<std::thread> threads;
  threads.reserve(seen.size());
  for (std::vector<const char*>& mine : seen) {
    threads.emplace_back([&mine] {
      for (int round = 0; round < 200; ++round) {
        for (int k = 0; k < 50; ++k) {
          const InternedString s("example.com/key-" + std::to_string(k));
          if (round == 0) mine.push_back(s.data());
          ASSERT_EQ(s.data(), mine[static_cast<std::size_t>(k)]);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t t = 1; t < seen.size(); ++t) EXPECT_EQ(seen[t], seen[0]);
}

// Once the table holds kInternTableBytes, new strings are owned by their handles: equal by
// content still, copied with the handle, and the table stops growing. Last in the file: it
// fills the table of the process it runs in.
TEST(InternedStringTest, AFullTableLeavesNewStringsToTheirHandles) {
  const std::string filler(4096, 'x');
  std::size_t i = 0;
  while (InternedString::Stats().bytes + filler.size() + 16 <= kInternTableBytes) {
    const InternedString s(filler + std::to_string(i++));
    ASSERT_TRUE(s.interned());
  }
  const InternedString top(std::string(kInternTableBytes - InternedString::Stats().bytes, 'y'));
  ASSERT_TRUE(top.interned());
  const InternedString::TableStats full = InternedString::Stats();
  ASSERT_EQ(full.bytes, kInternTableBytes);
  const std::string fresh = filler + "-beyond-the-cap";
  InternedString owned(fresh);
  EXPECT_FALSE(owned.interned());
  EXPECT_EQ(owned, fresh);
  EXPECT_EQ(owned, InternedString(fresh));
  InternedString copy = owned;
  EXPECT_FALSE(copy.interned());
  EXPECT_NE(copy.data(), owned.data());
  EXPECT_EQ(copy, owned);
  EXPECT_FALSE(InternedString("zz").interned());  // not even a short one fits
  // Strings the table already holds are still found.
  owned = InternedString(filler + "0");  // an owned copy released for an interned one
  EXPECT_TRUE(owned.interned());
  EXPECT_EQ(InternedString::Stats().bytes, full.bytes);
}

}  // namespace
}  // namespace arbiter
