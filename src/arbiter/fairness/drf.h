// Dominant resource fairness (DRF, Ghodsi et al., NSDI 2011): a client's dominant share is the
// largest fraction of the cluster it holds of any one resource,
//
//   share(c) = max over resources r with total(r) > 0 of allocated(c, r) / total(r).
//
// The drf plugin (plugins/drf.h) keeps each job's share up to date as a session places and undoes
// tasks, and orders jobs by it; progressive filling (backfill) then gives each next task to the
// job with the lowest share. Allocations are exact int64; the share is a derived ratio.
//
// Thread safety: a pure function.
#pragma once

#include "arbiter/resource/resource_vector.h"

namespace arbiter::fairness {

double DominantShare(const ResourceVector& allocated, const ResourceVector& total);

}  // namespace arbiter::fairness
