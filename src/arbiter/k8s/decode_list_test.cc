// Lists (an item that fails is skipped and reported; the others are kept) and watch events.
#include <gtest/gtest.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::DecodeEventLine;
using test_util::DecodeListOf;

std::string PodJson(const std::string& name, const std::string& cpu) {
  return R"({"metadata": {"namespace": "ml", "name": ")" + name +
         R"(", "resourceVersion": "10"}, "spec": {"containers": [{"name": "c",
         "resources": {"requests": {"cpu": ")" +
         cpu + R"("}}}]}, "status": {"phase": "Pending"}})";
}

TEST(DecodeListTest, ReadsItemsAndListMetadata) {
  std::string json = R"({"kind": "PodList", "apiVersion": "v1",
    "metadata": {"resourceVersion": "48213", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
                 "remainingItemCount": 1200}, "items": [)" +
                     PodJson("a", "100m") + "," + PodJson("b", "2") + "]}";
  StatusOr<ObjectList<Pod>> list = DecodeListOf<Pod>(json);
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->resource_version, "48213");
  EXPECT_EQ(list->continue_token, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
  ASSERT_EQ(list->items.size(), 2U);
  EXPECT_EQ(list->items[0].meta.name, "a");
  EXPECT_EQ(list->items[1].spec.containers[0].requests.Get("cpu"), 2000);
  EXPECT_TRUE(list->errors.empty());
}

TEST(DecodeListTest, NamespacesAndResourceNamesAreKeptOnce) {
  std::string json = R"({"kind": "PodList", "metadata": {}, "items": [)" + PodJson("a", "1") + "," +
                     PodJson("b", "2") + R"(, {"metadata": {"namespace": "m\u006c",
                     "name": "c"}}]})";
  StatusOr<ObjectList<Pod>> list = DecodeListOf<Pod>(json);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 3U);
  const ObjectMeta& a = list->items[0].meta;
  EXPECT_EQ(a.namespace_name, "ml");
  EXPECT_TRUE(a.namespace_name.interned());
  EXPECT_EQ(a.Key(), "ml/a");
  EXPECT_EQ(list->items[1].meta.namespace_name.data(), a.namespace_name.data());
  EXPECT_EQ(list->items[2].meta.namespace_name.data(), a.namespace_name.data());  // unescaped
  EXPECT_EQ(list->items[1].spec.containers[0].requests.entries()[0].name.data(),
            list->items[0].spec.containers[0].requests.entries()[0].name.data());
}

TEST(DecodeListTest, BadItemIsSkippedAndReportedOthersKept) {
  std::string json = R"({"kind": "PodList", "metadata": {"resourceVersion": "7"}, "items": [)" +
                     PodJson("good-1", "1") + "," + PodJson("bad", "1K") + "," +
                     PodJson("good-2", "500m") + "]}";
  StatusOr<ObjectList<Pod>> list = DecodeListOf<Pod>(json);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 2U);
  EXPECT_EQ(list->items[0].meta.name, "good-1");
  EXPECT_EQ(list->items[1].meta.name, "good-2");
  EXPECT_EQ(list->items[1].spec.containers[0].requests.Get("cpu"), 500);
  ASSERT_EQ(list->errors.size(), 1U);
  EXPECT_TRUE(list->errors[0].message().starts_with(
      "pod ml/bad: spec.containers[0].resources.requests.cpu: quantity \"1K\": unknown suffix"))
      << list->errors[0];
  EXPECT_EQ(list->resource_version, "7");
}

TEST(DecodeListTest, SeveralKindsOfBadItems) {
  std::string json = R"({"metadata": {"resourceVersion": "8"}, "items": [
    "not an object",
    {"metadata": {"namespace": "ml"}},
    {"metadata": {"namespace": "ml", "name": "typed"}, "spec": {"priority": "x"}},
    )" + PodJson("ok", "1") +
                     R"(,
    {"metadata": {"namespace": "ml", "name": "deep"}, "spec": {"containers": [{"name": "c",
      "resources": {"requests": {"cpu": {"nested": [1, 2, {"x": "y"}]}}}}],
      "tolerations": [{"key": "k"}]}, "status": {"phase": "Running"}}
  ]})";
  StatusOr<ObjectList<Pod>> list = DecodeListOf<Pod>(json);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1U);
  EXPECT_EQ(list->items[0].meta.name, "ok");
  ASSERT_EQ(list->errors.size(), 4U);
  EXPECT_EQ(list->errors[0].message(), "items[0]: pod (unnamed): expected an object, got string");
  EXPECT_EQ(list->errors[1].message(),
            "items[1]: pod (unnamed in namespace ml): metadata.name: missing");
  EXPECT_EQ(list->errors[2].message(),
            "pod ml/typed: spec.priority: expected an integer, got string");
  EXPECT_EQ(list->errors[3].message(),
            "pod ml/deep: spec.containers[0].resources.requests.cpu: expected a quantity (string "
            "or number), got object");
}

TEST(DecodeListTest, EmptyAndNullItems) {
  StatusOr<ObjectList<Node>> empty = DecodeListOf<Node>(
      R"({"kind": "NodeList", "metadata": {"resourceVersion": "1"}, "items": []})");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->items.empty());
  StatusOr<ObjectList<Node>> null_items =
      DecodeListOf<Node>(R"({"metadata": {"resourceVersion": "1"}, "items": null})");
  ASSERT_TRUE(null_items.ok()) << null_items.status();
  EXPECT_EQ(null_items->resource_version, "1");
}

TEST(DecodeListTest, MalformedJsonFailsTheWholeList) {
  for (std::string_view json : {"", "[]", R"({"items": {}})", R"({"items": [)",
                                R"({"items": [{"metadata": {"name": "a"}},)"}) {
    StatusOr<ObjectList<Pod>> list = DecodeListOf<Pod>(json);
    EXPECT_FALSE(list.ok()) << json;
  }
}

