#!/usr/bin/env bash
# R3 priority inside a job: a TensorFlow-like job of 1 parameter server (PriorityClass tf-ps,
# 1000) and 4 workers (tf-worker, 100), PodGroup minMember 3 with minTaskMember {ps: 1}, each pod
# a whole node, on 3 nodes: only 3 of the 5 pods can start, and the parameter server is among
# them although the PodGroup came first and the workers were created before it. Then the same job
# as a BatchJob run by arbiter-controller (tasks ps and worker, minAvailable 3): again 3 of its 5
# pods start and the parameter server is one of them.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r3 --nodes 3 --node-cpu 4
{
  priorityclass_yaml tf-ps 1000
  priorityclass_yaml tf-worker 100
} | apply_yaml
e2e_start_scheduler

# The PodGroup first, as a job controller makes it, then the pods, workers first: minTaskMember
# {ps: 1} keeps the workers from starting as a gang of their own before the parameter server
# exists (the three workers alone would meet minMember 3).
pg_yaml tf 3 '{ps: 1}' | apply_yaml
{
  for i in 0 1 2 3; do pod_yaml "tf-worker-$i" cpu=4 group=tf task=worker priority=tf-worker; done
} | apply_yaml
holds_for "no worker starts while the parameter server does not exist" 2 \
  bound_is arbiter.dev/pod-group=tf 0
pod_yaml tf-ps-0 cpu=4 group=tf task=ps priority=tf-ps | apply_yaml
expect "the parameter server has spec.priority 1000 (Priority admission)" \
  pod_priority_is tf-ps-0 1000

sel=arbiter.dev/pod-group=tf
wait_until "3 of the job's 5 pods are bound" 30 bound_is "$sel" 3
expect "the parameter server is among them (bound: $(pods_table "$sel" | awk '$2 != "<none>" {print $1}' | xargs))" \
  not pod_unbound tf-ps-0
three_with_ps() { bound_is "$sel" 3 && ! pod_unbound tf-ps-0; }
holds_for "exactly 3 bound, the parameter server one of them" 3 three_with_ps
expect "2 workers are bound and 2 left pending" bound_is arbiter.dev/task=worker 2
wait_until "PodGroup tf is Running with 3 running" 30 pg_running_is tf 3

# ---- the BatchJob variant ------------------------------------------------------------------------
kn delete pods -l "$sel" --wait=false >/dev/null
kn delete podgroup tf >/dev/null
wait_until "the hand-made job's pods are gone" 30 pod_count_is "$sel" 0
e2e_start_controller
task_yaml() { # NAME REPLICAS MIN PRIORITYCLASS
  cat <<YAML
    - name: $1
      replicas: $2
      minAvailable: $3
      template:
        spec:
          priorityClassName: $4
          terminationGracePeriodSeconds: 0
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "4"}}}]
YAML
}
{
  printf 'apiVersion: arbiter.dev/v1alpha1\nkind: BatchJob\nmetadata: {name: tfjob, namespace: %s}\n' "$E2E_NS"
  printf 'spec:\n  minAvailable: 3\n  tasks:\n'
  task_yaml worker 4 2 tf-worker
  task_yaml ps 1 1 tf-ps
} | apply_yaml
sel=arbiter.dev/job-name=tfjob
wait_until "3 of the BatchJob's 5 pods are bound" 60 bound_is "$sel" 3
three_with_job_ps() { bound_is "$sel" 3 && ! pod_unbound tfjob-ps-0; }
holds_for "exactly 3 bound, the parameter server tfjob-ps-0 one of them" 3 three_with_job_ps
job_running() { [[ $(kn get batchjob tfjob -o jsonpath='{.status.phase}') == Running ]]; }
wait_until "BatchJob tfjob is Running" 30 job_running

e2e_done
