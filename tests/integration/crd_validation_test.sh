#!/usr/bin/env bash
# The PodGroup, Queue and DataSet CRDs (deploy/crds/) on the real API server: bad objects are rejected by
# the server itself with the field named, defaults are filled, a group's queue cannot change once
# it is admitted, and `kubectl get` shows the printer columns. Needs KUBECONFIG (hack/test.sh).
set -euo pipefail

if [[ -z ${KUBECONFIG:-} ]]; then
  echo "SKIPPED: KUBECONFIG is not set (run under hack/test.sh)"
  exit 77
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
kubectl=$root/_output/bin/kubectl
ns=crd-test-$$
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
cleanup() {
  "$kubectl" delete queue "q-$$" "q2-$$" --ignore-not-found >/dev/null 2>&1 || true
}
trap cleanup EXIT

# rejected NAME PATTERN -- COMMAND...: the command must fail and its error must match PATTERN.
rejected() {
  local name=$1 pattern=$2
  shift 3
  local out
  if out=$("$@" 2>&1); then
    fail "$name: accepted"
  elif grep -qE -- "$pattern" <<<"$out"; then
    pass "$name: rejected ($(grep -oE -- "$pattern" <<<"$out" | head -1))"
  else
    fail "$name: rejected, but without /$pattern/: $out"
  fi
}

"$kubectl" apply -f "$root/deploy/crds/" >/dev/null
# kubectl wait fails at once on a CRD whose status has no conditions yet: poll it (60 s at most).
# shellcheck disable=SC2016  # $KUBECTL is the inner shell's
KUBECTL=$kubectl timeout 60 sh -c 'until "$KUBECTL" wait --for condition=Established \
    crd/podgroups.arbiter.dev crd/queues.arbiter.dev crd/datasets.arbiter.dev --timeout=5s \
    >/dev/null 2>&1
  do sleep 0.25; done' || { echo "FAIL: the CRDs were not Established within 60 s"; exit 1; }
"$kubectl" create namespace "$ns" >/dev/null

pg() {  # pg NAME MIN [extra spec yaml]: a PodGroup manifest on stdin for kubectl create -f -
  printf 'apiVersion: arbiter.dev/v1alpha1\nkind: PodGroup\nmetadata: {name: %s, namespace: %s}\nspec:\n  minMember: %s\n%s\n' \
    "$1" "$ns" "$2" "${3:-}"
}

# A valid group gets its default queue.
pg ok 3 '  minResources: {cpu: "1500m", memory: 4Gi, nvidia.com/gpu: 1}' | "$kubectl" create -f - >/dev/null
queue=$("$kubectl" -n "$ns" get podgroup ok -o jsonpath='{.spec.queue}')
if [[ $queue == default ]]; then pass "spec.queue defaults to default"; else fail "spec.queue is '$queue'"; fi

rejected "minMember 0" 'spec.minMember' -- sh -c "$(declare -f pg); ns=$ns; pg zero 0 | '$kubectl' create -f -"
rejected "minMember missing" 'spec.minMember: Required' -- sh -c \
  "printf 'apiVersion: arbiter.dev/v1alpha1\nkind: PodGroup\nmetadata: {name: nomin, namespace: $ns}\nspec: {queue: default}\n' | '$kubectl' create -f -"
rejected "quantity 1K" 'spec.minResources.cpu' -- sh -c "$(declare -f pg); ns=$ns; pg k 1 '  minResources: {cpu: 1K}' | '$kubectl' create -f -"
rejected "unknown topology mode" 'spec.topology.mode: Unsupported value' -- sh -c "$(declare -f pg); ns=$ns; pg topo 1 '  topology: {mode: Always, level: rack}' | '$kubectl' create -f -"
rejected "topology without a level" 'spec.topology.level: Required' -- sh -c "$(declare -f pg); ns=$ns; pg topo 1 '  topology: {mode: Required}' | '$kubectl' create -f -"
rejected "negative quantity" 'must not be negative' -- sh -c "$(declare -f pg); ns=$ns; pg neg 1 '  minResources: {cpu: -1}' | '$kubectl' create -f -"
rejected "unknown phase" 'status.phase: Unsupported value' -- \
  "$kubectl" -n "$ns" patch podgroup ok --subresource=status --type=merge -p '{"status":{"phase":"Bogus"}}'

# The queue may change while the group is pending, and not once it is admitted.
if "$kubectl" -n "$ns" patch podgroup ok --type=merge -p '{"spec":{"queue":"team-a"}}' >/dev/null 2>&1; then
  pass "spec.queue may change while Pending"
