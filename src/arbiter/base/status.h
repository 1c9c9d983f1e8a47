// Status and StatusOr<T>: Arbiter's one error model at module boundaries (I/O, parsing, config,
// API calls). Both are [[nodiscard]]: a returned error cannot be dropped silently.
//
// A Status is a code and a human-readable message; an OK status has an empty message. A
// StatusOr<T> holds either a T or a non-OK Status; asking for the value of an error is a broken
// invariant and aborts (ARBITER_CHECK), so callers test ok() first or use the macros below.
//
// Thread safety: values; distinct objects may be used from distinct threads freely.
//
// Example:
//   StatusOr<Quantity> q = Quantity::Parse(text);
//   if (!q.ok()) return q.status();
//   ARBITER_ASSIGN_OR_RETURN(Quantity cpu, Quantity::Parse(text));
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "arbiter/base/check.h"

namespace arbiter {

enum class StatusCode : std::uint8_t {
  kOk = 0,
  kCancelled,
  kUnknown,
  kInvalidArgument,
  kDeadlineExceeded,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kResourceExhausted,
  kFailedPrecondition,
  kAborted,
  kOutOfRange,
  kUnimplemented,
  kInternal,
  kUnavailable,
  kUnauthenticated,
};

std::string_view StatusCodeName(StatusCode code);

// An OK status is a null pointer; an error holds its code and message in a block of its own. Most
// statuses are OK and are built, moved and dropped in hot loops (a decoder returns one for every
// field it reads): as a pointer that costs a store and a test, where a code and a message string
// cost a string's setup, moves and teardown each time (measured on decoding a PodList,
// docs/benchmarks.md). A moved-from Status is OK.
class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);
  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() { return {}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  // Empty for an OK status.
  const std::string& message() const { return rep_ ? rep_->message : EmptyMessage(); }

  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "context: message"; an OK status stays OK.
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  static const std::string& EmptyMessage();

  std::unique_ptr<Rep> rep_;  // null: OK
};

std::ostream& operator<<(std::ostream& os, const Status& status);

Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status OutOfRangeError(std::string message);
Status UnavailableError(std::string message);
Status DeadlineExceededError(std::string message);
Status InternalError(std::string message);
Status PermissionDeniedError(std::string message);
Status UnauthenticatedError(std::string message);
Status AbortedError(std::string message);
Status ResourceExhaustedError(std::string message);
Status UnimplementedError(std::string message);
Status CancelledError(std::string message);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // Implicit by design, as absl::StatusOr: `return value;` and `return error;` both work.
  StatusOr(const T& value) : state_(value) {}            // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : state_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    ARBITER_CHECK(!std::get<Status>(state_).ok()) << "StatusOr built from an OK Status";
  }

  bool ok() const { return std::holds_alternative<T>(state_); }

  Status status() const { return ok() ? Status::Ok() : std::get<Status>(state_); }

  const T& value() const& {
    CheckOk();
    return std::get<T>(state_);
  }
  T& value() & {
    CheckOk();
    return std::get<T>(state_);
  }
  T&& value() && {
    CheckOk();
    return std::get<T>(std::move(state_));
  }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  void CheckOk() const {
    ARBITER_CHECK(ok()) << "value() of an error: " << std::get<Status>(state_).ToString();
  }

  std::variant<Status, T> state_;
};

}  // namespace arbiter

#define ARBITER_STATUS_CONCAT_INNER(a, b) a##b
#define ARBITER_STATUS_CONCAT(a, b) ARBITER_STATUS_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function if it is not OK.
#define ARBITER_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::arbiter::Status arbiter_status_ = (expr);        \
    if (!arbiter_status_.ok()) return arbiter_status_; \
  } while (false)

// Evaluates `expr` (a StatusOr<T>); on error returns its Status, else moves the value into `lhs`
// (which may be a declaration: ARBITER_ASSIGN_OR_RETURN(auto q, Parse(s));).
#define ARBITER_ASSIGN_OR_RETURN(lhs, expr) \
  ARBITER_ASSIGN_OR_RETURN_IMPL(ARBITER_STATUS_CONCAT(arbiter_statusor_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): lhs may be a declaration, tmp is a generated name.
#define ARBITER_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
