// Deserved shares of queues by weighted water-filling (ARCHITECTURE.md §3, issue "queues and fair
// share"): policy-pure, it knows queues as weights and resource vectors, nothing of pods.
//
// For each resource separately, and at each level of the queue hierarchy:
//   1. each queue first gets its guarantee (capped by its capability): reserved, never lent, even
//      when the queue does not ask for it; if the guarantees exceed the total, they are served in
//      name order until it runs out;
//   2. what remains is poured in rounds: each queue still below what it may take (its demand,
//      capped by its capability) gets floor(remaining * weight / sum of weights of such queues),
//      at most what it still may take; queues that reach their cap drop out, and their unused
//      portion is poured again in the next round;
//   3. the rounding rule: when a round's shares all floor to zero (fewer units left than the
//      weights can split), the units left go one at a time to the queues still below their cap,
//      in name order.
// A queue's demand is what its own jobs ask for plus what its children's subtrees ask for; a
// queue's share is then split among its children (and its own jobs, as one more member of weight
// 1 named after the queue itself) in the same way. Results are exact int64; nothing is a float.
// Complexity: O(levels x queues^2 x resources) in the worst case, O(queues x resources) typically.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "arbiter/resource/resource_vector.h"

namespace arbiter::fairness {

// An amount in a capability vector that means "no cap" (a resource absent from the capability).
inline constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

struct QueueDemand {
  std::string name;           // unique; the rounding order
  std::int32_t parent = -1;   // index of the parent queue in the same vector; -1: top level
  std::int64_t weight = 1;    // >= 1
  ResourceVector request;     // what this queue's own jobs ask for (allocated + still pending)
  ResourceVector capability;  // per resource; kUnlimited where absent (a shorter vector: unlimited)
  ResourceVector guarantee;   // per resource; absent: 0
};

struct QueueShare {
  ResourceVector deserved;      // the queue's subtree's share
  ResourceVector own_deserved;  // the part of it for the queue's own jobs (= deserved for a leaf)
};

// One share per queue, in the input's order. `resources` is the number of resource ids to compute
// (the ResourceSpace's size). A parent that does not exist makes a queue top level; a cycle of
// parents is cut at the first queue (in input order) found on it, which becomes top level.
std::vector<QueueShare> ComputeDeserved(const std::vector<QueueDemand>& queues,
                                        const ResourceVector& total, std::size_t resources);

// One level of water-filling for one resource, exposed for tests: how `total` splits among
// members with these weights, caps (what each may take at most) and floors (guarantees).
struct FillMember {
  std::int64_t weight = 1;
  std::int64_t cap = 0;    // >= 0
  std::int64_t floor = 0;  // the guarantee, taken first (capped by cap)
};
std::vector<std::int64_t> WaterFill(const std::vector<FillMember>& members, std::int64_t total);

}  // namespace arbiter::fairness
