#!/usr/bin/env bash
# Issue 18, Deliver 1: Kubernetes' own gang API (scheduling.k8s.io/v1alpha2, alpha in 1.36; the
# local cluster serves it with --gang-api). Pods written for kube-scheduler's gang scheduling
# (spec.schedulingGroup naming a PodGroup with schedulingPolicy.gang.minCount), with only their
# schedulerName changed, are gang-scheduled by Arbiter from that PodGroup: a gang of 3 x 3 CPU on
# 3 nodes of 4 CPU, one holding a 2-CPU pod of another scheduler, binds nothing while a plain pod
# is scheduled, and its PodGroup has PodGroupScheduled=False, reason Unschedulable, as
# kube-scheduler writes it; once the 2-CPU pod goes, all 3 start and PodGroupScheduled is True.
# Its queue comes from the label arbiter.dev/queue; arbiter-controller makes no group of ours.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup gang_api --nodes 3 --node-cpu 4 --gang-api

served() { [[ $'\n'$(k api-resources --api-group=scheduling.k8s.io -o name)$'\n' == *$'\npodgroups.scheduling.k8s.io\n'* ]]; }
expect "the API server serves scheduling.k8s.io/v1alpha2 PodGroups" served

queue_yaml team weight=1 | apply_yaml
e2e_start_scheduler
e2e_start_controller

# kpg NAME FIELD: a field of Kubernetes' PodGroup NAME.
kpg() { kn get podgroups.scheduling.k8s.io "$1" -o jsonpath="{$2}"; }
scheduled_condition() { kpg "$1" ".status.conditions[?(@.type==\"PodGroupScheduled\")].$2"; }
no_arbiter_podgroups() { [[ -z $(kn get podgroups.arbiter.dev -o name) ]]; }
# member NAME GROUP [pod_yaml args]: a pod as kube-scheduler's gang scheduling expects it, but for
# its schedulerName.
member() {
  local name=$1 group=$2
  shift 2
  pod_yaml "$name" "$@" | sed "s/^spec:\$/spec:\n  schedulingGroup: {podGroupName: $group}/"
}

pod_yaml sleeper cpu=2 scheduler=other node=kwok-node-0 | apply_yaml
wait_until "the 2-CPU pod of another scheduler runs on kwok-node-0" 30 pod_phase_is sleeper Running

e2e_invariant bound_is app=mpi 0
{
  printf -- '---\napiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\n'
  printf 'metadata: {name: mpi, namespace: %s, labels: {arbiter.dev/queue: team}}\n' "$E2E_NS"
  printf 'spec:\n  schedulingPolicy:\n    gang: {minCount: 3}\n'
  for i in 0 1 2; do member "mpi-$i" mpi cpu=3 labels="app: mpi"; done
  pod_yaml plain cpu=1 labels="app: plain"
} | apply_yaml
expect "the pods keep spec.schedulingGroup (the feature gate is on)" \
  test "$(kn get pod mpi-0 -o jsonpath='{.spec.schedulingGroup.podGroupName}')" = mpi
wait_until "the plain pod beside the gang is scheduled" 30 bound_is app=plain 1
unschedulable() {
  [[ $(scheduled_condition mpi status) == False && $(scheduled_condition mpi reason) == Unschedulable &&
    $(scheduled_condition mpi message) == *cpu* ]]
}
wait_until "PodGroup mpi has PodGroupScheduled=False, reason Unschedulable, naming cpu" 30 unschedulable
expect "the condition's observedGeneration is the PodGroup's generation" \
  test "$(scheduled_condition mpi observedGeneration)" = "$(kpg mpi .metadata.generation)"
holds_for "none of the 3 gang pods is bound over several sessions" 3 bound_is app=mpi 0
waiting_in_team() {
  local pending inqueue
  pending=$(queue_field team .status.pending)
  inqueue=$(queue_field team .status.inqueue)
  ((${pending:-0} + ${inqueue:-0} == 1))
}
wait_until "queue team counts the gang waiting (its label arbiter.dev/queue)" 30 waiting_in_team

# (Binding 3 pods is 3 API calls: the count rises 0 -> 3 through 1 and 2 for a moment.)
e2e_invariant
kn delete pod sleeper --wait=false >/dev/null
wait_until "all 3 gang pods are bound once the room is free" 30 bound_is app=mpi 3
wait_until "all 3 are Running" 30 phase_is app=mpi Running 3
placed() { [[ $(scheduled_condition mpi status) == True && $(scheduled_condition mpi reason) == Scheduled ]]; }
wait_until "PodGroup mpi has PodGroupScheduled=True, reason Scheduled" 30 placed
wait_until "queue team counts the gang running" 30 test "$(queue_field team .status.running)" = 1
expect "arbiter-controller made no PodGroup of Arbiter's for it" no_arbiter_podgroups

e2e_done
