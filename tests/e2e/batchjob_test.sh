#!/usr/bin/env bash
# BatchJob (issue 14): arbiter-controller runs a job of several tasks as one gang, on 1 node x 3
# CPU with kube-controller-manager (its garbage collector removes what a deleted job owned):
#  1. the CRD refuses a task whose minAvailable exceeds its replicas, naming the field;
#  2. ps + 3 workers of 1 CPU (worker minAvailable 2) on room for 3 pods: the ps and 2 workers
#     run, the job is Running, and `kubectl get bj` shows phase, queue, running/min and retries;
#     its PodGroup, headless Service and <job>-hosts ConfigMap exist;
#  3. a job whose pods all succeed becomes Completed, and after its TTL nothing of it is left;
#  4. maxRetry 1 and a worker that fails: exactly one restart, then Failed, no pod left running,
#     and a watch of its pods never sees a new attempt's pod beside an old one's;
#  5. an MPI-like job: its launcher is made only once both workers are Ready;
#  6. the controller killed while a job restarts, and started again: the job ends as an
#     uninterrupted one does (one restart, then Failed after its second failure);
#  7. a job of priority low and maxRetry 0 (3 pods, the whole node) preempted by a pod of priority
#     high: it restarts (reason PodPreempted, preemptionCount 1) without using a retry (retryCount
#     0, not Failed), waits while the pod of high runs, and runs again once it is gone;
#  8. its spec.topology set, then removed, then its spec.locality: its PodGroup follows each time.
# shellcheck source-path=SCRIPTDIR disable=SC2119,SC2016  # optional flags; eval '...' on purpose
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup batchjob --nodes 1 --node-cpu 3 --with-controller-manager
e2e_start_scheduler
e2e_start_controller

bj_field() { kn get batchjob "$1" -o jsonpath="{$2}"; }
bj_phase_is() { [[ $(bj_field "$1" .status.phase) == "$2" ]]; }
job_pods() { kn get pods -l "arbiter.dev/job-name=$1" --no-headers 2>/dev/null; }
job_pod_count_is() { (($(job_pods "$1" | wc -l) == $2)); }

# batchjob_yaml NAME [KEY=VALUE...]: keys maxRetry, ttl, failcode (the worker exits with it after
# runfor), runfor (every pod's arbiter.dev/run-for), workers, launcher (1: an MPI-like launcher
# that depends on its workers being Ready, instead of a ps).
batchjob_yaml() {
  local name=$1
  shift
  local max_retry=3 ttl="" failcode="" runfor="" workers=3 launcher="" kv
  for kv in "$@"; do
    case $kv in
      maxRetry=*) max_retry=${kv#*=} ;;
      ttl=*) ttl=${kv#*=} ;;
      failcode=*) failcode=${kv#*=} ;;
      runfor=*) runfor=${kv#*=} ;;
      workers=*) workers=${kv#*=} ;;
      launcher=*) launcher=${kv#*=} ;;
      *) fail "batchjob_yaml: unknown key $kv" ;;
    esac
  done
  # Built here: quotes inside ${...} in a here-document are removed, and "3" must stay a string.
  local first_annotations="" worker_annotations=""
  [[ -n $runfor ]] && first_annotations="arbiter.dev/run-for: \"$runfor\""
  worker_annotations=$first_annotations
  [[ -n $failcode ]] && worker_annotations+=", arbiter.dev/exit-code: \"$failcode\""
  local first=ps first_deps=""
  if [[ -n $launcher ]]; then
    first=launcher
    first_deps='      dependsOn: [{task: worker, condition: Ready}]'
  fi
  cat <<YAML
---
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: $name, namespace: $E2E_NS}
spec:
  maxRetry: $max_retry
${ttl:+  ttlSecondsAfterFinished: $ttl}
  tasks:
    - name: $first
      replicas: 1
${first_deps}
      template:
        metadata:
          annotations: {$first_annotations}
        spec:
          terminationGracePeriodSeconds: 0
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
    - name: worker
      replicas: $workers
      minAvailable: 2
      template:
        metadata:
          annotations: {$worker_annotations}
        spec:
          terminationGracePeriodSeconds: 0
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
YAML
}

# ---- 1. the CRD's rules --------------------------------------------------------------------------
bad=$(
  cat <<YAML
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: bad, namespace: $E2E_NS}
spec:
  tasks:
    - {name: w, replicas: 2, minAvailable: 3, template: {spec: {containers: [{name: c, image: x}]}}}
YAML
)
out=$(k apply -f - <<<"$bad" 2>&1) && fail "a job with minAvailable > replicas was accepted"
expect "the CRD refuses minAvailable > replicas, naming spec.tasks[0].minAvailable ($out)" \
  grep -q 'spec.tasks\[0\].minAvailable: Invalid value.*must be at most replicas' <<<"$out"

