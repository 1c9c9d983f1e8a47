#!/usr/bin/env bash
# Queues by weight, with reclaim (issues 6 and 13): on a cluster of 4 x 8 CPU, queue light
# (weight 1) floods it first with 40 single-pod PodGroups of 1 CPU and takes all 32 CPUs (it is
# the only queue asking). Then queue heavy (weight 3) arrives with 40 more: the deserved shares
# become 8 and 24, and reclaim evicts light's pods until heavy holds its share. Once scheduling
# settles, the CPU bound to each queue's pods and the Queues' status.allocated are within one pod
# of 1:3 (8 and 24 CPUs), status.deserved says 8 and 24, light never went below its 8, and the
# evicted pods carry the DisruptionTarget condition and a Preempted event.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NODES=4 NODE_CPU=8 PER_QUEUE=40
TOTAL=$((NODES * NODE_CPU * 1000))  # millicores

e2e_setup qweights --nodes "$NODES" --node-cpu "$NODE_CPU"
e2e_start_scheduler

flood() {
  local q=$1 i
  for ((i = 0; i < PER_QUEUE; i++)); do
    group_yaml "$q-$i" min=1 queue="$q"
    pod_yaml "$q-$i" cpu=1 group="$q-$i" runfor=1h labels="tenant: $q"
  done
}

{
  queue_yaml light weight=1
  queue_yaml heavy weight=3
  flood light
} | apply_yaml
wait_until "queue light, alone, takes all $((TOTAL / 1000)) CPUs" 60 \
  bound_cpu_is tenant=light "$TOTAL"

# Evicted pods are watched from here on: light must never drop below its share of 8 CPUs.
light_min=$TOTAL
light_not_below_share() {
  local now
  now=$(bound_cpu_milli tenant=light)
  ((now < light_min)) && light_min=$now
  ((now >= TOTAL / 4))
}

flood heavy | apply_yaml
# Saturated: every CPU bound to the two queues' pods, and it stays so.
heavy_has_share() {
  light_not_below_share || fail "queue light went below its share: $(bound_cpu_milli tenant=light)m"
  bound_cpu_is tenant=heavy $((TOTAL * 3 / 4))
}
wait_until "reclaim gives heavy its 24 CPUs, light never below 8" 120 heavy_has_share
wait_until "all $((TOTAL / 1000)) CPUs are bound to the queues' pods" 60 \
  bound_cpu_is 'tenant in (light,heavy)' "$TOTAL"
light=$(bound_cpu_milli tenant=light)
heavy=$(bound_cpu_milli tenant=heavy)
bound_unchanged() { bound_cpu_is tenant=light "$light" && bound_cpu_is tenant=heavy "$heavy"; }
holds_for "the allocation has settled (light ${light}m, heavy ${heavy}m)" 3 bound_unchanged

# within_5pct ACTUAL EXPECTED: |ACTUAL - EXPECTED| <= 5 % of EXPECTED, or one pod (1 CPU).
within_5pct() {
  local d=$(($1 - $2))
  ((d < 0)) && d=$((-d))
  ((d * 100 <= $2 * 5 || d <= 1000))
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

# Nothing moves over more sessions: the waiting groups stay waiting, nothing more is evicted.
holds_for "no further pod is bound or evicted over several sessions" 3 bound_unchanged
expect "light never went below its share (lowest ${light_min}m)" \
  test "$light_min" -ge $((TOTAL / 4))

# The evicted pods: DisruptionTarget, then gone; a Preempted event names the reclaim.
evicted=$(k -n "$E2E_NS" get events --field-selector reason=Preempted -o jsonpath='{.items[*].message}')
expect "Preempted events name the reclaim" grep -q "reclaim: queue heavy is below its deserved share" <<<"$evicted"
expect "queue light lost $(((TOTAL * 3 / 4) / 1000)) pods to reclaim" \
  test "$(kn get pods -l tenant=light --no-headers | wc -l)" -eq $((PER_QUEUE - TOTAL * 3 / 4 / 1000))

e2e_done
