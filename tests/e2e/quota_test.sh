#!/usr/bin/env bash
# Queue quotas (issue 15): arbiter-controller keeps a ResourceQuota per queue in the namespaces the
# queue owns, on 3 nodes x 80 CPU with kube-controller-manager (its resourcequota controller fills
# status.hard; its garbage collector follows owner references):
#  1. queue ml (weight 3, capability 100 CPU, Deserved) beside default (weight 1): the
#     ResourceQuota arbiter-queue-ml in its namespace reads 100 CPU (its 180 capped: more than a
#     node has, never clipped to one), owned by the queue, at the generation its status records;
#     QuotaSynced is True for the queue's generation, and the queue carries the finalizer;
#  2. a gang of 2 x 50 CPU in that namespace runs;
#  3. the ResourceQuota comes back after `kubectl delete`, and is repaired after an edit;
#  4. it follows a change of capability, exactly (100500m stays 100500m), at a new generation;
#  5. a namespace that stops being selected loses it, and gets it back when selected again;
#  6. the queue drained, closed and deleted: its ResourceQuota is gone, then the queue;
#  7. four queues of weight 1 and no capability beside default (five of weight 1): 48 CPU each
#     (240 / 5), with nothing else left from the steps before;
#  8. while a queue's capability flips between 3 and 6 CPU and pods keep coming, a watcher
#     sampling every 100 ms never sees the scheduler admit a pod beyond status.hard; nor while
#     its Deserved entitlement flips between 3 and 4.5 CPU, where only the quota stops the
#     scheduler from lending it more;
#  9. a queue's capability lowered from 8 to 4 CPU under 8 CPU of running pods: they all run
#     through the grace period (the scheduler's preemption.quotaGraceSeconds, 10 s here), then
#     the two low-priority pods are evicted (the pods beyond the quota, cheapest first), the
#     high-priority gang stays whole, and the evicted pods' events and group say why.
# shellcheck source-path=SCRIPTDIR disable=SC2016,SC2119  # jsonpath in single quotes; optional flags
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup quota --nodes 3 --node-cpu 80 --node-memory 256Gi --with-controller-manager
QUOTA_GRACE=10
e2e_start_scheduler --config "$(scheduler_config "preemption: {quotaGraceSeconds: $QUOTA_GRACE}")"
e2e_start_controller

# rq NS QUEUE JSONPATH: a field of the queue's ResourceQuota in NS (empty when there is none).
rq() { k -n "$1" get resourcequota "arbiter-queue-$2" -o jsonpath="{$3}" 2>/dev/null || true; }
rq_cpu_is() { [[ $(rq "$1" "$2" '.spec.hard.requests\.cpu') == "$3" ]]; }
rq_taken_is() { [[ $(rq "$1" "$2" '.status.hard.requests\.cpu') == "$3" ]]; }
rq_gone() { ! k -n "$1" get resourcequota "arbiter-queue-$2" >/dev/null 2>&1; }
rq_back() { [[ -n $(rq "$1" "$2" .metadata.uid) && $(rq "$1" "$2" .metadata.uid) != "$3" ]]; }
synced() {
  [[ $(queue_field "$1" '.status.conditions[?(@.type=="QuotaSynced")].status') == True &&
    $(queue_field "$1" '.status.conditions[?(@.type=="QuotaSynced")].observedGeneration') == \
    $(queue_field "$1" .metadata.generation) ]]
}
generation_agrees() {
  local g
  g=$(queue_field "$2" .status.quota.generation)
  [[ -n $g && $(rq "$1" "$2" '.metadata.annotations.arbiter\.dev/quota-generation') == "$g" ]]
}
queue_gone() { ! queue_exists "$1"; }
team_namespace() { k create namespace "$1" >/dev/null && k label namespace "$1" "team=$2" >/dev/null; }

# --- 1. Deserved on 3 x 80 CPU --------------------------------------------------------------------
team_namespace ml-a ml
queue_yaml ml weight=3 'capability={cpu: 100}' team=ml quota=Deserved | apply_yaml
wait_until "ResourceQuota arbiter-queue-ml in ml-a reads 100 CPU (180 capped by capability)" 30 \
  rq_cpu_is ml-a ml 100
wait_until "the API server's quota controller took it (status.hard 100)" 30 rq_taken_is ml-a ml 100
wait_until "QuotaSynced is True for the queue's generation" 30 synced ml
expect "memory is 3/4 of 768Gi (no cap on memory)" \
  test "$(rq ml-a ml '.spec.hard.requests\.memory')" == 576Gi
expect "the ResourceQuota is owned by the Queue" \
  test "$(rq ml-a ml '.metadata.ownerReferences[0].kind')/$(rq ml-a ml '.metadata.ownerReferences[0].name')" == Queue/ml
