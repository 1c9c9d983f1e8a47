// DataSet (arbiter.dev/v1alpha1, namespaced): where a data set's blocks are stored, for data
// locality (plugins/locality.h, docs/placement.md#data-locality). A storage system's agent (or a
// user) writes one per data set; a PodGroup or BatchJob in the same namespace names it in
// spec.locality.dataSet, and the scheduler prefers the nodes holding most of its blocks, then
// their racks. Namespaced because a data set belongs to the team whose jobs read it: a job can
// name only its own namespace's data sets, and RBAC on DataSets is per namespace like the rest of
// a team's objects. Blocks are taken as equal in size (fixed-size blocks, as HDFS and object
// stores' chunks are). Plain value, no I/O; thread safety: a value type.
#pragma once

#include <string>
#include <vector>

#include "arbiter/model/object_meta.h"

namespace arbiter {

// One block of the data set, and the nodes holding a replica of it.
struct DataBlock {
  std::string name;
  std::vector<std::string> nodes;
  friend bool operator==(const DataBlock&, const DataBlock&) = default;
};

struct DataSet {
  ObjectMeta meta;
  std::vector<DataBlock> blocks;  // spec.blocks
  friend bool operator==(const DataSet&, const DataSet&) = default;
};

}  // namespace arbiter
