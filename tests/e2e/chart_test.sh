#!/usr/bin/env bash
# The Helm chart and the plain manifests (issue 16), tried as a new user would, on 2 nodes x 4 CPU:
#  1. `helm lint` passes; `helm template` (hack/render-manifests.sh --stdout) is exactly the
#     committed deploy/manifests/arbiter.yaml;
#  2. `kubectl apply --dry-run=server` of the manifests succeeds (in an existing namespace
#     arbiter-system, as a dry run creates none), then `kubectl apply` gives every
#     object: Namespace, CRDs, ServiceAccounts, roles, the scheduler's ConfigMap, both Deployments
#     (2 replicas, probes, non-root, read-only root, no capabilities), the Services, the
#     PodDisruptionBudgets;
#  3. the pods cannot run on kwok nodes, so the binaries run outside, as the chart's
#     ServiceAccounts, with the chart's ConfigMap and the Deployments' own flags: the scheduler
#     binds a gang, the controller makes the webhook's certificate Secret and its webhook refuses a
#     queue whose parent does not exist.
# shellcheck source-path=SCRIPTDIR disable=SC2016  # jsonpath in single quotes
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

helm=$("$E2E_ROOT/hack/helm.sh") || fail "hack/helm.sh could not build helm"
manifests="$E2E_ROOT/deploy/manifests/arbiter.yaml"

# --- 1. the chart --------------------------------------------------------------------------------
"$helm" lint --strict "$E2E_ROOT/deploy/helm/arbiter" >"${TMPDIR:-/tmp}/helm-lint.$$" 2>&1 || {
  cat "${TMPDIR:-/tmp}/helm-lint.$$"
  fail "helm lint --strict deploy/helm/arbiter failed"
}
rm -f "${TMPDIR:-/tmp}/helm-lint.$$"
pass "helm lint --strict passes"
e2e_setup chart --nodes 2 --node-cpu 4
"$E2E_ROOT/hack/render-manifests.sh" --stdout >"$E2E_TMP/rendered.yaml"
diff -u "$manifests" "$E2E_TMP/rendered.yaml" >"$E2E_TMP/manifests.diff" || {
  head -n 40 "$E2E_TMP/manifests.diff"
  fail "deploy/manifests/arbiter.yaml is not what the chart renders: run hack/render-manifests.sh"
}
pass "deploy/manifests/arbiter.yaml is what the chart renders"

# --- 2. the manifests, applied -------------------------------------------------------------------
# A server-side dry run creates nothing, so the namespaced objects need their namespace to exist
# already (as with `helm install --create-namespace`).
ns=arbiter-system
k create namespace "$ns" >/dev/null
k apply --dry-run=server -f "$manifests" >"$E2E_TMP/dry-run.out" 2>&1 || {
  cat "$E2E_TMP/dry-run.out"
  fail "kubectl apply --dry-run=server of the manifests failed"
}
pass "kubectl apply --dry-run=server of the manifests succeeds"
k apply -f "$manifests" >/dev/null
pass "kubectl apply of the manifests succeeds"
for obj in namespace/$ns crd/queues.arbiter.dev clusterrole/arbiter-scheduler \
  clusterrole/arbiter-controller; do
  expect "$obj exists" k get "$obj"
done
for obj in serviceaccount/arbiter-scheduler serviceaccount/arbiter-controller \
  role/arbiter-scheduler role/arbiter-controller configmap/arbiter-scheduler-config \
  deployment/arbiter-scheduler deployment/arbiter-controller service/arbiter-webhook \
  service/arbiter-scheduler-metrics service/arbiter-controller-metrics \
  poddisruptionbudget/arbiter-scheduler poddisruptionbudget/arbiter-controller; do
  expect "$obj exists in $ns" k -n "$ns" get "$obj"
