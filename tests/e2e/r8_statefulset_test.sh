#!/usr/bin/env bash
# R8 a StatefulSet of 3 with minMember 2 on a cluster that fits 3 runs all 3. With the real
# StatefulSet controller (--with-controller-manager), 3 nodes with room for one 3-CPU pod each:
#  1. podManagementPolicy: Parallel creates the 3 pods at once; the PodGroup (minMember 2) is met
#     and all 3 run;
#  2. the default OrderedReady creates one pod at a time and waits for it to be Ready before the
#     next, so the group can never reach minMember 2: nothing is bound, and the group's
#     Unschedulable condition says it can never reach its minimum this way and to use Parallel.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r8 --nodes 3 --node-cpu 4 --with-controller-manager
e2e_start_scheduler

# statefulset_yaml NAME POLICY: 3 replicas of 3 CPU in group NAME (PodGroup minMember 2).
statefulset_yaml() {
  pg_yaml "$1" 2
  cat <<YAML
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: $1, namespace: $E2E_NS}
spec:
  replicas: 3
  podManagementPolicy: $2
  selector:
    matchLabels: {app: $1}
  template:
    metadata:
      labels: {app: $1, arbiter.dev/pod-group: $1}
    spec:
      schedulerName: arbiter
      terminationGracePeriodSeconds: 0
      containers:
      - name: main
        image: registry.k8s.io/pause:3.10
        resources:
          requests: {cpu: "3"}
YAML
}
sts_ready_is() { [[ $(kn get statefulset "$1" -o jsonpath='{.status.readyReplicas}') == "$2" ]]; }

# ---- 1. Parallel --------------------------------------------------------------------------------
statefulset_yaml web-parallel Parallel | apply_yaml
sel=app=web-parallel
wait_until "the StatefulSet controller created 3 pods" 30 pod_count_is "$sel" 3
wait_until "all 3 pods are bound" 30 bound_is "$sel" 3
expect "on 3 different nodes" distinct_nodes "$sel" 3
wait_until "all 3 pods are Running" 30 phase_is "$sel" Running 3
wait_until "the StatefulSet has 3 ready replicas" 30 sts_ready_is web-parallel 3
wait_until "PodGroup web-parallel is Running with 3 running" 30 pg_running_is web-parallel 3

kn delete statefulset web-parallel --wait=false >/dev/null
wait_until "the Parallel StatefulSet's pods are gone" 60 pod_count_is "$sel" 0

# ---- 2. OrderedReady (the default) ----------------------------------------------------------------
statefulset_yaml web-ordered OrderedReady | apply_yaml
sel=app=web-ordered
e2e_invariant bound_is "$sel" 0
wait_until "the StatefulSet controller created its first pod" 30 \
  pod_count_is "$sel" 1
wait_until "PodGroup web-ordered reports Unschedulable=True" 30 pg_unschedulable web-ordered
message=$(pg_condition web-ordered Unschedulable message)
e2e_log "Unschedulable: reason '$(pg_condition web-ordered Unschedulable reason)', message '$message'"
expect "the message says the group can never reach its minimum this way" \
  pg_message_matches web-ordered Unschedulable 'never'
expect "the message says to use podManagementPolicy: Parallel" \
  pg_message_matches web-ordered Unschedulable 'Parallel'
one_pod_unbound() { pod_count_is "$sel" 1 && bound_is "$sel" 0; }
holds_for "nothing of web-ordered is bound, and the controller makes no second pod" 3 \
  one_pod_unbound
e2e_invariant

e2e_done
