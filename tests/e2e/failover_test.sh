#!/usr/bin/env bash
# Two replicas of each binary with --leader-elect (issue 16), as their ServiceAccounts, on 4 nodes
# x 4 CPU:
#  1. one scheduler and one controller take their Leases; the other replica of each stands by
#     (arbiter_leader 0, /readyz 200);
#  2. 4 gangs of 3 x 1 CPU are bound; the leading scheduler is killed (SIGKILL) and two gangs of
#     2 x 1 CPU that fit are submitted at once;
#  3. the standby takes the Lease within the lease duration plus two retry periods (19 s) and binds
#     them; a gang of 3 submitted then finds the cluster full and stays whole and pending;
#  4. nothing was lost or done twice: no node over its allocatable CPU, no group with between 1 and
#     minMember-1 pods bound, every pod bound or carrying PodScheduled=False, no pod with two
#     Scheduled events;
#  5. both controllers serve the admission webhook with one certificate, kept in a Secret by the
#     first (same fingerprint on both; the webhook refuses a queue whose parent does not exist);
#     the leading controller is killed; the standby takes its Lease, points the webhook
#     configuration at itself, is trusted by the same CA, and a BatchJob created then runs in the
#     room a finished gang left.
# shellcheck source-path=SCRIPTDIR disable=SC2016  # jsonpath in single quotes
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup failover --nodes 4 --node-cpu 4
lease_ns=arbiter-system
e2e_service_account arbiter-scheduler >/dev/null
e2e_service_account arbiter-controller >/dev/null

# start BINARY NAME LOG: one replica, leader-elected, as the binary's ServiceAccount; its pid is
# appended to E2E_EXTRA_PIDS (teardown stops it).
declare -A pid_of
start() {
  local binary=$1 name=$2 extra=()
  # The controllers serve the admission webhook, sharing one certificate through a Secret.
  [[ $name == arbiter-controller ]] && extra=(--webhook-bind-address 127.0.0.1 --webhook-port 0
    --webhook-cert-secret "$lease_ns/arbiter-webhook-cert")
  e2e_exec_as "$name" "$binary" --period 1s -v 2 --leader-elect --leader-elect-namespace "$lease_ns" \
    --metrics-bind-address 127.0.0.1:0 "${extra[@]}" </dev/null >"$E2E_TMP/$3.log" 2>&1 &
  pid_of[$3]=$!
  E2E_EXTRA_PIDS+=("$!")
}
start "$ARBITER_SCHEDULER" arbiter-scheduler scheduler-a
start "$ARBITER_SCHEDULER" arbiter-scheduler scheduler-b
start "$ARBITER_CONTROLLER" arbiter-controller controller-a
start "$ARBITER_CONTROLLER" arbiter-controller controller-b

