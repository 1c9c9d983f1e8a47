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

std::string_view QuotaEnforceName(QuotaEnforce enforce) {
  switch (enforce) {
    case QuotaEnforce::kNone:
      return "None";
    case QuotaEnforce::kCapability:
      return "Capability";
    case QuotaEnforce::kDeserved:
      return "Deserved";
  }
  return "?";
}

StatusOr<QuotaEnforce> ParseQuotaEnforce(std::string_view text) {
  if (text == "None") return QuotaEnforce::kNone;
  if (text == "Capability") return QuotaEnforce::kCapability;
  if (text == "Deserved") return QuotaEnforce::kDeserved;
  return InvalidArgumentError("unknown value \"" + std::string(text) +
                              "\" (want None, Capability or Deserved)");
}

}  // namespace arbiter
