// Statement: a per-job transaction over a session's working state. Allocate tentatively, then
// Commit (the placements become binds) or Discard (every placement undone, in reverse order,
// exactly). A statement destroyed without either discards.
//
//   Statement statement(session);
//   statement.Allocate(task, node);
//   if (session.JobReady(job)) statement.Commit(); else statement.Discard();
//
// Thread safety: single-threaded, as its session.
#pragma once

#include <cstddef>
#include <vector>

#include "arbiter/framework/session.h"

namespace arbiter {

class Statement {
 public:
  explicit Statement(Session& session) : session_(session) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Places a pending task on a node. CHECKs that the task is pending and fits.
  void Allocate(TaskIndex task, NodeIndex node);
  void Commit();
  void Discard();
  std::size_t size() const { return placed_.size(); }

 private:
  Session& session_;
  std::vector<TaskIndex> placed_;
};

}  // namespace arbiter
