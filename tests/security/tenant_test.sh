#!/usr/bin/env bash
# Security (issue 20): a tenant's attempts to escape its queue. Tenant alice holds what a team is
# typically given (a Role in its namespace team-a over pods, PodGroups and BatchJobs, nothing
# else); team-a may use queue qa (capability 5 CPU, enforced by a ResourceQuota), team-b queue qb.
# Team b runs a gang of 4 x 1 CPU in qb, team a 3 low-priority pods; the 2 x 4 CPU are then full
# but for 1 CPU. Every attempt of alice's is refused, or harmless:
#   - another queue's name: a PodGroup naming qb, a pod of a group to come annotated with qb
#     (refused by the webhook); a pod of no group annotated with qb (it runs in queue default);
#   - another namespace: a PodGroup in team-b (RBAC), a pod naming team-b's group (it joins no
#     group of team-b's: that group's status is untouched);
#   - around the scheduler: a preset nodeName beyond the queue's capability and another
#     scheduler's name (the ResourceQuota refuses both), a Binding of its own (RBAC);
#   - status: writing PodGroup, pod or Queue status subresources (RBAC), status in a PodGroup's
#     main resource (ignored: the CRD has a status subresource);
#   - changing the queue of an admitted PodGroup (refused, naming spec.queue);
#   - a priority class team-a may not use (an admin's ResourceQuota scoped to it refuses the pod;
#     Arbiter's controller leaves that quota alone), and one it may use: that pod preempts
#     team-a's own low-priority pods, never team b's.
# Throughout, team b's pods are the same ones, bound, and qb's recorded usage stays 4 CPU.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # optional flags
set -euo pipefail
# shellcheck source=../reliability/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../reliability/lib.sh"

e2e_setup tenant --nodes 2 --node-cpu 4 --with-controller-manager
k create namespace team-a >/dev/null
k label namespace team-a team=a arbiter.dev/admission=enabled >/dev/null
k create namespace team-b >/dev/null
k label namespace team-b team=b >/dev/null
{
  queue_yaml qa weight=1 team=a 'capability={cpu: 5}' quota=Capability
  queue_yaml qb weight=1 team=b
  priorityclass_yaml low 10
  priorityclass_yaml high 1000
  priorityclass_yaml top 100000
} | apply_yaml
# The admin's rule: team-a may not use priority class top.
k -n team-a apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-top-priority}
spec:
  hard: {pods: "0"}
  scopeSelector:
    matchExpressions: [{scopeName: PriorityClass, operator: In, values: [top]}]
EOF

e2e_start_scheduler
e2e_start_controller --webhook-bind-address 127.0.0.1 --webhook-port 0
wait_until "the webhook is configured and answers" 30 webhook_ready
quota_ready() {
  [[ $(k -n team-a get resourcequota arbiter-queue-qa -o jsonpath='{.status.hard.requests\.cpu}' \
    2>/dev/null) == 5 ]]
}
wait_until "queue qa's ResourceQuota is in force in team-a" 60 quota_ready
admin_quota_ready() {
  [[ -n $(k -n team-a get resourcequota no-top-priority -o jsonpath='{.status.hard.pods}') ]]
}
wait_until "and the admin's" 60 admin_quota_ready

# --- the tenant -----------------------------------------------------------------------------------
k -n team-a create serviceaccount alice >/dev/null
k -n team-a apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: team-member}
rules:
  - apiGroups: [""]
    resources: [pods]
    verbs: [get, list, watch, create, update, patch, delete]
  - apiGroups: [arbiter.dev]
    resources: [podgroups, batchjobs]
    verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: team-member}
subjects: [{kind: ServiceAccount, name: alice, namespace: team-a}]
EOF
alice_config=$E2E_TMP/alice.kubeconfig
cat >"$alice_config" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')", certificate-authority: "$(cluster_dir)/ca.crt"}}]
users: [{name: alice, user: {token: "$(k -n team-a create token alice --duration 1h)"}}]
contexts: [{name: alice, context: {cluster: c, user: alice, namespace: team-a}}]
current-context: alice
EOF
alice() { "$KUBECTL" --kubeconfig "$alice_config" "$@"; }
# alice_refused DESC ERE < MANIFEST | alice_refused DESC ERE -- KUBECTL_ARGS...: alice's request
# (create -f - of stdin, or the arguments) fails with a message matching ERE.
alice_refused() {
  local desc=$1 want=$2 out
  shift 2
  if [[ ${1:-} == -- ]]; then
    shift
    out=$(alice "$@" 2>&1) && fail "$desc: alice's request was accepted ($out)"
  else
    out=$(alice create -f - 2>&1) && fail "$desc: alice's request was accepted ($out)"
  fi
  grep -qiE -- "$want" <<<"$out" || fail "$desc: refused, but not saying /$want/: $out"
  pass "$desc: refused ($(head -c 160 <<<"$out"))"
}