expect "its generation annotation is the one in the queue's status" generation_agrees ml-a ml
expect "the queue carries the finalizer" \
  test "$(queue_field ml '.metadata.finalizers[0]')" == arbiter.dev/queue-quota

# --- 2. a 2 x 50 CPU gang runs ------------------------------------------------------------------
{
  group_yaml big min=2 queue=ml ns=ml-a
  pod_yaml big-0 ns=ml-a group=big cpu=50 memory=1Gi
  pod_yaml big-1 ns=ml-a group=big cpu=50 memory=1Gi
} | apply_yaml
wait_until "the 2 x 50 CPU gang is bound under a 100 CPU quota" 30 \
  bound_cpu_is arbiter.dev/pod-group=big 100000 ml-a

# --- 3. deleted and edited ----------------------------------------------------------------------
uid=$(rq ml-a ml .metadata.uid)
k -n ml-a delete resourcequota arbiter-queue-ml >/dev/null
wait_until "a deleted ResourceQuota comes back" 30 rq_back ml-a ml "$uid"
wait_until "with its limit" 10 rq_cpu_is ml-a ml 100
k -n ml-a patch resourcequota arbiter-queue-ml --type merge \
  -p '{"spec":{"hard":{"requests.cpu":"1"}}}' >/dev/null
wait_until "an edited ResourceQuota is repaired" 30 rq_cpu_is ml-a ml 100

# --- 4. follows the capability, exactly ---------------------------------------------------------
before=$(queue_field ml .status.quota.generation)
k patch queue ml --type merge -p '{"spec":{"capability":{"cpu":"100500m"}}}' >/dev/null
wait_until "a change of capability reaches the ResourceQuota, exactly (100500m)" 30 \
  rq_cpu_is ml-a ml 100500m
wait_until "and is synced again" 30 synced ml
expect "at a new generation, the same on the ResourceQuota" \
  test "$(queue_field ml .status.quota.generation)" -gt "$before"
expect "annotation and status agree" generation_agrees ml-a ml

# --- 5. namespace no longer selected ------------------------------------------------------------
team_namespace ml-b ml
wait_until "a namespace newly selected gets the ResourceQuota" 30 rq_cpu_is ml-b ml 100500m
k label namespace ml-b team=other --overwrite >/dev/null
wait_until "a namespace no longer selected loses it" 30 rq_gone ml-b ml
k label namespace ml-b team=ml --overwrite >/dev/null
wait_until "and gets it back when selected again" 30 rq_cpu_is ml-b ml 100500m

expect "the gang still runs after all that" bound_cpu_is arbiter.dev/pod-group=big 100000 ml-a

# --- 6. drained, closed, deleted ----------------------------------------------------------------
k -n ml-a delete podgroup big --wait=false >/dev/null
k -n ml-a delete pods -l arbiter.dev/pod-group=big --wait=false >/dev/null
k patch queue ml --type merge -p '{"spec":{"state":"Closed"}}' >/dev/null
k delete queue ml --wait=false >/dev/null
wait_until "the deleted queue's ResourceQuotas are gone" 30 rq_gone ml-a ml
expect "in every namespace" rq_gone ml-b ml
wait_until "and then the queue (its finalizer released)" 30 queue_gone ml

# --- 7. five queues of weight 1 -----------------------------------------------------------------
for q in q1 q2 q3 q4; do
  team_namespace "ns-$q" "$q"
  queue_yaml "$q" team="$q" quota=Deserved | apply_yaml
done
for q in q1 q2 q3 q4; do
  wait_until "queue $q's ResourceQuota reads 48 CPU (240 / 5)" 30 rq_cpu_is "ns-$q" "$q" 48
done
expect "the cluster holds exactly those four" \
  test "$(k get resourcequota -A -l app.kubernetes.io/managed-by=arbiter-controller --no-headers | wc -l)" -eq 4

# --- 8. quota raised and lowered while pods come -----------------------------------------------
ARBITER_CLUSTER_ENV="$(dirname "$KUBECONFIG")/cluster.env"
export ARBITER_CLUSTER_ENV
[[ -f $ARBITER_CLUSTER_ENV ]] || fail "no $ARBITER_CLUSTER_ENV"
# flux NS QUEUE FLIP LOW_PATCH HIGH_PATCH DESC: runs quota_flux.py for 12 s.
flux() {
  local log="$E2E_TMP/flux-$1.log"
  if ! python3 "$E2E_ROOT/tests/e2e/quota_flux.py" "$1" "$2" "$3" "$4" "$5" 12 >"$log" 2>&1; then
    cat "$log"
    fail "$6: the scheduler admitted beyond the quota, or too little happened (above)"
  fi
  pass "$6: never admitted beyond status.hard ($(tail -1 "$log"))"
}
team_namespace flux flux
queue_yaml flux 'capability={cpu: 3}' team=flux quota=Capability | apply_yaml
wait_until "queue flux's quota is taken" 30 rq_taken_is flux flux 3
flux flux flux flux '{"spec":{"capability":{"cpu":"3"}}}' '{"spec":{"capability":{"cpu":"6"}}}' \
  "capability flipped 3 <-> 6 CPU under load"
