#!/usr/bin/env bash
# Bad input never stops the scheduler (issue 5's acceptance; R25): on 2 nodes x 4 CPU,
#  * a PodGroup with minMember 0 and a pod with a malformed quantity are rejected by the API
#    server itself;
#  * a pod naming a PodGroup that does not exist is not scheduled and says why (a FailedScheduling
#    event or its PodScheduled condition: "pod group ... does not exist"), while a pod beside it
#    is scheduled as usual;
#  * once the PodGroup is created, its pods are scheduled.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup bad --nodes 2 --node-cpu 4
e2e_start_scheduler

# rejected DESC ERE: the manifest on stdin is refused by the API server with a message matching ERE.
rejected() {
  local out
  if out=$(k create -f - 2>&1); then
    fail "$1: accepted"
  fi
  grep -qE -- "$2" <<<"$out" || fail "$1: rejected, but not with /$2/: $out"
  pass "$1: rejected ($(grep -oE -- "$2" <<<"$out" | head -n 1))"
}
pg_yaml zero 0 | rejected "PodGroup with minMember 0" 'spec.minMember'
pod_yaml bad-quantity cpu=1K | rejected "pod with cpu 1K" 'unable to parse quantity'

{
  pod_yaml orphan-0 cpu=1 group=missing
  pod_yaml orphan-1 cpu=1 group=missing
} | apply_yaml
pod_yaml bystander cpu=1 | apply_yaml
wait_until "the pod beside them is scheduled" 30 not pod_unbound bystander
missing_reported() {
  has_event orphan-0 Warning FailedScheduling 'does not exist' ||
    pod_message_matches orphan-0 'does not exist'
}
wait_until "a pod naming a missing PodGroup says so (event or PodScheduled condition)" 30 \
  missing_reported
e2e_log "orphan-0: condition '$(pod_condition orphan-0 PodScheduled message)'; events: $(event_messages orphan-0 Warning FailedScheduling | head -n 1)"
holds_for "the pods of the missing group stay unbound" 2 bound_is arbiter.dev/pod-group=missing 0

pg_yaml missing 2 | apply_yaml
wait_until "once PodGroup missing exists, its 2 pods are bound" 30 \
  bound_is arbiter.dev/pod-group=missing 2

e2e_done
