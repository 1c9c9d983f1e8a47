#!/usr/bin/env bash
# arbiterctl reads the cluster (issue 17), on 2 nodes x 8 CPU: for each gate a job is made to wait
# for, `arbiterctl explain -o json` reports the gate and the numbers the scheduler published in
# the PodGroup's status.explanation:
#  1. Queue: a group in a Closed queue;
#  2. Capability: 3 x 1 CPU in a queue capped at 2 CPU (it may still take 2);
#  3. NotEnoughPods: minMember 3 with one pod;
#  4. Placement: a 12 CPU pod on nodes of 8 (2 nodes excluded, Insufficient cpu; short by 4; one
#     class of 2 nodes of 8 CPU with 8 free on one);
#  5. Admission and position: with the cluster full, three jobs of one queue are not admitted,
#     and are 1st, 2nd and 3rd in their queue, each naming those ahead; `explain pod/NAME` says
#     the same in text, and for a pod in no group prints its PodScheduled condition;
#  6. `arbiterctl queues` shows the hierarchy and the deserved shares the scheduler wrote;
#  7. WaitingForPreemption: a high-priority job whose victims take 20 s to stop;
#  8. `kubectl arbiter jobs` works as a kubectl plugin; an unknown job is an error naming it.
# DeservedShare is seen in step 5: the pods bound by hand are default's, above its share.
# shellcheck source-path=SCRIPTDIR disable=SC2016,SC2119  # jsonpath in single quotes; optional flags
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARBITERCTL="${ARBITERCTL:-$E2E_ROOT/build/bin/arbiterctl}"
[[ -x $ARBITERCTL ]] || skip "no $ARBITERCTL (build it first)"
e2e_setup arbiterctl --nodes 2 --node-cpu 8
e2e_start_scheduler

# ctl COMMAND ARGS...: arbiterctl COMMAND against the test's cluster.
ctl() {
  local command=$1
  shift
  "$ARBITERCTL" "$command" --kubeconfig "$KUBECONFIG" "$@"
}
# explained NAME PYTHON_EXPR: the expression holds on `arbiterctl explain NAME -o json` (as `j`;
# its explanation, or {}, as `e`).
explained() {
  local out
  out=$(ctl explain -n "$E2E_NS" "$1" -o json 2>/dev/null) || return 1
  python3 -c 'import json, sys; j = json.loads(sys.argv[1]); e = j.get("explanation") or {}; sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$out" "$2"
}

{
  queue_yaml closed state=Closed
  queue_yaml capped 'capability={cpu: 2}'
  queue_yaml team
  queue_yaml team-a parent=team weight=3
  queue_yaml team-b parent=team weight=1
} | apply_yaml
wait_until "the queues exist" 30 queue_exists team-b

# --- 1-4. one job per gate ----------------------------------------------------------------------
{
  group_yaml in-closed queue=closed
  pod_yaml in-closed-0 group=in-closed cpu=1
  group_yaml over-cap min=3 queue=capped
  for i in 0 1 2; do pod_yaml "over-cap-$i" group=over-cap cpu=1; done
  group_yaml short min=3
  pod_yaml short-0 group=short cpu=1
  group_yaml huge
  pod_yaml huge-0 group=huge cpu=12
} | apply_yaml
wait_until "Queue: a group in a Closed queue" 30 \
  explained in-closed 'j["explanation"]["gate"] == "Queue" and j["explanation"]["reason"] == "QueueClosed"'
wait_until "Capability: it needs 3 CPU, its queue may still take 2" 30 \
  explained over-cap 'j["explanation"]["gate"] == "Capability" and j["explanation"]["needs"]["cpu"] == "3" and j["explanation"]["queue"]["room"]["cpu"] == "2" and j["explanation"]["queue"]["capability"]["cpu"] == "2"'
wait_until "NotEnoughPods: minMember 3 with one pod" 30 \
  explained short 'j["explanation"]["gate"] == "NotEnoughPods"'
wait_until "Placement: 0/2 nodes, 2 Insufficient cpu, short by 4 CPU" 30 \
  explained huge 'e["gate"] == "Placement" and e["nodes"] == 2 and e["excluded"] == [{"reason": "Insufficient cpu", "nodes": 2}] and e["shortfall"]["cpu"] == "4" and e["pod"] == "e2e/huge-0"'
expect "free room per node class: 2 nodes of 8 CPU, 8 free on one" \
  explained huge 'len(e["nodeClasses"]) == 1 and e["nodeClasses"][0]["nodes"] == 2 and e["nodeClasses"][0]["allocatable"]["cpu"] == "8" and e["nodeClasses"][0]["mostFree"]["cpu"] == "8"'
expect "the JSON carries the Unschedulable condition beside it" \
  explained huge 'j["unschedulable"]["reason"] == "NotEnoughResources" and "0/2 nodes are available" in j["unschedulable"]["message"]'