else
  fail "spec.queue could not change while Pending"
fi
"$kubectl" -n "$ns" patch podgroup ok --subresource=status --type=merge \
  -p '{"status":{"phase":"Inqueue"}}' >/dev/null
rejected "queue change after admission" 'cannot change once the PodGroup has been admitted' -- \
  "$kubectl" -n "$ns" patch podgroup ok --type=merge -p '{"spec":{"queue":"team-b"}}'

# The whole output, then its first line: `| head -1` could cut kubectl off (SIGPIPE, pipefail).
columns=$("$kubectl" -n "$ns" get podgroups)
columns=${columns%%$'\n'*}
if [[ $columns =~ NAME.*MIN.*RUNNING.*PHASE.*QUEUE.*AGE ]]; then
  pass "kubectl get podgroups shows: $columns"
else
  fail "podgroup columns: $columns"
fi

# DataSets, and PodGroups naming one.
ds() {  # ds NAME BLOCKS: a DataSet manifest whose spec.blocks is the flow sequence BLOCKS
  printf 'apiVersion: arbiter.dev/v1alpha1\nkind: DataSet\nmetadata: {name: %s, namespace: %s}\nspec:\n  blocks: %s\n' \
    "$1" "$ns" "$2"
}
if ds clicks '[{name: b0, nodes: [n1, n2]}, {name: b1, nodes: [n2]}]' |
  "$kubectl" create -f - >/dev/null; then
  pass "a DataSet of two blocks is accepted"
else
  fail "a DataSet of two blocks was refused"
fi
got=$("$kubectl" -n "$ns" get datasets clicks -o jsonpath='{.spec.blocks[1].nodes[0]}')
if [[ $got == n2 ]]; then pass "kubectl get datasets reads it back"; else fail "kubectl get datasets: '$got'"; fi
rejected "block without nodes" 'spec.blocks\[0\].nodes: Required' -- sh -c "$(declare -f ds); ns=$ns; ds d1 '[{name: b0}]' | '$kubectl' create -f -"
rejected "two blocks of one name" 'spec.blocks\[1\]: Duplicate value' -- sh -c "$(declare -f ds); ns=$ns; ds d2 '[{name: b0, nodes: [n1]}, {name: b0, nodes: [n2]}]' | '$kubectl' create -f -"
rejected "empty dataSet name" 'spec.locality.dataSet' -- sh -c "$(declare -f pg); ns=$ns; pg empty-ds 1 '  locality: {dataSet: \"\"}' | '$kubectl' create -f -"

# Queues.
printf 'apiVersion: arbiter.dev/v1alpha1\nkind: Queue\nmetadata: {name: q-%s}\nspec:\n  capability: {cpu: 100, memory: 1Ti}\n' $$ |
  "$kubectl" create -f - >/dev/null
got=$("$kubectl" get queue "q-$$" -o jsonpath='{.spec.weight} {.spec.state} {.spec.reclaimable}')
if [[ $got == "1 Open true" ]]; then
  pass "queue defaults: weight 1, Open, reclaimable"
else
  fail "queue defaults: $got"
fi
q2=q2-$$
queue_yaml() { printf 'apiVersion: arbiter.dev/v1alpha1\nkind: Queue\nmetadata: {name: %s}\nspec:\n%s\n' "$q2" "$1"; }
rejected "weight 0" 'spec.weight' -- sh -c "$(declare -f queue_yaml); q2=$q2; queue_yaml '  weight: 0' | '$kubectl' create -f -"
rejected "unknown state" 'spec.state: Unsupported value' -- sh -c "$(declare -f queue_yaml); q2=$q2; queue_yaml '  state: Paused' | '$kubectl' create -f -"
rejected "In without values" 'In and NotIn need values' -- sh -c "$(declare -f queue_yaml); q2=$q2; queue_yaml '  namespaceSelector: {matchExpressions: [{key: team, operator: In}]}' | '$kubectl' create -f -"
rejected "own parent" 'cannot be its own parent' -- sh -c "$(declare -f queue_yaml); q2=$q2; queue_yaml '  parent: $q2' | '$kubectl' create -f -"
columns=$("$kubectl" get queues)
columns=${columns%%$'\n'*}
if [[ $columns =~ NAME.*WEIGHT.*STATE.*PARENT.*DESERVED-CPU.*ALLOCATED-CPU ]]; then
  pass "kubectl get queues shows: $columns"
else
  fail "queue columns: $columns"
fi

echo "$passed passed, $failed failed"
((failed == 0))
