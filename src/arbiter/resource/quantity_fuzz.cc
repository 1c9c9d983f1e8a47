// libFuzzer target for the quantity parser: no input may crash, hang, leak or allocate in
// proportion to a value's magnitude, and every accepted quantity must print in forms that parse
// back to the same value. Run by `hack/test.sh --fuzz` (seed corpus: tests/fuzz/corpus/quantity).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "arbiter/base/check.h"
#include "arbiter/resource/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  arbiter::StatusOr<arbiter::Quantity> q = arbiter::Quantity::Parse(text);
  if (q.ok()) {
    for (const std::string& printed : {q->ToString(), q->CanonicalString()}) {
      arbiter::StatusOr<arbiter::Quantity> again = arbiter::Quantity::Parse(printed);
      ARBITER_CHECK(again.ok()) << "printed form " << printed << " does not parse";
      ARBITER_CHECK(*again == *q) << "printed form " << printed << " changes the value";
    }
    // A binary value that is no whole number of Ki prints without a suffix and so reads back
    // as decimal ("2233720312.5Ki" -> "2287329600000" -> "2287329600k"), as upstream; from the
    // second printing on, the canonical form is a fixed point.
    std::string once = arbiter::Quantity::Parse(q->CanonicalString())->CanonicalString();
    ARBITER_CHECK_EQ(arbiter::Quantity::Parse(once)->CanonicalString(), once);
    (void)q->Value();
    (void)q->MilliValue();
  }
  (void)arbiter::Quantity::ParseJson(text);
  return 0;
}
