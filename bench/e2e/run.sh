#!/usr/bin/env bash
# End-to-end scheduling benchmark (ARCHITECTURE.md §7): the same workload, on one local cluster
# (real kube-apiserver + etcd, kwok nodes), scheduled in turn by a null binder (the API server's
# limit), the upstream kube-scheduler and arbiter-scheduler (and arbiter again with gangs), with
# the same client QPS/burst; pods/s, create->bind latency and scheduler CPU per phase, as a table
# and as JSON. See bench/e2e/README.md.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: bench/e2e/run.sh [options]

Options:
  --nodes N          kwok nodes of 4 CPU / 32Gi / 110 pods (default: 1000)
  --pods N           pods per phase, 100m CPU / 500Mi each (default: 3000)
  --gangs N          PodGroups of the gang phases (default: 1000; 0 skips them)
  --gang-size N      pods per PodGroup, = minMember (default: 3)
  --qps Q            client QPS of every scheduler (default: 5000)
  --burst B          client burst of every scheduler (default: 5000)
  --workers N        bind threads of the null binder, each binding up to 32 pods at once
                     (default: 4, as arbiter-scheduler)
  --creators N       parallel connections creating pods (default: 4)
  --phases LIST      comma-separated, in this order by default:
                     null-binder,kube-scheduler,kube-scheduler-gang,arbiter,arbiter-gang
                     (kube-scheduler-gang: upstream's alpha gang scheduling, the
                     GenericWorkload and GangScheduling feature gates and
                     scheduling.k8s.io/v1alpha2 PodGroups, on the same gangs);
                     kueue-gang, only when listed: Kueue (sigs.k8s.io/kueue, built by
                     hack/cluster/build-ecosystem.sh) admits --gangs suspended batch/v1
                     Jobs of --gang-size pods by quota and kube-scheduler binds their
                     pods (the cluster then also runs kube-controller-manager, for the
                     Job controller)
  --json FILE        results (default: _output/bench/e2e-<UTC date>.json; logs beside it in
                     _output/bench/e2e-<UTC date>/)
  --bin-dir DIR      where arbiter-scheduler and null-binder are
                     (default: $ARBITER_BIN_DIR, else build/bin)
  --phase-timeout S  give up on a phase whose pods are not all bound after S s (default: 600)
  --variant NAME=FLAGS
                     also run arbiter-scheduler with these extra flags, as phases NAME-arbiter
                     and NAME-arbiter-gang right after arbiter and arbiter-gang (repeatable;
                     NAME: lower-case letters, digits and '-'), e.g.
                     --variant nogap=--min-session-gap=0 to set a change beside its baseline
  --baseline-bin-dir DIR
                     also run the arbiter-scheduler in DIR (a build of an earlier commit), as
                     phases base-arbiter and base-arbiter-gang right after arbiter and
                     arbiter-gang: a change that has no flag, beside its baseline in one run
  --precreate        create each phase's pods before its scheduler starts, and measure pods/s
                     from the first bind to the last (how fast a backlog is cleared; no latency)
  --name NAME        cluster name (default: bench-e2e-<pid>)
  -h, --help         show this help
The cluster is always stopped on exit (hack/cluster/down.sh), also on failure or Ctrl-C.
EOF
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../../hack/cluster/kueue.sh
source "$ROOT/hack/cluster/kueue.sh"
HERE="$ROOT/bench/e2e"
KUBECTL="$ROOT/_output/bin/kubectl"
stamp="$(date -u +%Y%m%d-%H%M%S)"

