// libFuzzer target for the Kubernetes JSON decoders (k8s/decode.h): no input may crash, hang, leak
// or allocate out of proportion to its size, whichever kind it is decoded as. Each input is decoded
// as a single object, as a `*List` and as a watch event line, for the kind the first byte selects
// ('0' Pod, '1' Node, ... '8' Queue, any other byte modulo 9; the rest is the JSON), and always
// as a Pod too, the kind whose decoder reads the most fields.
// Run by `hack/test.sh --fuzz` (seed corpus: tests/fuzz/corpus/decode).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include <simdjson.h>

#include "arbiter/base/check.h"
#include "arbiter/k8s/decode.h"

namespace arbiter::k8s {
namespace {

// What every successful decode must satisfy whatever the input: the contract of decode.h.
template <typename T>
void CheckObject(const StatusOr<T>& decoded) {
  if (decoded.ok()) ARBITER_CHECK(!decoded->meta.name.empty()) << "decoded an object without name";
}

template <typename T>
void DecodeAllWays(simdjson::ondemand::parser& parser, const simdjson::padded_string& json) {
  CheckObject(DecodeObject<T>(parser, json));

  StatusOr<ObjectList<T>> list = DecodeList<T>(parser, json);
  if (list.ok()) {
    for (const T& item : list->items) ARBITER_CHECK(!item.meta.name.empty());
    for (const Status& error : list->errors) ARBITER_CHECK(!error.ok());
  }

  StatusOr<WatchEvent<T>> event = DecodeWatchEvent<T>(parser, json);
  if (event.ok()) {
    switch (event->type) {
      case WatchEventType::kAdded:
      case WatchEventType::kModified:
      case WatchEventType::kDeleted:
        ARBITER_CHECK(!event->object.meta.name.empty());
        ARBITER_CHECK_EQ(event->resource_version, event->object.meta.resource_version);
        break;
      case WatchEventType::kBookmark:
      case WatchEventType::kError:
        break;
    }
  }
}

// One decoder per model kind, in the order of the selector byte ('0' + index).
using Decoder = void (*)(simdjson::ondemand::parser&, const simdjson::padded_string&);
constexpr Decoder kDecoders[] = {
    DecodeAllWays<Pod>,           DecodeAllWays<Node>,     DecodeAllWays<Namespace>,
    DecodeAllWays<PriorityClass>, DecodeAllWays<Lease>,    DecodeAllWays<Event>,
    DecodeAllWays<ResourceQuota>, DecodeAllWays<PodGroup>, DecodeAllWays<Queue>,
    DecodeAllWays<DataSet>,
};
constexpr std::size_t kDecoderCount = std::size(kDecoders);

}  // namespace
}  // namespace arbiter::k8s

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using arbiter::k8s::kDecoderCount;
  using arbiter::k8s::kDecoders;
  if (size == 0) return 0;
  const std::size_t kind = static_cast<std::uint8_t>(data[0] - '0') % kDecoderCount;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // padded_string copies the input and adds the zeroed padding simdjson reads past the end with.
  const simdjson::padded_string json(text);
  // One parser per input, as decode.h asks of each thread; its buffers are sized to the input.
  simdjson::ondemand::parser parser;
  kDecoders[kind](parser, json);
  if (kind != 0) kDecoders[0](parser, json);
  return 0;
}
