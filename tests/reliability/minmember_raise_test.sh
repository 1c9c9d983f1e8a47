#!/usr/bin/env bash
# Reliability (issue 20): a PodGroup's minMember raised while the scheduler's watch of PodGroups
# lags. On 4 nodes × 2 CPU, 5 single pods of 1 CPU (one of them ends after 25 s) leave room for
# 3. PodGroup g
# (minMember 2) is known to the scheduler; then the proxy holds every PodGroup event of its watch
# 10 s, minMember is raised to 4, and g's 4 pods of 1 CPU arrive (the pod watch does not lag).
#   - Acting on the minMember it knows (2), the scheduler binds 3 of the 4: the raise has not
#     reached it (the proxy's counters show the watch was held). No one can do better without
#     reading the PodGroup again before each bind, which no scheduler does.
#   - Once the raise arrives, the gang is 3 of 4, below its minimum: it is completed first when
#     room comes (a single pod ends: 1 CPU), ahead of a single pod that waits for the same room;
#     the checker finds nothing all along, and settled, every gang whole.
#   (g's pods have no controller: were no room to come, g would be kept as it is, saying so.)
# Then a gang whose pods a ReplicaSet owns is broken the same way and no room comes:
#   - once the broken-gang timeout (10 s here) has passed since it broke, it is released: its 3
#     bound pods are evicted (events say why), the room goes to a pod that waited, the
#     ReplicaSet creates the pods again, and they wait whole, holding nothing.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BROKEN_TIMEOUT=10
e2e_setup minmember_raise --nodes 4 --node-cpu 2 --with-controller-manager
fault_proxy_start
rel_start_scheduler --config "$(scheduler_config "preemption: {brokenGangTimeoutSeconds: $BROKEN_TIMEOUT}")"
{
  pod_yaml fill-0 cpu=1 runfor=25s labels='fill: "yes"'
  for i in 1 2 3 4; do pod_yaml "fill-$i" cpu=1 labels='fill: "yes"'; done
} | apply_yaml
wait_until "5 single pods hold 5 of the 8 CPU" 30 bound_is fill=yes 5
pg_yaml g 2 | apply_yaml
known() { [[ -n $(pg_field g .status.phase) ]]; }
wait_until "the scheduler knows PodGroup g (minMember 2): it wrote its status" 30 known

# The watch of PodGroups lags: every event held 10 s (the watches opened again through the rule).
fault_rules '{"rules": [{"name": "lag", "path": "/podgroups$", "action": "watch-delay", "delayMs": 10000}]}'
curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null
lagging() { (($(fault_stat rules.lag.injected) >= 1)); }
wait_until "the scheduler watches PodGroups again, through the lag" 30 lagging
kn patch podgroup g --type=merge -p '{"spec": {"minMember": 4}}' >/dev/null
for i in 0 1 2 3; do pod_yaml "g-$i" group=g cpu=1; done | apply_yaml
e2e_invariant invariants_hold
wait_until "with minMember 2 as it knows it, the scheduler binds 3 of g's 4 pods" 8 \
  bound_is arbiter.dev/pod-group=g 3
expect "the raise had not reached it (PodGroup events still held)" \
  test "$(fault_stat rules.lag.injected)" -ge 1
pod_yaml waiting cpu=1 labels='waiting: "yes"' | apply_yaml

# The raise arrives; room comes when the single pods end.
below_min() { [[ $(pg_condition g Scheduled status) == False ]]; }
wait_until "once the raise arrives, g says it is below its minimum (Scheduled=False)" 30 below_min
e2e_log "g: $(pg_condition g Scheduled message)"
wait_until "when room comes, g is completed first" 60 bound_is arbiter.dev/pod-group=g 4
expect "the single pod waiting for the same room still waits" pod_unbound waiting
# The lag ends: the streams that still hold events are dropped, and opened again without it.
fault_rules '{"rules": []}'
curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null
check_invariants --settled

# Phase 2: g deleted (its 4 CPU free: `waiting` takes 1), then gang h of a ReplicaSet's pods.
kn delete pod -l arbiter.dev/pod-group=g --wait=true >/dev/null
kn delete podgroup g >/dev/null
wait_until "the pod that waited is bound in g's room" 30 bound_is waiting=yes 1
pg_yaml h 2 | apply_yaml
h_known() { [[ -n $(pg_field h .status.phase) ]]; }
wait_until "the scheduler knows PodGroup h (minMember 2)" 30 h_known
replicaset_yaml() {
  cat <<EOF
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: h, namespace: $E2E_NS}
spec:
  replicas: 3
  selector: {matchLabels: {arbiter.dev/pod-group: h}}
  template:
    metadata: {labels: {arbiter.dev/pod-group: h, e2e: "true"}}
    spec:
      schedulerName: arbiter
      terminationGracePeriodSeconds: 0
      containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
EOF
}
replicaset_yaml | apply_yaml
wait_until "h's 3 pods, of a ReplicaSet, are bound (the cluster is full)" 30 \
  bound_is arbiter.dev/pod-group=h 3
pod_yaml after cpu=1 labels='after: "yes"' | apply_yaml
kn patch podgroup h --type=merge -p '{"spec": {"minMember": 4}}' >/dev/null
kn scale replicaset h --replicas=4 >/dev/null
h_broken() { [[ $(pg_condition h Broken status) == True ]]; }
wait_until "h says it is broken (Broken=True): 3 of minMember 4, no room" 30 h_broken
e2e_log "h: $(pg_condition h Broken message)"
e2e_invariant invariants_hold
h_released() { [[ $(pg_condition h Broken reason) == Released ]]; }
wait_until "after the timeout ($BROKEN_TIMEOUT s) h is released (Broken=False, Released)" \
  $((BROKEN_TIMEOUT + 30)) h_released
e2e_log "h released at $(pg_condition h Broken lastTransitionTime)"
release_events() {
  kn get events --field-selector reason=Preempted -o jsonpath='{range .items[*]}{.note}{.message}{"\n"}{end}' |
    grep -c "release: pod group $E2E_NS/h held nodes below its minMember" || true
}
events_written() { (($(release_events) >= 3)); }
wait_until "each of h's 3 pods has an event saying it was released" 30 events_written
expect "the scheduler counted 3 evictions of kind release" \
  test "$(metric arbiter_evictions_decided_total 'kind="release"')" = 3
wait_until "the room goes to the pod that waited" 30 bound_is after=yes 1
recreated() { (($(kn get pods -l arbiter.dev/pod-group=h --no-headers | grep -vc Terminating) == 4)); }
wait_until "the ReplicaSet created h's pods again: 4 of them" 30 recreated
expect "h holds nothing while it waits whole" bound_is arbiter.dev/pod-group=h 0
e2e_invariant
check_invariants --settled
e2e_done