nodes=1000 pods=3000 gangs=1000 gang_size=3 qps=5000 burst=5000 workers=4 creators=4 precreate=0
phases="null-binder,kube-scheduler,kube-scheduler-gang,arbiter,arbiter-gang"
json="$ROOT/_output/bench/e2e-$stamp.json"
bin_dir="${ARBITER_BIN_DIR:-$ROOT/build/bin}"
phase_timeout=600
name="bench-e2e-$$"
declare -A variants=()
variant_names=()
base_bin_dir=
number() { [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "error: $1 needs a whole number" >&2; exit 2; }; }
value() { [[ -n ${2:-} ]] || { echo "error: $1 needs a value" >&2; exit 2; }; }
while (($#)); do
  case $1 in
    --nodes) number "$@"; nodes=$2 ;;
    --pods) number "$@"; pods=$2 ;;
    --gangs) number "$@"; gangs=$2 ;;
    --gang-size) number "$@"; gang_size=$2 ;;
    --qps) number "$@"; qps=$2 ;;
    --burst) number "$@"; burst=$2 ;;
    --workers) number "$@"; workers=$2 ;;
    --creators) number "$@"; creators=$2 ;;
    --phase-timeout) number "$@"; phase_timeout=$2 ;;
    --phases) value "$@"; phases=$2 ;;
    --json) value "$@"; json=$2 ;;
    --bin-dir) value "$@"; bin_dir=$2 ;;
    --name) value "$@"; name=$2 ;;
    --precreate) precreate=1; shift; continue ;;
    --baseline-bin-dir)
      value "$@"
      [[ -x $2/arbiter-scheduler ]] || { echo "error: no $2/arbiter-scheduler" >&2; exit 2; }
      base_bin_dir=$(realpath "$2")
      variants[base]=""
      variant_names+=(base)
      ;;
    --variant)
      value "$@"
      [[ $2 =~ ^([a-z0-9][a-z0-9-]{0,15})=(.*)$ ]] ||
        { echo "error: --variant needs NAME=FLAGS (NAME: up to 16 of a-z, 0-9, -)" >&2; exit 2; }
      variants[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
      variant_names+=("${BASH_REMATCH[1]}")
      ;;
    -h | --help) usage; exit 0 ;;
    *) echo "error: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift 2
done
if ((nodes == 0 || pods == 0 || gang_size == 0 || qps == 0 || burst == 0 || workers == 0 || creators == 0)); then
  echo "error: --nodes, --pods, --gang-size, --qps, --burst, --workers and --creators must be > 0" >&2
  exit 2
fi
IFS=, read -ra requested <<<"$phases"
phase_list=()
for phase in "${requested[@]}"; do
  case $phase in
    null-binder | kube-scheduler | kube-scheduler-gang | arbiter | arbiter-gang | kueue-gang) ;;
    *) echo "error: unknown phase $phase" >&2; exit 2 ;;
  esac
  phase_list+=("$phase")
  if [[ $phase == arbiter || $phase == arbiter-gang ]]; then
    for v in "${variant_names[@]}"; do phase_list+=("$v-$phase"); done
  fi
done
((gangs > 0)) || mapfile -t phase_list < <(printf '%s\n' "${phase_list[@]}" | grep -v -- '-gang$')
if [[ ! -x $bin_dir/arbiter-scheduler || ! -x $bin_dir/null-binder ]]; then
  echo "error: no $bin_dir/arbiter-scheduler or null-binder (hack/build.sh, or --bin-dir)" >&2
  exit 2
fi
# The commit recorded is the checkout's at the start: say so when a binary is older than the
# sources.
commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$ROOT" diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
stale=false
for binary in arbiter-scheduler null-binder; do
  newer=$(find "$ROOT/src" \( -name '*.cc' -o -name '*.h' \) -newer "$bin_dir/$binary" -print -quit)
  if [[ -n $newer ]]; then
    echo "warning: $bin_dir/$binary is older than some sources under src/: rebuild it" >&2
    stale=true
  fi
