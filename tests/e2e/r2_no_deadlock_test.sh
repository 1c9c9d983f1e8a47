#!/usr/bin/env bash
# R2 no deadlock. Five node-sized slots (5 nodes x 4 CPU, pods of 4 CPU):
#  1. two gangs that each need 4 nodes, submitted together (interleaved in one kubectl create),
#     never split the nodes 3/2: one runs whole, the other has nothing bound; when the first
#     finishes (arbiter.dev/run-for), the second runs whole;
#  2. a gang of min 4 and a gang of min 6: the 4 runs, the 6 waits and holds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r2 --nodes 5 --node-cpu 4
e2e_start_scheduler

# ---- 1. two gangs of 4 on 5 nodes --------------------------------------------------------------
run_for=10s
{
  pg_yaml job-a 4
  pg_yaml job-b 4
  for i in 0 1 2 3; do
    pod_yaml "job-a-$i" cpu=4 group=job-a runfor=$run_for
    pod_yaml "job-b-$i" cpu=4 group=job-b runfor=$run_for
  done
} | apply_yaml

sel_a=arbiter.dev/pod-group=job-a
sel_b=arbiter.dev/pod-group=job-b
# Never do both gangs have pods bound at once while neither has finished.
not_both_bound() { (($(bound_count "$sel_a") == 0 || $(bound_count "$sel_b") == 0)); }
e2e_invariant not_both_bound

one_gang_whole() { bound_is "$sel_a" 4 || bound_is "$sel_b" 4; }
wait_until "one of the two gangs has all 4 pods bound" 30 one_gang_whole
if bound_is "$sel_a" 4; then
  winner=job-a loser=job-b
else
  winner=job-b loser=job-a
fi
sel_w=arbiter.dev/pod-group=$winner
sel_l=arbiter.dev/pod-group=$loser
e2e_log "first gang: $winner (nodes: $(nodes_of "$sel_w" | sort | xargs)); waiting gang: $loser"
# The waiting gang may start only once 4 nodes are free again, i.e. 3 of the winner's pods are done.
loser_waits_for_room() { bound_is "$sel_l" 0 || (($(phase_count "$sel_w" Succeeded) >= 3)); }
e2e_invariant loser_waits_for_room
winner_whole_loser_empty() { bound_is "$sel_w" 4 && bound_is "$sel_l" 0; }
holds_for "$winner runs whole (4 bound) and $loser has 0 bound" 3 winner_whole_loser_empty
expect "$winner's 4 pods are on 4 different nodes" distinct_nodes "$sel_w" 4
wait_until "PodGroup $loser reports Unschedulable=True" 15 pg_unschedulable "$loser"

wait_until "$loser has all 4 pods bound after $winner finished" 60 bound_is "$sel_l" 4
e2e_invariant
expect "$loser's 4 pods are on 4 different nodes" distinct_nodes "$sel_l" 4
wait_until "all 4 pods of $winner Succeeded" 30 phase_is "$sel_w" Succeeded 4
wait_until "PodGroup $winner is Completed" 30 pg_phase_is "$winner" Completed
wait_until "PodGroup $loser is Running" 30 pg_running_is "$loser" 4
wait_until "all 4 pods of $loser Succeeded" 60 phase_is "$sel_l" Succeeded 4

# ---- 2. min 4 and min 6 on 5 slots --------------------------------------------------------------
{
  pg_yaml six 6
  pg_yaml four 4
  for i in 0 1 2 3 4 5; do pod_yaml "six-$i" cpu=4 group=six; done
  for i in 0 1 2 3; do pod_yaml "four-$i" cpu=4 group=four; done
} | apply_yaml
e2e_invariant bound_is arbiter.dev/pod-group=six 0
wait_until "the gang of min 4 has all 4 pods bound" 30 bound_is arbiter.dev/pod-group=four 4
four_runs_six_holds_nothing() {
  bound_is arbiter.dev/pod-group=four 4 && bound_is arbiter.dev/pod-group=six 0
}
holds_for "the gang of 4 runs and the gang of 6 holds nothing" 3 four_runs_six_holds_nothing
wait_until "PodGroup six reports Unschedulable=True" 15 pg_unschedulable six
expect "PodGroup six is not Running (phase '$(pg_field six .status.phase)')" \
  not pg_phase_is six Running
e2e_invariant

e2e_done
