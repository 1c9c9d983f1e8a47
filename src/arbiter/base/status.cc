#include "arbiter/base/status.h"

namespace arbiter {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kCancelled:
      return "CANCELLED";
    case StatusCode::kUnknown:
      return "UNKNOWN";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case StatusCode::kNotFound:
      return "NOT_FOUND";
    case StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case StatusCode::kAborted:
      return "ABORTED";
    case StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case StatusCode::kInternal:
      return "INTERNAL";
    case StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case StatusCode::kUnauthenticated:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string message)
    : rep_(code == StatusCode::kOk ? nullptr
                                   : std::make_unique<Rep>(Rep{code, std::move(message)})) {}

const std::string& Status::EmptyMessage() {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(rep_->code));
  out += ": ";
  out += rep_->message;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return {};
  std::string message(context);
  message += ": ";
  message += rep_->message;
  return {rep_->code, std::move(message)};
}

std::ostream& operator<<(std::ostream& os, const Status& status) { return os << status.ToString(); }

Status InvalidArgumentError(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
Status NotFoundError(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
Status AlreadyExistsError(std::string message) {
  return {StatusCode::kAlreadyExists, std::move(message)};
}
Status FailedPreconditionError(std::string message) {
  return {StatusCode::kFailedPrecondition, std::move(message)};
}
Status OutOfRangeError(std::string message) {
  return {StatusCode::kOutOfRange, std::move(message)};
}
Status UnavailableError(std::string message) {
  return {StatusCode::kUnavailable, std::move(message)};
}
Status DeadlineExceededError(std::string message) {
  return {StatusCode::kDeadlineExceeded, std::move(message)};
}
Status InternalError(std::string message) { return {StatusCode::kInternal, std::move(message)}; }
Status PermissionDeniedError(std::string message) {
  return {StatusCode::kPermissionDenied, std::move(message)};
}
Status UnauthenticatedError(std::string message) {
  return {StatusCode::kUnauthenticated, std::move(message)};
}
Status AbortedError(std::string message) { return {StatusCode::kAborted, std::move(message)}; }
Status ResourceExhaustedError(std::string message) {
  return {StatusCode::kResourceExhausted, std::move(message)};
}
Status UnimplementedError(std::string message) {
  return {StatusCode::kUnimplemented, std::move(message)};
}
Status CancelledError(std::string message) { return {StatusCode::kCancelled, std::move(message)}; }

}  // namespace arbiter
