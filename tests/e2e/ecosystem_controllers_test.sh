#!/usr/bin/env bash
# Issue 18, Deliver 3: real workload controllers create the pods, Arbiter gang-schedules them.
#  1. kube-controller-manager's Job controller: an Indexed batch/v1 Job of parallelism 3 whose pod
#     template names a group (label arbiter.dev/pod-group, annotation arbiter.dev/min-member "3")
#     gets its PodGroup from arbiter-controller (minMember 3, owned by the Job); on 3 nodes of 4
#     CPU, one holding a 2-CPU pod of another scheduler, none of its 3 x 3 CPU pods is bound
#     while a plain pod is; once the 2-CPU pod goes, all 3 run, succeed, and the Job completes.
#  2. The JobSet controller (sigs.k8s.io/jobset, built from its Go module by
#     hack/cluster/build-ecosystem.sh): a JobSet of a leader and 2 workers whose pod templates set
#     schedulerName arbiter and the group label runs whole or not at all, the same way.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


e2e_setup controllers --nodes 3 --node-cpu 4 --with-controller-manager
e2e_start_scheduler
e2e_start_controller

pg_exists() { kn get podgroups.arbiter.dev "$1" >/dev/null 2>&1; }
job_complete() {
  [[ $(kn get job "$1" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}') == True ]]
}
# sleeper: a 2-CPU pod of another scheduler on kwok-node-0, so that a gang of 3 x 3 CPU has room
# for only 2.
sleeper() {
  pod_yaml sleeper cpu=2 scheduler=other node=kwok-node-0 | apply_yaml
  wait_until "the 2-CPU pod of another scheduler runs on kwok-node-0" 30 pod_phase_is sleeper Running
}

# gang_pod_template NAME INDENT: a pod template (metadata and spec) whose pods form gang NAME of 3
# (label arbiter.dev/pod-group, annotation arbiter.dev/min-member), 3 CPU each, running 3 s,
# indented by INDENT spaces.
gang_pod_template() {
  sed "s/^/$(printf '%*s' "$2" '')/" <<EOF2
metadata:
  labels: {app: $1, arbiter.dev/pod-group: $1}
  annotations: {arbiter.dev/min-member: "3", arbiter.dev/run-for: "3s"}
spec:
  schedulerName: arbiter
  restartPolicy: Never
  terminationGracePeriodSeconds: 0
  containers:
    - {name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "3"}}}
EOF2
}

# ---- 1. Indexed Job ----
sleeper
e2e_invariant bound_is app=train 0
cat <<EOF2 | apply_yaml
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: $E2E_NS}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimit: 0
  template:
$(gang_pod_template train 4)
EOF2
pod_yaml plain-train cpu=1 labels="app: plain-train" | apply_yaml
wait_until "the Job controller created the 3 pods" 30 pod_count_is app=train 3
wait_until "arbiter-controller created PodGroup train" 30 pg_exists train
expect "PodGroup train has minMember 3 and is owned by Job train" \
  test "$(pg_field train .spec.minMember)/$(pg_field train '.metadata.ownerReferences[0].kind')/$(pg_field train '.metadata.ownerReferences[0].name')" = 3/Job/train
wait_until "the plain pod is scheduled" 30 bound_is app=plain-train 1
wait_until "PodGroup train reports Unschedulable=True" 30 pg_unschedulable train
holds_for "none of the Job's 3 pods is bound over several sessions" 3 bound_is app=train 0
e2e_invariant
kn delete pod sleeper --wait=false >/dev/null
wait_until "all 3 of the Job's pods are bound once the room is free" 30 bound_is app=train 3
wait_until "the Job completes (its 3 pods succeeded)" 60 job_complete train
kn delete pods -l app=plain-train --wait=false >/dev/null
wait_until "the 2-CPU pod is gone" 30 pod_gone sleeper

# ---- 2. JobSet ----
if ! jobset_dir=$("$E2E_ROOT/hack/cluster/build-ecosystem.sh" jobset 2>"$E2E_TMP/build-jobset.log"); then
  tail -n 30 "$E2E_TMP/build-jobset.log"
  fail "hack/cluster/build-ecosystem.sh jobset failed"
fi
k apply --server-side -f "$jobset_dir/crds/" >/dev/null
wait_until "the JobSet CRD is established" 60 crds_established jobsets.jobset.x-k8s.io
# Its webhooks are not installed (the API server could not reach a Service here): the JobSet
# below spells out what its defaulting webhook would have set. The webhook server still needs a
# serving certificate to start: a throwaway one.
certs=$E2E_TMP/jobset-certs
throwaway_cert "$certs" jobset-webhook
read -r metrics_port probe_port webhook_port < <(free_ports 3)
cat >"$E2E_TMP/jobset-config.yaml" <<EOF2
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
internalCertManagement: {enable: false}
leaderElection: {leaderElect: false}
metrics: {bindAddress: "127.0.0.1:$metrics_port"}
health: {healthProbeBindAddress: "127.0.0.1:$probe_port"}
webhook: {port: $webhook_port, host: 127.0.0.1, certDir: $certs}
EOF2
e2e_log "starting the JobSet controller ($jobset_dir/bin/jobset)"
KUBECONFIG=$KUBECONFIG "$jobset_dir/bin/jobset" --config "$E2E_TMP/jobset-config.yaml" \
  >"$E2E_TMP/jobset.log" 2>&1 &
E2E_EXTRA_PIDS+=($!)

sleeper
e2e_invariant bound_is app=js 0
cat <<EOF2 | apply_yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: $E2E_NS}
spec:
  successPolicy: {operator: All}
  startupPolicy: {startupPolicyOrder: AnyOrder}
  network: {enableDNSHostnames: false, publishNotReadyAddresses: true}
  replicatedJobs:
    - name: leader
      replicas: 1
      template:
        spec:
          completionMode: Indexed
          parallelism: 1
          completions: 1
          backoffLimit: 0
          template: &pod
$(gang_pod_template js 12)
    - name: workers
      replicas: 1
      template:
        spec:
          completionMode: Indexed
          parallelism: 2
          completions: 2
          backoffLimit: 0
          template: *pod
EOF2
pod_yaml plain-js cpu=1 labels="app: plain-js" | apply_yaml
wait_until "the JobSet's Jobs created its 3 pods (1 leader, 2 workers)" 60 pod_count_is app=js 3
wait_until "the plain pod is scheduled" 30 bound_is app=plain-js 1
wait_until "PodGroup js reports Unschedulable=True" 30 pg_unschedulable js
holds_for "none of the JobSet's 3 pods is bound over several sessions" 3 bound_is app=js 0
e2e_invariant
kn delete pod sleeper --wait=false >/dev/null
wait_until "all 3 of the JobSet's pods are bound once the room is free" 30 bound_is app=js 3
jobset_completed() {
  [[ $(kn get jobset js -o jsonpath='{.status.conditions[?(@.type=="Completed")].status}') == True ]]
}
wait_until "the JobSet completes" 60 jobset_completed

e2e_done
