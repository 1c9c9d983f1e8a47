// DrfSorter: clients (queues, or jobs inside a queue) in order of weighted dominant resource
// share (DRF, Ghodsi et al., NSDI 2011), kept incrementally as in Mesos' DRF sorter: an
// allocation changes one client's share and moves it in an ordered set, O(log n), with no
// re-sort. Policy-pure: it knows clients by name, allocations as resource vectors.
//
//   share(c)  = max over resources r with total(r) > 0 of allocated(c, r) / total(r), / weight(c)
//   order     = share ascending, then name (a total tie-break)
//
// Allocations are exact int64 (stored state); the share is a derived ratio (a double), recomputed
// from them on every change, never accumulated.
//
// Thread safety: not synchronised.
//
//   DrfSorter sorter(cluster_total);
//   ClientId a = sorter.Add("team-a", 1);
//   sorter.Allocate(a, task_request);
//   ClientId next = sorter.First();
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/resource/resource_vector.h"

namespace arbiter::fairness {

using ClientId = std::int32_t;

class DrfSorter {
 public:
  explicit DrfSorter(ResourceVector total) : total_(std::move(total)) {}
  // The order refers to clients_ by address: not copyable or movable.
  DrfSorter(const DrfSorter&) = delete;
  DrfSorter& operator=(const DrfSorter&) = delete;

  // Adds a client with no allocation; names must be unique. weight >= 1.
  ClientId Add(std::string name, double weight = 1);
  void Allocate(ClientId client, const ResourceVector& amount);
  void Unallocate(ClientId client, const ResourceVector& amount);
  // Takes the client out of the order (it keeps its allocation) or puts it back.
  void Deactivate(ClientId client);
  void Activate(ClientId client);

  double Share(ClientId client) const { return clients_[Index(client)].share; }
  const ResourceVector& allocated(ClientId client) const {
    return clients_[Index(client)].allocated;
  }
  const std::string& name(ClientId client) const { return clients_[Index(client)].name; }
  // The active client with the lowest share, or nullopt when none is active.
  std::optional<ClientId> First() const;
  // Active clients in order.
  std::vector<ClientId> Sorted() const;
  std::size_t size() const { return clients_.size(); }

  // The dominant share of `allocated` against `total`, unweighted.
  static double DominantShare(const ResourceVector& allocated, const ResourceVector& total);

 private:
  struct Client {
    std::string name;
    double weight = 1;
    ResourceVector allocated;
    double share = 0;
    bool active = true;
  };
  struct Key {
    double share;
    ClientId id;
  };
  // Orders keys by share, then by the client's name, looked up by id (so that the set stays valid
  // when clients_ grows).
  struct KeyLess {
    const std::vector<Client>* clients;
    bool operator()(const Key& a, const Key& b) const {
      if (a.share != b.share) return a.share < b.share;
      return (*clients)[static_cast<std::size_t>(a.id)].name <
             (*clients)[static_cast<std::size_t>(b.id)].name;
    }
  };
  static std::size_t Index(ClientId c) { return static_cast<std::size_t>(c); }
  void Reshare(ClientId client);

  ResourceVector total_;
  std::vector<Client> clients_;
  std::set<Key, KeyLess> order_{KeyLess{&clients_}};
};

}  // namespace arbiter::fairness
