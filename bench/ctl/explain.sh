#!/usr/bin/env bash
# How long `arbiterctl explain` takes on a loaded cluster (issue 17: under 200 ms on 1,000 nodes
# and 10,000 pods), side by side with its baseline, `kubectl get podgroup -o json` of the same
# group (the one GET that explain makes, plus kubectl's own start-up), timed by hyperfine.
#
#   bench/ctl/explain.sh [--nodes N] [--pods N] [--runs N]
#
# Starts a local cluster (hack/cluster/up.sh) of N kwok nodes of 4 CPU, creates N pods in gangs of
# 10 (PodGroups of minMember 10) and lets arbiter-scheduler bind them, then adds a gang that fits
# no node (2 pods of 8 CPU) and times explain on it once the scheduler has published why it
# waits. Prints hyperfine's table and the ratio; writes hyperfine's JSON to _output/bench/. The
# cluster is always stopped on exit.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nodes=1000
pods=10000
runs=30
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --pods) pods=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "explain.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "explain.sh: no hyperfine (hack/install-deps.sh)" >&2; exit 2; }
bin=$ROOT/build/bin
for b in arbiter-scheduler arbiterctl; do
  [[ -x $bin/$b ]] || { echo "explain.sh: no $bin/$b (hack/build.sh)" >&2; exit 2; }
done

name=bench-explain-$$
out_dir=$ROOT/_output/bench
mkdir -p "$out_dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logs=$out_dir/explain-$stamp
mkdir -p "$logs"
sched_pid=""
cleanup() {
  [[ -n $sched_pid ]] && kill "$sched_pid" 2>/dev/null && wait "$sched_pid" 2>/dev/null
  "$ROOT/hack/cluster/down.sh" --name "$name" >/dev/null 2>&1 || true
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

log "starting cluster $name: $nodes nodes (logs in $logs)"
out=$("$ROOT/hack/cluster/up.sh" --name "$name" --nodes "$nodes" --node-cpu 4 --node-memory 32Gi \
  --node-pods 110 --node-lease-seconds 0 --timeout $((120 + nodes / 20)) 2>"$logs/up.log")
export KUBECONFIG="${out##*export KUBECONFIG=}"
export ARBITER_CLUSTER_ENV="${KUBECONFIG%/*}/cluster.env"
kubectl=$ROOT/_output/bin/kubectl
k() { "$kubectl" "$@"; }
k apply -f "$ROOT/deploy/crds/" >/dev/null
k wait --for condition=Established --timeout=60s crd/podgroups.arbiter.dev crd/queues.arbiter.dev >/dev/null
k create namespace bench >/dev/null

"$bin/arbiter-scheduler" --kubeconfig "$KUBECONFIG" --period 1s --kube-api-qps 5000 \
  --kube-api-burst 5000 -v 1 </dev/null >"$logs/scheduler.log" 2>&1 &
sched_pid=$!

gangs=$((pods / 10))
log "creating $gangs PodGroups of minMember 10 and $pods pods"
python3 "$ROOT/bench/e2e/bench.py" podgroups --ns bench --count "$gangs" --min-member 10 >/dev/null
python3 "$ROOT/bench/e2e/bench.py" create --ns bench --count "$pods" --scheduler arbiter \
  --group-size 10 >/dev/null
running() { k -n bench get podgroups -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c '^Running$' || true; }
deadline=$((SECONDS + 600))
until (($(running) == gangs)); do
  ((SECONDS < deadline)) || { echo "explain.sh: the $gangs gangs did not all run in 600 s" >&2; exit 1; }
  sleep 2
done
log "all $gangs gangs run ($pods pods bound)"

k -n bench apply -f - >/dev/null <<'EOF'
apiVersion: arbiter.dev/v1alpha1
kind: PodGroup
metadata: {name: waiting, namespace: bench}
spec: {minMember: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: waiting-0, namespace: bench, labels: {arbiter.dev/pod-group: waiting}}
spec:
  schedulerName: arbiter
  containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "8"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: waiting-1, namespace: bench, labels: {arbiter.dev/pod-group: waiting}}
spec:
  schedulerName: arbiter
  containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "8"}}}]
EOF
explained() { "$bin/arbiterctl" explain -n bench waiting -o json | grep -q '"gate": "Placement"'; }
deadline=$((SECONDS + 120))
until explained; do
  ((SECONDS < deadline)) || { echo "explain.sh: no explanation for bench/waiting in 120 s" >&2; exit 1; }
  sleep 1
done
"$bin/arbiterctl" explain -n bench waiting | tee "$logs/explain.txt"

json=$out_dir/explain-$stamp.json
hyperfine --warmup 3 --runs "$runs" --export-json "$json" \
  -n "arbiterctl explain" "$bin/arbiterctl explain -n bench waiting" \
  -n "kubectl get podgroup -o json (baseline)" "$kubectl -n bench get podgroup waiting -o json" \
  -n "arbiterctl jobs ($gangs groups)" "$bin/arbiterctl jobs -n bench"
python3 - "$json" <<'EOF'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
e, k = r["arbiterctl explain"], r["kubectl get podgroup -o json (baseline)"]
print(f"explain mean {e['mean'] * 1000:.1f} ms (max {e['max'] * 1000:.1f} ms); "
      f"kubectl get {k['mean'] * 1000:.1f} ms; ratio explain/kubectl {e['mean'] / k['mean']:.2f}")
EOF
log "hyperfine JSON: $json"
