#include "arbiter/model/queue.h"

namespace arbiter {

std::string_view QueueStateName(QueueState state) {
  switch (state) {
    case QueueState::kOpen:
      return "Open";
    case QueueState::kClosed:
      return "Closed";
  }
  return "?";
}

StatusOr<QueueState> ParseQueueState(std::string_view text) {
  if (text == "Open") return QueueState::kOpen;
  if (text == "Closed") return QueueState::kClosed;
  return InvalidArgumentError("unknown state \"" + std::string(text) + "\" (want Open or Closed)");
}

}  // namespace arbiter
