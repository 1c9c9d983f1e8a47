#!/usr/bin/env bash
# The soak (issue 20): hours of mixed churn with faults at random, and whether the scheduler stays
# right and does not grow.
#
#   hack/soak.sh [DURATION]      DURATION: 90s, 30m, 2h... (default 30m)
#
# On a cluster of its own (8 kwok nodes × 16 CPU, two queues), arbiter-scheduler runs behind the
# fault proxy (tests/faultproxy). Round after round (about a minute each):
#   1. churn (SOAK_CHURN_S, default 40 s) with one fault drawn at random for the whole round: none,
#      short watches, in-stream 410s, ambiguous binds, 503 bursts, 429 with Retry-After, resets,
#      every connection dropped, kube-apiserver killed and restarted, etcd paused. The churn
#      creates gangs (2–6 pods, 1–4 CPU, queue a or b) and single pods (queue default), deletes
#      the oldest gangs and single pods (their jobs ending), and cordons and uncordons nodes;
#   2. quiet: the faults stop, the churn stops (pods run until deleted, so nothing changes but
#      what the scheduler does), and the scheduler's cache must come to hold what a fresh LIST
#      holds (pods, nodes, PodGroups, Queues) within 90 s;
#   3. a sample: the scheduler's RSS, threads and open descriptors (/proc), its cache counts
#      (arbiter_cache_objects) against the LIST, sessions, re-lists and API requests, and the
#      independent checker (tests/reliability/check_invariants.py --settled).
# It fails at once if an invariant breaks or the cache does not catch up. At the end,
# tests/reliability/soak_report.py writes report.md and curves.svg next to samples.csv, and fails
# unless memory, threads and descriptors are flat (the criteria: in report.md and
# docs/reliability.md).
#
# Environment: SOAK_OUT (default _output/soak/<UTC time>), SOAK_SEED (default: the time),
# SOAK_CHURN_S, SOAK_FAULTS (a fixed sequence of faults, e.g. "none 429 none", repeated instead of
# drawn at random: to reproduce what a round did). Each sample's open descriptors are listed by
# kind (socket, pipe, anon_inode:[eventfd]...) in descriptors.txt. Needs build/bin/arbiter-scheduler (hack/build.sh) and the local control plane
# (hack/cluster/build.sh; up.sh builds it when missing).
# shellcheck source-path=SCRIPTDIR disable=SC2119  # rel_start_scheduler's flags are optional
set -euo pipefail