# The entitlement moves while the scheduler's other limits do not: under parent fluxp (capability
# 9 CPU), flux (weight 1, Deserved) beside an idle sibling whose weight flips 1 <-> 2 deserves
# 4500m or 3 CPU, but could borrow up to 9 were it not for its quota.
team_namespace flux2 flux2
{
  queue_yaml fluxp 'capability={cpu: 9}'
  queue_yaml flux2 parent=fluxp team=flux2 quota=Deserved
  queue_yaml sibling parent=fluxp
} | apply_yaml
wait_until "queue flux2's quota is taken" 30 rq_taken_is flux2 flux2 4500m
flux flux2 flux2 sibling '{"spec":{"weight":2}}' '{"spec":{"weight":1}}' \
  "entitlement flipped 3 <-> 4500m CPU under load"

# --- 9. pods beyond a lowered quota are reclaimed after the grace period ------------------------
team_namespace shrink shrink
queue_yaml shrink 'capability={cpu: 8}' team=shrink quota=Capability | apply_yaml
wait_until "queue shrink's quota is taken" 30 rq_taken_is shrink shrink 8
{
  priorityclass_yaml quota-e2e-high 1000
  priorityclass_yaml quota-e2e-low 10
  group_yaml keep min=2 queue=shrink ns=shrink priority=quota-e2e-high
  pod_yaml keep-0 ns=shrink group=keep cpu=2 priority=quota-e2e-high
  pod_yaml keep-1 ns=shrink group=keep cpu=2 priority=quota-e2e-high
  for i in 0 1; do
    group_yaml "low-$i" queue=shrink ns=shrink priority=quota-e2e-low
    pod_yaml "low-$i" ns=shrink group="low-$i" cpu=2 priority=quota-e2e-low
  done
} | apply_yaml
wait_until "8 CPU of pods run in queue shrink" 30 bound_cpu_is e2e=true 8000 shrink
shrink_pods() { k -n shrink get pods --no-headers 2>/dev/null | wc -l; }
all_run() { (($(shrink_pods) == 4)) && bound_cpu_is e2e=true 8000 shrink; }
low_gone() { ! k -n shrink get pod low-0 >/dev/null 2>&1 && ! k -n shrink get pod low-1 >/dev/null 2>&1; }
lowered_at() { [[ -n $(queue_field shrink .status.quota.loweredAt) ]]; }
said_quota() {
  k -n shrink get events --field-selector involvedObject.kind=Pod,involvedObject.name=low-0,reason=Preempted \
    -o jsonpath='{.items[*].message}' | grep -q "beyond its lowered ResourceQuota"
}
group_said_quota() {
  k -n shrink get podgroup low-0 -o jsonpath='{.status.conditions[?(@.type=="Preempted")].message}' |
    grep -q '(quota)'
}
k patch queue shrink --type merge -p '{"spec":{"capability":{"cpu":"4"}}}' >/dev/null
wait_until "the quota is lowered to 4 CPU and taken" 30 rq_taken_is shrink shrink 4
expect "the queue's status says when it was lowered" lowered_at
# Until 2 s before the grace period ends, counted from when the controller lowered the quota.
held=$(($(date -d "$(queue_field shrink .status.quota.loweredAt)" +%s) + QUOTA_GRACE - 2 - $(date +%s)))
((held >= 3)) || fail "the quota was lowered too long ago to watch the grace period ($held s left)"
holds_for "every pod runs on beyond the lowered quota during the grace period" "$held" all_run
wait_until "then the two low-priority pods beyond the quota are evicted" 40 low_gone
expect "and only they: the high-priority gang runs whole" \
  bound_cpu_is arbiter.dev/pod-group=keep 4000 shrink
expect "no other pod left" test "$(shrink_pods)" -eq 2
wait_until "the evicted pod's Preempted event names the quota" 15 said_quota
wait_until "its group's Preempted condition says quota" 15 group_said_quota
holds_for "and nothing more is evicted" 3 bound_cpu_is arbiter.dev/pod-group=keep 4000 shrink

e2e_done
