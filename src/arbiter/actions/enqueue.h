// enqueue: admits pending groups (phase Pending -> Inqueue) whose minResources fit into what the
// cluster has free, less what groups admitted earlier but not yet running have reserved, and
// that every JobEnqueue plugin accepts (queues' shares come with the proportion plugin). A group
// without minResources is admitted at once. Jobs are taken in job order, so the first in order
// reserves first. Admission is what allocate looks at: it only places admitted jobs.
#pragma once

#include "arbiter/framework/plugin.h"

namespace arbiter {

class EnqueueAction final : public Action {
 public:
  static constexpr std::string_view kName = "enqueue";
  std::string_view Name() const override { return kName; }
  void Execute(Session& session) override;
};

}  // namespace arbiter
