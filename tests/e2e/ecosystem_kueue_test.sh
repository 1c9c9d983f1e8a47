#!/usr/bin/env bash
# Issue 18, Deliver 3: Kueue admits by quota, Arbiter places the gangs, and neither undoes the
# other. Kueue's manager (sigs.k8s.io/kueue, built from its Go module by
# hack/cluster/build-ecosystem.sh) runs without its webhooks (the API server could not reach a
# Service here), so the Jobs are created suspended, as its webhook would make them. On 3 nodes of
# 4 CPU, ClusterQueue cq has a quota of 9 CPU:
#  1. Job a (3 x 3 CPU, a gang of 3 through PodGroup upkeep) is admitted by Kueue and unsuspended;
#     a 2-CPU pod of another scheduler leaves room for only 2 of its pods: Arbiter binds none of
#     them (Kueue's admission does not start a broken gang), and Kueue keeps it admitted (Arbiter's
#     wait does not undo the admission);
#  2. Job b (3 x 1 CPU) is over the quota while a holds it: Kueue keeps it suspended, so it has no
#     pods for Arbiter to place, although the nodes have room;
#  3. the 2-CPU pod goes: a's 3 pods are bound together, run and succeed; Kueue then admits b,
#     whose pods Arbiter binds; both Jobs complete and both Workloads finish.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


e2e_setup kueue --nodes 3 --node-cpu 4 --with-controller-manager
if ! kueue_dir=$("$E2E_ROOT/hack/cluster/build-ecosystem.sh" kueue 2>"$E2E_TMP/build-kueue.log"); then
  tail -n 30 "$E2E_TMP/build-kueue.log"
  fail "hack/cluster/build-ecosystem.sh kueue failed"
fi
k apply --server-side -f "$kueue_dir/crds/" >/dev/null
wait_until "Kueue's CRDs are established" 60 crds_established clusterqueues.kueue.x-k8s.io \
  localqueues.kueue.x-k8s.io workloads.kueue.x-k8s.io resourceflavors.kueue.x-k8s.io
e2e_start_scheduler
e2e_start_controller

# Kueue's configuration, a throwaway serving certificate, and /etc/kueue (see hack/cluster/kueue.sh).
# shellcheck source=../../hack/cluster/kueue.sh
source "$E2E_ROOT/hack/cluster/kueue.sh"
trap 'rc=$?; kueue_remove_etc; (exit $rc); e2e_teardown' EXIT
kueue_write_config "$E2E_TMP/kueue" || fail "could not write Kueue's configuration"
k create namespace kueue-system >/dev/null
e2e_log "starting Kueue's manager ($kueue_dir/bin/kueue)"
KUBECONFIG=$KUBECONFIG "$kueue_dir/bin/kueue" --config "$E2E_TMP/kueue/config.yaml" \
  >"$E2E_TMP/kueue.log" 2>&1 &
E2E_EXTRA_PIDS+=($!)

cat <<EOF2 | apply_yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu]
      flavors:
        - name: default-flavor
          resources: [{name: cpu, nominalQuota: "9"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: $E2E_NS}
spec: {clusterQueue: cq}
EOF2
cq_active() {
  [[ $(k get clusterqueue cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}') == True ]]
}
wait_until "Kueue's ClusterQueue cq is active" 60 cq_active

# job NAME CPU: an Indexed Job of 3 pods of CPU each, suspended, in LocalQueue lq, whose pods
# form a gang of 3 (label arbiter.dev/pod-group, annotation arbiter.dev/min-member).
job() {
  cat <<EOF2
---
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: $E2E_NS
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  suspend: true
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimit: 0
  template:
    metadata:
      labels: {app: $1, arbiter.dev/pod-group: $1}
      annotations: {arbiter.dev/min-member: "3", arbiter.dev/run-for: "4s"}
    spec:
      schedulerName: arbiter
      restartPolicy: Never
      terminationGracePeriodSeconds: 0
      containers:
        - {name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "$2"}}}
EOF2
}
suspended() { [[ $(kn get job "$1" -o jsonpath='{.spec.suspend}') == true ]]; }
unsuspended() { [[ $(kn get job "$1" -o jsonpath='{.spec.suspend}') == false ]]; }
job_complete() {
  [[ $(kn get job "$1" -o jsonpath='{.status.conditions[?(@.type=="Complete")].status}') == True ]]
}
# The Workload Kueue made for the Job, by its owner.
workload_condition() {
  kn get workloads.kueue.x-k8s.io -o json |
    python3 -c '
import json, sys
job, kind = sys.argv[1], sys.argv[2]
for w in json.load(sys.stdin)["items"]:
    if any(o.get("name") == job for o in w["metadata"].get("ownerReferences", [])):
        for c in w.get("status", {}).get("conditions", []):
            if c["type"] == kind:
                print(c["status"])' "$1" "$2"
}
admitted() { [[ $(workload_condition "$1" Admitted) == True ]]; }
finished() { [[ $(workload_condition "$1" Finished) == True ]]; }
admitted_and_started() { admitted "$1" && unsuspended "$1"; }
held_by_kueue() { suspended "$1" && pod_count_is "app=$1" 0; }

pod_yaml sleeper cpu=2 scheduler=other node=kwok-node-0 | apply_yaml
wait_until "the 2-CPU pod of another scheduler runs on kwok-node-0" 30 pod_phase_is sleeper Running

# ---- 1. admitted by Kueue, held whole by Arbiter ----
e2e_invariant bound_is app=a 0
job a 3 | apply_yaml
wait_until "Kueue admits Job a (quota 9 of 9 CPU) and unsuspends it" 60 admitted_and_started a
wait_until "the Job controller created a's 3 pods" 30 pod_count_is app=a 3
wait_until "PodGroup a reports Unschedulable=True" 30 pg_unschedulable a
holds_for "none of a's pods is bound while only 2 fit" 3 bound_is app=a 0
expect "Kueue keeps Job a admitted while Arbiter holds its gang" admitted a

# ---- 2. over the quota: Kueue keeps it suspended ----
job b 1 | apply_yaml
holds_for "Kueue keeps Job b suspended (a holds the quota): no pods for Arbiter" 3 \
  held_by_kueue b

# ---- 3. room freed: a runs whole, then b ----
e2e_invariant
kn delete pod sleeper --wait=false >/dev/null
wait_until "a's 3 pods are bound together once the room is free" 30 bound_is app=a 3
wait_until "Job a completes" 60 job_complete a
wait_until "Kueue finishes a's Workload" 60 finished a
wait_until "Kueue then admits Job b" 60 admitted_and_started b
wait_until "b's 3 pods are bound" 60 bound_is app=b 3
wait_until "Job b completes" 60 job_complete b
wait_until "Kueue finishes b's Workload" 60 finished b

e2e_done
