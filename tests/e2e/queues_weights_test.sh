#!/usr/bin/env bash
# Queues by weight (issue 6): queues light (weight 1) and heavy (weight 3) each flood a saturated
# cluster of 4 x 8 CPU with 40 single-pod PodGroups of 1 CPU (80 CPUs asked for, 32 there). Once
# scheduling settles, the CPU bound to each queue's pods (summed from kubectl) and the Queues'
# status.allocated are within 5 % of 1:3 (8 and 24 CPUs), and status.deserved says 8 and 24.
#
# The cluster is saturated when the floods arrive: four 8-CPU pods of another scheduler fill it,
# so the scheduler sees both queues' whole demand before any room frees (nothing is reclaimed
# yet, so a queue that came first would otherwise keep what it took while alone). Then the four
# pods are deleted and the 32 CPUs are shared out, by weight.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NODES=4 NODE_CPU=8 PER_QUEUE=40
TOTAL=$((NODES * NODE_CPU * 1000))  # millicores

e2e_setup qweights --nodes "$NODES" --node-cpu "$NODE_CPU"

# The cluster full of another scheduler's work.
for ((n = 0; n < NODES; n++)); do
  pod_yaml "filler-$n" cpu="$NODE_CPU" scheduler=other node="kwok-node-$n" labels="filler: \"true\""
done | apply_yaml
wait_until "4 filler pods of another scheduler run, one per node" 30 \
  phase_is filler=true Running "$NODES"

e2e_start_scheduler

{
  queue_yaml light weight=1
  queue_yaml heavy weight=3
  for q in light heavy; do
    for ((i = 0; i < PER_QUEUE; i++)); do
      group_yaml "$q-$i" min=1 queue="$q"
      pod_yaml "$q-$i" cpu=1 group="$q-$i" runfor=1h labels="tenant: $q"
    done
  done
} | apply_yaml

all_groups_seen() {
  local q pending inqueue running
  for q in light heavy; do
    pending=$(queue_field "$q" .status.pending) inqueue=$(queue_field "$q" .status.inqueue)
    running=$(queue_field "$q" .status.running)
    ((${pending:-0} + ${inqueue:-0} == PER_QUEUE && ${running:-0} == 0)) || return 1
  done
}
wait_until "the Queues' status counts all $PER_QUEUE groups of each queue, none running" 60 \
  all_groups_seen
holds_for "nothing is bound while the cluster is full" 2 \
  bound_is 'tenant in (light,heavy)' 0

kn delete pods -l filler=true --wait=false >/dev/null
wait_until "the filler pods are gone" 30 pod_count_is filler=true 0

# Saturated: every CPU bound to the two queues' pods, and it stays so.
wait_until "all $((TOTAL / 1000)) CPUs are bound to the queues' pods" 60 \
  bound_cpu_is 'tenant in (light,heavy)' "$TOTAL"
light=$(bound_cpu_milli tenant=light)
heavy=$(bound_cpu_milli tenant=heavy)
bound_unchanged() { bound_cpu_is tenant=light "$light" && bound_cpu_is tenant=heavy "$heavy"; }
holds_for "the allocation has settled (light ${light}m, heavy ${heavy}m)" 3 bound_unchanged

# within_5pct ACTUAL EXPECTED: |ACTUAL - EXPECTED| <= 5 % of EXPECTED.
within_5pct() {
  local d=$(($1 - $2))
  ((d < 0)) && d=$((-d))
  ((d * 100 <= $2 * 5))
}
sum=$((light + heavy))
expect "bound CPU light ${light}m is within 5 % of 1/4 of ${sum}m ($((sum / 4))m)" \
  within_5pct "$light" $((sum / 4))
expect "bound CPU heavy ${heavy}m is within 5 % of 3/4 of ${sum}m ($((sum * 3 / 4))m)" \
  within_5pct "$heavy" $((sum * 3 / 4))

# The Queues' own account (written a session after the binds).
status_matches() { queue_cpu_is light allocated "$light" && queue_cpu_is heavy allocated "$heavy"; }
wait_until "Queue status.allocated matches the bound pods (light ${light}m, heavy ${heavy}m)" 30 \
  status_matches
qlight=$(queue_cpu_milli light allocated)
qheavy=$(queue_cpu_milli heavy allocated)
expect "Queue light status.allocated.cpu ${qlight}m is within 5 % of 1/4 of $((qlight + qheavy))m" \
  within_5pct "$qlight" $(((qlight + qheavy) / 4))
expect "Queue heavy status.allocated.cpu ${qheavy}m is within 5 % of 3/4 of $((qlight + qheavy))m" \
  within_5pct "$qheavy" $(((qlight + qheavy) * 3 / 4))
expect "Queue light deserves 8 CPUs (status.deserved.cpu '$(queue_field light .status.deserved.cpu)')" \
  queue_cpu_is light deserved 8000
expect "Queue heavy deserves 24 CPUs (status.deserved.cpu '$(queue_field heavy .status.deserved.cpu)')" \
  queue_cpu_is heavy deserved 24000
running_is() {
  [[ $(queue_field light .status.running) == $((light / 1000)) &&
     $(queue_field heavy .status.running) == $((heavy / 1000)) ]]
}
wait_until "Queue status.running counts the groups with a bound pod" 30 running_is
e2e_log "kubectl get queues:"
k get queues

# Nothing moves over more sessions: the waiting groups stay waiting.
holds_for "no further pod is bound over several sessions" 3 \
  bound_cpu_is 'tenant in (light,heavy)' "$TOTAL"

e2e_done
