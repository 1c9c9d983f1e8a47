#!/usr/bin/env bash
# Reliability (issue 20): a zombie leader. Two arbiter-scheduler replicas with --leader-elect on
# 4 nodes × 4 CPU. The cluster is full (4 gangs of 4 × 1 CPU) and 4 single pods wait.
#  1. The leader is paused (SIGSTOP) and a gang is deleted: the other replica takes the Lease
#     (after the lease duration) and binds the 4 waiting pods into the room.
#  2. The old leader is resumed (SIGCONT) with its cache from before the pause, which still sees
#     the room free and the 4 pods waiting. It must send nothing (its log shows no bind, eviction
#     or nomination, and no failed write); it learns it lost the Lease and exits (status 1), as
#     kube-scheduler does.
#  3. A gang that does not fit arrives and waits whole; the independent checker (settled) finds
#     nothing (no node over its allocatable, no pod bound twice).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup zombie_leader --nodes 4 --node-cpu 4
start_replica scheduler-a
start_replica scheduler-b
wait_until "a replica holds Lease arbiter-scheduler" 30 has_lease_holder
wait_until "the replica holding the Lease logged it" 10 has_leading_replica
leader=$(leading_replica)
standby="scheduler-b"
[[ $leader == scheduler-b ]] && standby="scheduler-a"
old_identity=$(lease_holder)
e2e_log "leader $leader ($old_identity), standby $standby"
wait_until "the leader created Queue default" 30 queue_exists default

{
  for g in 0 1 2 3; do
    pg_yaml "full$g" 4
    for i in 0 1 2 3; do pod_yaml "full$g-$i" group="full$g" cpu=1; done
  done
} | apply_yaml
wait_until "the 4 gangs fill the cluster" 60 bound_is 'arbiter.dev/pod-group' 16
for i in 0 1 2 3; do pod_yaml "wait-$i" cpu=1 labels='waiting: "yes"'; done | apply_yaml
all_waiting() {
  local i
  for i in 0 1 2 3; do pod_unschedulable "wait-$i" || return 1; done
}
wait_until "the 4 single pods wait with a reason" 30 all_waiting

# --- 1. the leader paused, room made, the standby takes over -------------------------------------
kill -STOP "${REPLICA_PID[$leader]}"
e2e_log "paused $leader (SIGSTOP)"
kn delete pods -l arbiter.dev/pod-group=full0 --wait=false >/dev/null
new_holder() { [[ -n $(lease_holder) && $(lease_holder) != "$old_identity" ]]; }
wait_until "$standby takes the Lease" 40 new_holder
wait_until "the new leader binds the 4 waiting pods into the room" 30 bound_is waiting=yes 4
lines_before=$(wc -l <"$E2E_TMP/$leader.log")

# --- 2. the old leader resumed ---------------------------------------------------------------------
kill -CONT "${REPLICA_PID[$leader]}"
e2e_log "resumed $leader (SIGCONT)"
wait_until "the old leader exits once it learns it lost the Lease" 30 replica_exited "$leader"
status=0
wait "${REPLICA_PID[$leader]}" || status=$?
expect "with status 1 (lost the lease), got $status" test "$status" -eq 1
after=$(tail -n +"$((lines_before + 1))" "$E2E_TMP/$leader.log")
wrote() { grep -E 'bound pod=|evicted pod=|bind failed|status write|nominat' <<<"$after"; }
if wrote >/dev/null; then
  wrote | head -n 5
  fail "the old leader wrote after it resumed (above)"
fi
pass "the old leader sent nothing after it resumed"
grep -q "lost leadership" <<<"$after" || fail "the old leader did not log that it lost the Lease"
pass "it logged that it lost the Lease"

# --- 3. the new leader goes on ---------------------------------------------------------------------
{
  pg_yaml more 2
  pod_yaml more-0 group=more cpu=1
  pod_yaml more-1 group=more cpu=1
} | apply_yaml
wait_until "a gang that does not fit waits whole" 30 pg_unschedulable more
check_invariants --settled --lease "$LEASE_NS/arbiter-scheduler"

e2e_done
