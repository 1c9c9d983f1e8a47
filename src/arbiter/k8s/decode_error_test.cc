// Malformed objects: each is rejected with an error naming the object and the JSON path, and
// none crashes the decoder.
#include <string>

#include <gtest/gtest.h>

#include "arbiter/k8s/decode.h"
#include "arbiter/k8s/decode_test_util.h"

namespace arbiter::k8s {
namespace {

using test_util::Decode;

struct ErrorCase {
  std::string name;
  std::string json;
  std::string error;  // the expected message, or its beginning when it ends with "..."
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class DecodePodErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(DecodePodErrorTest, NamesObjectAndField) {
  const ErrorCase& c = GetParam();
  StatusOr<Pod> pod = Decode<Pod>(c.json);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.status().code(), StatusCode::kInvalidArgument);
  if (c.error.ends_with("...")) {
    EXPECT_EQ(pod.status().message().substr(0, c.error.size() - 3),
              c.error.substr(0, c.error.size() - 3))
        << pod.status().message();
  } else {
    EXPECT_EQ(pod.status().message(), c.error);
  }
}

// Wraps a pod spec fragment in a named pod.
std::string PodWithSpec(const std::string& spec) {
  return R"({"metadata": {"namespace": "ns", "name": "web-0"}, "spec": )" + spec + "}";
}

std::string PodWithRequests(const std::string& requests) {
  return PodWithSpec(R"({"containers": [{"name": "c", "resources": {"requests": )" + requests +
                     "}}]}");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodePodErrorTest,
    ::testing::Values(
        ErrorCase{"BadQuantitySuffix", PodWithRequests(R"({"cpu": "1K"})"),
                  "pod ns/web-0: spec.containers[0].resources.requests.cpu: quantity \"1K\": "
                  "unknown suffix..."},
        ErrorCase{"NegativeQuantity", PodWithRequests(R"({"memory": "-1Gi"})"),
                  "pod ns/web-0: spec.containers[0].resources.requests.memory: negative quantity "
                  "-1Gi"},
        ErrorCase{"QuantityOfWrongType", PodWithRequests(R"({"cpu": true})"),
                  "pod ns/web-0: spec.containers[0].resources.requests.cpu: expected a quantity "
                  "(string or number), got boolean"},
        ErrorCase{"QuantityTooLarge", PodWithRequests(R"({"memory": "1e40"})"),
                  "pod ns/web-0: spec.containers[0].resources.requests.memory: resource memory: "
                  "quantity..."},
        ErrorCase{"RequestsNotAnObject", PodWithRequests(R"(["cpu"])"),
                  "pod ns/web-0: spec.containers[0].resources.requests: expected an object, got "
                  "array"},
        ErrorCase{"ContainersNotAnArray", PodWithSpec(R"({"containers": {"name": "c"}})"),
                  "pod ns/web-0: spec.containers: expected an array, got object"},
        ErrorCase{"PriorityNotAnInteger", PodWithSpec(R"({"priority": "high"})"),
                  "pod ns/web-0: spec.priority: expected an integer, got string"},
        ErrorCase{"PriorityAFraction", PodWithSpec(R"({"priority": 1.5})"),
                  "pod ns/web-0: spec.priority: expected an integer, got number"},
        ErrorCase{"PriorityOutOfInt32", PodWithSpec(R"({"priority": 3000000000})"),
                  "pod ns/web-0: spec.priority: integer 3000000000 out of int32 range"},
        ErrorCase{"HostPortOutOfRange", PodWithSpec(R"({"containers": [{"name": "c"}, {"name": "d",
                      "ports": [{"containerPort": 1}, {"hostPort": 70000}]}]})"),
                  "pod ns/web-0: spec.containers[1].ports[1].hostPort: port 70000 out of range"},
        ErrorCase{"UnknownTolerationOperator",
                  PodWithSpec(R"({"tolerations": [{"key": "a", "operator": "Equals"}]})"),
                  "pod ns/web-0: spec.tolerations[0].operator: unknown operator \"Equals\" (want "
                  "Equal or Exists)"},
        ErrorCase{"UnknownAffinityOperator", PodWithSpec(R"({"affinity": {"nodeAffinity": {
                      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                      {"matchExpressions": [{"key": "a", "operator": "Near"}]}]}}}})"),
                  "pod ns/web-0: spec.affinity.nodeAffinity."
                  "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
                  "matchExpressions[0].operator: unknown operator \"Near\"..."},
        ErrorCase{"LabelNotAString",
                  R"({"metadata": {"namespace": "ns", "name": "p", "labels": {"app": 1}}})",
                  "pod ns/p: metadata.labels.app: expected a string, got number"},
        ErrorCase{"BadTimestamp",
                  R"({"metadata": {"name": "p", "creationTimestamp": "yesterday"}})",
                  "pod p: metadata.creationTimestamp: time \"yesterday\": not RFC 3339..."},
        ErrorCase{"NoSuchDate",
                  R"({"metadata": {"name": "p", "creationTimestamp": "2023-02-29T00:00:00Z"}})",
                  "pod p: metadata.creationTimestamp: time \"2023-02-29T00:00:00Z\": no such "
                  "date"},
        // Found by decode_fuzz (corpus: regression-time-out-of-range): the int64 count of
        // nanoseconds overflowed instead of the time being rejected.
        ErrorCase{"TimestampOutOfRange",
                  R"({"metadata": {"name": "p", "creationTimestamp": "1012-05-01T10:00:00Z"}})",
                  "pod p: metadata.creationTimestamp: time \"1012-05-01T10:00:00Z\": outside the "
                  "years 1677 to 2262 that Arbiter can hold"},
        ErrorCase{"MissingName", R"({"metadata": {"namespace": "ns"}, "spec": {}})",
                  "pod (unnamed in namespace ns): metadata.name: missing"},
        ErrorCase{"NoMetadata", R"({"spec": {}})", "pod (unnamed): metadata.name: missing"},
        ErrorCase{"NameNotAString", R"({"metadata": {"name": 7}})",
                  "pod (unnamed): metadata.name: expected a string, got number"},
        ErrorCase{"NotAnObject", R"(["pod"])", "pod (unnamed): expected an object, got array"},
        ErrorCase{"MetadataAfterTheError",
                  R"({"spec": {"containers": [{"resources": {"requests": {"cpu": "x"}}}]},
                      "metadata": {"namespace": "late", "name": "named-later"}})",
                  "pod late/named-later: spec.containers[0].resources.requests.cpu: quantity "
                  "\"x\"..."},
        ErrorCase{"Truncated", R"({"metadata": {"name": "p"}, "spec": {"containers": [)",
                  "pod p: spec.containers[0]: expected an object, got invalid JSON"}),
    [](const ::testing::TestParamInfo<ErrorCase>& case_info) { return case_info.param.name; });