done
deploy_field() { k -n "$ns" get deployment "$1" -o jsonpath="{$2}"; }
for d in arbiter-scheduler arbiter-controller; do
  expect "$d: 2 replicas" eval '[[ $(deploy_field "$d" .spec.replicas) == 2 ]]'
  expect "$d: runs as non-root 65532" eval \
    '[[ $(deploy_field "$d" .spec.template.spec.securityContext.runAsNonRoot) == true &&
        $(deploy_field "$d" .spec.template.spec.securityContext.runAsUser) == 65532 ]]'
  expect "$d: read-only root, no privilege escalation, no capabilities" eval \
    '[[ $(deploy_field "$d" ".spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem") == true &&
        $(deploy_field "$d" ".spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation") == false &&
        $(deploy_field "$d" ".spec.template.spec.containers[0].securityContext.capabilities.drop[0]") == ALL ]]'
  expect "$d: liveness /healthz, readiness /readyz" eval \
    '[[ $(deploy_field "$d" ".spec.template.spec.containers[0].livenessProbe.httpGet.path") == /healthz &&
        $(deploy_field "$d" ".spec.template.spec.containers[0].readinessProbe.httpGet.path") == /readyz ]]'
  expect "$d: its own ServiceAccount" \
    eval '[[ $(deploy_field "$d" .spec.template.spec.serviceAccountName) == "$d" ]]'
done

# --- 3. the binaries, as the chart runs them -------------------------------------------------------
# args DEPLOYMENT: the container's arguments, one a line, as the Deployment gives them.
args() { deploy_field "$1" '.spec.template.spec.containers[0].args[*]' | tr ' ' '\n'; }
k -n "$ns" get configmap arbiter-scheduler-config -o jsonpath='{.data.scheduler\.yaml}' \
  >"$E2E_TMP/scheduler.yaml"
mapfile -t sched_args < <(args arbiter-scheduler | sed -E \
  -e "s|^--config=.*|--config=$E2E_TMP/scheduler.yaml|" \
  -e 's|^--metrics-bind-address=:([0-9]+)$|--metrics-bind-address=127.0.0.1:0|')
e2e_log "arbiter-scheduler ${sched_args[*]}"
e2e_exec_as arbiter-scheduler "$ARBITER_SCHEDULER" "${sched_args[@]}" </dev/null \
  >"$E2E_TMP/scheduler.log" 2>&1 &
E2E_SCHEDULER_PID=$!
# The webhook: at this process's own address (no Service reaches it here), the chart's Secret.
mapfile -t ctrl_args < <(args arbiter-controller | sed -E \
  -e 's|^--metrics-bind-address=:([0-9]+)$|--metrics-bind-address=127.0.0.1:0|' \
  -e 's|^--webhook-bind-address=.*|--webhook-bind-address=127.0.0.1|' \
  -e 's|^--webhook-port=.*|--webhook-port=0|' -e '/^--webhook-service=/d')
e2e_log "arbiter-controller ${ctrl_args[*]}"
e2e_exec_as arbiter-controller "$ARBITER_CONTROLLER" "${ctrl_args[@]}" </dev/null \
  >"$E2E_TMP/controller.log" 2>&1 &
E2E_CONTROLLER_PID=$!

holder() { k -n "$ns" get lease "$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
wait_until "the scheduler leads (Lease $ns/arbiter-scheduler)" 30 eval '[[ -n $(holder arbiter-scheduler) ]]'
wait_until "the controller leads (Lease $ns/arbiter-controller)" 30 \
  eval '[[ -n $(holder arbiter-controller) ]]'
{
  pg_yaml gang 2
  pod_yaml gang-0 group=gang cpu=1
  pod_yaml gang-1 group=gang cpu=1
} | apply_yaml
wait_until "the scheduler binds a gang" 30 bound_is arbiter.dev/pod-group=gang 2
wait_until "the controller keeps the webhook's certificate in Secret $ns/arbiter-webhook-cert" 30 \
  k -n "$ns" get secret arbiter-webhook-cert
refused_queue() {
  ! queue_yaml orphan parent=nowhere | k apply -f - >/dev/null 2>"$E2E_TMP/refusal" &&
    grep -q 'spec.parent: queue "nowhere" does not exist' "$E2E_TMP/refusal"
}
wait_until "its webhook refuses a queue whose parent does not exist" 30 refused_queue

e2e_done