TEST(DecodeListTest, ListsOfArbiterKinds) {
  StatusOr<ObjectList<Queue>> queues = DecodeListOf<Queue>(R"({"kind": "QueueList",
    "metadata": {"resourceVersion": "5"}, "items": [
      {"metadata": {"name": "default"}, "spec": {"weight": 1}},
      {"metadata": {"name": "bad"}, "spec": {"weight": 0}},
      {"metadata": {"name": "research"}, "spec": {"weight": 4}}]})");
  ASSERT_TRUE(queues.ok()) << queues.status();
  ASSERT_EQ(queues->items.size(), 2U);
  EXPECT_EQ(queues->items[1].spec.weight, 4);
  ASSERT_EQ(queues->errors.size(), 1U);
  EXPECT_EQ(queues->errors[0].message(), "queue bad: spec.weight: must be at least 1, got 0");
}

TEST(DecodeWatchEventTest, AddedModifiedDeletedCarryTheObject) {
  StatusOr<WatchEvent<Pod>> added =
      DecodeEventLine<Pod>(R"({"type": "ADDED", "object": )" + PodJson("a", "1") + "}");
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->type, WatchEventType::kAdded);
  EXPECT_EQ(added->object.meta.name, "a");
  EXPECT_EQ(added->resource_version, "10");

  // The object before the type: field order does not matter.
  StatusOr<WatchEvent<Pod>> deleted =
      DecodeEventLine<Pod>(R"({"object": )" + PodJson("b", "1") + R"(, "type": "DELETED"})");
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(deleted->type, WatchEventType::kDeleted);
  EXPECT_EQ(deleted->object.meta.name, "b");

  StatusOr<WatchEvent<Pod>> modified =
      DecodeEventLine<Pod>(R"({"type": "MODIFIED", "object": )" + PodJson("c", "1") + "}");
  ASSERT_TRUE(modified.ok()) << modified.status();
  EXPECT_EQ(modified->type, WatchEventType::kModified);
}

TEST(DecodeWatchEventTest, BookmarkCarriesOnlyTheResourceVersion) {
  StatusOr<WatchEvent<Pod>> bookmark = DecodeEventLine<Pod>(R"({"type": "BOOKMARK",
    "object": {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "12345",
    "annotations": {"k8s.io/initial-events-end": "true"}}, "spec": {"containers": null},
    "status": {}}})");
  ASSERT_TRUE(bookmark.ok()) << bookmark.status();
  EXPECT_EQ(bookmark->type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark->resource_version, "12345");
}

TEST(DecodeWatchEventTest, ErrorCarriesTheStatus) {
  StatusOr<WatchEvent<Node>> error = DecodeEventLine<Node>(R"json({"type": "ERROR", "object": {
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "too old resource version: 100 (48213)", "reason": "Expired", "code": 410}})json");
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_EQ(error->type, WatchEventType::kError);
  EXPECT_EQ(error->error,
            (ApiStatus{410, "Failure", "Expired", "too old resource version: 100 (48213)"}));
}

TEST(DecodeWatchEventTest, MalformedEventsAreErrors) {
  EXPECT_EQ(DecodeEventLine<Pod>(R"({"type": "RENAMED", "object": {}})").status().message(),
            "watch event: unknown type \"RENAMED\"");
  EXPECT_EQ(DecodeEventLine<Pod>(R"({"object": {}})").status().message(),
            "watch event: type: missing");
  EXPECT_EQ(DecodeEventLine<Pod>(R"({"type": "ADDED"})").status().message(),
            "watch event: object: missing");
  EXPECT_EQ(DecodeEventLine<Pod>(R"({"type": 1, "object": {}})").status().message(),
            "watch event: type: expected a string, got number");
  EXPECT_EQ(
      DecodeEventLine<Pod>(R"({"type": "ADDED", "object": )" + PodJson("x", "-1") + "}")
          .status()
          .message(),
      "watch event: pod ml/x: spec.containers[0].resources.requests.cpu: negative quantity -1");
  for (std::string_view json : {"", "{", "[]", R"({"type": "ADDED", "object": [1,2]})"}) {
    EXPECT_FALSE(DecodeEventLine<Pod>(json).ok()) << json;
  }
}

// A refused watch streams a Status, not events: the reflector reports it with the HTTP status
// instead of as a malformed event ("type: missing").
TEST(DecodeWatchEventTest, AStatusBodyIsRecognised) {
  EXPECT_EQ(StatusMessageOf(R"({"kind": "Status", "apiVersion": "v1", "metadata": {},
    "status": "Failure", "message": "too many requests", "reason": "TooManyRequests",
    "code": 429})"),
            "TooManyRequests: too many requests");
  EXPECT_EQ(StatusMessageOf(R"({"kind": "Status", "message": "forbidden"})"), "forbidden");
  EXPECT_EQ(StatusMessageOf(R"({"kind": "Status"})"), "Status");
  EXPECT_EQ(StatusMessageOf(R"({"object": {}})"), std::nullopt);
  EXPECT_EQ(StatusMessageOf(R"({"kind": "Pod"})"), std::nullopt);
  EXPECT_EQ(StatusMessageOf("not json"), std::nullopt);
  EXPECT_EQ(StatusMessageOf(""), std::nullopt);
}

TEST(DecodeWatchEventTest, TypeNames) {
  EXPECT_EQ(WatchEventTypeName(WatchEventType::kBookmark), "BOOKMARK");
  EXPECT_EQ(WatchEventTypeName(WatchEventType::kError), "ERROR");
}

}  // namespace
}  // namespace arbiter::k8s
