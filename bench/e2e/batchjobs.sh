#!/usr/bin/env bash
# BatchJobs at scale (issue 14's target): N BatchJobs of 4 pods (a ps and 3 workers, 100m CPU /
# 500Mi each) submitted at once on a local cluster of M kwok nodes (4 CPU / 32Gi / 110 pods),
# with arbiter-scheduler and arbiter-controller running (client QPS and burst 5000 each).
# Reports, in one run:
#   * the API server's write rate through one connection, one write after another (how
#     arbiter-controller writes), measured first on ConfigMaps, and with 4 connections;
#   * submit -> Running per job (the recorder's watch sees the job, then its phase Running),
#     p50 and p99, and the makespan (first submit seen -> last job Running); when the last pod
#     was created (the controller's part) and bound (the scheduler's), from a watch of the pods;
#   * the controller's CPU seconds (user + system) per job and its API writes per job (its own
#     count, logged when it stops), and the makespan the write rate alone would allow:
#     writes / writes_per_s.
#
#   bench/e2e/batchjobs.sh                     # 1,000 jobs on 1,000 nodes
#   bench/e2e/batchjobs.sh --jobs 200 --nodes 100
# Results: _output/bench/batchjobs-<UTC date>.json (and its directory of logs).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
jobs=1000 nodes=1000 bin_dir=${ARBITER_BIN_DIR:-$ROOT/build/bin}
json=$ROOT/_output/bench/batchjobs-$(date -u +%Y%m%dT%H%M%SZ).json
while (($#)); do
  case $1 in
    --jobs) jobs=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "batchjobs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
logs=${json%.json}
mkdir -p "$logs"
name=bench-bj-$$
KUBECTL=$ROOT/_output/bin/kubectl

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
now_ms() { local t=${EPOCHREALTIME//[.,]/}; echo $((t / 1000)); }
k() { "$KUBECTL" "$@"; }
py() { python3 "$HERE/batchjobs.py" "$@"; }
wait_for() {  # DESC TIMEOUT_S CMD...: polls every 0.2 s; dies after TIMEOUT_S
  local desc=$1 deadline=$(($(now_ms) + $2 * 1000))
  shift 2
  until "$@"; do
    (($(now_ms) < deadline)) || die "$desc: not done within the deadline"
    sleep 0.2
  done
}
HZ=$(getconf CLK_TCK)
proc_ticks() {  # utime + stime of PID, in clock ticks
  local stat
  stat=$(<"/proc/$1/stat") || { echo 0; return; }
  local -a f
  read -ra f <<<"${stat##*) }"
  echo $((f[11] + f[12]))
}

for bin in arbiter-scheduler arbiter-controller; do
  [[ -x $bin_dir/$bin ]] || die "$bin_dir/$bin is missing (hack/build.sh)"
done

pids=()
cluster_started=0
# shellcheck disable=SC2317  # the EXIT trap
teardown() {
  local rc=$? pid
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  ((cluster_started)) && "$ROOT/hack/cluster/down.sh" --name "$name" >/dev/null 2>&1
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting cluster $name: $nodes nodes; logs in $logs"
cluster_started=1
out=$("$ROOT/hack/cluster/up.sh" --name "$name" --nodes "$nodes" --node-cpu 4 --node-memory 32Gi \
  --node-pods 110 --node-lease-seconds 0 --timeout $((120 + nodes / 20)) 2>"$logs/up.log") ||
  { tail -n 30 "$logs/up.log" >&2; die "hack/cluster/up.sh failed"; }
export KUBECONFIG="${out##*export KUBECONFIG=}"
export ARBITER_CLUSTER_ENV="${KUBECONFIG%/*}/cluster.env"
k apply -f "$ROOT/deploy/crds/" >/dev/null
k wait --for condition=Established --timeout=60s \
  crd/podgroups.arbiter.dev crd/queues.arbiter.dev crd/batchjobs.arbiter.dev >/dev/null
k create namespace bench-rate >/dev/null
k create namespace bench-bj >/dev/null

log "the API server's write rate (ConfigMaps; 1 connection, then 4)"
rate1=$(py write-rate --ns bench-rate --count 2000 --threads 1)
rate4=$(py write-rate --ns bench-rate --count 4000 --threads 4)
k delete namespace bench-rate --wait=false >/dev/null
log "  1 connection: $rate1"
log "  4 connections: $rate4"

"$bin_dir/arbiter-scheduler" --kubeconfig "$KUBECONFIG" --period 1s -v 1 \
  --kube-api-qps 5000 --kube-api-burst 5000 </dev/null >"$logs/scheduler.log" 2>&1 &
pids+=($!)
"$bin_dir/arbiter-controller" --kubeconfig "$KUBECONFIG" --period 1s -v 1 \
  --kube-api-qps 5000 --kube-api-burst 5000 </dev/null >"$logs/controller.log" 2>&1 &
controller_pid=$!
pids+=("$controller_pid")
controller_started() { grep -q 'starting controller' "$logs/controller.log"; }
queue_made() { k get queue default >/dev/null 2>&1; }
wait_for "the scheduler starts" 60 queue_made
wait_for "the controller starts" 60 controller_started

py record --ns bench-bj --expect "$jobs" --out "$logs/events" --ready "$logs/recorder.ready" &
recorder_pid=$!
pids+=("$recorder_pid")
recorder_ready() { [[ -f $logs/recorder.ready ]]; }
wait_for "the recorder's watch" 30 recorder_ready
# The pods too (bench.py's recorder: when each was created and bound), to tell the controller's
# time from the scheduler's.
python3 "$HERE/bench.py" record --ns bench-bj --expect $((jobs * 4)) --out "$logs/pod-events" \
  --ready "$logs/pod-recorder.ready" &
pod_recorder_pid=$!
pids+=("$pod_recorder_pid")
pod_recorder_ready() { [[ -f $logs/pod-recorder.ready ]]; }
wait_for "the pod recorder's watch" 30 pod_recorder_ready

ticks0=$(proc_ticks "$controller_pid")
log "submitting $jobs BatchJobs of 4 pods"
created=$(py create --ns bench-bj --count "$jobs" --threads 4)
log "  $created"
recorder_done() { ! kill -0 "$recorder_pid" 2>/dev/null; }
wait_for "every job Running" $((120 + jobs / 5)) recorder_done
wait "$recorder_pid" || die "the recorder failed"
wait "$pod_recorder_pid" || die "the pod recorder failed"
# Quiesce: the controller's work after the last Running (the status counts) counts too.
deadline=$(($(now_ms) + 15000)) after=$(proc_ticks "$controller_pid")
while (($(now_ms) < deadline)); do
  before=$after
  sleep 0.5
  after=$(proc_ticks "$controller_pid")
  ((after - before < 2 * HZ / 100)) && break
done
ticks1=$(proc_ticks "$controller_pid")
kill -TERM "$controller_pid"
wait "$controller_pid" 2>/dev/null || true
writes=$(sed -n 's/.*controller stopped .* job_writes=\([0-9]*\).*/\1/p' "$logs/controller.log")
[[ -n $writes ]] || die "the controller did not log its writes"
rate1_value=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["writes_per_s"])' "$rate1")
cpu_ms=$(((ticks1 - ticks0) * 1000 / HZ))

py summarize --events "$logs/events" --pod-events "$logs/pod-events" --out "$json" \
  --set "jobs=$jobs" --set "nodes=$nodes" \
  --set "write_rate_1_connection=$rate1" --set "write_rate_4_connections=$rate4" \
  --set "controller_cpu_ms_per_job=$(python3 -c "print(round($cpu_ms / $jobs, 3))")" \
  --set "controller_writes=$writes" \
  --set "controller_writes_per_job=$(python3 -c "print(round($writes / $jobs, 2))")" \
  --set "makespan_the_write_rate_allows_s=$(python3 -c "print(round($writes / $rate1_value, 3))")" \
  --set "commit=\"$(git -C "$ROOT" rev-parse --short HEAD)\"" \
  --set "loadavg=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
log "results: $json"
