#!/usr/bin/env bash
# Topology (issue 21): gangs that ask for one rack (spec.topology {mode: Required, level: rack}),
# on 6 kwok nodes of 8 CPU labelled topology.arbiter.dev/rack: rack a = nodes 0-1 (16 CPU), rack
# b = nodes 2-5 (32 CPU). Shown, with the scheduler's default configuration:
#   - a gang of 5 × 8 CPU fits in the cluster (48 CPU) but in no rack: it stays pending, places
#     nothing, is not admitted (so it reserves none of the idle room the next gangs need), and
#     its PodGroup says what each rack lacks;
#   - a gang of 3 × 4 CPU lands inside one rack, the tightest that holds it (rack a), leaving
#     rack b whole (best fit);
#   - a gang of 6 × 4 CPU then lands inside rack b, whole.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup topology --nodes 6 --node-cpu 8
k label node kwok-node-0 kwok-node-1 topology.arbiter.dev/rack=a >/dev/null
k label node kwok-node-2 kwok-node-3 kwok-node-4 kwok-node-5 topology.arbiter.dev/rack=b >/dev/null
e2e_start_scheduler

# topology_gang NAME SIZE CPU: a PodGroup of SIZE pods of CPU each, all required in one rack.
topology_gang() {
  pg_yaml "$1" "$2"
  printf '  topology: {mode: Required, level: rack}\n'
  for i in $(seq 0 $(($2 - 1))); do pod_yaml "$1-$i" group="$1" cpu="$3"; done
}
rack_of() {
  case $1 in
    kwok-node-0 | kwok-node-1) echo a ;;
    kwok-node-[2-5]) echo b ;;
    *) echo "?" ;;
  esac
}
# racks_of GROUP: the racks its bound pods are on, sorted and unique.
racks_of() {
  pods_table "arbiter.dev/pod-group=$1" | awk '$2 != "<none>" {print $2}' |
    while read -r node; do rack_of "$node"; done | sort -u | tr '\n' ' '
}

topology_gang wide 5 8 | apply_yaml
wait_until "a gang of 5 × 8 CPU (no rack holds 40 CPU) is reported unschedulable" 30 \
  pg_unschedulable wide
pg_condition wide Unschedulable message
echo
expect "its message says it cannot start within one rack" \
  pg_message_matches wide Unschedulable 'cannot start within one rack \(Required\)'
expect "and what rack b lacks" pg_message_matches wide Unschedulable 'rack b has cpu 32 free, short of cpu 8'
expect "and what rack a lacks" pg_message_matches wide Unschedulable 'rack a has cpu 16 free, short of cpu 24'
none_bound() { bound_is arbiter.dev/pod-group=wide 0; }
holds_for "it places nothing" 5 none_bound
expect "it is not admitted (it reserves no idle room it could not use)" \
  test "$(pg_field wide .status.phase)" = Pending

topology_gang small 3 4 | apply_yaml
wait_until "a gang of 3 × 4 CPU is bound whole" 30 bound_is arbiter.dev/pod-group=small 3
expect "inside rack a, the tightest that holds it (it is on: $(racks_of small))" \
  test "$(racks_of small)" = "a "

topology_gang big 6 4 | apply_yaml
wait_until "a gang of 6 × 4 CPU is bound whole" 30 bound_is arbiter.dev/pod-group=big 6
expect "inside rack b, which best fit left whole (it is on: $(racks_of big))" \
  test "$(racks_of big)" = "b "
expect "the impossible gang still places nothing" bound_is arbiter.dev/pod-group=wide 0

e2e_done