TEST(DecodeErrorTest, GarbageIsAnErrorNotACrash) {
  for (std::string_view json :
       {"", "null", "42", R"("pod")", "{", "}", R"({"metadata":)", R"({"metadata": {"name": }})",
        R"({"metadata": {"name": "p"}} trailing)", "[[[[[[", R"({"a":[1,2,{"b":}]})",
        R"({"metadata": {"name": "p\u00"}})"}) {
    StatusOr<Pod> pod = Decode<Pod>(json);
    if (pod.ok()) {
      EXPECT_EQ(pod->meta.name, "p") << json;
    } else {
      EXPECT_FALSE(pod.status().message().empty()) << json;
    }
  }
}

TEST(DecodeErrorTest, PodGroupMinMemberMustBePositive) {
  StatusOr<PodGroup> group = Decode<PodGroup>(
      R"({"metadata": {"namespace": "ml", "name": "g"}, "spec": {"minMember": 0}})");
  ASSERT_FALSE(group.ok());
  EXPECT_EQ(group.status().message(), "podgroup ml/g: spec.minMember: must be at least 1, got 0");
}

TEST(DecodeErrorTest, PodGroupUnknownPhase) {
  StatusOr<PodGroup> group = Decode<PodGroup>(
      R"({"metadata": {"namespace": "ml", "name": "g"}, "status": {"phase": "Done"}})");
  ASSERT_FALSE(group.ok());
  EXPECT_EQ(group.status().message().substr(0, 47),
            "podgroup ml/g: status.phase: unknown phase \"Don");
}

TEST(DecodeErrorTest, QueueWeightMustBePositive) {
  StatusOr<Queue> queue = Decode<Queue>(R"({"metadata": {"name": "q"}, "spec": {"weight": -2}})");
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().message(), "queue q: spec.weight: must be at least 1, got -2");
}

TEST(DecodeErrorTest, QueueQuotaEnforceMustBeKnown) {
  StatusOr<Queue> queue =
      Decode<Queue>(R"({"metadata": {"name": "q"}, "spec": {"quota": {"enforce": "Always"}}})");
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().message(),
            "queue q: spec.quota.enforce: unknown value \"Always\" (want None, Capability or "
            "Deserved)");
}

TEST(DecodeErrorTest, QueueSelectorExpressionsAreValidated) {
  StatusOr<Queue> queue = Decode<Queue>(R"({"metadata": {"name": "q"}, "spec": {
    "namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "In"}]}}})");
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().message(),
            "queue q: spec.namespaceSelector.matchExpressions[0].values: In needs values");
}

TEST(DecodeErrorTest, QueueUnknownState) {
  StatusOr<Queue> queue =
      Decode<Queue>(R"({"metadata": {"name": "q"}, "spec": {"state": "Shut"}})");
  ASSERT_FALSE(queue.ok());
  EXPECT_EQ(queue.status().message(),
            "queue q: spec.state: unknown state \"Shut\" (want Open or Closed)");
}

}  // namespace
}  // namespace arbiter::k8s
