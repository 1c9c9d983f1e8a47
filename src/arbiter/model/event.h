// Event (events.k8s.io/v1), minimal: what Arbiter writes about the objects it decides on
// ("Scheduled", "Unschedulable", "Preempted") and reads back in tests. Plain value, no I/O;
// thread safety: a value type.
#pragma once

#include <optional>
#include <string>

#include "arbiter/model/object_meta.h"

namespace arbiter {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
  friend bool operator==(const ObjectReference&, const ObjectReference&) = default;
};

struct Event {
  ObjectMeta meta;
  std::optional<Clock::WallTime> event_time;  // MicroTime
  std::string reporting_controller;           // "arbiter.dev/scheduler"
  std::string reporting_instance;
  std::string action;  // what was done: "Binding", "Preempting"
  std::string reason;  // why, machine-readable: "Scheduled", "FailedScheduling"
  std::string note;    // human-readable
  std::string type;    // "Normal" or "Warning"
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  friend bool operator==(const Event&, const Event&) = default;
};

}  // namespace arbiter
