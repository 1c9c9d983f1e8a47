// CHECK macros: a broken invariant is a bug, so it stops the process at once with the condition,
// the place and any streamed context, rather than letting bookkeeping drift (see STYLE.md §3).
// Errors that input or the environment can cause are Status values, never CHECKs.
//
//   ARBITER_CHECK(node != nullptr) << "node " << name << " vanished from the snapshot";
//   ARBITER_CHECK_LE(used, allocatable);
//   ARBITER_DCHECK(IsSorted(tasks));  // debug builds only
//
// On failure the operands of the _EQ/_LE/... forms are evaluated a second time for the message.
// Thread safety: any thread may fail a check; the process aborts.
#pragma once

#include <ostream>
#include <sstream>

namespace arbiter::internal {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure();

  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

struct Voidify {
  void operator&(std::ostream& /*unused*/) {}
};

}  // namespace arbiter::internal

// A single expression (safe inside if/else without braces). On failure the CheckFailure temporary
// collects the streamed context and aborts in its destructor; Voidify's & binds more loosely than
// <<, so it applies to the whole stream expression.
// NOLINTBEGIN(bugprone-macro-parentheses): the stream must stay open for the caller's <<.
#define ARBITER_CHECK(condition)                 \
  (condition) ? static_cast<void>(0)             \
              : ::arbiter::internal::Voidify() & \
                    ::arbiter::internal::CheckFailure(__FILE__, __LINE__, #condition).stream()

// NOLINTEND(bugprone-macro-parentheses)

#define ARBITER_CHECK_OP(a, op, b) ARBITER_CHECK((a)op(b)) << "(" << (a) << " vs " << (b) << ") "
#define ARBITER_CHECK_EQ(a, b) ARBITER_CHECK_OP(a, ==, b)
#define ARBITER_CHECK_NE(a, b) ARBITER_CHECK_OP(a, !=, b)
#define ARBITER_CHECK_LT(a, b) ARBITER_CHECK_OP(a, <, b)
#define ARBITER_CHECK_LE(a, b) ARBITER_CHECK_OP(a, <=, b)
#define ARBITER_CHECK_GT(a, b) ARBITER_CHECK_OP(a, >, b)
#define ARBITER_CHECK_GE(a, b) ARBITER_CHECK_OP(a, >=, b)

#ifdef NDEBUG
#define ARBITER_DCHECK(condition) ARBITER_CHECK(true || (condition))
#else
#define ARBITER_DCHECK(condition) ARBITER_CHECK(condition)
#endif
