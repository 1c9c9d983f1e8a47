#!/usr/bin/env bash
# Reliability (issue 20): the leader cut off from its Lease but not from the rest, the zombie that
# a pause cannot make (a paused process runs nothing; this one runs on). Two arbiter-scheduler
# replicas with --leader-elect on 4 nodes × 4 CPU: replica a, the leader, reaches the API server
# through the fault proxy, replica b directly.
#  1. The proxy makes every Lease request of a hang (its other requests pass: its watches stay
#     current, its binds would succeed). a cannot renew; by its own clock it must stop writing at
#     its renew deadline (10 s), before b may take the Lease (once b has seen the Lease unchanged
#     for its 15 s duration).
#  2. Pods arrive one a second all along: b, once it leads, binds them all.
#  3. The independent checker with --lease finds no event written, by a replica other than the
#     Lease's holder, after the holder acquired it (at most one leader writing). a exits by its
#     renew deadline, its hung request given up (status 1, "lost leadership"); settled, the
#     checker finds nothing else.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup lease_partition --nodes 4 --node-cpu 4
fault_proxy_start
start_proxied_replica scheduler-a
wait_until "replica a holds Lease arbiter-scheduler" 30 has_leading_replica
[[ $(leading_replica) == scheduler-a ]] || fail "the leader is $(leading_replica), not scheduler-a"
old_identity=$(lease_holder)
start_replica scheduler-b
wait_until "the leader created Queue default" 30 queue_exists default
pod_yaml first cpu=1 | apply_yaml
first_bound() { [[ -n $(pod_node first) ]]; }
wait_until "replica a binds a pod" 30 first_bound

# --- 1. a's Lease requests hang -----------------------------------------------------------------
fault_rules '{"rules": [{"name": "lease-hang", "path": "/leases/", "action": "hang"}]}'
# --- 2. pods arrive one a second until b has led for 10 s ---------------------------------------
touch "$E2E_TMP/arriving"
arrive() {
  local n=0
  while [[ -f $E2E_TMP/arriving ]]; do
    pod_yaml "p-$n" cpu=100m labels='arriving: "yes"' | k create -f - >/dev/null 2>&1 || true
    n=$((n + 1))
    sleep 1
  done
}
arrive &
arrive_pid=$!
E2E_EXTRA_PIDS+=("$arrive_pid")
new_holder() { [[ -n $(lease_holder) && $(lease_holder) != "$old_identity" ]]; }
wait_until "replica b takes the Lease" 60 new_holder
expect "a's Lease requests were held by the proxy" \
  test "$(fault_stat rules.lease-hang.injected)" -ge 1
holds_for "b leads for 10 s while pods arrive" 10 true
rm -f "$E2E_TMP/arriving"
wait "$arrive_pid" # its last pod may be on its way
arrived=$(kn get pods -l arriving=yes --no-headers | wc -l)
wait_until "b binds every pod that arrived ($arrived)" 30 bound_is arriving=yes "$arrived"
check_invariants --lease "$LEASE_NS/arbiter-scheduler"

# --- 3. a gives up -------------------------------------------------------------------------------
wait_until "replica a exits once its hung request gives up" 60 replica_exited scheduler-a
status=0
wait "${REPLICA_PID[scheduler-a]}" || status=$?
expect "with status 1 (lost the lease), got $status" test "$status" -eq 1
grep -q "lost leadership" "$E2E_TMP/scheduler-a.log" ||
  fail "replica a did not log that it lost the Lease"
pass "it logged that it lost the Lease"
check_invariants --settled --lease "$LEASE_NS/arbiter-scheduler"

e2e_done
