#!/usr/bin/env bash
# Smoke test of the local cluster (hack/cluster): a real kube-apiserver + etcd, kwok as the
# kubelet of fake nodes and the upstream kube-scheduler. Starts its own named cluster, checks the
# pod and node life cycle, stops the cluster and checks that nothing of it is left.
# Exit 0 = pass. Prints one PASS/FAIL line per check and "N passed, M failed" at the end.
# shellcheck disable=SC2317  # helper functions are called through poll
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name="smoke-$$"
cluster_dir="$repo/_output/cluster/$name"
kubectl_bin="$repo/_output/bin/kubectl"
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
failc() { failed=$((failed + 1)); echo "FAIL: $*"; }
note() { echo "      $*"; }

# poll SECONDS COMMAND...: true as soon as COMMAND succeeds, false after SECONDS.
poll() {
  local secs="$1"
  shift
  local deadline=$((SECONDS + secs))
  while ((SECONDS < deadline)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  "$@" >/dev/null 2>&1
}

stopped=0
cleanup() {
  local rc=$?
  if ((!stopped)) && [[ -d "$cluster_dir" ]]; then
    echo "cleaning up cluster $name" >&2
    "$repo/hack/cluster/down.sh" --name "$name" >&2 || true
  fi
  return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

finish() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
  exit $?
}

# --- start -------------------------------------------------------------------------------------
echo "starting cluster $name (2 nodes, with kube-scheduler)"
t0=$SECONDS
out="$("$repo/hack/cluster/up.sh" --name "$name" --nodes 2 --with-kube-scheduler 2>"$repo/_output/$name-up.log")" || {
  failc "up.sh failed; its output:"
  sed 's/^/      /' "$repo/_output/$name-up.log"
  finish
}
last="$(tail -n1 <<<"$out")"
if [[ "$last" == "export KUBECONFIG=$cluster_dir/kubeconfig" ]]; then
  pass "up.sh returned in $((SECONDS - t0))s; last line is '$last'"
else
  failc "up.sh's last line is '$last', expected 'export KUBECONFIG=$cluster_dir/kubeconfig'"
fi
rm -f "$repo/_output/$name-up.log"
export KUBECONFIG="$cluster_dir/kubeconfig"
k() { "$kubectl_bin" "$@"; }

# Record what must be gone after down.sh.
pids=()
for f in "$cluster_dir"/*.pid; do pids+=("$(cat "$f")"); done
mapfile -t ports <"$cluster_dir/ports"
note "pids: ${pids[*]}; ports: ${ports[*]}"
if ((${#pids[@]} == 4)); then
  pass "4 daemons recorded (etcd, kube-apiserver, kwok, kube-scheduler)"
else
  failc "expected 4 pid files, found ${#pids[@]}"
fi

# --- version, nodes, auth ------------------------------------------------------------------------
k8s_version="$(sed -n 's/^K8S_VERSION=//p' "$repo/hack/cluster/k8s/versions.env")"
server_version="$(k version -o json 2>/dev/null | sed -n '/"serverVersion"/,/}/s/.*"gitVersion": "\([^"]*\)".*/\1/p')"
if [[ "$server_version" == "$k8s_version" ]]; then
  pass "server version is $server_version"
else
  failc "server version is '$server_version', expected $k8s_version"
fi

ready_nodes() {
  k get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$'
}
if [[ "$(ready_nodes)" == 2 ]]; then pass "2 nodes Ready"; else failc "expected 2 Ready nodes"; k get nodes || true; fi

alloc="$(k get node kwok-node-0 -o jsonpath='{.status.allocatable.cpu}/{.status.allocatable.memory}/{.status.allocatable.pods} {.metadata.labels.type} {.spec.taints}')"
if [[ "$alloc" == "8/32Gi/110 kwok " ]]; then
  pass "node allocatable 8/32Gi/110, label type=kwok, no taints"
else
  failc "node kwok-node-0: got '$alloc', expected '8/32Gi/110 kwok '"
fi

if k --context "$name-cert" get --raw /api/v1/namespaces/default >/dev/null 2>&1 &&
   [[ "$(k --context "$name-cert" auth whoami -o jsonpath='{.status.userInfo.username}' 2>/dev/null)" == admin ]]; then
  pass "client certificate auth (O=system:masters) works"
else
  failc "client certificate auth failed"
fi

# --- pods ----------------------------------------------------------------------------------------
phase() { k get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [[ "$(phase "$1")" == "$2" ]]; }
gone() { ! k get pod "$1" >/dev/null 2>&1; }
pod_yaml() { # NAME [extra metadata lines] [extra spec lines]
  cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: default
$2
spec:
$3
  containers:
  - name: main
    image: registry.invalid/sleep:1
    resources: {requests: {cpu: 100m, memory: 64Mi}}
EOF
}

pod_yaml p-sched "" "" | k create -f - >/dev/null
if poll 60 is_phase p-sched Running; then
  pass "pod p-sched scheduled by kube-scheduler to $(k get pod p-sched -o jsonpath='{.spec.nodeName}') and Running"
else
  failc "pod p-sched not Running within 60s (phase '$(phase p-sched)', node '$(k get pod p-sched -o jsonpath='{.spec.nodeName}' 2>/dev/null)')"
fi

pod_yaml p-direct "" "  nodeName: kwok-node-1" | k create -f - >/dev/null
if poll 30 is_phase p-direct Running; then
  pass "pod p-direct created with spec.nodeName is Running"
else
  failc "pod p-direct not Running within 30s (phase '$(phase p-direct)')"
fi

pod_yaml p-runfor "  annotations: {arbiter.dev/run-for: 2s}" "  restartPolicy: Never" | k create -f - >/dev/null
if poll 60 is_phase p-runfor Succeeded; then
  times="$(k get pod p-runfor -o jsonpath='{.status.containerStatuses[0].state.terminated.startedAt} {.status.containerStatuses[0].state.terminated.finishedAt}')"
  read -r started finished <<<"$times"
  ran=$(($(date -d "$finished" +%s) - $(date -d "$started" +%s)))
  if ((ran >= 1 && ran <= 10)); then
    pass "pod p-runfor (arbiter.dev/run-for: 2s) Succeeded after running ${ran}s"
  else
    failc "pod p-runfor Succeeded but ran ${ran}s (started $started, finished $finished), expected about 2s"
  fi
else
  failc "pod p-runfor not Succeeded within 60s (phase '$(phase p-runfor)')"
fi

pod_yaml p-fail "  annotations: {arbiter.dev/run-for: 1s, arbiter.dev/exit-code: \"3\"}" "  restartPolicy: Never" | k create -f - >/dev/null
if poll 60 is_phase p-fail Failed &&
   [[ "$(k get pod p-fail -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')" == 3 ]]; then
  pass "pod p-fail (arbiter.dev/exit-code: 3) Failed with exit code 3"
else
  failc "pod p-fail not Failed with exit code 3 within 60s (phase '$(phase p-fail)')"
fi

if k create priorityclass smoke-high --value=1000 >/dev/null &&
   pod_yaml p-prio "" "  priorityClassName: smoke-high" | k create -f - >/dev/null &&
   [[ "$(k get pod p-prio -o jsonpath='{.spec.priority}')" == 1000 ]]; then
  pass "Priority admission fills spec.priority from priorityClassName"
else
  failc "spec.priority of p-prio is '$(k get pod p-prio -o jsonpath='{.spec.priority}' 2>/dev/null)', expected 1000"
fi

if is_phase p-sched Running; then
  k delete pod p-sched --wait=false >/dev/null
  t1=$SECONDS
  if poll 20 gone p-sched; then
    pass "deleted running pod p-sched is gone after $((SECONDS - t1))s"
  else
    failc "deleted pod p-sched still exists after 20s"
  fi
fi

if is_phase p-fail Failed; then
  k delete pod p-fail --wait=false >/dev/null
  if poll 20 gone p-fail; then pass "deleted failed pod p-fail is gone"; else failc "deleted pod p-fail still exists after 20s"; fi
fi

# --- a node added with kubectl -------------------------------------------------------------------
k create -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: smoke-extra
  labels: {type: kwok}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "50"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "50"}
