#include "arbiter/fairness/drf.h"

#include <algorithm>
#include <cstdint>

namespace arbiter::fairness {

double DominantShare(const ResourceVector& allocated, const ResourceVector& total) {
  double share = 0;
  for (std::size_t r = 0; r < allocated.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    const std::int64_t t = total.Get(id);
    if (t <= 0) continue;
    share = std::max(share, static_cast<double>(allocated.Get(id)) / static_cast<double>(t));
  }
  return share;
}

}  // namespace arbiter::fairness
