#!/usr/bin/env bash
# R1 gang, all or nothing: an MPI job of 3 x 50 CPU (PodGroup minMember 3) on three 80-CPU nodes,
# one of which holds a 50-CPU pod of another scheduler, starts none of its pods (not 2 of 3), over
# many sessions; once the 50-CPU pod is deleted, all 3 start, one per node.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r1 --nodes 3 --node-cpu 80

# The dormant 50-CPU pod, placed directly on kwok-node-0 by "another scheduler" (nodeName set).
pod_yaml sleeper cpu=50 scheduler=other node=kwok-node-0 | apply_yaml
wait_until "the 50-CPU pod of another scheduler runs on kwok-node-0" 30 \
  pod_phase_is sleeper Running

e2e_start_scheduler

{
  pg_yaml mpi 3
  for i in 0 1 2; do pod_yaml "mpi-$i" cpu=50 group=mpi; done
} | apply_yaml

# While the room is short, at every poll: not a single gang pod is bound.
e2e_invariant bound_is arbiter.dev/pod-group=mpi 0

wait_until "PodGroup mpi reports Unschedulable=True" 30 pg_unschedulable mpi
expect "the Unschedulable message names cpu: '$(pg_condition mpi Unschedulable message)'" \
  pg_message_matches mpi Unschedulable cpu
holds_for "none of the 3 gang pods is bound over several sessions" 3 \
  bound_is arbiter.dev/pod-group=mpi 0
expect "PodGroup mpi is not Running (phase '$(pg_field mpi .status.phase)')" \
  not pg_phase_is mpi Running

# (Binding 3 pods is 3 API calls, so the bound count rises 0 -> 3 through 1 and 2 for a moment.)
e2e_invariant
kn delete pod sleeper --wait=false >/dev/null
wait_until "the 50-CPU pod is gone" 30 pod_gone sleeper
wait_until "all 3 gang pods are bound once the room is free" 30 \
  bound_is arbiter.dev/pod-group=mpi 3
expect "the 3 gang pods are on 3 different nodes ($(nodes_of arbiter.dev/pod-group=mpi | sort | xargs))" \
  distinct_nodes arbiter.dev/pod-group=mpi 3
wait_until "all 3 gang pods are Running" 30 phase_is arbiter.dev/pod-group=mpi Running 3
wait_until "PodGroup mpi is Running with status.running=3" 30 \
  pg_running_is mpi 3

e2e_done
