#include "arbiter/runtime/session_pacer.h"

#include <algorithm>

namespace arbiter::runtime {

void SessionPacer::DueAt(Clock::MonotonicTime t) { next_periodic_ = t; }

void SessionPacer::Started(Clock::MonotonicTime t) {
  last_start_ = t;
  next_periodic_ = t + options_.period;
  kick_at_.reset();
}

void SessionPacer::Kick(Clock::MonotonicTime t) {
  if (kick_at_.has_value()) return;
  Clock::MonotonicTime at = t + options_.debounce;
  if (last_start_.has_value()) at = std::max(at, *last_start_ + options_.min_gap);
  kick_at_ = at;
}

Clock::MonotonicTime SessionPacer::Due() const {
  return kick_at_.has_value() ? std::min(*kick_at_, next_periodic_) : next_periodic_;
}

}  // namespace arbiter::runtime
