#!/usr/bin/env bash
# R12 preemption inside a queue (issue 13), on 2 nodes x 8 CPU:
#  1. gang low (PriorityClass low, 4 pods x 4 CPU, minMember 4) fills the cluster; gang high
#     (PriorityClass high, 4 pods x 4 CPU, minMember 4) arrives. low is evicted whole: each pod
#     first carries DisruptionTarget=True (reason PreemptionByScheduler, naming high; seen in the
#     pod's watch before its deletion, since the Eviction API then rewrites the condition's reason
#     to its own EvictionByEvictionAPI) and gets a Preempted event; high's pods are nominated to the nodes. low's pods take 20 s to stop
#     (arbiter.dev/stop-for); meanwhile a pod "thief" of even higher priority that does not preempt
#     (its PriorityClass says preemptionPolicy: Never) is never placed in the room being freed, and high chooses no more
#     victims. Once low's pods are gone, high runs whole; thief still waits.
#  2. low's pods are recreated, as its controller would: low waits whole with nothing bound, says
#     why, and counts the preemption (status.preemptionCount, condition Preempted); high runs on.
# Throughout: high is never bound while low still holds nodes, thief is never bound.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r12 --nodes 2 --node-cpu 8
e2e_start_scheduler

sel_low=arbiter.dev/pod-group=low
sel_high=arbiter.dev/pod-group=high

# The room is never booked twice: high is bound only once every pod of low has left its node,
# and thief is never bound. (Evictions and binds are API calls made one pod at a time, so a gang's
# pods change state within a few hundred milliseconds of each other, not at one instant: that the
# whole gang was evicted in one decision is checked below from its pods' deletion timestamps.)
room_not_double_booked() {
  if (($(bound_count "$sel_high") > 0 && $(bound_count "$sel_low") > 0)); then
    echo "high is bound while low still holds nodes" >&2
    return 1
  fi
  [[ -z $(pod_node thief 2>/dev/null || true) ]] || { echo "thief was bound" >&2; return 1; }
}

low_gang() {  # SUFFIX: low's four pods, named low-SUFFIX0..3
  local i
  for i in 0 1 2 3; do
    pod_yaml "low-$1$i" cpu=4 group=low stopfor=20s labels="team: ml"
  done
}
{
  priorityclass_yaml low 10
  priorityclass_yaml high 1000
  priorityclass_yaml urgent 2000 Never
  group_yaml low min=4 priority=low
  low_gang ""
} | apply_yaml
wait_until "gang low runs whole (16 CPUs)" 30 phase_is "$sel_low" Running 4

# Every version of low's pods, from now on, to see what they carried before their deletion.
kn get pods -l "$sel_low" --watch --output-watch-events -o json >"$E2E_TMP/low-watch.json" &
watch_pid=$!
# The watch lists the pods as they are first (ADDED): once it has, later versions follow.
watch_listed() { (($(grep -o 'ADDED' "$E2E_TMP/low-watch.json" | wc -l) >= 4)); }
wait_until "the watch on low's pods has started" 10 watch_listed

e2e_invariant room_not_double_booked
{
  group_yaml high min=4 priority=high
  for i in 0 1 2 3; do pod_yaml "high-$i" cpu=4 group=high; done
} | apply_yaml

# ---- 1. low is evicted whole, each pod marked first ---------------------------------------------
all_low_terminating() {
  (($(kn get pods -l "$sel_low" -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}{"\n"}{end}' |
    grep -c .) == 4))
}
wait_until "all four pods of low are being evicted" 30 all_low_terminating
one_decision() {
  kn get pods -l "$sel_low" -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}{"\n"}{end}' |
    python3 -c 'import sys, datetime as d
t = [d.datetime.fromisoformat(l.strip().replace("Z", "+00:00")) for l in sys.stdin if l.strip()]
sys.exit(0 if len(t) == 4 and (max(t) - min(t)).total_seconds() <= 2 else 1)'
}
expect "low was evicted whole, in one decision (deletion timestamps within 2 s)" one_decision
# marked_before_deletion POD: some version of the pod has DisruptionTarget=True with reason
# PreemptionByScheduler and a message naming high, and no deletionTimestamp yet.
marked_before_deletion() {
  python3 - "$E2E_TMP/low-watch.json" "$1" <<'PY'
import json, sys
text, pod = open(sys.argv[1]).read(), sys.argv[2]
decoder, at, found = json.JSONDecoder(), 0, False
while at < len(text):
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        break
    event, at = decoder.raw_decode(text, at)
    obj = event.get("object", {})
    if obj.get("metadata", {}).get("name") != pod or obj["metadata"].get("deletionTimestamp"):
        continue
    for c in obj.get("status", {}).get("conditions", []):
        if (c.get("type") == "DisruptionTarget" and c.get("status") == "True"
                and c.get("reason") == "PreemptionByScheduler"
                and "Preempted by e2e/high (preempt: a job of higher priority in queue default)"
                in c.get("message", "")):
            found = True
sys.exit(0 if found else 1)
PY
}
for i in 0 1 2 3; do
  expect "low-$i carried DisruptionTarget=True, reason PreemptionByScheduler, naming high, before its deletion" \
    marked_before_deletion "low-$i"
done
kill "$watch_pid" 2>/dev/null || true
wait_until "low-0 has a Preempted event naming high" 30 has_event low-0 Normal Preempted "e2e/high"
nominated() {
  local i
  for i in 0 1 2 3; do
    [[ -n $(kn get pod "high-$i" -o jsonpath='{.status.nominatedNodeName}') ]] || return 1
  done
}
wait_until "high's pods are nominated to the room being freed" 30 nominated
expect "high waits for it (condition WaitingForPreemption)" \
  test "$(pg_condition high Unschedulable reason)" = WaitingForPreemption

# A pod of even higher priority that may not preempt arrives while low's pods stop.
{ pod_yaml thief cpu=4 priority=urgent; } | apply_yaml
holds_for "while low's pods stop, nothing is bound: not thief, not high" 8 bound_is "$sel_high" 0
expect "thief is not bound" pod_unbound thief

wait_until "low's pods are gone" 40 pod_count_is "$sel_low" 0
wait_until "high runs whole in the room it waited for" 30 phase_is "$sel_high" Running 4
holds_for "thief still waits: the cluster is full and it may not preempt" 3 pod_unbound thief

# ---- 2. low comes back and waits whole ---------------------------------------------------------
low_gang r | apply_yaml
holds_for "recreated low waits with nothing bound; high runs on" 4 bound_is "$sel_low" 0
expect "high still runs whole" phase_is "$sel_high" Running 4
wait_until "low says why it waits" 30 pg_unschedulable low
expect "low counts one preemption (status.preemptionCount '$(pg_field low .status.preemptionCount)')" \
  test "$(pg_field low .status.preemptionCount)" = 1
expect "low carries the Preempted condition" test "$(pg_condition low Preempted status)" = True
e2e_log "podgroups: $(kn get podgroups -o wide 2>&1)"

e2e_done