# --- 5. position in the queue -------------------------------------------------------------------
# Pods bound by hand (spec.nodeName) fill both nodes.
{
  pod_yaml fill-0 cpu=8 node=kwok-node-0 'labels=fill: "true"'
  pod_yaml fill-1 cpu=8 node=kwok-node-1 'labels=fill: "true"'
} | apply_yaml
wait_until "the cluster is full" 30 bound_is fill=true 2
# Those pods are default's (their namespace names no other queue): default now holds 16 CPU, more
# than its share, while team-a's jobs below wait.
# Their priorities put them in this order (their creation times may fall in the same second).
for i in 0 1 2; do
  {
    priorityclass_yaml "ctl-e2e-w$i" $((300 - 100 * i))
    group_yaml "w$i" queue=team-a priority="ctl-e2e-w$i"
    pod_yaml "w$i-0" group="w$i" cpu=1 priority="ctl-e2e-w$i"
  } | apply_yaml
done
for i in 0 1 2; do
  wait_until "w$i is known to wait" 30 explained "w$i" 'j["explanation"] is not None'
done
wait_until "Admission: w0 is not admitted, the cluster has no room left" 30 \
  explained w0 'e["gate"] == "Admission" and e["reason"] == "NotEnoughResources"'
wait_until "w0 is next in team-a, with nothing ahead" 30 \
  explained w0 'e["position"] == 1 and "ahead" not in e'
wait_until "w2 is third, behind w0 and w1" 30 \
  explained w2 'j["explanation"]["position"] == 3 and j["explanation"]["ahead"] == ["e2e/w0", "e2e/w1"]'
wait_until "DeservedShare: huge, its queue default above its share while others wait" 30 \
  explained huge 'e["gate"] == "DeservedShare" and e["queue"]["allocated"]["cpu"] == "16"'
text=$(ctl explain -n "$E2E_NS" pod/w2-0)
expect "explain pod/w2-0 names its group and its place in text" \
  grep -q "Position: *3 in queue team-a; ahead: e2e/w0 e2e/w1" <<<"$text"
{ pod_yaml alone-0 cpu=12; } | apply_yaml
lone_pod_said() {
  local said
  said=$(kn get pod alone-0 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
  [[ -n $said ]] && ctl explain -n "$E2E_NS" pod/alone-0 | grep -qxF "Message:  $said"
}
wait_until "explain pod/NAME of a pod in no group prints what the scheduler told it" 30 lone_pod_said
expect "and what was asked for" grep -q "^pod e2e/w2-0 (PodGroup e2e/w2): Inqueue\|^pod e2e/w2-0 (PodGroup e2e/w2): Pending" <<<"$text"

# --- 6. queues ----------------------------------------------------------------------------------
deserved_agrees() {
  local q want got
  for q in team-a team-b; do
    want=$(queue_field "$q" .status.deserved.cpu)
    got=$(ctl queues -o json | python3 -c 'import json, sys; print(next(q["deserved"].get("cpu", "") for q in json.load(sys.stdin)["queues"] if q["name"] == sys.argv[1]))' "$q")
    [[ $want == "$got" ]] || return 1
    # team-a asks for room, so the scheduler gave it a share (team-b asks for none).
    [[ $q == team-b || -n $want ]] || return 1
  done
}
wait_until "arbiterctl queues -o json shows the deserved shares the scheduler wrote" 30 deserved_agrees
tree=$(ctl queues)
expect "the tree puts team-a and team-b under team" \
  python3 -c 'import sys; t = sys.argv[1]; a = t.index("\nteam "); b = t.index("├─ team-a"); c = t.index("└─ team-b"); sys.exit(0 if a < b < c else 1)' "$tree"

# --- 7. waiting for preemption -----------------------------------------------------------------
kn delete pods,podgroups --all --grace-period=0 --wait=true >/dev/null
{
  priorityclass_yaml ctl-e2e-low 10
  priorityclass_yaml ctl-e2e-high 1000
  group_yaml low min=2 priority=ctl-e2e-low
  pod_yaml low-0 group=low cpu=8 stopfor=20s
  pod_yaml low-1 group=low cpu=8 stopfor=20s
} | apply_yaml
wait_until "low fills the cluster" 30 bound_is arbiter.dev/pod-group=low 2
{ group_yaml high priority=ctl-e2e-high; pod_yaml high-0 group=high cpu=8; } | apply_yaml
wait_until "WaitingForPreemption: high waits while low's pods stop (20 s)" 15 \
  explained high 'e["gate"] == "WaitingForPreemption"'

# --- 8. as a kubectl plugin, and errors (the jobs of step 7 are listed) -----------------------
plugin_out=$(PATH="$(dirname "$ARBITERCTL"):$PATH" k arbiter jobs -n "$E2E_NS")
expect "kubectl arbiter jobs lists the jobs with their reasons" \
  grep -qE "^high +PodGroup +default +(Pending|Inqueue) +0/1 +[0-9ms]+ +WaitingForPreemption$" <<<"$plugin_out"
if ctl explain -n "$E2E_NS" nothing-here >"$E2E_TMP/missing.out" 2>&1; then
  fail "explain of a job that does not exist succeeded"
fi
expect "explain of a job that does not exist names it" \
  grep -q "no PodGroup or BatchJob named nothing-here in namespace e2e" "$E2E_TMP/missing.out"

e2e_done