EOF
node_ready() { [[ "$(k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]; }
if poll 30 node_ready smoke-extra; then
  extra="$(k get node smoke-extra -o jsonpath='{.status.allocatable.cpu}/{.status.allocatable.memory}/{.status.allocatable.pods}')"
  if [[ "$extra" == 4/16Gi/50 ]]; then
    pass "node smoke-extra added with kubectl is Ready with allocatable $extra"
  else
    failc "node smoke-extra is Ready but allocatable is $extra, expected 4/16Gi/50"
  fi
else
  failc "node smoke-extra not Ready within 30s"
fi

# A pod whose deletion the API server began and did not finish (its client went away between the
# two writes) keeps a deletionTimestamp with grace period 0: as a kubelet, kwok removes it.
server="$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')"
half_deleted="$(python3 "$repo/tests/integration/abandoned_delete.py" --server "$server" \
  --ca-file "$cluster_dir/ca.crt" --token "$(cat "$cluster_dir/token")" --node kwok-node-1)"
if [[ -z $half_deleted ]]; then
  failc "no delete was left half done in 60 tries (about a third are)"
elif poll 20 gone "$half_deleted"; then
  pass "pod $half_deleted, left half deleted by its client, was removed"
else
  failc "pod $half_deleted, left half deleted by its client, still exists after 20s: $(k get pod "$half_deleted" -o jsonpath='{.metadata.deletionTimestamp} {.metadata.deletionGracePeriodSeconds}')"
fi

# kwok deletes by name, with no uid precondition: a delete it plays on a stale copy of a pod (the
# API server's last write before removing one) would delete the next pod of that name, as a
# BatchJob's restart makes. Such a delete of a pod already gone fails with NotFound, in the log at
# once (the deletions above were seconds ago); the stages must never play one.
stale="$(grep -c 'failed to delete pod' "$cluster_dir/kwok.log" || true)"
if [[ $stale == 0 ]]; then
  pass "kwok played no delete on a stale copy of a deleted pod"
else
  failc "kwok played $stale delete(s) on a pod already gone: $(grep -m 1 'failed to delete pod' "$cluster_dir/kwok.log" | cut -c 1-300)"
fi

# --- down ----------------------------------------------------------------------------------------
t2=$SECONDS
if "$repo/hack/cluster/down.sh" --name "$name" >/dev/null 2>&1; then
  stopped=1
  pass "down.sh succeeded in $((SECONDS - t2))s"
else
  failc "down.sh failed"
fi
alive=()
for p in "${pids[@]}"; do
  st="$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$p/stat" 2>/dev/null || true)"
  if [[ -n "$st" && "$st" != Z && "$st" != X ]]; then alive+=("$p"); fi
done
if ((${#alive[@]} == 0)); then pass "no process of the cluster remains"; else failc "processes still alive: ${alive[*]}"; fi
listening=()
for p in "${ports[@]}"; do
  [[ -n "$(ss -Hltn "( sport = :$p )" 2>/dev/null)" ]] && listening+=("$p")
done
if ((${#listening[@]} == 0)); then pass "no port of the cluster is listening"; else failc "ports still listening: ${listening[*]}"; fi
if [[ ! -e "$cluster_dir" ]]; then pass "cluster state removed"; else failc "$cluster_dir still exists"; fi

finish
