#!/usr/bin/env bash
# Reliability (issue 20): the API server down for longer than the leader lease. Two
# arbiter-scheduler replicas with --leader-elect (lease 15 s, renew deadline 10 s) on 4 nodes ×
# 8 CPU; kube-apiserver is killed and started again 20 s later.
#   - the leader cannot renew: it stops leading by its own clock and exits with status 1, as
#     kube-scheduler does (its Deployment starts it again; here the test does);
#   - once the API server is back, a replica takes the Lease and binds what arrives; nothing is
#     lost or bound twice (the independent checker, settled);
#   - the replicas' only 403s come right after the API server's start (its RBAC warming up).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup apiserver_outage --nodes 4 --node-cpu 8
start_replica scheduler-a
start_replica scheduler-b
wait_until "a replica leads" 30 has_leading_replica
leader=$(leading_replica)
old_identity=$(lease_holder)
e2e_log "leader: $leader ($old_identity)"
wait_until "the leader created Queue default" 30 queue_exists default

gangs() {  # SET COUNT: COUNT gangs of 4 × 1 CPU
  local g i
  for ((g = 0; g < $2; g++)); do
    pg_yaml "$1$g" 4
    for i in 0 1 2 3; do pod_yaml "$1$g-$i" group="$1$g" cpu=1 labels="set: $1"; done
  done
}
gangs a 3 | apply_yaml
wait_until "3 gangs are bound before the outage" 60 bound_is set=a 12

component_kill kube-apiserver
outage 20
component_start kube-apiserver
started_at=$(date +%s)
wait_until "kube-apiserver is ready again" 60 api_ready
wait_until "the leader of before the outage has exited" 30 replica_exited "$leader"
status=0
wait "${REPLICA_PID[$leader]}" || status=$?
expect "with status 1 (it lost the lease), got $status" test "$status" -eq 1
start_replica "$leader"
# The Lease still names the old leader until it has gone unrenewed for its duration (15 s) by a
# candidate's clock, counted from when the API server answers again.
new_leader() { [[ $(lease_holder) != "$old_identity" ]] && has_leading_replica; }
wait_until "another replica takes the Lease" 60 new_leader
e2e_log "leader now: $(leading_replica) ($(lease_holder))"

gangs b 3 | apply_yaml
wait_until "3 gangs that arrive after the outage are bound" 60 bound_is set=b 12
check_invariants --settled
for r in scheduler-a scheduler-b; do
  expect "$r's only 403s came right after the API server's start" \
    refusals_only_after "$E2E_TMP/$r.log" "$started_at"
  mv "$E2E_TMP/$r.log" "$E2E_TMP/$r-checked.txt"
done

e2e_done
