#include "arbiter/framework/statement.h"

#include <algorithm>
#include <set>
#include <utility>

#include "arbiter/base/check.h"

namespace arbiter {

Statement::~Statement() {
  if (!steps_.empty()) Discard();
}

void Statement::Allocate(TaskIndex task, NodeIndex node) {
  session_.Place(task, node);
  steps_.push_back({Op::kAllocate, task, TaskState::kPending, {}});
}

void Statement::Pipeline(TaskIndex task, NodeIndex node) {
  session_.Place(task, node, TaskState::kPipelined);
  steps_.push_back({Op::kPipeline, task, TaskState::kPending, {}});
}

void Statement::Evict(TaskIndex task) {
  const TaskState prior = session_.task_state(task);
  session_.Evict(task);
  steps_.push_back({Op::kEvict, task, prior, {}});
}

void Statement::Withdraw(TaskIndex task) {
  ARBITER_CHECK(session_.task_state(task) == TaskState::kAllocated) << session_.task(task).Key();
  const NodeIndex node = session_.task_node(task);
  session_.Unplace(task);
  steps_.push_back({Op::kWithdraw, task, TaskState::kAllocated, {}, node});
}

bool Statement::CanRestore(TaskIndex task) const {
  auto it = std::find_if(steps_.rbegin(), steps_.rend(), [&](const Step& s) {
    return (s.op == Op::kEvict || s.op == Op::kWithdraw) && s.task == task;
  });
  if (it == steps_.rend()) return false;
  return it->op == Op::kWithdraw ? session_.CanReplace(task, it->node) : session_.CanRestore(task);
}

void Statement::Restore(TaskIndex task) {
  // The state it had before this statement evicted or withdrew it.
  auto it = std::find_if(steps_.rbegin(), steps_.rend(), [&](const Step& s) {
    return (s.op == Op::kEvict || s.op == Op::kWithdraw) && s.task == task;
  });
  ARBITER_CHECK(it != steps_.rend()) << session_.task(task).Key() << " was not evicted here";
  if (it->op == Op::kWithdraw) {
    const NodeIndex node = it->node;
    ARBITER_CHECK(session_.CanReplace(task, node)) << session_.task(task).Key();
    session_.Place(task, node);
    steps_.push_back({Op::kReplace, task, TaskState::kAllocated, {}, node});
    return;
  }
  ARBITER_CHECK(session_.CanRestore(task)) << session_.task(task).Key();
  session_.Restore(task, it->prior);
  steps_.push_back({Op::kRestore, task, it->prior, {}});
}

void Statement::ReleaseHold(TaskIndex task) {
  if (session_.held(task) == nullptr) return;
  ResourceVector held = session_.ReleaseHold(task);
  steps_.push_back({Op::kReleaseHold, task, TaskState::kPending, std::move(held)});
}

void Statement::Commit() {
  for (const Step& s : steps_) {
    ARBITER_CHECK(s.op == Op::kAllocate || s.op == Op::kReleaseHold)
        << "a statement that evicts or withdraws commits with CommitPreemption";
    if (s.op == Op::kAllocate) session_.MarkCommitted(s.task);
  }
  steps_.clear();
}

void Statement::CommitPreemption(JobIndex preemptor, EvictionKind kind,
                                 std::int64_t max_grace_seconds) {
  std::set<NodeIndex> emptied;
  for (const Step& s : steps_) {
    switch (s.op) {
      case Op::kAllocate:
        session_.MarkCommitted(s.task);
        break;
      case Op::kPipeline:
        session_.MarkNominated(s.task);
        break;
      case Op::kEvict: {
        if (session_.task_state(s.task) != TaskState::kReleasing) break;  // restored since
        const auto& grace = session_.task(s.task).pod->spec.termination_grace_period_seconds;
        session_.MarkEvicted(Session::Eviction{s.task, preemptor, kind,
                                               std::min(grace.value_or(30), max_grace_seconds)});
        emptied.insert(session_.task_node(s.task));
        break;
      }
      case Op::kWithdraw:
        // Still withdrawn (not placed back by a reprieve): its bind is not made.
        if (session_.task_state(s.task) == TaskState::kPending) session_.UnmarkCommitted(s.task);
        break;
      case Op::kRestore:
      case Op::kReleaseHold:
      case Op::kReplace:
        break;
    }
  }
  for (NodeIndex n : emptied) session_.CloseNode(n);
  steps_.clear();
}

void Statement::Discard() { RollbackTo(0); }

void Statement::RollbackTo(Mark mark) {
  ARBITER_CHECK(mark <= steps_.size());
  // Reverse order restores free room and host-port lists exactly.
  while (steps_.size() > mark) {
    Undo(steps_.back());
    steps_.pop_back();
  }
}

void Statement::Undo(Step& step) {
  switch (step.op) {
    case Op::kAllocate:
    case Op::kPipeline:
      session_.Unplace(step.task);
      break;
    case Op::kEvict:
      session_.Restore(step.task, step.prior);
      break;
    case Op::kRestore:
      session_.Evict(step.task);
      break;
    case Op::kReleaseHold:
      session_.RetakeHold(step.task, step.held);
      break;
    case Op::kWithdraw:
      session_.Place(step.task, step.node);
      break;
    case Op::kReplace:
      session_.Unplace(step.task);
      break;
  }
}

std::int32_t Statement::evicted_count() const {
  std::set<TaskIndex> evicted;
  for (const Step& s : steps_) {
    if (s.op == Op::kEvict && session_.task_state(s.task) == TaskState::kReleasing) {
      evicted.insert(s.task);
    }
  }
  return static_cast<std::int32_t>(evicted.size());
}

std::int32_t Statement::withdrawn_count() const {
  std::set<TaskIndex> withdrawn;
  for (const Step& s : steps_) {
    if (s.op == Op::kWithdraw && session_.task_state(s.task) == TaskState::kPending) {
      withdrawn.insert(s.task);
    }
  }
  return static_cast<std::int32_t>(withdrawn.size());
}

std::int32_t Statement::pipelined_count() const {
  return static_cast<std::int32_t>(std::count_if(
      steps_.begin(), steps_.end(), [](const Step& s) { return s.op == Op::kPipeline; }));
}

}  // namespace arbiter
