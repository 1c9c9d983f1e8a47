#include "arbiter/fairness/drf.h"

#include <algorithm>

#include "arbiter/base/check.h"

namespace arbiter::fairness {

double DrfSorter::DominantShare(const ResourceVector& allocated, const ResourceVector& total) {
  double share = 0;
  for (std::size_t r = 0; r < allocated.size(); ++r) {
    const auto id = static_cast<ResourceId>(r);
    const std::int64_t t = total.Get(id);
    if (t <= 0) continue;
    share = std::max(share, static_cast<double>(allocated.Get(id)) / static_cast<double>(t));
  }
  return share;
}

ClientId DrfSorter::Add(std::string name, double weight) {
  ARBITER_CHECK(weight > 0) << name;
  const auto id = static_cast<ClientId>(clients_.size());
  clients_.push_back(Client{std::move(name), weight, {}, 0, true});
  order_.insert(Key{0, id});
  return id;
}

void DrfSorter::Reshare(ClientId client) {
  Client& c = clients_[Index(client)];
  if (c.active) order_.erase(Key{c.share, client});
  c.share = DominantShare(c.allocated, total_) / c.weight;
  if (c.active) order_.insert(Key{c.share, client});
}

void DrfSorter::Allocate(ClientId client, const ResourceVector& amount) {
  clients_[Index(client)].allocated.Add(amount);
  Reshare(client);
}

void DrfSorter::Unallocate(ClientId client, const ResourceVector& amount) {
  clients_[Index(client)].allocated.Subtract(amount);
  Reshare(client);
}

void DrfSorter::Deactivate(ClientId client) {
  Client& c = clients_[Index(client)];
  if (!c.active) return;
  order_.erase(Key{c.share, client});
  c.active = false;
}

void DrfSorter::Activate(ClientId client) {
  Client& c = clients_[Index(client)];
  if (c.active) return;
  c.active = true;
  order_.insert(Key{c.share, client});
}

std::optional<ClientId> DrfSorter::First() const {
  if (order_.empty()) return std::nullopt;
  return order_.begin()->id;
}

std::vector<ClientId> DrfSorter::Sorted() const {
  std::vector<ClientId> out;
  out.reserve(order_.size());
  for (const Key& k : order_) out.push_back(k.id);
  return out;
}

}  // namespace arbiter::fairness