holder() { k -n "$lease_ns" get lease "$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
has_holder() { [[ -n $(holder "$1") ]]; }
# leader_of KIND: which replica's log says it became leader with the Lease's current holder.
leader_of() {
  local h r
  h=$(holder "arbiter-$1")
  for r in a b; do
    grep -q "became leader.*identity=$h\$" "$E2E_TMP/$1-$r.log" 2>/dev/null && echo "$1-$r"
  done
  return 0
}
other() { [[ $1 == *-a ]] && echo "${1%-a}-b" || echo "${1%-b}-a"; }
alive() { kill -0 "${pid_of[$1]}" 2>/dev/null; }
port_of() {
  sed -nE 's|.*serving /metrics /healthz /readyz on 127\.0\.0\.1:([0-9]+).*|\1|p' "$E2E_TMP/$1.log" |
    head -n1
}
metric() { curl -sf "http://127.0.0.1:$(port_of "$1")/metrics" | awk -v s="$2" '$1 == s {print $2}'; }
metric_is() { [[ $(metric "$1" "$2") == "$3" ]]; }
ready() { [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(port_of "$1")/readyz") == 200 ]]; }

# --- 1. one leader each, one standby each -----------------------------------------------------------
wait_until "a scheduler holds Lease arbiter-scheduler" 30 has_holder arbiter-scheduler
wait_until "a controller holds Lease arbiter-controller" 30 has_holder arbiter-controller
wait_until "the scheduler holding the Lease logged it" 10 eval '[[ -n $(leader_of scheduler) ]]'
wait_until "the controller holding the Lease logged it" 10 eval '[[ -n $(leader_of controller) ]]'
sched_leader=$(leader_of scheduler)
sched_standby=$(other "$sched_leader")
ctrl_leader=$(leader_of controller)
ctrl_standby=$(other "$ctrl_leader")
e2e_log "leaders: $sched_leader, $ctrl_leader"
# The leader creates Queue default at its first session; the webhook refuses groups of a queue
# that does not exist yet.
wait_until "the leading scheduler created Queue default" 30 queue_exists default
wait_until "$sched_leader reports arbiter_leader 1" 10 metric_is "$sched_leader" arbiter_leader 1
expect "$sched_standby reports arbiter_leader 0" metric_is "$sched_standby" arbiter_leader 0
wait_until "the standby scheduler is ready" 10 ready "$sched_standby"
expect "the standby scheduler ran no session" metric_is "$sched_standby" arbiter_sessions_total 0
wait_until "the standby controller is ready" 10 ready "$ctrl_standby"
expect "$ctrl_standby reports arbiter_leader 0" metric_is "$ctrl_standby" arbiter_leader 0

# The webhook: one certificate for both controllers, made by the first and kept in the Secret.
webhook_port() {
  sed -nE 's|.*admission webhook serving on 127\.0\.0\.1:([0-9]+).*|\1|p' "$E2E_TMP/$1.log" | head -n1
}
fingerprint() {
  openssl s_client -connect "127.0.0.1:$(webhook_port "$1")" </dev/null 2>/dev/null |
    openssl x509 -noout -fingerprint -sha256
}
expect "the webhook's certificate is kept in Secret arbiter-system/arbiter-webhook-cert" \
  k -n "$lease_ns" get secret arbiter-webhook-cert
a_print=$(fingerprint controller-a)
[[ -n $a_print && $a_print == "$(fingerprint controller-b)" ]] ||
  fail "the two controllers serve different certificates"
pass "both controllers serve the same certificate"
configured_port() {
  k get validatingwebhookconfiguration arbiter-controller \
    -o jsonpath='{.webhooks[0].clientConfig.url}' 2>/dev/null | sed -E 's|.*:([0-9]+)/validate$|\1|'
}
points_at() { [[ $(configured_port) == "$(webhook_port "$1")" ]]; }
wait_until "the webhook configuration points at the leading controller" 20 points_at "$ctrl_leader"
refused_queue() {
  ! queue_yaml orphan parent=nowhere | k apply -f - >/dev/null 2>"$E2E_TMP/refusal" &&
    grep -q 'spec.parent: queue "nowhere" does not exist' "$E2E_TMP/refusal"
}
expect "the webhook refuses a queue whose parent does not exist" refused_queue

# --- 2. work, then the leader dies mid-stream ---------------------------------------------------------
gangs() {  # PREFIX COUNT SIZE
  local g i
  for ((g = 0; g < $2; g++)); do
    pg_yaml "$1$g" "$3"
    for ((i = 0; i < $3; i++)); do pod_yaml "$1$g-$i" group="$1$g" cpu=1; done
  done
}
gangs first 4 3 | apply_yaml
wait_until "the 4 gangs of 3 are bound" 60 bound_is 'arbiter.dev/pod-group in (first0,first1,first2,first3)' 12

old_holder=$(holder arbiter-scheduler)
kill -KILL "${pid_of[$sched_leader]}"
killed_at=$(now_ms)
e2e_log "killed $sched_leader (SIGKILL)"
gangs second 2 2 | apply_yaml

# --- 3. the standby takes over -------------------------------------------------------------------------
new_holder() { [[ -n $(holder arbiter-scheduler) && $(holder arbiter-scheduler) != "$old_holder" ]]; }
wait_until "$sched_standby takes the Lease" 40 new_holder
handover_ms=$(($(now_ms) - killed_at))
# The takeover rule (k8s/leader_election.h, client-go's): the standby takes the Lease once it has
# seen the same record for the lease duration (15 s) by its own clock. The last renewal came at
# most a retry period (2 s) before the kill, the standby saw it at most 2 s later, and tries every
# 2 s: 19 s at most, plus a poll.
((handover_ms <= 20000)) ||
  fail "hand-over took $handover_ms ms (more than 15 s + 2 x 2 s + a poll)"
pass "the hand-over took $handover_ms ms (lease 15 s, retry 2 s: at most 19 s)"
expect "the new holder is $sched_standby" eval '[[ $(leader_of scheduler) == "$sched_standby" ]]'
wait_until "the two gangs of 2 that fit are bound" 30 \
  bound_is 'arbiter.dev/pod-group in (second0,second1)' 4
# Then one that cannot fit (the cluster is full), submitted to the new leader: not created with
# the others, whose order among equal jobs would decide which fit.
gangs third 1 3 | apply_yaml
wait_until "the gang of 3 that does not fit is unschedulable" 30 pg_unschedulable third0
holds_for "and holds nothing" 3 bound_is arbiter.dev/pod-group=third0 0

# --- 4. nothing lost, nothing twice --------------------------------------------------------------------
state=$E2E_TMP/state.json
k get pods,podgroups,nodes -A -o json >"$state"
k get events -n "$E2E_NS" -o json >"$E2E_TMP/events.json"
python3 - "$state" "$E2E_TMP/events.json" <<'EOF' || fail "an invariant of ARCHITECTURE §6 does not hold (above)"
import collections, json, sys

items = json.load(open(sys.argv[1]))["items"]
events = json.load(open(sys.argv[2]))["items"]
def milli(q):
    q = str(q)
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)
nodes = {n["metadata"]["name"]: milli(n["status"]["allocatable"]["cpu"]) for n in items if n["kind"] == "Node"}
pods = [p for p in items if p["kind"] == "Pod" and p["metadata"]["namespace"] == "e2e"]
groups = {g["metadata"]["name"]: g["spec"]["minMember"] for g in items if g["kind"] == "PodGroup"}
bad = []
used = collections.Counter()
bound = collections.Counter()
for p in pods:
    node = p["spec"].get("nodeName")
    group = p["metadata"].get("labels", {}).get("arbiter.dev/pod-group")
    if node:
        used[node] += sum(milli(c["resources"]["requests"]["cpu"]) for c in p["spec"]["containers"])
        bound[group] += 1
    else:
        conds = {c["type"]: c for c in p["status"].get("conditions", [])}
        if conds.get("PodScheduled", {}).get("status") != "False":
            bad.append(f"pod {p['metadata']['name']} is neither bound nor says why")
for node, cpu in used.items():
    if cpu > nodes[node]:
        bad.append(f"node {node} holds {cpu}m of {nodes[node]}m")
for g, m in groups.items():
    if 0 < bound[g] < m:
        bad.append(f"group {g} has {bound[g]} of {m} pods bound")
scheduled = collections.Counter(e["regarding"]["name"] if "regarding" in e else e["involvedObject"]["name"]
                                for e in events if e.get("reason") == "Scheduled")
for name, n in scheduled.items():
    if n > 1:
        bad.append(f"pod {name} has {n} Scheduled events")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
pass "no node over its CPU, no gang broken, every pod bound or with a reason, none bound twice"

# --- 5. the controller's turn ------------------------------------------------------------------------
old_ctrl=$(holder arbiter-controller)
kill -KILL "${pid_of[$ctrl_leader]}"
e2e_log "killed $ctrl_leader (SIGKILL)"
kn delete podgroup second0 >/dev/null
kn delete pods -l arbiter.dev/pod-group=second0 --wait=false >/dev/null
new_ctrl() { [[ -n $(holder arbiter-controller) && $(holder arbiter-controller) != "$old_ctrl" ]]; }
wait_until "$ctrl_standby takes Lease arbiter-controller" 40 new_ctrl
# Here the API server calls the webhook at a replica's own address, which the new leader writes
# into the configuration; behind a Service it would have reached the standby all along.
wait_until "the new leader points the webhook configuration at itself" 20 points_at "$ctrl_standby"
expect "the configuration still trusts it (one CA)" refused_queue
workers_yaml after 2 500m | apply_yaml
wait_until "the BatchJob created after the kill runs" 60 batchjob_phase_is after Running
expect "the surviving replicas still run" eval 'alive "$sched_standby" && alive "$ctrl_standby"'

e2e_done
