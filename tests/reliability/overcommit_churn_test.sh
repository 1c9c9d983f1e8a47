#!/usr/bin/env bash
# Reliability (issue 20): overcommit under churn. On 6 nodes × 8 CPU, for OVERCOMMIT_CHURN_S
# (default 60 s), a writer creates single pods (0.5–3 CPU) and gangs of 3 (1–2 CPU each, two
# queues), deletes the oldest, and every step also cordons or uncordons a node, or resizes one: its
# allocatable CPU set to 4, 8 or 12 (a shrink below what the node holds is what a change of a
# kubelet's reservation does). About twice the cluster is asked for, so nodes stay full.
#   - At every poll and settled at the end, the independent checker with the writer's node log:
#     no node over its allocatable unless it shrank and nothing was bound to it since; nothing
#     bound to a cordoned node; every pod bound once; no queue over its capability; gangs whole.
#   - The churn happened: the writer counts its cordons, shrinks and grows, and the test fails
#     unless there were some of each; then every node is grown to 12 CPU and uncordoned, and the
#     waiting pods must fill a node beyond the 8 CPU it had (the scheduler saw the new size).
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

churn_s=${OVERCOMMIT_CHURN_S:-60}
e2e_setup overcommit_churn --nodes 6 --node-cpu 8
e2e_start_scheduler
{
  queue_yaml a weight=2
  queue_yaml b weight=1 'capability={cpu: 20}'
} | apply_yaml
mapfile -t nodes < <(k get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
node_log=$E2E_TMP/node-log
: >"$node_log"

# The writer, in a shell of its own: it ends after churn_s, writing its counts.
stamp() { date -u +%Y-%m-%dT%H:%M:%S.%6NZ; }
set_cpu() {
  k patch node "$1" --subresource=status --type=merge \
    -p "{\"status\": {\"allocatable\": {\"cpu\": \"$2\"}, \"capacity\": {\"cpu\": \"$2\"}}}" \
    >/dev/null
}
node_cpu() { k get node "$1" -o jsonpath='{.status.allocatable.cpu}'; }
writer() {
  local end=$(($(date +%s) + churn_s)) serial=0 cordons=0 shrinks=0 grows=0
  local gangs=() singles=() r node cpu old i name
  RANDOM=20261203
  while (($(date +%s) < end)); do
    serial=$((serial + 1))
    r=$((RANDOM % 100))
    if ((r < 35)); then
      name=s$serial
      pod_yaml "$name" cpu="$((500 + RANDOM % 2500))m" labels='churn: "yes"' | k create -f - \
        >/dev/null
      singles+=("$name")
    elif ((r < 55)); then
      name=g$serial
      {
        group_yaml "$name" min=3 queue="$( ((RANDOM % 3)) && echo a || echo b)"
        cpu=$((1 + RANDOM % 2))
        for i in 0 1 2; do pod_yaml "$name-$i" group="$name" cpu="$cpu" labels='churn: "yes"'; done
      } | k create -f - >/dev/null
      gangs+=("$name")
    elif ((r < 70)) && ((${#singles[@]} > 4)); then
      # --ignore-not-found: the scheduler may have preempted one (queue a reclaims from default)
      kn delete pods "${singles[@]:0:3}" --wait=false --ignore-not-found >/dev/null
      singles=("${singles[@]:3}")
    elif ((r < 80)) && ((${#gangs[@]} > 2)); then
      kn delete pods -l "arbiter.dev/pod-group=${gangs[0]}" --wait=false >/dev/null
      kn delete podgroup "${gangs[0]}" --wait=false --ignore-not-found >/dev/null
      gangs=("${gangs[@]:1}")
    fi
    node=${nodes[$((RANDOM % ${#nodes[@]}))]}
    if ((RANDOM % 2)); then
      if [[ $(k get node "$node" -o jsonpath='{.spec.unschedulable}') == true ]]; then
        echo "$(stamp) $node uncordon" >>"$node_log" # before: a bind just after is allowed
        k uncordon "$node" >/dev/null
      else
        k cordon "$node" >/dev/null
        echo "$(stamp) $node cordon" >>"$node_log" # after: the cordon is stored by then
        cordons=$((cordons + 1))
      fi
    else
      old=$(node_cpu "$node")
      cpu=$((4 * (1 + RANDOM % 3)))
      if ((cpu < old)); then
        # before: the checker must never see the node shrunk without the entry
        echo "$(stamp) $node shrink" >>"$node_log"
        set_cpu "$node" "$cpu"
        shrinks=$((shrinks + 1))
      elif ((cpu > old)); then
        echo "$(stamp) $node grow" >>"$node_log"
        set_cpu "$node" "$cpu"
        grows=$((grows + 1))
      fi
    fi
    sleep 0.2
  done
  echo "$cordons $shrinks $grows" >"$E2E_TMP/writer-counts"
}
writer 2>"$E2E_TMP/writer.err" &
writer_pid=$!
E2E_EXTRA_PIDS+=("$writer_pid")

safe() {
  local out
  out=$(python3 "$E2E_ROOT/tests/reliability/check_invariants.py" --kubectl "$KUBECTL" \
    --node-log "$node_log") || { echo "$out" >&2 && return 1; }
}
e2e_invariant safe
writer_done() { ! kill -0 "$writer_pid" 2>/dev/null; }
wait_until "the writer churns for ${churn_s} s (the checker at every poll)" "$((churn_s + 60))" \
  writer_done
wait "$writer_pid" || { cat "$E2E_TMP/writer.err"; fail "the writer failed (above)"; }
read -r cordons shrinks grows <"$E2E_TMP/writer-counts"
e2e_log "the writer cordoned $cordons times, shrank $shrinks and grew $grows nodes"
expect "nodes were cordoned ($cordons), shrunk ($shrinks) and grown ($grows)" \
  test "$cordons" -ge 3 -a "$shrinks" -ge 3 -a "$grows" -ge 3
check_invariants --settled --node-log "$node_log"

# Every node grown to 12 CPU and uncordoned: the waiting pods fill the new room.
for node in "${nodes[@]}"; do
  echo "$(stamp) $node uncordon" >>"$node_log"
  k uncordon "$node" >/dev/null
  echo "$(stamp) $node grow" >>"$node_log"
  set_cpu "$node" 12
done
beyond_8() {
  kn get pods -o json | python3 -c '
import json, sys
held = {}
for p in json.load(sys.stdin)["items"]:
    node = p["spec"].get("nodeName")
    if node and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
        cpu = p["spec"]["containers"][0]["resources"]["requests"]["cpu"]
        held[node] = held.get(node, 0) + (int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000)
sys.exit(0 if any(v > 8000 for v in held.values()) else 1)'
}
wait_until "waiting pods fill a node beyond the 8 CPU it had" 30 beyond_8
e2e_invariant
check_invariants --settled --node-log "$node_log"
e2e_done
