// Lease (coordination.k8s.io/v1): the lock object of leader election. Every spec field is
// optional in the API and stays optional here, because "absent" and "zero" mean different things
// to an election (an absent holder is a free lock). Plain value, no I/O; thread safety: a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arbiter/model/object_meta.h"

namespace arbiter {

struct Lease {
  ObjectMeta meta;
  std::optional<std::string> holder_identity;
  std::optional<std::int32_t> lease_duration_seconds;
  std::optional<Clock::WallTime> acquire_time;  // MicroTime in the API
  std::optional<Clock::WallTime> renew_time;
  std::optional<std::int32_t> lease_transitions;
  friend bool operator==(const Lease&, const Lease&) = default;
};

}  // namespace arbiter
