#!/usr/bin/env bash
# Reliability (issue 20): conflicting writers. While arbiter-scheduler places gangs and writes
# their status and the Queue's, another writer relabels the same PodGroups and the Queue as fast as
# kubectl goes, and the fault proxy answers 30 % of the scheduler's status writes 409 Conflict (a
# storm of conflicts on top of the real ones).
#   - every gang is bound and whole, and the statuses end right (the checker's queue-usage);
#   - the other writer's labels are never reverted (the checker's --mark);
#   - the conflicts were retried, not a storm: the scheduler's requests stay within what its QPS
#     allows.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # rel_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup conflicts --nodes 4 --node-cpu 8
fault_proxy_start
fault_rules '{"rules": [
  {"name": "conflict-put", "method": "PUT", "path": "/status$", "action": "status", "code": 409, "probability": 0.3},
  {"name": "conflict-patch", "method": "PATCH", "path": "/status$", "action": "status", "code": 409, "probability": 0.3}]}'
rel_start_scheduler --kube-api-qps 20 --kube-api-burst 40

gangs() {  # SET COUNT: COUNT gangs of 3 × 1 CPU, named SET0...
  local g i
  for ((g = 0; g < $2; g++)); do
    pg_yaml "$1$g" 3
    for i in 0 1 2; do pod_yaml "$1$g-$i" group="$1$g" cpu=1 labels="set: $1"; done
  done
}

# The other writer: labels on the PodGroups and the Queue, rewritten in a loop until told to stop.
relabel() {
  local n=0
  while [[ ! -e $E2E_TMP/stop-writer ]]; do
    n=$((n + 1))
    k -n "$E2E_NS" label podgroup a0 a1 a2 a3 "writer=v$n" --overwrite >/dev/null 2>&1 || true
    k label queue default "writer=v$n" --overwrite >/dev/null 2>&1 || true
  done
  echo "$n" >"$E2E_TMP/writer-rounds"
}
gangs a 4 | apply_yaml
relabel &
writer=$!
start=$(fault_stat requests)
started_ms=$(now_ms)
wait_until "4 gangs are bound while another writer relabels them" 60 bound_is set=a 12
# Three more sets come and go beside them: every PodGroup's and the Queue's status changes.
for set in b c d; do
  gangs "$set" 4 | apply_yaml
  wait_until "set $set's 4 gangs are bound" 60 bound_is "set=$set" 12
  kn delete pods -l "set=$set" --wait=false >/dev/null
  wait_until "set $set's pods are gone" 60 pod_count_is "set=$set" 0
done
# Status writes are few and batched (more so with --podgroup-status-hold), and the proxy's draws
# are seeded: the other writer goes on until a status write has been answered 409.
conflicts() { echo $(($(fault_stat rules.conflict-put.injected) + $(fault_stat rules.conflict-patch.injected))); }
some_conflicts() { (($(conflicts) >= 1)); }
wait_until "status writes are answered 409 while the other writer runs" 60 some_conflicts
touch "$E2E_TMP/stop-writer"
wait "$writer"
seconds=$(((($(now_ms) - started_ms) + 999) / 1000))
sent=$(($(fault_stat requests) - start))
e2e_log "the other writer relabelled $(cat "$E2E_TMP/writer-rounds") times; $(conflicts) status writes answered 409"
expect "the scheduler sent $sent requests in $seconds s (QPS 20 and burst 40 allow $((20 * seconds + 40)))" \
  test "$sent" -le $((20 * seconds + 40))

# The other writer's last word, and a change that makes the scheduler write every status again.
k -n "$E2E_NS" label podgroup a0 a1 a2 a3 writer=final --overwrite >/dev/null
k label queue default writer=final --overwrite >/dev/null
gangs e 4 | apply_yaml
wait_until "a last set's 4 gangs are bound" 60 bound_is set=e 12
marks=(--mark queues.arbiter.dev//default:writer=final)
for g in 0 1 2 3; do marks+=(--mark "podgroups.arbiter.dev/$E2E_NS/a$g:writer=final"); done
check_invariants --settled "${marks[@]}"

e2e_done