duration=${1:-30m}
case $duration in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
seconds_of() {
  local v=$1
  case $v in
    *h) echo $((${v%h} * 3600)) ;;
    *m) echo $((${v%m} * 60)) ;;
    *s) echo $((${v%s})) ;;
    *[!0-9]* | '') echo "soak.sh: DURATION must be like 90s, 30m or 2h, not '$v'" >&2 && return 1 ;;
    *) echo "$v" ;;
  esac
}
total_s=$(seconds_of "$duration")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${SOAK_OUT:-$ROOT/_output/soak/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
seed=${SOAK_SEED:-$(date +%s)}
churn_s=${SOAK_CHURN_S:-40}
RANDOM=$seed

# The soak is a reliability test that runs long: the same helpers, cluster and checker.
# shellcheck source=../tests/reliability/lib.sh
source "$ROOT/tests/reliability/lib.sh"
export FAULT_SEED=$seed

e2e_setup soak --nodes 8 --node-cpu 16
fault_proxy_start
rel_start_scheduler
# The scheduler's log grows with the run; kept in the output directory.
e2e_log "soak for ${total_s}s, seed $seed, output in $out"
{
  queue_yaml a weight=2
  queue_yaml b weight=1 'capability={cpu: 48}'
} | apply_yaml

mapfile -t nodes < <(k get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}')
gangs=()      # live gangs, oldest first
singles=()    # live single pods, oldest first
serial=0      # names are never reused: a name's second life would hide a lost delete

# soak_create: the manifests on stdin created; during an outage kubectl fails, and that is the
# fault, not the soak's failure (apply_yaml would end the run).
soak_create() { k create -f - >/dev/null 2>>"$E2E_TMP/churn-errors.log"; }

pick() { echo "$((RANDOM % $1))"; }

create_gang() {
  local name size cpu queue i
  serial=$((serial + 1))
  name=g$serial size=$((2 + $(pick 5))) cpu=$((1 + $(pick 4)))
  queue=$([[ $(pick 3) == 0 ]] && echo b || echo a)
  {
    group_yaml "$name" min="$size" queue="$queue"
    for ((i = 0; i < size; i++)); do
      pod_yaml "$name-$i" cpu="$cpu" group="$name" labels="soak: gang"
    done
  } | soak_create || true
  gangs+=("$name") # also when only a part was created: it is deleted in its turn
}
create_single() {
  serial=$((serial + 1))
  pod_yaml "s$serial" cpu="$((200 + $(pick 1800)))m" labels="soak: single" | soak_create || true
  singles+=("s$serial")
}
# A delete refused during an outage keeps its name on the list, to be deleted in a later step
# (dropping it would leak its pods: the load would grow round after round).
delete_oldest_gang() {
  ((${#gangs[@]})) || return 0
  local name=${gangs[0]}
  kn delete pods -l "arbiter.dev/pod-group=$name" --wait=false >/dev/null || return 1
  kn delete podgroup "$name" --wait=false --ignore-not-found >/dev/null || return 1
  gangs=("${gangs[@]:1}")
}
delete_oldest_singles() {
  local n=$((1 + $(pick 4)))
  ((${#singles[@]} >= n)) || return 0
  kn delete pods "${singles[@]:0:n}" --wait=false --ignore-not-found >/dev/null || return 1
  singles=("${singles[@]:n}")
}
toggle_node() {
  local node=${nodes[$(pick ${#nodes[@]})]}
  if [[ $(k get node "$node" -o jsonpath='{.spec.unschedulable}') == true ]]; then
    k uncordon "$node" >/dev/null
  else
    k cordon "$node" >/dev/null
  fi
}

# One step of churn, drawn at random; the population stays bounded (about 25 gangs and 40 single
# pods: some 250 CPU asked of 128).
churn_step() {
  local r
  r=$(pick 100)
  if ((${#gangs[@]} > 25)); then
    delete_oldest_gang
  elif ((${#singles[@]} > 40)); then
    delete_oldest_singles
  elif ((r < 30)); then
    create_gang
  elif ((r < 55)); then
    create_single
  elif ((r < 72)); then
    delete_oldest_gang
  elif ((r < 90)); then
    delete_oldest_singles
  else
    toggle_node
  fi
}

FAULTS=(none short-watches watch-410 ambiguous-binds 503-burst 429 resets drop-connections
  apiserver-restart etcd-pause)
# start_fault NAME: injects it (proxy rules, or a process fault in the background of the churn).
start_fault() {
  case $1 in
    none) ;;
    short-watches)
      fault_rules '{"rules": [{"name": "short", "action": "watch-end", "afterEvents": 5, "probability": 0.5}]}' ;;
    watch-410)
      fault_rules '{"rules": [{"name": "w410", "action": "watch-error", "afterEvents": 10, "probability": 0.3}]}' ;;
    ambiguous-binds)
      fault_rules '{"rules": [{"name": "ambiguous", "method": "POST", "path": "/binding$", "action": "drop-response", "probability": 0.1}]}' ;;
    503-burst)
      fault_rules '{"rules": [{"name": "s503", "watch": false, "action": "status", "code": 503, "probability": 0.3}]}' ;;
    429)
      fault_rules '{"rules": [{"name": "s429", "watch": false, "action": "status", "code": 429, "retryAfterSeconds": 1, "probability": 0.2}]}' ;;
    resets)
      fault_rules '{"rules": [{"name": "reset", "action": "reset", "probability": 0.05}]}' ;;
    drop-connections)
      curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null ;;
    apiserver-restart)
      component_kill kube-apiserver
      outage 3
      component_start kube-apiserver
      date +%s >>"$E2E_TMP/restarts" # when its first seconds refuse with 403 (below)
      wait_until "kube-apiserver is ready again" 60 api_ready ;;
    etcd-pause)
      component_signal etcd STOP
      outage 5
      component_signal etcd CONT
      wait_until "the API server reaches etcd again" 60 api_ready ;;
  esac
}
for f in ${SOAK_FAULTS:-}; do
  [[ " ${FAULTS[*]} " == *" $f "* ]] || fail "SOAK_FAULTS: no fault '$f' (there are: ${FAULTS[*]})"
done
stop_faults() { fault_rules '{"rules": []}'; }

list_count() { k get "$@" --no-headers 2>/dev/null | wc -l; }
# cache_matches: the scheduler's cache holds what a fresh LIST holds (printed when it does not).
cache_matches() {
  local kind listed cached ok=0 seen=""
  for kind in pod:pods node:nodes podgroup:podgroups queue:queues; do
    listed=$(list_count "${kind#*:}" -A)
    cached=$(metric arbiter_cache_objects "kind=\"${kind%%:*}\"")
    [[ $listed == "$cached" ]] || ok=1
    seen+="${kind%%:*} $cached cached, $listed listed; "
  done
  ((ok == 0)) || e2e_log "cache against LIST: $seen"
  return "$ok"
}
proc_field() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$E2E_SCHEDULER_PID/status"; }

samples=$out/samples.csv
echo "t_s,round,fault,rss_kb,threads,fds,cache_pods,list_pods,cache_podgroups,list_podgroups,cache_nodes,cache_queues,cache_assumed,sessions,relists,api_requests,binds,proxy_requests" >"$samples"
start=$(date +%s)
round=0
while (($(date +%s) - start < total_s)); do
  round=$((round + 1))
  if [[ -n ${SOAK_FAULTS:-} ]]; then
    read -ra fixed <<<"$SOAK_FAULTS"
    fault=${fixed[$(((round - 1) % ${#fixed[@]}))]}
  else
    fault=${FAULTS[$(pick ${#FAULTS[@]})]}
  fi
  e2e_log "round $round: fault $fault"
  case $fault in
    apiserver-restart | etcd-pause) start_fault "$fault" & fault_pid=$! ;;
    *) start_fault "$fault" && fault_pid="" ;;
  esac
  round_end=$(($(date +%s) + churn_s))
  while (($(date +%s) < round_end)); do
    # During an outage, kubectl fails: that is the fault, not the soak's failure.
    churn_step 2>>"$E2E_TMP/churn-errors.log" || true
  done
  [[ -z $fault_pid ]] || wait "$fault_pid" || fail "round $round: injecting $fault failed"
  stop_faults
  wait_until "round $round: the scheduler's cache holds what a fresh LIST holds" 90 cache_matches
  check_invariants --settled
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' \
    "$(($(date +%s) - start))" "$round" "$fault" "$(proc_field VmRSS)" "$(proc_field Threads)" \
    "$(find "/proc/$E2E_SCHEDULER_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)" \
    "$(metric arbiter_cache_objects 'kind="pod"')" "$(list_count pods -A)" \
    "$(metric arbiter_cache_objects 'kind="podgroup"')" "$(list_count podgroups -A)" \
    "$(metric arbiter_cache_objects 'kind="node"')" "$(metric arbiter_cache_objects 'kind="queue"')" \
    "$(metric arbiter_cache_objects 'kind="assumed"')" "$(metric arbiter_sessions_total)" \
    "$(metric arbiter_watch_lists_total)" "$(metric arbiter_api_requests_total)" \
    "$(metric arbiter_binds_total 'result="bound"')" "$(fault_stat requests)" >>"$samples"
  e2e_log "round $round sampled: $(tail -n 1 "$samples")"
  {
    echo "round $round ($fault):"
    find "/proc/$E2E_SCHEDULER_PID/fd" -mindepth 1 -maxdepth 1 -printf '%l\n' |
      sed 's/:\[[0-9]*\]$//' | sort | uniq -c
  } >>"$out/descriptors.txt"
done

# A kube-apiserver just started refuses requests (403) until its RBAC informers have synced; any
# other refusal is a permission the chart lacks (e2e_done checks the log, so it is moved aside).
restarts=()
[[ -f $E2E_TMP/restarts ]] && mapfile -t restarts <"$E2E_TMP/restarts"
expect "the scheduler's only 403s came right after the API server's restarts" \
  refusals_only_after "$E2E_TMP/scheduler.log" 0 "${restarts[@]}"
cp "$E2E_TMP/scheduler.log" "$out/scheduler.log"
mv "$E2E_TMP/scheduler.log" "$E2E_TMP/scheduler-soak.txt"
cp "$E2E_TMP/faultproxy.log" "$out/faultproxy.log" 2>/dev/null || true
{
  echo "seed=$seed duration=${total_s}s churn=${churn_s}s rounds=$round commit=$(git -C "$ROOT" rev-parse --short HEAD)"
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
} >"$out/run.txt"
python3 "$ROOT/tests/reliability/soak_report.py" "$out" || fail "the soak's report (above) is not flat"
e2e_done
