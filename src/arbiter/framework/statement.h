// Statement: a per-job transaction over a session's working state. Allocate tentatively, then
// Commit (the placements become binds) or Discard (every step undone, in reverse order, exactly).
// A statement destroyed without either discards.
//
//   Statement statement(session);
//   statement.Allocate(task, node);
//   if (session.JobReady(job)) statement.Commit(); else statement.Discard();
//
// Preemption (actions/preemption.h) plans in one too: Evict victims, Pipeline the preemptor's
// pods onto the room they free, Restore the victims it does not need, and CommitPreemption (the
// evictions and nominations become the session's result) or Discard. mark() and RollbackTo()
// undo the steps after a point, to try a choice and take it back.
//
// Thread safety: single-threaded, as its session.
#pragma once

#include <cstddef>
#include <cstdint>
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
  // Places a pending task on room being freed: a nomination, not a bind.
  void Pipeline(TaskIndex task, NodeIndex node);
  // A bound or running task leaves its node in the plan.
  void Evict(TaskIndex task);
  // A task another job's statement allocated earlier in this session leaves its node before it
  // was ever bound: nothing is evicted, the room is free at once.
  void Withdraw(TaskIndex task);
  // An evicted task is given back its node (CHECKs Session::CanRestore), or a withdrawn one its
  // placement (CHECKs Session::CanReplace).
  void Restore(TaskIndex task);
  // Whether Restore(task) may be called as things stand.
  bool CanRestore(TaskIndex task) const;
  // The room held for a nominated task goes back to its node's free room (nothing if it has no
  // hold); Discard holds it again.
  void ReleaseHold(TaskIndex task);

  // Binds what was allocated. CHECKs that nothing was evicted or pipelined.
  void Commit();
  // Evicts what stayed evicted and nominates what was pipelined, for `preemptor`; the nodes that
  // lost pods take no other placement this session. Each victim stops within its own
  // terminationGracePeriodSeconds (30 when unset), at most `max_grace_seconds`.
  void CommitPreemption(JobIndex preemptor, EvictionKind kind, std::int64_t max_grace_seconds);
  void Discard();

  using Mark = std::size_t;
  Mark mark() const { return steps_.size(); }
  // Undoes every step taken after `mark`, in reverse order.
  void RollbackTo(Mark mark);

  std::size_t size() const { return steps_.size(); }
  // Tasks evicted, withdrawn, and pipelined, as the plan stands.
  std::int32_t evicted_count() const;
  std::int32_t withdrawn_count() const;
  std::int32_t pipelined_count() const;

 private:
  enum class Op : std::uint8_t {
    kAllocate,
    kPipeline,
    kEvict,
    kRestore,
    kReleaseHold,
    kWithdraw,
    kReplace,  // a withdrawn task placed back
  };
  struct Step {
    Op op;
    TaskIndex task;
    TaskState prior = TaskState::kPending;  // kEvict: the state to restore
    ResourceVector held;                    // kReleaseHold: the room released
    NodeIndex node = kNoNode;               // kWithdraw: where it was placed
  };
  void Undo(Step& step);

  Session& session_;
  std::vector<Step> steps_;
};

}  // namespace arbiter