# ---- 2. ps + 3 workers on room for 3 pods ---------------------------------------------------------
batchjob_yaml tf | apply_yaml
wait_until "job tf is Running" 60 bj_phase_is tf Running
running_of() { job_pods "$1" | awk '$3 == "Running" {print $1}' | tr '\n' ' '; }
expect "the ps and 2 workers run, the third worker waits ($(running_of tf))" \
  eval '[[ $(running_of tf) == "tf-ps-0 tf-worker-"?" tf-worker-"?" " ]] && pod_unbound "$(job_pods tf | awk "\$3 == \"Pending\" {print \$1}")"'
columns=$(kn get bj tf --no-headers)
expect "kubectl get bj shows phase, queue, running/min and retries ($columns)" \
  eval '[[ $(awk "{print \$2, \$3, \$4, \$5, \$6}" <<<"$columns") == "Running default 3 3 0" ]]'
expect "PodGroup tf has minMember 3 and minTaskMember {ps: 1, worker: 2}" \
  eval '[[ $(pg_field tf .spec.minMember) == 3 && $(pg_field tf .spec.minTaskMember.ps) == 1 && $(pg_field tf .spec.minTaskMember.worker) == 2 ]]'
expect "the headless Service tf exists" \
  eval '[[ $(kn get service tf -o jsonpath="{.spec.clusterIP}") == None ]]'
expect "ConfigMap tf-hosts lists the workers' host names" \
  eval '[[ $(kn get configmap tf-hosts -o jsonpath="{.data.worker\.host}") == *tf-worker-2.tf* ]]'
expect "pods carry their task index" \
  eval '[[ $(kn get pod tf-worker-1 -o jsonpath="{.spec.containers[0].env[?(@.name==\"ARBITER_TASK_INDEX\")].value}") == 1 ]]'
kn delete batchjob tf --wait=false >/dev/null
# The garbage collector finds a new CRD at its next discovery (up to 30 s).
wait_until "deleting job tf removes its pods, PodGroup, Service and ConfigMap" 120 \
  eval 'job_pod_count_is tf 0 && ! kn get podgroup tf >/dev/null 2>&1 && ! kn get service tf >/dev/null 2>&1 && ! kn get configmap tf-hosts >/dev/null 2>&1'

# ---- 3. success, then TTL -----------------------------------------------------------------------
batchjob_yaml succeeds workers=2 runfor=2s ttl=5 | apply_yaml
wait_until "job succeeds is Completed" 60 bj_phase_is succeeds Completed
expect "its finished pods are kept until the TTL" job_pod_count_is succeeds 3
wait_until "job succeeds is deleted after its TTL with nothing left behind" 60 \
  eval '! kn get batchjob succeeds >/dev/null 2>&1 && job_pod_count_is succeeds 0 && ! kn get podgroup succeeds >/dev/null 2>&1 && ! kn get service succeeds >/dev/null 2>&1 && ! kn get configmap succeeds-hosts >/dev/null 2>&1'

# ---- 4. maxRetry 1 with a failing worker ----------------------------------------------------------
# Every pod event of the job, with its attempt, to check that attempts never overlap.
kn get pods -l arbiter.dev/job-name=flaky -w --output-watch-events --no-headers \
  -o 'custom-columns=E:.type,N:.object.metadata.name,A:.object.metadata.labels.arbiter\.dev/job-attempt' \
  >"$E2E_TMP/flaky.watch" 2>/dev/null &
watch_pid=$!
batchjob_yaml flaky workers=2 maxRetry=1 runfor=2s failcode=3 | apply_yaml
wait_until "job flaky is Failed" 90 bj_phase_is flaky Failed
kill "$watch_pid" 2>/dev/null || true
expect "job flaky restarted exactly once ($(bj_field flaky .status.retryCount) retries)" \
  eval '[[ $(bj_field flaky .status.retryCount) == 1 && $(bj_field flaky .status.attempt) == 1 ]]'
expect "job flaky's Failed condition says why ($(bj_field flaky '.status.conditions[?(@.type=="Failed")].reason'))" \
  eval '[[ $(bj_field flaky ".status.conditions[?(@.type==\"Failed\")].reason") == MaxRetryExceeded ]]'
expect "no pod of job flaky is left running" \
  eval '[[ -z $(job_pods flaky | awk "\$3 == \"Running\" || \$3 == \"Pending\"") ]]'
# Replays the watch: the set of live pods per attempt must never hold two attempts at once.
no_overlap() {
  awk '
    { key = $2 "@" $3 }
    $1 == "ADDED" { live[key] = $3 }
    $1 == "DELETED" { delete live[key] }
    $1 == "ADDED" { for (k in live) if (live[k] != $3) { print "overlap: " k " beside " key; bad = 1 } }
    END { exit bad }' "$E2E_TMP/flaky.watch"
}
expect "a watch of flaky's pods never saw attempt 1 beside attempt 0 ($(grep -c ADDED "$E2E_TMP/flaky.watch") pods added)" \
  no_overlap

