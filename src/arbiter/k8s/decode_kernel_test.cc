// The two builds of the readers (decode.h DecodeKernel): the AVX2 one is what decodes on a CPU
// that has it, and both give the same objects, the same skipped items and the same errors.
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "arbiter/k8s/decode.h"

namespace arbiter::k8s {
namespace {

// Restores the kernel a test found, so that the other tests of the binary decode as they would.
class DecodeKernelTest : public ::testing::Test {
 protected:
  void TearDown() override { SetDecodeKernel(saved_); }

  // Every kernel this build and CPU offer, the portable one first.
  static std::vector<DecodeKernel> Kernels() {
    std::vector<DecodeKernel> kernels = {DecodeKernel::kPortable};
    const DecodeKernel before = ActiveDecodeKernel();
    if (SetDecodeKernel(DecodeKernel::kAvx2)) kernels.push_back(DecodeKernel::kAvx2);
    SetDecodeKernel(before);
    return kernels;
  }

 private:
  DecodeKernel saved_ = ActiveDecodeKernel();
};

bool CpuRunsSimdjsonAvx2Kernel() {
  const std::string& name = simdjson::get_active_implementation()->name();
  return name == "haswell" || name == "icelake";
}

#if ARBITER_DECODE_AVX2
constexpr bool kBuiltWithAvx2 = true;
#else
constexpr bool kBuiltWithAvx2 = false;
#endif

TEST_F(DecodeKernelTest, TheAvx2BuildDecodesWhereBuiltAndSupported) {
  const bool expected = kBuiltWithAvx2 && CpuRunsSimdjsonAvx2Kernel();
  EXPECT_EQ(ActiveDecodeKernel(), expected ? DecodeKernel::kAvx2 : DecodeKernel::kPortable)
      << "simdjson kernel: " << simdjson::get_active_implementation()->name();
  EXPECT_EQ(SetDecodeKernel(DecodeKernel::kAvx2), expected);
  EXPECT_TRUE(SetDecodeKernel(DecodeKernel::kPortable));
  EXPECT_EQ(ActiveDecodeKernel(), DecodeKernel::kPortable);
  EXPECT_EQ(DecodeKernelName(DecodeKernel::kAvx2), "avx2");
  EXPECT_EQ(DecodeKernelName(DecodeKernel::kPortable), "portable");
}

std::vector<std::string> Messages(const std::vector<Status>& errors) {
  std::vector<std::string> messages;
  messages.reserve(errors.size());
  for (const Status& error : errors) messages.push_back(error.ToString());
  return messages;
}

// What one kernel made of one input, decoded every way: as an object, a list and a watch event.
template <typename T>
struct Decoded {
  StatusOr<T> object;
  StatusOr<ObjectList<T>> list;
  StatusOr<WatchEvent<T>> event;
};

template <typename T>
Decoded<T> DecodeEveryWay(DecodeKernel kernel, const simdjson::padded_string& json) {
  EXPECT_TRUE(SetDecodeKernel(kernel));
  simdjson::ondemand::parser parser;
  return {DecodeObject<T>(parser, json), DecodeList<T>(parser, json),
          DecodeWatchEvent<T>(parser, json)};
}

// Compares what each kernel decoded with what the portable one did.
template <typename T>
void ExpectKernelsAgree(const std::vector<DecodeKernel>& kernels, std::string_view text,
                        const std::string& what) {
  const simdjson::padded_string json(text);
  const Decoded<T> base = DecodeEveryWay<T>(kernels.front(), json);
  for (DecodeKernel kernel : kernels) {
    SCOPED_TRACE(what + " as " + std::string(typeid(T).name()) + ", kernel " +
                 std::string(DecodeKernelName(kernel)));
    const Decoded<T> other = DecodeEveryWay<T>(kernel, json);
    ASSERT_EQ(other.object.status().ToString(), base.object.status().ToString());
    if (base.object.ok()) {
      EXPECT_TRUE(*other.object == *base.object);
    }
    ASSERT_EQ(other.list.status().ToString(), base.list.status().ToString());
    if (base.list.ok()) {
      EXPECT_TRUE(other.list->items == base.list->items);
      EXPECT_EQ(other.list->resource_version, base.list->resource_version);
      EXPECT_EQ(other.list->continue_token, base.list->continue_token);
      EXPECT_EQ(Messages(other.list->errors), Messages(base.list->errors));
    }
    ASSERT_EQ(other.event.status().ToString(), base.event.status().ToString());
    if (base.event.ok()) {
      EXPECT_EQ(other.event->type, base.event->type);
      EXPECT_TRUE(other.event->object == base.event->object);
      EXPECT_EQ(other.event->resource_version, base.event->resource_version);
      EXPECT_EQ(other.event->error, base.event->error);
    }
  }
}

template <typename... Kinds>
void ExpectKernelsAgreeForKinds(const std::vector<DecodeKernel>& kernels, std::string_view text,
                                const std::string& what) {
  (ExpectKernelsAgree<Kinds>(kernels, text, what), ...);
}

void ExpectKernelsAgreeForAllKinds(const std::vector<DecodeKernel>& kernels, std::string_view text,
                                   const std::string& what) {
  ExpectKernelsAgreeForKinds<Pod, Node, Namespace, PriorityClass, Lease, Event, ResourceQuota,
                             PodGroup, KubernetesPodGroup, VolcanoPodGroup,
                             SchedulerPluginsPodGroup, Queue, PodDisruptionBudget, BatchJob,
                             DataSet>(kernels, text, what);
}

// The fuzzer's seed corpus: one document of each kind, lists, watch events, and the inputs that
// once broke a decoder. Its first byte selects the fuzzer's kind; the rest is the JSON.
TEST_F(DecodeKernelTest, BothDecodeTheFuzzCorpusAlike) {
  const std::vector<DecodeKernel> kernels = Kernels();
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus/decode")) {
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream content;
    content << file.rdbuf();
    std::string text = content.str();
    ASSERT_FALSE(text.empty()) << entry.path();
    ExpectKernelsAgreeForAllKinds(kernels, std::string_view(text).substr(1),
                                  entry.path().filename().string());
    ++inputs;
  }
  EXPECT_GE(inputs, 10);
}

// Strings are where the kernels differ most (AVX2 finds quotes and backslashes 32 bytes at a
// time), so: values of every length from 0 to 199 with an escape at every offset modulo 37,
// Unicode escapes (surrogate pairs too) and raw UTF-8, among items that are malformed in ways a
// string can be.
void Append(std::string& out, std::initializer_list<std::string_view> parts) {
  for (std::string_view part : parts) out += part;
}

std::string StringHeavyPodList() {
  std::string json = R"({"kind": "PodList", "metadata": {"resourceVersion": "9\"1"}, "items": [)";
  const std::string escapes[] = {R"(\")",     R"(\\)",           R"(\/)", R"(\n)",    R"(\t)",
                                 R"(\u00e9)", R"(\ud83d\ude00)", "é",     R"(\u0000)"};
  for (int i = 0; i < 200; ++i) {
    std::string value(static_cast<std::size_t>(i), static_cast<char>('a' + i % 26));
    const std::string& escape = escapes[static_cast<std::size_t>(i) % std::size(escapes)];
    value.insert(static_cast<std::size_t>(i % 37) < value.size() ? static_cast<std::size_t>(i % 37)
                                                                 : value.size(),
                 escape);
    if (i > 0) json += ',';
    const std::string name = "p-" + std::to_string(i);
    const std::string priority = std::to_string(i * 1000 - 50000);
    const std::string amount = std::to_string(i);
    switch (i % 10) {
      case 3:  // an escape that JSON does not have
        Append(json, {R"({"metadata": {"namespace": "ml", "name": ")", name,
                      R"(", "labels": {"k": "\q"}}})"});
        continue;
      case 7:  // a lone surrogate
        Append(json, {R"({"metadata": {"namespace": "ml", "name": ")", name,
                      R"(", "labels": {"k": "\ud800x"}}})"});
        continue;
      default:
        break;
    }
    Append(json, {R"({"metadata": {"namespace": "ml", "name": ")",
                  name,
                  R"(", "labels": {")",
                  value,
                  R"(": ")",
                  value,
                  R"(", "app.kubernetes.io/name": "trainer"}, )",
                  R"("annotations": {"scheduling.k8s.io/group-name": ")",
                  value,
                  R"("}}, "spec": {"schedulerName": ")",
                  value,
                  R"(", "priority": )",
                  priority,
                  R"(, "containers": [{"name": "c", "image": ")",
                  value,
                  R"(", "resources": {"requests": {"cpu": ")",
                  amount,
                  R"(m", "memory": )",
                  amount,
                  R"(e3}}}], "tolerations": [{"key": ")",
                  value,
                  R"(", "operator": "Exists", "effect": "NoSchedule"}]}, )",
                  R"("status": {"phase": "Pending"}})"});
  }
  json += "]}";
  return json;
}

TEST_F(DecodeKernelTest, BothDecodeStringsAlike) {
  const std::string json = StringHeavyPodList();
  {
    // The input is what the test means it to be: most items decode, the bad ones are reported.
    simdjson::ondemand::parser parser;
    StatusOr<ObjectList<Pod>> list = DecodeList<Pod>(parser, simdjson::padded_string(json));
    ASSERT_TRUE(list.ok()) << list.status();
    EXPECT_EQ(list->items.size(), 160U);
    EXPECT_EQ(list->errors.size(), 40U);
    EXPECT_EQ(list->resource_version, "9\"1");
  }
  ExpectKernelsAgree<Pod>(Kernels(), json, "the string-heavy PodList");
  // The same list cut short at every 997th byte: malformed JSON ends in every kind of place.
  for (std::size_t end = 1; end < json.size(); end += 997) {
    ExpectKernelsAgree<Pod>(Kernels(), std::string_view(json).substr(0, end),
                            "the list cut at byte " + std::to_string(end));
  }
}

}  // namespace
}  // namespace arbiter::k8s