# bound_pods_are NS SELECTOR N: N pods of NS matching SELECTOR are bound.
bound_pods_are() {
  (($(k -n "$1" get pods -l "$2" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
    grep -c .) == $3))
}
pod_bound_in() { [[ -n $(k -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}') ]]; }
# pg_running_in NS GROUP N: the PodGroup's status says N pods running.
pg_running_in() {
  [[ $(k -n "$1" get podgroup "$2" -o jsonpath='{.status.running}') == "$3" ]]
}

# --- the two teams' work --------------------------------------------------------------------------
{
  group_yaml b1 min=4 queue=qb ns=team-b
  for i in 0 1 2 3; do pod_yaml "b1-$i" cpu=1 group=b1 ns=team-b runfor=1h labels="team: b"; done
} | apply_yaml
wait_until "team b's gang of 4 runs" 30 bound_pods_are team-b team=b 4
b_uids=$(k -n team-b get pods -l team=b -o jsonpath='{.items[*].metadata.uid}')
team_b_untouched() {
  [[ $(k -n team-b get pods -l team=b -o jsonpath='{.items[*].metadata.uid}') == "$b_uids" ]] &&
    bound_pods_are team-b team=b 4 && queue_cpu_is qb allocated 4000
}
wait_until "queue qb records 4 CPU" 30 team_b_untouched
for i in 0 1 2; do
  pod_yaml "a-$i" cpu=1 ns=team-a priority=low runfor=1h labels="team: a" \
    annotations="arbiter.dev/queue: qa" | alice create -f - >/dev/null
done
wait_until "team a's 3 pods run (alice may create pods)" 30 bound_pods_are team-a team=a 3
e2e_invariant team_b_untouched

# --- another queue's name -------------------------------------------------------------------------
group_yaml x1 min=1 queue=qb ns=team-a |
  alice_refused "a PodGroup naming queue qb" 'spec.queue: queue "qb" does not admit namespace "team-a"'
pod_yaml x2 ns=team-a group=x2 annotations="arbiter.dev/queue: qb" |
  alice_refused "a pod of a group to come, annotated with queue qb" \
  'queue "qb" does not admit namespace "team-a"'
# A pod of no group is a group of one in queue default, whatever it is annotated with.
pod_yaml x2b ns=team-a annotations="arbiter.dev/queue: qb" | alice create -f - >/dev/null
wait_until "a pod of no group annotated with qb runs, in queue default" 30 pod_bound_in team-a x2b
expect "(qb's usage did not change)" team_b_untouched
alice -n team-a delete pod x2b --wait=false >/dev/null

# --- another namespace ----------------------------------------------------------------------------
group_yaml x3 min=1 queue=qb ns=team-b | alice_refused "a PodGroup in team-b" 'forbidden'
pod_yaml x4 cpu=1 ns=team-a group=b1 annotations="arbiter.dev/queue: qa" | alice create -f - >/dev/null
holds_for "a pod naming team b's group joins nothing of team b's" 5 pg_running_in team-b b1 4
alice -n team-a delete pod x4 --wait=false >/dev/null

# --- around the scheduler -------------------------------------------------------------------------
node=$(k -n team-a get pod a-0 -o jsonpath='{.spec.nodeName}')
pod_yaml x5 cpu=3 ns=team-a node="$node" annotations="arbiter.dev/queue: qa" |
  alice_refused "a pod with a preset nodeName, beyond qa's capability" \
  'exceeded quota: arbiter-queue-qa'
pod_yaml x6 cpu=3 ns=team-a scheduler=default-scheduler |
  alice_refused "a pod for another scheduler, beyond qa's capability" \
  'exceeded quota: arbiter-queue-qa'
pod_yaml x7 cpu=100m ns=team-a annotations="arbiter.dev/queue: qa" | alice create -f - >/dev/null
binding='{"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "x7"},
  "target": {"apiVersion": "v1", "kind": "Node", "name": "'$node'"}}'
alice_refused "a Binding of alice's own" 'forbidden' -- \
  create --raw "/api/v1/namespaces/team-a/pods/x7/binding" -f - <<<"$binding"
alice -n team-a delete pod x7 --wait=false >/dev/null

# --- status ---------------------------------------------------------------------------------------
group_yaml ga min=1 queue=qa ns=team-a | alice create -f - >/dev/null
pod_yaml ga-0 cpu=100m ns=team-a group=ga runfor=1h | alice create -f - >/dev/null
wait_until "alice's group ga runs" 30 pg_running_in team-a ga 1
alice_refused "writing a PodGroup's status" 'forbidden' -- -n team-a patch podgroup ga \
  --subresource=status --type=merge -p '{"status": {"phase": "Pending", "running": 0}}'
alice_refused "writing a pod's status" 'forbidden' -- -n team-a patch pod ga-0 \
  --subresource=status --type=merge -p '{"status": {"phase": "Succeeded"}}'
alice_refused "writing a Queue's status" 'forbidden' -- patch queue qb \
  --subresource=status --type=merge -p '{"status": {"allocated": {"cpu": "0"}}}'
alice -n team-a patch podgroup ga --type=merge \
  -p '{"status": {"phase": "Pending", "running": 0}}' >/dev/null
expect "status in a PodGroup's main resource is ignored" pg_running_in team-a ga 1

# --- the queue of an admitted group ---------------------------------------------------------------
alice_refused "moving admitted group ga to queue qb" 'spec.queue' -- -n team-a patch podgroup ga \
  --type=merge -p '{"spec": {"queue": "qb"}}'

# --- priority -------------------------------------------------------------------------------------
pod_yaml x8 cpu=1 ns=team-a priority=top annotations="arbiter.dev/queue: qa" |
  alice_refused "a pod of priority class top, which team-a's quota forbids" \
  'exceeded quota: no-top-priority'
pod_yaml urgent cpu=1500m ns=team-a priority=high runfor=1h annotations="arbiter.dev/queue: qa" |
  alice create -f - >/dev/null
wait_until "alice's high-priority pod (1.5 CPU; 0.9 free) runs" 60 pod_bound_in team-a urgent
a_evicted() { (($(k -n team-a get pods -l team=a --no-headers 2>/dev/null | wc -l) < 3)); }
expect "by preempting team a's own low-priority pods" a_evicted
holds_for "team b's pods stay the same, bound, and qb's usage 4 CPU" 5 team_b_untouched
expect "Arbiter's controller left the admin's ResourceQuota alone" \
  k -n team-a get resourcequota no-top-priority

e2e_invariant
check_invariants --settled
e2e_done
