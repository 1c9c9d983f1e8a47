#!/usr/bin/env bash
# Least-privilege RBAC (issue 16), on 2 nodes x 4 CPU. Every e2e test already runs the binaries as
# their ServiceAccounts (lib.sh e2e_exec_as) and fails on any request RBAC refused (e2e_done); this
# one adds:
#  1. what each ServiceAccount may do, `kubectl auth can-i --list` in namespace arbiter-system,
#     equals the committed expectation tests/e2e/rbac/NAME.can-i, so a widened (or narrowed) role
#     fails here; ARBITER_UPDATE_EXPECTATIONS=1 rewrites the files after a deliberate change;
#  2. each may not do what it has no business doing (read Secrets, but for the controller the one
#     holding its webhook's certificate; delete nodes; write the other's Lease; delete pods, for the
#     scheduler);
#  3. both run with --leader-elect as their ServiceAccounts: each takes its own Lease in
#     arbiter-system, a gang is bound, a BatchJob runs, and nothing was refused.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup rbac --nodes 2 --node-cpu 4
expectations="$E2E_ROOT/tests/e2e/rbac"

# --- 1. the permissions, exactly -------------------------------------------------------------------
# can_i_list NAME: what the ServiceAccount may do in arbiter-system, one rule a line, sorted.
can_i_list() {
  k auth can-i --list -n arbiter-system --as "system:serviceaccount:arbiter-system:$1" |
    tail -n +2 | sed -E 's/[[:space:]]+/ /g; s/ $//' | sort
}
for sa in arbiter-scheduler arbiter-controller; do
  e2e_service_account "$sa" >/dev/null
  can_i_list "$sa" >"$E2E_TMP/$sa.can-i"
  if [[ ${ARBITER_UPDATE_EXPECTATIONS:-0} == 1 ]]; then
    cp "$E2E_TMP/$sa.can-i" "$expectations/$sa.can-i"
  fi
  diff -u "$expectations/$sa.can-i" "$E2E_TMP/$sa.can-i" ||
    fail "$sa may do other things than tests/e2e/rbac/$sa.can-i says (above: - expected, + now)"
  pass "$sa may do exactly what tests/e2e/rbac/$sa.can-i lists"
done

# --- 2. and not more -------------------------------------------------------------------------------
# may SA ARGS...: `kubectl auth can-i ARGS...` as the ServiceAccount.
may() {
  local sa=$1
  shift
  k auth can-i "$@" --as "system:serviceaccount:arbiter-system:$sa" >/dev/null 2>&1
}
for sa in arbiter-scheduler arbiter-controller; do
  expect "$sa may not read Secrets" not may "$sa" get secrets -n e2e
  expect "$sa may not delete nodes" not may "$sa" delete nodes
done
expect "the scheduler may not delete pods (it evicts them)" not may arbiter-scheduler delete pods -n e2e
expect "the scheduler may not update the controller's Lease" \
  not may arbiter-scheduler update lease/arbiter-controller -n arbiter-system
expect "but its own" may arbiter-scheduler update lease/arbiter-scheduler -n arbiter-system
expect "the controller may read the Secret of its webhook's certificate" \
  may arbiter-controller get secret/arbiter-webhook-cert -n arbiter-system
expect "and no other Secret of its namespace" \
  not may arbiter-controller get secret/anything-else -n arbiter-system
expect "the controller may not bind pods" \
  not may arbiter-controller create pods --subresource binding -n e2e
expect "the scheduler may" may arbiter-scheduler create pods --subresource binding -n e2e

# --- 3. both, leader-elected, as their ServiceAccounts ------------------------------------------------
e2e_start_scheduler --leader-elect --leader-elect-namespace arbiter-system
e2e_start_controller --leader-elect --leader-elect-namespace arbiter-system
lease_holder() { k -n arbiter-system get lease "$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
holds_lease() { [[ -n $(lease_holder "$1") ]]; }
wait_until "the scheduler holds Lease arbiter-system/arbiter-scheduler" 30 holds_lease arbiter-scheduler
wait_until "the controller holds Lease arbiter-system/arbiter-controller" 30 \
  holds_lease arbiter-controller
{
  pg_yaml gang 2
  pod_yaml gang-0 group=gang cpu=1
  pod_yaml gang-1 group=gang cpu=1
} | apply_yaml
wait_until "the gang is bound" 30 bound_is arbiter.dev/pod-group=gang 2
workers_yaml job 2 500m | apply_yaml
wait_until "the BatchJob runs" 60 batchjob_phase_is job Running

e2e_done
