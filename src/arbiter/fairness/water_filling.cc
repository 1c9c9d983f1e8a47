#include "arbiter/fairness/water_filling.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <ranges>

#include "arbiter/base/check.h"

namespace arbiter::fairness {

namespace {

__extension__ using Int128 = __int128;

std::int64_t CapOf(const ResourceVector& capability, ResourceId r) {
  return r < capability.size() ? capability.Get(r) : kUnlimited;
}

}  // namespace

std::vector<std::int64_t> WaterFill(const std::vector<FillMember>& members, std::int64_t total) {
  const std::size_t n = members.size();
  std::vector<std::int64_t> given(n, 0);
  std::int64_t remaining = std::max<std::int64_t>(total, 0);
  // 1. Guarantees first, in member order (the caller orders members by name).
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t g = std::min({members[i].floor, members[i].cap, remaining});
    given[i] = std::max<std::int64_t>(g, 0);
    remaining -= given[i];
  }
  // 2. Pour the rest in rounds by weight.
  while (remaining > 0) {
    Int128 weights = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (given[i] < members[i].cap) weights += members[i].weight;
    }
    if (weights == 0) break;
    std::int64_t poured = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (given[i] >= members[i].cap) continue;
      const auto share = static_cast<std::int64_t>(Int128{remaining} * members[i].weight / weights);
      const std::int64_t take = std::min(share, members[i].cap - given[i]);
      given[i] += take;
      poured += take;
    }
    remaining -= poured;
    if (poured > 0) continue;
    // 3. Fewer units than the weights can split: one each, in order.
    for (std::size_t i = 0; i < n && remaining > 0; ++i) {
      if (given[i] < members[i].cap) {
        ++given[i];
        --remaining;
      }
    }
  }
  return given;
}

std::vector<QueueShare> ComputeDeserved(const std::vector<QueueDemand>& queues,
                                        const ResourceVector& total, std::size_t resources) {
  const std::size_t n = queues.size();
  // Resolve parents: a missing parent or a cycle makes a queue top level.
  std::vector<std::int32_t> parent(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t p = queues[i].parent;
    if (p >= 0 && static_cast<std::size_t>(p) < n && static_cast<std::size_t>(p) != i) {
      parent[i] = p;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto slow = static_cast<std::int32_t>(i);
    std::size_t steps = 0;
    while (slow >= 0 && steps <= n) {
      slow = parent[static_cast<std::size_t>(slow)];
      ++steps;
    }
    if (steps > n) parent[i] = -1;  // a cycle passes through here: cut it
  }
  std::vector<std::vector<std::size_t>> children(n);
  std::vector<std::size_t> top;
  for (std::size_t i = 0; i < n; ++i) {
    (parent[i] < 0 ? top : children[static_cast<std::size_t>(parent[i])]).push_back(i);
  }
  auto by_name = [&](std::size_t a, std::size_t b) { return queues[a].name < queues[b].name; };
  std::sort(top.begin(), top.end(), by_name);
  for (auto& c : children) std::sort(c.begin(), c.end(), by_name);

  // Subtree demands, children before parents (post-order by depth).
  std::vector<std::size_t> order;
  std::vector<std::size_t> stack(top.rbegin(), top.rend());
  while (!stack.empty()) {
    const std::size_t q = stack.back();
    stack.pop_back();
    order.push_back(q);
    for (std::size_t c : std::views::reverse(children[q])) stack.push_back(c);
  }
  std::vector<ResourceVector> demand(n);
  for (std::size_t q : std::views::reverse(order)) {
    demand[q] = queues[q].request;
    for (std::size_t c : children[q]) demand[q].Add(demand[c]);
  }

  std::vector<QueueShare> shares(n);
  for (std::size_t q = 0; q < n; ++q) {
    shares[q].deserved = ResourceVector(resources);
    shares[q].own_deserved = ResourceVector(resources);
  }
  // Splits `amount` of resource r among `members` (queue indexes) plus, when `self` is set, the
  // queue's own jobs as one more member of weight 1.
  auto split = [&](const std::vector<std::size_t>& members, std::int64_t amount, ResourceId r,
                   std::optional<std::size_t> self) {
    std::vector<FillMember> fill;
    fill.reserve(members.size() + 1);
    for (std::size_t q : members) {
      const std::int64_t capability = CapOf(queues[q].capability, r);
      // The guarantee is reserved even when the queue does not ask for it (never lent), so the
      // queue may hold at least its guarantee whatever its demand.
      const std::int64_t floor = std::min(queues[q].guarantee.Get(r), capability);
      const std::int64_t cap = std::max(std::min(demand[q].Get(r), capability), floor);
      fill.push_back({std::max<std::int64_t>(queues[q].weight, 1), cap, floor});
    }
    if (self.has_value()) fill.push_back({1, queues[*self].request.Get(r), 0});
    std::vector<std::int64_t> given = WaterFill(fill, amount);
    for (std::size_t k = 0; k < members.size(); ++k) shares[members[k]].deserved.Set(r, given[k]);
    if (self.has_value()) shares[*self].own_deserved.Set(r, given.back());
  };
  for (std::size_t r = 0; r < resources; ++r) {
    const auto id = static_cast<ResourceId>(r);
    split(top, total.Get(id), id, std::nullopt);
    for (std::size_t q : order) {  // parents before children
      if (children[q].empty()) {
        shares[q].own_deserved.Set(id, shares[q].deserved.Get(id));
      } else {
        split(children[q], shares[q].deserved.Get(id), id, q);
      }
    }
  }
  return shares;
}

}  // namespace arbiter::fairness
