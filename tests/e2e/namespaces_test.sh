#!/usr/bin/env bash
# Namespace isolation (issue 15, R16): two arbiter-scheduler instances of the same scheduler name,
# one with --namespaces team-a and one with --namespaces team-b, on 1 node x 8 CPU:
#  1. the pods of each namespace are bound, each by its own instance, and neither instance's log
#     names a pod of the other's namespace;
#  2. with the team-b instance stopped, a new pod of team-a is bound and a new pod of team-b stays
#     pending: the team-a instance leaves team-b's pods alone;
#  3. an instance limited to namespaces writes no Queue status (queues are cluster-wide: their
#     status is the unrestricted instance's).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup namespaces --nodes 1 --node-cpu 8
k create namespace team-a >/dev/null
k create namespace team-b >/dev/null
e2e_start_scheduler --namespaces team-a
e2e_exec_as arbiter-scheduler "$ARBITER_SCHEDULER" --period 1s -v 2 --namespaces team-b \
  </dev/null >"$E2E_TMP/scheduler-b.log" 2>&1 &
b_pid=$!
E2E_EXTRA_PIDS+=("$b_pid")

{
  pod_yaml a-0 ns=team-a cpu=1
  pod_yaml a-1 ns=team-a cpu=1
  pod_yaml b-0 ns=team-b cpu=1
  pod_yaml b-1 ns=team-b cpu=1
} | apply_yaml
node_of() { k -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}'; }
all_bound() {
  local ns p
  for ns in team-a team-b; do
    for p in 0 1; do [[ -n $(node_of "$ns" "${ns#team-}-$p") ]] || return 1; done
  done
}
wait_until "the pods of both namespaces are bound" 30 all_bound
bound_by() { grep -c "bound pod=$2/" "$1" || true; }
expect "the team-a instance bound team-a's two pods" test "$(bound_by "$E2E_TMP/scheduler.log" team-a)" -eq 2
expect "the team-b instance bound team-b's two pods" test "$(bound_by "$E2E_TMP/scheduler-b.log" team-b)" -eq 2
expect "the team-a instance's log never names a team-b pod" not grep -q "team-b/" "$E2E_TMP/scheduler.log"
expect "the team-b instance's log never names a team-a pod" not grep -q "team-a/" "$E2E_TMP/scheduler-b.log"

kill -TERM "$b_pid"
wait "$b_pid" 2>/dev/null || true
E2E_EXTRA_PIDS=()
{
  pod_yaml a-2 ns=team-a cpu=1
  pod_yaml b-2 ns=team-b cpu=1
} | apply_yaml
a2_bound() { [[ -n $(node_of team-a a-2) ]]; }
b2_pending() { [[ -z $(node_of team-b b-2) ]]; }
wait_until "with the team-b instance stopped, team-a's new pod is bound" 30 a2_bound
holds_for "team-b's new pod stays pending: the team-a instance leaves it alone" 3 b2_pending

expect "no instance limited to namespaces wrote a Queue status" \
  test -z "$(queue_field default .status.allocated.cpu)"
e2e_done