done
json="$(realpath -m "$json")"
logs="${json%.json}"
mkdir -p "$logs"

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
now_ms() { local t=${EPOCHREALTIME//[.,]/}; echo $((t / 1000)); }
k() { "$KUBECTL" "$@"; }
bench() { python3 "$HERE/bench.py" "$@"; }

# wait_for DESC TIMEOUT_S CMD...: polls CMD every 0.2 s until it succeeds; dies after TIMEOUT_S.
wait_for() {
  local desc=$1 deadline=$(($(now_ms) + $2 * 1000))
  shift 2
  until "$@"; do
    (($(now_ms) < deadline)) || die "$desc: not done within the deadline"
    sleep 0.2
  done
}

# CPU time in clock ticks: of a process (utime + stime, /proc/PID/stat fields 14 and 15) and of
# the whole machine (busy time of all CPUs, /proc/stat).
HZ=$(getconf CLK_TCK)
proc_ticks() {
  local stat
  stat=$(<"/proc/$1/stat") || { echo 0; return; }
  local -a f
  read -ra f <<<"${stat##*) }"
  echo $((f[11] + f[12]))
}
machine_ticks() {
  local _cpu user nice system _idle _iowait irq softirq steal _rest
  read -r _cpu user nice system _idle _iowait irq softirq steal _rest </proc/stat
  echo $((user + nice + system + irq + softirq + steal))
}
seconds() { printf '%d.%02d' $(($1 / HZ)) $(($1 % HZ * 100 / HZ)); }  # ticks -> s

# ---------------------------------------------------------------------------------------------
# Teardown: whatever of ours runs, then the cluster.
sched_pid="" recorder_pid="" cluster_started=0 kueue_pid=""
stop_pid() {  # stop_pid PID: SIGTERM, up to 15 s, then SIGKILL
  local pid=$1 deadline
  kill -TERM "$pid" 2>/dev/null || return 0
  deadline=$(($(now_ms) + 15000))
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
# shellcheck disable=SC2317  # called by the EXIT trap
teardown() {
  local rc=$?
  trap - EXIT INT TERM
  [[ -n $recorder_pid ]] && stop_pid "$recorder_pid"
  [[ -n $sched_pid ]] && stop_pid "$sched_pid"
  [[ -n $kueue_pid ]] && stop_pid "$kueue_pid"
  kueue_remove_etc
  if ((cluster_started)); then
    # The control plane's logs go with the results (down.sh removes the cluster's directory).
    if [[ -n ${CLUSTER_DIR:-} ]] && mkdir -p "$logs/cluster"; then
      cp "$CLUSTER_DIR"/*.log "$logs/cluster/" 2>/dev/null || true
    fi
    log "stopping cluster $name"
    "$ROOT/hack/cluster/down.sh" --name "$name" >/dev/null 2>&1 || log "down.sh --name $name failed"
  fi
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# The cluster.
kueue_dir="" cluster_extra=()
if [[ " ${phase_list[*]} " == *" kueue-gang "* ]]; then
  log "building Kueue (hack/cluster/build-ecosystem.sh kueue; cached after the first time)"
  kueue_dir=$("$ROOT/hack/cluster/build-ecosystem.sh" kueue 2>"$logs/build-kueue.log") ||
    { tail -n 30 "$logs/build-kueue.log" >&2; die "building Kueue failed"; }
  cluster_extra=(--with-controller-manager)
fi
log "starting cluster $name: $nodes nodes; logs and per-phase results in $logs"
cluster_started=1
out=$("$ROOT/hack/cluster/up.sh" --name "$name" --nodes "$nodes" --node-cpu 4 --node-memory 32Gi \
  --node-pods 110 --node-lease-seconds 0 --timeout $((120 + nodes / 20)) \
  --apiserver-arg=--runtime-config=scheduling.k8s.io/v1alpha2=true \
  --apiserver-arg=--feature-gates=GenericWorkload=true ${cluster_extra[@]+"${cluster_extra[@]}"} \
  2>"$logs/up.log") ||
  { tail -n 30 "$logs/up.log" >&2; die "hack/cluster/up.sh failed"; }
export KUBECONFIG="${out##*export KUBECONFIG=}"
export ARBITER_CLUSTER_ENV="${KUBECONFIG%/*}/cluster.env"
# shellcheck source=/dev/null
source "$ARBITER_CLUSTER_ENV"
k apply -f "$ROOT/deploy/crds/" >/dev/null
k wait --for condition=Established --timeout=60s \
  crd/podgroups.arbiter.dev crd/queues.arbiter.dev >/dev/null
k create namespace bench-canary >/dev/null
if [[ -n $kueue_dir ]]; then
  k apply --server-side -f "$kueue_dir/crds/" >/dev/null
  k wait --for condition=Established --timeout=60s crd/clusterqueues.kueue.x-k8s.io \
    crd/localqueues.kueue.x-k8s.io crd/workloads.kueue.x-k8s.io \
    crd/resourceflavors.kueue.x-k8s.io >/dev/null
fi
# The control plane's processes, whose CPU time each phase reports too (kube-controller-manager
# with Kueue: the Job controller creates the pods).
components=(kube-apiserver etcd kwok)
[[ -n $kueue_dir ]] && components+=(kube-controller-manager)
component_pids=()
for component in "${components[@]}"; do component_pids+=("$(<"$CLUSTER_DIR/$component.pid")"); done
component_ticks() {  # one number per component, in the order of $components
  local pid
  for pid in "${component_pids[@]}"; do proc_ticks "$pid"; done
}

# ---------------------------------------------------------------------------------------------
# The schedulers: start_scheduler PHASE SCHEDULER_NAME sets sched_pid; output in $logs/PHASE.log.
start_scheduler() {
  local phase=$1 scheduler=$2
  case $phase in
    null-binder)
      "$bin_dir/null-binder" --kubeconfig "$KUBECONFIG" --scheduler-name "$scheduler" \
        --kube-api-qps "$qps" --kube-api-burst "$burst" --workers "$workers" \
        </dev/null >"$logs/$phase.log" 2>&1 &
      ;;
    kube-scheduler | kube-scheduler-gang | kueue-gang)
      local gates=()
      [[ $phase == kube-scheduler-gang ]] &&
        gates=("--feature-gates=GenericWorkload=true,GangScheduling=true")
      cat >"$logs/$phase.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $KUBECONFIG
  qps: $qps
  burst: $burst
leaderElection:
  leaderElect: false
profiles:
- schedulerName: $scheduler
EOF
      "$ROOT/_output/bin/kube-scheduler" --config="$logs/$phase.yaml" "${gates[@]}" \
        --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" \
        --secure-port=0 --v=1 </dev/null >"$logs/$phase.log" 2>&1 &
      sched_pid=$!
      [[ $phase == kueue-gang ]] && start_kueue "$phase"
      return 0
      ;;
    arbiter | arbiter-gang | *-arbiter | *-arbiter-gang)
      local extra=() dir=$bin_dir
      # A variant's flags, split on blanks as a shell would split them unquoted.
      [[ $phase == arbiter || $phase == arbiter-gang ]] || read -ra extra <<<"${variants[${phase%-arbiter*}]}"
      [[ $phase == base-arbiter* && -n $base_bin_dir ]] && dir=$base_bin_dir
      metrics_port=$(free_port)
      "$dir/arbiter-scheduler" --kubeconfig "$KUBECONFIG" --scheduler-name "$scheduler" \
        --kube-api-qps "$qps" --kube-api-burst "$burst" --period 1s -v 2 "${extra[@]}" \
        --metrics-bind-address "127.0.0.1:$metrics_port" </dev/null >"$logs/$phase.log" 2>&1 &
      ;;
  esac
  sched_pid=$!
}

# start_kueue PHASE: Kueue's manager (configured by hack/cluster/kueue.sh: no webhooks, so the
# Jobs are created suspended) with the schedulers' client QPS/burst, and a ClusterQueue whose quota
# admits every Job; sets kueue_pid, log $logs/PHASE.kueue.log.
start_kueue() {
  local phase=$1
  kueue_write_config "$logs/$phase.kueue" "$qps" "$burst" || die "could not write Kueue's configuration"
  k create namespace kueue-system >/dev/null 2>&1 || true
  "$kueue_dir/bin/kueue" --config "$logs/$phase.kueue/config.yaml" </dev/null >"$logs/$phase.kueue.log" 2>&1 &
  kueue_pid=$!
  k apply -f - >/dev/null <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: bench-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: bench-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: [cpu, memory]
      flavors:
        - name: bench-flavor
          resources:
            - {name: cpu, nominalQuota: "$((nodes * 4))"}
            - {name: memory, nominalQuota: "$((nodes * 32))Gi"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: bench-lq, namespace: bench-$phase}
spec: {clusterQueue: bench-cq}
EOF
  wait_for "Kueue's ClusterQueue active" 120 cq_active
}
cq_active() {
  [[ $(k get clusterqueue bench-cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}') == True ]]
}

# The CPU of the phase's scheduler: with Kueue, kube-scheduler's and Kueue's together.
sched_ticks() {
  local ticks
  ticks=$(proc_ticks "$sched_pid")
  [[ -n $kueue_pid ]] && ticks=$((ticks + $(proc_ticks "$kueue_pid")))
  echo "$ticks"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# api_writes: the requests that changed something (every verb but GET) that the running
# arbiter-scheduler sent since it started, the canary's included, by verb as a JSON object
# (binds and events are POSTs, status and event-series writes PATCH or PUT); null if its
# /metrics did not answer.
api_writes() {
  curl -sf --max-time 5 "http://127.0.0.1:$metrics_port/metrics" | awk '
    /^arbiter_api_requests_total\{/ && !/verb="GET"/ {
      match($0, /verb="[A-Z]+"/); verb = substr($0, RSTART + 6, RLENGTH - 7); n[verb] += $NF
    }
    END {
      out = ""; for (v in n) out = out (out == "" ? "" : ",") "\"" v "\":" n[v]
      print "{" out "}"
    }' || echo null
}

sched_alive() { kill -0 "$sched_pid" 2>/dev/null || die "the scheduler exited; its log is in $logs"; }
pod_bound() { sched_alive && [[ -n $(k -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}') ]]; }
pod_gone() { ! k -n "$1" get pod "$2" >/dev/null 2>&1; }
no_pods() { (($(bench count --ns "$1") == 0)); }
recorder_done() { sched_alive && ! kill -0 "$recorder_pid" 2>/dev/null; }
deadline_passed() { (($(now_ms) >= $1)); }

# canary SCHEDULER: a pod in namespace bench-canary must be bound: the scheduler has synced and
# schedules. Then it is deleted, so the phase starts on an empty cluster.
canary() {
  k -n bench-canary run canary --image=registry.k8s.io/pause:3.10 --restart=Never \
    --overrides="{\"apiVersion\":\"v1\",\"spec\":{\"schedulerName\":\"$1\"}}" >/dev/null
  wait_for "canary pod bound by $1" 120 pod_bound bench-canary canary
  k -n bench-canary delete pod canary --grace-period=0 --force >/dev/null 2>&1
  wait_for "canary pod deleted" 60 pod_gone bench-canary canary
}

# quiesce: waits (at most 15 s) until the scheduler spends under 20 ms of CPU in 0.5 s, so that
# the work a phase left behind (events, status writes) is counted in its CPU time.
quiesce() {
  local deadline=$(($(now_ms) + 15000)) before after
  after=$(sched_ticks)
  while (($(now_ms) < deadline)); do
    before=$after
    sleep 0.5
    after=$(sched_ticks)
    ((after - before < 2 * HZ / 100)) && return 0
  done
  log "the scheduler was still busy 15 s after the last bind"
}

# ---------------------------------------------------------------------------------------------
# One phase.
run_phase() {
  local phase=$1 n=$pods group_size=0
  local ns="bench-$phase" scheduler="bench-$phase"
  local upstream=()
  if [[ $phase == *-gang ]]; then
    n=$((gangs * gang_size))
    group_size=$gang_size
    [[ $phase == kube-scheduler-gang ]] && upstream=(--upstream)
  fi
  log "phase $phase: $n pods, namespace $ns, schedulerName $scheduler"
  k create namespace "$ns" >/dev/null
  if ((!precreate)); then
    start_scheduler "$phase" "$scheduler"
    canary "$scheduler"
  fi

  rm -f "$logs/$phase.ready"
  bench record --ns "$ns" --expect "$n" --out "$logs/$phase.events" --ready "$logs/$phase.ready" \
    2>"$logs/$phase.recorder.log" &
  recorder_pid=$!
  wait_for "the recorder's watch" 30 test -f "$logs/$phase.ready"

  local t0 s0=0 m0 r0 t1 s1 m1 s_total c0 c1 created submit_ms
  ((precreate)) || { t0=$(now_ms) s0=$(sched_ticks) m0=$(machine_ticks); }
  ((precreate)) || { r0=$(proc_ticks "$recorder_pid"); mapfile -t c0 < <(component_ticks); }
  submit_ms=$(now_ms)
  if [[ $phase == kueue-gang ]]; then
    created=$(bench jobs --ns "$ns" --count "$gangs" --size "$gang_size" --scheduler "$scheduler" \
      --queue bench-lq --threads "$creators") || die "creating the Jobs failed: $created"
  else
    if ((group_size > 0)); then
      bench podgroups --ns "$ns" --count "$gangs" --min-member "$gang_size" --threads "$creators" \
        "${upstream[@]}" || die "creating the PodGroups failed"
    fi
    local groups_of=()
    ((${#upstream[@]})) && groups_of=(--upstream-groups)
    created=$(bench create --ns "$ns" --count "$n" --scheduler "$scheduler" \
      --group-size "$group_size" --threads "$creators" "${groups_of[@]}") ||
      die "creating the pods failed: $created"
  fi
  # An API server without the GenericWorkload gate would drop the field silently, and the phase
  # would measure pods scheduled one by one.
  if ((${#upstream[@]})); then
    [[ $(k -n "$ns" get pod pod-0 -o jsonpath='{.spec.schedulingGroup.podGroupName}') == g-0 ]] ||
      die "pod-0 has no spec.schedulingGroup: the API server does not serve gang scheduling"
  fi
  log "phase $phase: created: $created"
  if ((precreate)); then  # the backlog is there: now the scheduler, from its first instruction
    t0=$(now_ms) m0=$(machine_ticks) r0=$(proc_ticks "$recorder_pid") submit_ms=$t0
    mapfile -t c0 < <(component_ticks)
    start_scheduler "$phase" "$scheduler"
  fi

  local ok=true deadline=$(($(now_ms) + phase_timeout * 1000))
  until recorder_done || deadline_passed "$deadline"; do sleep 0.2; done
  if kill -0 "$recorder_pid" 2>/dev/null; then
    log "phase $phase: not all pods bound within $phase_timeout s"
    ok=false
    stop_pid "$recorder_pid"
  elif ! wait "$recorder_pid"; then
    log "phase $phase: the recorder failed: $(tail -n 3 "$logs/$phase.recorder.log")"
    ok=false
  fi
  recorder_pid=""
  local bound_at
  bound_at=$(now_ms)
  quiesce
  t1=$(now_ms) s1=$(sched_ticks) m1=$(machine_ticks)
  mapfile -t c1 < <(component_ticks)
  s_total=$s1
  local writes=null
  [[ $phase == *arbiter* ]] && writes=$(api_writes)
  stop_pid "$sched_pid"
  sched_pid=""
  local kueue_cpu=null
  if [[ -n $kueue_pid ]]; then
    kueue_cpu=$(seconds "$(proc_ticks "$kueue_pid")")
    stop_pid "$kueue_pid"
    kueue_pid=""
  fi
  local kcm_cpu=null
  ((${#c1[@]} > 3)) && kcm_cpu=$(seconds $((c1[3] - c0[3])))
  # Arbiter logs a line per session at -v 2 (the canary's included): how many the phase took.
  local sessions=null
  [[ $phase == *arbiter* ]] && sessions=$(grep -c ' session n=' "$logs/$phase.log" || true)

  local window=first-create
  ((precreate)) && window=first-bind
  local summary
  summary=$(bench summarize --events "$logs/$phase.events" --out "$logs/$phase.json" \
    --window "$window" \
    --set "phase=\"$phase\"" --set "scheduler_name=\"$scheduler\"" --set "namespace=\"$ns\"" \
    --set "pods=$n" --set "gangs=$((group_size > 0 ? gangs : 0))" --set "gang_size=$group_size" \
    --set "ok=$ok" --set "creator=$created" --set "sessions=$sessions" --set "api_writes=$writes" \
    --set "cpu_s=$(seconds $((s1 - s0)))" --set "cpu_s_total=$(seconds "$s_total")" \
    --set "apiserver_cpu_s=$(seconds $((c1[0] - c0[0])))" --set "submit_ms=$submit_ms" \
    --set "kueue_cpu_s=$kueue_cpu" --set "kcm_cpu_s=$kcm_cpu" \
    --set "etcd_cpu_s=$(seconds $((c1[1] - c0[1])))" --set "kwok_cpu_s=$(seconds $((c1[2] - c0[2])))" \
    --set "machine_busy_s=$(seconds $((m1 - m0)))" --set "recorder_cpu_before_s=$(seconds "$r0")" \
    --set "cpu_window_s=$(((t1 - t0) / 1000)).$(printf %03d $(((t1 - t0) % 1000)))" \
    --set "quiesce_s=$(((t1 - bound_at) / 1000)).$(printf %03d $(((t1 - bound_at) % 1000)))" \
    --set "loadavg=\"$(cut -d' ' -f1-3 /proc/loadavg)\"")
  log "phase $phase: $summary"

  local delete=(--ns "$ns")
  ((group_size > 0)) && delete+=(--podgroups)
  [[ $phase == kueue-gang ]] && delete+=(--jobs)
  bench delete "${delete[@]}" || die "deleting the pods of $ns failed"
  wait_for "the pods of $ns deleted" 300 no_pods "$ns"
}

for phase in "${phase_list[@]}"; do run_phase "$phase"; done

# ---------------------------------------------------------------------------------------------
# Report.
run=$(python3 - "$stamp" "$(nproc)" "$(uname -r)" "$commit" "$KUBERNETES_VERSION" <<EOF
import json, sys
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
              if l.startswith("model name")), "")
print(json.dumps({"date_utc": sys.argv[1], "nproc": int(sys.argv[2]), "cpu": model,
                  "kernel": sys.argv[3], "commit": sys.argv[4], "kubernetes": sys.argv[5],
                  "nodes": $nodes, "node": {"cpu": "4", "memory": "32Gi", "pods": 110},
                  "pods": $pods, "gangs": $gangs, "gang_size": $gang_size, "qps": $qps,
                  "burst": $burst, "null_binder_workers": $workers, "creators": $creators,
                  "precreate": bool($precreate), "baseline_bin_dir": "$base_bin_dir" or None,
                  "binaries_older_than_sources": "$stale" == "true",
                  "latency": "watch-event arrival times (ms) at bench.py record: "
                             "ADDED to the first event with spec.nodeName"}))
EOF
)
phase_files=()
for phase in "${phase_list[@]}"; do phase_files+=("$logs/$phase.json"); done
echo
echo "bench/e2e: $nodes nodes, QPS/burst $qps/$burst, $(nproc) CPUs, $stamp UTC, commit $commit"
bench report --json "$json" --run "$run" "${phase_files[@]}"
if ((precreate)); then
  echo "--precreate: pods created before each scheduler started;" \
    "pods/s = bound / (last bind - first bind)"
else
  echo "latency: create->bind per pod, from the arrival times of the watch events at one" \
    "watcher (ms resolution)"
fi
echo "JSON: $json; logs: $logs/"
