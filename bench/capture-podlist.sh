#!/usr/bin/env bash
# Captures a real PodList for bench/micro/decode_bench: starts a local cluster, creates N pods
# (default 2000) shaped like a training job's workers, reads them back with one LIST from the API
# server, and writes the response as it came to _output/bench/podlist.json (managedFields and
# all), and the same LIST in the API server's protobuf encoding to _output/bench/podlist.pb. Then:
#   ARBITER_CAPTURED_PODLIST=_output/bench/podlist.json build/bench/decode_bench \
#     --benchmark_filter=Captured --benchmark_min_time=1
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}
mkdir -p _output/bench
out=$PWD/_output/bench/podlist.json

# shellcheck disable=SC2016  # the script runs in the inner bash, which expands it
hack/cluster/with-cluster.sh --nodes 4 --node-lease-seconds 0 -- bash -c '
  set -euo pipefail
  count=$1 out=$2
  kubectl=_output/bin/kubectl
  "$kubectl" create namespace bench >/dev/null
  python3 - "$count" > "_output/bench/pods.json" <<PY
import json, sys
n = int(sys.argv[1])
items = []
for i in range(n):
    group = f"job-{i // 8}"
    items.append({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": f"{group}-worker-{i}", "namespace": "bench",
            "labels": {"app.kubernetes.io/name": "trainer", "app.kubernetes.io/instance": group,
                       "arbiter.dev/pod-group": group, "arbiter.dev/task": "worker",
                       "batch.kubernetes.io/job-completion-index": str(i % 8)},
            "annotations": {"arbiter.dev/run-for": "1h", "prometheus.io/scrape": "true"},
        },
        "spec": {
            "schedulerName": "arbiter", "priorityClassName": "",
            "containers": [
                {"name": "trainer", "image": "registry.example/trainer:v1.2.3",
                 "args": ["--epochs=10", f"--rank={i % 8}"],
                 "env": [{"name": "WORLD_SIZE", "value": "8"}, {"name": "RANK", "value": str(i % 8)}],
                 "ports": [{"containerPort": 29500, "name": "dist"}],
                 "resources": {"requests": {"cpu": f"{100 + (i % 8) * 50}m", "memory": "512Mi"},
                               "limits": {"cpu": "2", "memory": "1Gi"}},
                 "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
                {"name": "sidecar", "image": "registry.example/log-shipper:v0.9",
                 "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}},
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "type", "operator": "In", "values": ["kwok"]}]}]}}},
        },
    })
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
PY
  "$kubectl" create -f _output/bench/pods.json >/dev/null
  source "$ARBITER_CLUSTER_ENV"
  # The user agent Arbiter sends: the API server pretty-prints JSON for one starting with "curl/",
  # which more than doubles the bytes of what Arbiter receives.
  curl -sf -A arbiter/0.1 --cacert "$CA_FILE" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
    "$APISERVER_URL/api/v1/namespaces/bench/pods" -o "$out"
  curl -sf -A arbiter/0.1 --cacert "$CA_FILE" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
    -H "Accept: application/vnd.kubernetes.protobuf" \
    "$APISERVER_URL/api/v1/namespaces/bench/pods" -o "${out%.json}.pb"
' capture "$count" "$out"
echo "captured $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"items\"]))" "$out") pods, $(du -h "$out" | cut -f1), in $out ($(du -h "${out%.json}.pb" | cut -f1) as protobuf)"
