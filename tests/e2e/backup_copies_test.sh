#!/usr/bin/env bash
# Backup copies of stragglers (issue 21): arbiter-controller gives a pod of an idempotent BatchJob
# task that runs far behind its peers a copy on another node, and keeps the first of the two to
# succeed. On 3 nodes x 4 CPU, two jobs of 4 map pods of 1 CPU with no run time (kwok runs them
# until told), one marked idempotent, one not:
#  1. three pods of each succeed (the test gives them arbiter.dev/run-for: 1s, and kwok ends them
#     a second later); the fourth runs on;
#  2. past 1.5 x its task's median run time, the idempotent job's straggler gets a copy
#     <job>-map-3-backup (label arbiter.dev/backup), on a node other than the straggler's;
#     status.tasks.map.backups is 1; the other job's straggler gets none;
#  3. the copy succeeds: the straggler is deleted and the job Completed with its 4 map pods
#     succeeded, without a restart (attempt 0, preemptionCount 0, retryCount 0).
# shellcheck source-path=SCRIPTDIR disable=SC2119,SC2016  # optional flags; eval '...' on purpose
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup backup_copies --nodes 3 --node-cpu 4
e2e_start_scheduler
e2e_start_controller

bj_field() { kn get batchjob "$1" -o jsonpath="{$2}"; }
bj_phase_is() { [[ $(bj_field "$1" .status.phase) == "$2" ]]; }
job_pods() { kn get pods -l "arbiter.dev/job-name=$1" --no-headers 2>/dev/null; }
finish_soon() { kn annotate pod "$1" arbiter.dev/run-for=1s >/dev/null; }

map_job() {
  local name=$1 idempotent=$2
  cat <<YAML
---
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: $name, namespace: $E2E_NS}
spec:
  tasks:
    - name: map
      replicas: 4
      idempotent: $idempotent
      template:
        spec:
          terminationGracePeriodSeconds: 0
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
YAML
}

{
  map_job copied true
  map_job plain false
} | apply_yaml
wait_until "both jobs are Running" 60 eval 'bj_phase_is copied Running && bj_phase_is plain Running'

# ---- 1. three of each succeed --------------------------------------------------------------------
for job in copied plain; do
  for i in 0 1 2; do finish_soon "$job-map-$i"; done
done
wait_until "three map pods of each job succeed" 30 \
  eval 'phase_is arbiter.dev/job-name=copied Succeeded 3 && phase_is arbiter.dev/job-name=plain Succeeded 3'

# ---- 2. the straggler's copy ---------------------------------------------------------------------
wait_until "copied-map-3 gets a copy once it is behind its peers" 60 \
  eval 'kn get pod copied-map-3-backup >/dev/null 2>&1'
expect "the copy is labelled arbiter.dev/backup and carries the straggler's index" \
  eval '[[ $(kn get pod copied-map-3-backup -o jsonpath="{.metadata.labels.arbiter\.dev/backup} {.metadata.labels.arbiter\.dev/task-index}") == "true 3" ]]'
wait_until "the copy runs" 30 pod_phase_is copied-map-3-backup Running
straggler_node=$(pod_node copied-map-3)
copy_node=$(pod_node copied-map-3-backup)
expect "the copy runs on another node than the straggler ($copy_node, straggler on $straggler_node)" \
  eval '[[ -n $copy_node && $copy_node != "$straggler_node" ]]'
expect "status.tasks.map.backups is 1" eval '[[ $(bj_field copied .status.tasks.map.backups) == 1 ]]'
holds_for "the job whose task is not idempotent gets no copy" 5 \
  eval '! kn get pod plain-map-3-backup >/dev/null 2>&1 && [[ $(bj_field plain .status.tasks.map.backups) == 0 ]]'

# ---- 3. the copy wins ----------------------------------------------------------------------------
finish_soon copied-map-3-backup
wait_until "job copied is Completed once its copy succeeded" 60 bj_phase_is copied Completed
expect "the straggler was deleted" pod_gone copied-map-3
expect "4 map pods succeeded" eval '[[ $(bj_field copied .status.tasks.map.succeeded) == 4 ]]'
expect "without a restart (attempt 0, preemptionCount 0, retryCount 0)" \
  eval '[[ $(kn get batchjob copied -o jsonpath="{.status.attempt}/{.status.preemptionCount}/{.status.retryCount}") == 0/0/0 ]]'
expect "the other job still waits for its straggler" bj_phase_is plain Running

e2e_done