# ---- 5. MPI-like: the launcher after its workers are Ready ---------------------------------------
kn delete batchjob flaky >/dev/null
wait_until "job flaky's pods are gone" 60 job_pod_count_is flaky 0
batchjob_yaml mpi workers=2 launcher=1 | apply_yaml
launcher_after_workers() {
  local created workers_ready
  created=$(kn get pod mpi-launcher-0 -o jsonpath='{.metadata.creationTimestamp}' 2>/dev/null) || return 1
  workers_ready=$(kn get pods -l arbiter.dev/job-name=mpi,arbiter.dev/task=worker \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\n"}{end}' | sort | tail -n 1)
  [[ -n $workers_ready && ! $created < $workers_ready ]]
}
wait_until "job mpi is Running" 60 bj_phase_is mpi Running
expect "mpi-launcher-0 was created no earlier than its workers were Ready" launcher_after_workers
kn delete batchjob mpi >/dev/null
wait_until "job mpi's pods are gone" 60 job_pod_count_is mpi 0

# ---- 6. the controller killed mid-restart --------------------------------------------------------
batchjob_yaml crash workers=2 maxRetry=1 runfor=3s failcode=3 | apply_yaml
wait_until "job crash restarts" 60 eval '[[ $(bj_field crash .status.attempt) == 1 ]]'
e2e_log "killing arbiter-controller while job crash restarts"
kill -9 "$E2E_CONTROLLER_PID"
wait "$E2E_CONTROLLER_PID" 2>/dev/null || true
E2E_CONTROLLER_PID=""
mv "$E2E_TMP/controller.log" "$E2E_TMP/controller-1.log"
e2e_start_controller
wait_until "job crash ends Failed after one restart, as an uninterrupted run does" 90 \
  eval 'bj_phase_is crash Failed && [[ $(bj_field crash .status.retryCount) == 1 && $(bj_field crash .status.attempt) == 1 ]]'
expect "no pod of job crash is left running" \
  eval '[[ -z $(job_pods crash | awk "\$3 == \"Running\" || \$3 == \"Pending\"") ]]'

# ---- 7. preempted: a restart that uses no retry ---------------------------------------------------
{
  priorityclass_yaml low 10
  priorityclass_yaml high 1000
  cat <<YAML
---
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: victim, namespace: $E2E_NS}
spec:
  priorityClassName: low
  maxRetry: 0
  tasks:
    - name: w
      replicas: 3
      template:
        spec:
          terminationGracePeriodSeconds: 0
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]
YAML
} | apply_yaml
wait_until "job victim runs on the whole node" 60 bj_phase_is victim Running
pod_yaml urgent cpu=1 priority=high | apply_yaml
wait_until "the pod of priority high runs" 60 pod_phase_is urgent Running
victim_restarted() {
  [[ $(bj_field victim .status.preemptionCount) == 1 &&
    $(bj_field victim '.status.conditions[?(@.type=="Restarting")].reason') == PodPreempted ]]
}
wait_until "job victim restarted for a preemption (preemptionCount 1, reason PodPreempted)" 30 \
  victim_restarted
expect "the restart used no retry (retryCount $(bj_field victim .status.retryCount), phase $(bj_field victim .status.phase))" \
  eval '[[ $(bj_field victim .status.retryCount) == 0 && $(bj_field victim .status.phase) != Fail* ]]'
holds_for "job victim waits, whole, while the pod of high runs" 3 \
  eval 'bj_phase_is victim Pending && bound_is arbiter.dev/job-name=victim 0'
kn delete pod urgent >/dev/null
wait_until "job victim runs again once the pod of high is gone" 60 bj_phase_is victim Running
expect "still no retry used" eval '[[ $(bj_field victim .status.retryCount) == 0 ]]'

# 8. A topology changed once the job's PodGroup exists reaches the PodGroup; removed, it goes.
kn patch batchjob victim --type=merge \
  -p '{"spec": {"topology": {"mode": "Preferred", "level": "rack", "maxWaitSeconds": 30}}}' >/dev/null
pg_topology() { kn get podgroup victim -o jsonpath='{.spec.topology.mode}/{.spec.topology.level}/{.spec.topology.maxWaitSeconds}'; }
wait_until "job victim's new topology reaches its PodGroup" 30 eval '[[ $(pg_topology) == Preferred/rack/30 ]]'
kn patch batchjob victim --type=merge -p '{"spec": {"topology": null}}' >/dev/null
wait_until "removed from the job, it is removed from the PodGroup" 30 eval '[[ $(pg_topology) == // ]]'
# The same for where its data lives.
kn patch batchjob victim --type=merge -p '{"spec": {"locality": {"nodes": ["kwok-node-1"]}}}' >/dev/null
pg_locality() { kn get podgroup victim -o jsonpath='{.spec.locality.nodes}'; }
wait_until "job victim's data locality reaches its PodGroup" 30 eval '[[ $(pg_locality) == "[\"kwok-node-1\"]" ]]'
kn patch batchjob victim --type=merge -p '{"spec": {"locality": null}}' >/dev/null
wait_until "removed from the job, it is removed from the PodGroup" 30 eval '[[ -z $(pg_locality) ]]'
expect "job victim still runs" bj_phase_is victim Running

e2e_done
