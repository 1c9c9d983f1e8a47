#include "arbiter/framework/statement.h"

namespace arbiter {

Statement::~Statement() {
  if (!placed_.empty()) Discard();
}

void Statement::Allocate(TaskIndex task, NodeIndex node) {
  session_.Place(task, node);
  placed_.push_back(task);
}

void Statement::Commit() {
  for (TaskIndex t : placed_) session_.MarkCommitted(t);
  placed_.clear();
}

void Statement::Discard() {
  // Reverse order restores the host-port lists exactly.
  for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {  // NOLINT(modernize-loop-convert)
    session_.Unplace(*it);
  }
  placed_.clear();
}

}  // namespace arbiter
