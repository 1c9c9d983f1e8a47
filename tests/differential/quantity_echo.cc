// quantity_echo prints what Arbiter's Quantity makes of each line of its input, in the format of
// quantity-oracle/main.go (apimachinery's view), so that tests/differential/quantity_test.sh can
// diff the two line by line.
#include <iostream>
#include <string>

#include "arbiter/resource/quantity.h"

namespace {

std::string Show(const arbiter::StatusOr<std::int64_t>& value) {
  return value.ok() ? std::to_string(*value) : "overflow";
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    arbiter::StatusOr<arbiter::Quantity> q = arbiter::Quantity::Parse(line);
    if (!q.ok()) {
      std::cout << line << "\tERR\n";
      continue;
    }
    std::cout << line << "\tOK\t" << q->ToString() << "\t"
              << arbiter::QuantityFormatName(q->format()) << "\t" << Show(q->Value()) << "\t"
              << Show(q->MilliValue()) << "\n";
  }
  return 0;
}
