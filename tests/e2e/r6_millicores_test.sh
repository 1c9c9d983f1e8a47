#!/usr/bin/env bash
# R6 fractional CPU: four pods of a quarter CPU (written 250m, 0.25, 250m and 250000u) fill a
# 1-CPU node exactly and all run; a fifth of 250m does not fit and stays pending with a reason.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r6 --nodes 1 --node-cpu 1
e2e_start_scheduler

{
  pod_yaml quarter-0 cpu=250m labels="set: four"
  pod_yaml quarter-1 cpu=0.25 labels="set: four"
  pod_yaml quarter-2 cpu=250m labels="set: four"
  pod_yaml quarter-3 cpu=250000u labels="set: four"
} | apply_yaml
wait_until "the four quarter-CPU pods are bound" 30 bound_is set=four 4
wait_until "the four quarter-CPU pods are Running on the 1-CPU node" 30 phase_is set=four Running 4

pod_yaml fifth cpu=250m | apply_yaml
wait_until "the fifth pod is marked PodScheduled=False/Unschedulable" 30 pod_unschedulable fifth
expect "its reason names cpu: '$(pod_condition fifth PodScheduled message)'" \
  pod_message_matches fifth cpu
holds_for "the fifth pod stays unbound" 3 pod_unbound fifth
expect "the four stay Running" phase_is set=four Running 4

e2e_done
