# shellcheck shell=bash
# shellcheck disable=SC2034  # variables used by the tests that source this file
# Shared helpers of the end-to-end tests (tests/e2e/*_test.sh). Each test sources this file, then:
#
#   e2e_setup r1 --nodes 3 --node-cpu 80    # its own cluster e2e-r1-<pid>, CRDs, namespace e2e
#   e2e_start_scheduler [--node-selector zone=a ...]
#   ... create objects, then assert with wait_until / holds_for / expect ...
#   e2e_done
#
# Every test starts a cluster of the shape it needs (hack/cluster/up.sh --name e2e-<test>-<pid>,
# so concurrent runs never collide), runs build/bin/arbiter-scheduler in the background with its
# log in a temporary directory, and always stops both (trap on EXIT, INT and TERM). Nothing waits
# by sleeping: every wait is a poll with a deadline. On failure the scheduler's log tail, the pods
# and PodGroups, their conditions and the recent events are printed, and the temporary directory
# is kept. Exit codes: 0 pass, 1 fail, 77 skipped (no scheduler binary).
#
# Environment: ARBITER_SCHEDULER (default build/bin/arbiter-scheduler), ARBITER_E2E_VERBOSITY
# (the scheduler's -v, default 2), ARBITER_KEEP_CLUSTER_LOGS=1 (keep _output/cluster/NAME on
# failure), ARBITER_E2E_KEEP=1 (keep the temporary directory on success too).

E2E_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KUBECTL="$E2E_ROOT/_output/bin/kubectl"
ARBITER_SCHEDULER="${ARBITER_SCHEDULER:-$E2E_ROOT/build/bin/arbiter-scheduler}"
ARBITER_CONTROLLER="${ARBITER_CONTROLLER:-$E2E_ROOT/build/bin/arbiter-controller}"
E2E_NS=e2e
E2E_POLL=0.25          # seconds between two polls
E2E_NAME=""            # the cluster's name
E2E_TMP=""             # logs and manifests of this run
E2E_SCHEDULER_PID=""
E2E_CONTROLLER_PID=""
# Other processes a test started (a second scheduler...), stopped by e2e_teardown.
E2E_EXTRA_PIDS=()
E2E_CLUSTER_STARTED=0
E2E_INVARIANT=()       # a command that must hold at every poll (see e2e_invariant)
E2E_CHECKS=0

# ---------------------------------------------------------------------------------------------
# Reporting.

e2e_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
pass() { E2E_CHECKS=$((E2E_CHECKS + 1)); echo "PASS: $*"; }
# fail MESSAGE: the test fails here (the EXIT trap prints the diagnostics and tears down).
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }

k() { "$KUBECTL" "$@"; }
# not CMD...: CMD fails (for wait_until / holds_for / expect).
not() { ! "$@"; }
kn() { "$KUBECTL" -n "$E2E_NS" "$@"; }

# now_ms: wall-clock milliseconds (bash 5's EPOCHREALTIME; its separator follows the locale).
now_ms() {
  local t=${EPOCHREALTIME//[.,]/}
  echo $((t / 1000))
}

# ---------------------------------------------------------------------------------------------
# Set-up and teardown.

# e2e_setup TEST [up.sh options...]: starts cluster e2e-TEST-<pid>, applies the CRDs, creates
# namespace e2e. Skips (77) if the scheduler binary has not been built.
e2e_setup() {
  local test=$1
  shift
  [[ -x $ARBITER_SCHEDULER ]] ||
    skip "$ARBITER_SCHEDULER does not exist; build it with hack/build.sh"
  E2E_NAME="e2e-$test-$$"
  E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-e2e-$test.XXXXXX")
  trap e2e_teardown EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # The shared cluster hack/test.sh may have started is not ours.
  unset KUBECONFIG ARBITER_CLUSTER_ENV ARBITER_CLUSTER_NAME ARBITER_REUSE_CLUSTER

  e2e_log "starting cluster $E2E_NAME ($*)"
  E2E_CLUSTER_STARTED=1
  local out
  if ! out=$("$E2E_ROOT/hack/cluster/up.sh" --name "$E2E_NAME" "$@" 2>"$E2E_TMP/up.log"); then
    tail -n 40 "$E2E_TMP/up.log"
    fail "hack/cluster/up.sh --name $E2E_NAME $* failed"
  fi
  export KUBECONFIG="${out##*export KUBECONFIG=}"
  [[ -f $KUBECONFIG ]] || fail "unexpected output of up.sh: $out"

  k apply -f "$E2E_ROOT/deploy/crds/" >/dev/null
  # Not `kubectl wait`: it fails at once on a CRD whose status has no conditions yet (seen in
  # e2e.chart: ".status.conditions accessor error: <nil>").
  local deadline=$(($(now_ms) + 60000))
  until crds_established podgroups.arbiter.dev queues.arbiter.dev batchjobs.arbiter.dev; do
    (($(now_ms) < deadline)) || fail "the CRDs were not Established within 60 s"
    sleep "$E2E_POLL"
  done
  k create namespace "$E2E_NS" >/dev/null
  e2e_log "cluster $E2E_NAME ready; KUBECONFIG=$KUBECONFIG; logs in $E2E_TMP"
}

# ---------------------------------------------------------------------------------------------
# Service accounts (issue 16): the binaries run as their own ServiceAccounts, with the permissions
# the Helm chart gives them, so that every e2e test proves those permissions suffice. ARBITER_E2E_AS_ADMIN=1
# runs them with the cluster's admin kubeconfig instead (to tell a missing permission from a bug).

# e2e_service_account NAME: ServiceAccount arbiter-system/NAME with its roles, as the plain
# manifests (deploy/manifests/arbiter.yaml, the Helm chart rendered) define them, applied,
# and what a pod of it would have mounted, in $E2E_TMP/sa-NAME: token (from the API server's
# TokenRequest), ca.crt, namespace. Prints the directory.
e2e_service_account() {
  local name=$1 dir=$E2E_TMP/sa-$1
  if [[ ! -f $dir/token ]]; then
    k get namespace arbiter-system >/dev/null 2>&1 || k create namespace arbiter-system >/dev/null
    k apply -f "$E2E_ROOT/deploy/manifests/arbiter.yaml" -l "arbiter.dev/access=$name" >/dev/null
    mkdir -p "$dir"
    k -n arbiter-system create token "$name" --duration 2h >"$dir/token"
    cp "$(dirname "$KUBECONFIG")/ca.crt" "$dir/ca.crt"
    echo arbiter-system >"$dir/namespace"
  fi
  echo "$dir"
}

# e2e_exec_as NAME CMD...: replaces the (sub)shell with CMD run as ServiceAccount
# arbiter-system/NAME, configured as in a pod (KUBERNETES_SERVICE_HOST/PORT, the files at
# ARBITER_SERVICE_ACCOUNT_DIR); with ARBITER_E2E_AS_ADMIN=1, with --kubeconfig $KUBECONFIG instead.
# Call it in the background (`e2e_exec_as NAME CMD... &`): then $! is CMD's pid.
e2e_exec_as() {
  local name=$1
  shift
  if [[ ${ARBITER_E2E_AS_ADMIN:-0} == 1 ]]; then
    exec "$@" --kubeconfig "$KUBECONFIG"
  fi
  local dir server hostport
  dir=$(e2e_service_account "$name")
  server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  hostport=${server#https://}
  exec env KUBERNETES_SERVICE_HOST="${hostport%:*}" KUBERNETES_SERVICE_PORT="${hostport##*:}" \
    ARBITER_SERVICE_ACCOUNT_DIR="$dir" "$@"
}

# crds_established CRD...: each CRD has condition Established=True (for wait_until: `kubectl wait`
# fails on a CRD whose status has no conditions yet).
crds_established() {
  local crd
  for crd in "$@"; do
    [[ $(k get crd "$crd" -o jsonpath='{.status.conditions[?(@.type=="Established")].status}') == True ]] ||
      return 1
  done
}

# throwaway_cert DIR CN: a self-signed serving certificate, DIR/tls.crt and DIR/tls.key, for a
# controller of the ecosystem whose webhook server will not start without one.
throwaway_cert() {
  mkdir -p "$1"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$2" \
    -keyout "$1/tls.key" -out "$1/tls.crt" 2>/dev/null
}

# free_ports N: N free TCP ports on 127.0.0.1, on one line.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])' "$1"
}

# e2e_start_scheduler [flags...]: runs arbiter-scheduler in the background (log:
# $E2E_TMP/scheduler.log) and waits until it has created Queue `default`, which it does at start.
# scheduler_config [YAML]: writes $E2E_TMP/scheduler.yaml, the built-in configuration's actions and
# tiers followed by YAML (more top-level sections: preemption, reservation), and prints its path,
# for `e2e_start_scheduler --config "$(scheduler_config ...)"`.
scheduler_config() {
  cat >"$E2E_TMP/scheduler.yaml" <<EOF
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}, {name: topology}, {name: locality},
              {name: straggler}]
${1:-}
EOF
  echo "$E2E_TMP/scheduler.yaml"
}

e2e_start_scheduler() {
  local args=(--period 1s -v "${ARBITER_E2E_VERBOSITY:-2}" "$@")
  e2e_service_account arbiter-scheduler >/dev/null
  e2e_log "starting arbiter-scheduler ${args[*]} (as ServiceAccount arbiter-scheduler)"
  e2e_exec_as arbiter-scheduler "$ARBITER_SCHEDULER" "${args[@]}" </dev/null \
    >"$E2E_TMP/scheduler.log" 2>&1 &
  E2E_SCHEDULER_PID=$!
  wait_until "arbiter-scheduler started and created Queue default" 30 queue_exists default
}
queue_exists() { k get queue "$1" >/dev/null 2>&1; }

# scheduler_alive: fails the test if the scheduler we started has exited.
scheduler_alive() {
  [[ -z $E2E_SCHEDULER_PID ]] && return 0
  if ! kill -0 "$E2E_SCHEDULER_PID" 2>/dev/null; then
    local rc=0
    wait "$E2E_SCHEDULER_PID" || rc=$?
    E2E_SCHEDULER_PID=""
    fail "arbiter-scheduler exited (status $rc)"
  fi
}

# e2e_start_controller [FLAGS...]: runs build/bin/arbiter-controller in the background (log in
# $E2E_TMP/controller.log); e2e_teardown stops it.
e2e_start_controller() {
  [[ -x $ARBITER_CONTROLLER ]] || skip "no $ARBITER_CONTROLLER (build it first)"
  local args=(--period 1s -v "${ARBITER_E2E_VERBOSITY:-2}" "$@")
  e2e_service_account arbiter-controller >/dev/null
  e2e_log "starting arbiter-controller ${args[*]} (as ServiceAccount arbiter-controller)"
  e2e_exec_as arbiter-controller "$ARBITER_CONTROLLER" "${args[@]}" </dev/null \
    >"$E2E_TMP/controller.log" 2>&1 &
  E2E_CONTROLLER_PID=$!
}

# controller_alive: fails the test if the controller we started has exited.
controller_alive() {
  [[ -z $E2E_CONTROLLER_PID ]] && return 0
  if ! kill -0 "$E2E_CONTROLLER_PID" 2>/dev/null; then
    local rc=0
    wait "$E2E_CONTROLLER_PID" || rc=$?
    E2E_CONTROLLER_PID=""
    fail "arbiter-controller exited (status $rc)"
  fi
}

e2e_stop_controller() {
  local pid=$E2E_CONTROLLER_PID
  [[ -n $pid ]] || return 0
  E2E_CONTROLLER_PID=""
  kill -TERM "$pid" 2>/dev/null || return 0
  local deadline=$(($(now_ms) + 10000))
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "arbiter-controller did not stop within 10 s of SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

e2e_stop_scheduler() {
  local pid=$E2E_SCHEDULER_PID
  [[ -n $pid ]] || return 0
  E2E_SCHEDULER_PID=""
  kill -TERM "$pid" 2>/dev/null || return 0
  local deadline=$(($(now_ms) + 10000))
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "arbiter-scheduler did not stop within 10 s of SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# e2e_dump: what a reader needs to see why a test failed.
e2e_dump() {
  echo "================ diagnostics of $E2E_NAME ================"
  if [[ -f $E2E_TMP/scheduler.log ]]; then
    echo "---- arbiter-scheduler log (last 80 lines of $E2E_TMP/scheduler.log) ----"
    tail -n 80 "$E2E_TMP/scheduler.log"
  fi
  if [[ -f $E2E_TMP/controller.log ]]; then
    echo "---- arbiter-controller log (last 40 lines of $E2E_TMP/controller.log) ----"
    tail -n 40 "$E2E_TMP/controller.log"
  fi
  if [[ -n ${KUBECONFIG:-} && -f $KUBECONFIG ]]; then
    echo "---- kubectl get pods,podgroups -A -o wide ----"
    k get pods,podgroups -A -o wide 2>&1 || true
    echo "---- pods: phase, being deleted since, labels ----"
    k get pods -A -o custom-columns='POD:.metadata.name,PHASE:.status.phase,DELETING:.metadata.deletionTimestamp,LABELS:.metadata.labels' 2>&1 || true
    if k get crd batchjobs.arbiter.dev >/dev/null 2>&1; then
      echo "---- BatchJob status ----"
      k get batchjobs -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}: {.status}{"\n"}{end}' 2>&1 || true
    fi
    echo "---- PodGroup status ----"
    k get podgroups -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}: phase={.status.phase} scheduled={.status.scheduled} running={.status.running} succeeded={.status.succeeded}{"\n"}{range .status.conditions[*]}    {.type}={.status} {.reason}: {.message}{"\n"}{end}{end}' 2>&1 || true
    echo "---- pending pods' PodScheduled condition ----"
    k get pods -A --field-selector=status.phase=Pending -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name}: {range .status.conditions[?(@.type=="PodScheduled")]}{.status} {.reason}: {.message}{end}{"\n"}{end}' 2>&1 || true
    echo "---- events (last 40) ----"
    k get events -A --sort-by=.metadata.creationTimestamp 2>&1 | tail -n 40 || true
  fi
  echo "================ end of diagnostics ================"
}

# shellcheck disable=SC2317  # called by the EXIT trap
e2e_teardown() {
  local rc=$?
  trap - EXIT INT TERM
  if ((rc != 0 && rc != 77)); then
    e2e_dump
  fi
  e2e_stop_scheduler
  e2e_stop_controller
  local extra
  for extra in "${E2E_EXTRA_PIDS[@]}"; do kill -TERM "$extra" 2>/dev/null || true; done
  for extra in "${E2E_EXTRA_PIDS[@]}"; do wait "$extra" 2>/dev/null || true; done
  if ((E2E_CLUSTER_STARTED)); then
    local down_args=(--name "$E2E_NAME")
    ((rc != 0)) && [[ ${ARBITER_KEEP_CLUSTER_LOGS:-0} == 1 ]] && down_args+=(--keep-logs)
    "$E2E_ROOT/hack/cluster/down.sh" "${down_args[@]}" >/dev/null 2>&1 ||
      echo "down.sh --name $E2E_NAME failed"
  fi
  if [[ -n $E2E_TMP && -d $E2E_TMP ]]; then
    if ((rc == 0)) && [[ ${ARBITER_E2E_KEEP:-0} != 1 ]]; then
      rm -rf "$E2E_TMP"
    else
      echo "logs kept in $E2E_TMP"
    fi
  fi
  exit "$rc"
}

# e2e_done: the last line of a test.
e2e_done() {
  scheduler_alive
  controller_alive
  # The binaries ran as their ServiceAccounts: a request RBAC refused means the chart's roles lack
  # a permission they need.
  local log
  for log in "$E2E_TMP"/scheduler*.log "$E2E_TMP"/controller*.log; do
    [[ -f $log ]] || continue
    if grep -qE 'system:serviceaccount:arbiter-system:[a-z-]+\\?" cannot ' "$log"; then
      grep -E 'system:serviceaccount:arbiter-system:[a-z-]+\\?" cannot ' "$log" | head -n 5
      fail "RBAC refused a request of $(basename "$log" .log) (the chart's roles lack a permission)"
    fi
  done
  echo "PASSED: $(basename "$0" .sh): $E2E_CHECKS checks"
}

# ---------------------------------------------------------------------------------------------
# Polls with deadlines.

# e2e_invariant [CMD...]: CMD must hold at every poll of wait_until and holds_for from now on
# (e.g. "no group has between 1 and minMember-1 pods bound"); no argument clears it.
e2e_invariant() { E2E_INVARIANT=("$@"); }

_e2e_poll_checks() {
  scheduler_alive
  controller_alive
  if ((${#E2E_INVARIANT[@]})) && ! "${E2E_INVARIANT[@]}"; then
    fail "invariant broken: ${E2E_INVARIANT[*]}"
  fi
}

# wait_until DESC TIMEOUT_S CMD...: polls CMD until it succeeds; fails the test after TIMEOUT_S.
wait_until() {
  local desc=$1 timeout=$2
  shift 2
  local start
  start=$(now_ms)
  local deadline=$((start + timeout * 1000))
  while true; do
    _e2e_poll_checks
    if "$@"; then
      pass "$desc (after $(($(now_ms) - start)) ms)"
      return 0
    fi
    (($(now_ms) >= deadline)) && fail "$desc: not true within ${timeout} s"
    sleep "$E2E_POLL"
  done
}

# holds_for DESC SECONDS CMD...: CMD must succeed at every poll during SECONDS (several
# scheduling sessions at --period 1s); fails the test at the first poll where it does not.
holds_for() {
  local desc=$1 seconds=$2
  shift 2
  local deadline=$(($(now_ms) + seconds * 1000)) polls=0
  while (($(now_ms) < deadline)); do
    _e2e_poll_checks
    "$@" || fail "$desc: stopped holding after $polls polls"
    polls=$((polls + 1))
    sleep "$E2E_POLL"
  done
  pass "$desc (held for ${seconds} s, $polls polls)"
}

# expect DESC CMD...: CMD must succeed now.
expect() {
  local desc=$1
  shift
  "$@" || fail "$desc"
  pass "$desc"
}

# ---------------------------------------------------------------------------------------------
# Reading state (namespace e2e).

# pods_table SELECTOR: "name node phase" per pod matching the label selector; node is <none>
# while unbound.
pods_table() {
  kn get pods -l "$1" --no-headers \
    -o custom-columns=N:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase
}
# bound_count SELECTOR: pods with a node (any phase: a Succeeded pod stays placed).
bound_count() { pods_table "$1" | awk '$2 != "<none>"' | wc -l; }
pod_count() { pods_table "$1" | wc -l; }
# phase_count SELECTOR PHASE
phase_count() { pods_table "$1" | awk -v p="$2" '$3 == p' | wc -l; }
pod_count_is() { (($(pod_count "$1") == $2)); }
bound_is() { (($(bound_count "$1") == $2)); }
phase_is() { (($(phase_count "$1" "$2") == $3)); }
# bound_in SELECTOR N...: the number of bound pods is one of N...
bound_in() {
  local n want
  n=$(bound_count "$1")
  shift
  for want in "$@"; do ((n == want)) && return 0; done
  return 1
}
# nodes_of SELECTOR: the nodes of the bound pods, one a line.
nodes_of() { pods_table "$1" | awk '$2 != "<none>" {print $2}'; }
pod_node() { kn get pod "$1" -o jsonpath='{.spec.nodeName}'; }
pod_phase() { kn get pod "$1" -o jsonpath='{.status.phase}'; }
pod_phase_is() { [[ $(pod_phase "$1") == "$2" ]]; }
pod_gone() { ! kn get pod "$1" >/dev/null 2>&1; }
pod_unbound() { [[ -z $(pod_node "$1") ]]; }
# pod_condition POD TYPE FIELD: e.g. pod_condition big PodScheduled reason
pod_condition() {
  kn get pod "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].$3}"
}
# pod_message_matches POD ERE: the PodScheduled condition's message matches ERE (ignoring case).
pod_message_matches() { pod_condition "$1" PodScheduled message | grep -qiE -- "$2"; }
pod_priority_is() { [[ $(kn get pod "$1" -o jsonpath='{.spec.priority}') == "$2" ]]; }
pod_unschedulable() {
  [[ $(pod_condition "$1" PodScheduled status) == False &&
     $(pod_condition "$1" PodScheduled reason) == Unschedulable ]]
}
# pod_events POD: "type|reason|reportingComponent|source|message" per event about the pod.
pod_events() {
  kn get events --field-selector "involvedObject.kind=Pod,involvedObject.name=$1" \
    -o jsonpath='{range .items[*]}{.type}|{.reason}|{.reportingComponent}|{.source.component}|{.message}{"\n"}{end}'
}
# event_messages POD TYPE REASON: the messages of the pod's events of that type and reason.
event_messages() {
  pod_events "$1" | awk -F'|' -v t="$2" -v r="$3" '$1 == t && $2 == r {
    m = $5; for (i = 6; i <= NF; i++) m = m "|" $i; print m }'
}
# has_event POD TYPE REASON [MESSAGE_ERE]: such an event exists (with a message matching ERE).
has_event() { event_messages "$1" "$2" "$3" | grep -qE -- "${4:-.*}"; }
# event_reporter_is POD REASON ERE: the event's reportingComponent or source names ERE.
event_reporter_is() {
  pod_events "$1" | awk -F'|' -v r="$2" '$2 == r {print $3 " " $4}' | grep -qiE -- "$3"
}
pg_field() { kn get podgroup "$1" -o jsonpath="{$2}"; }
pg_running_is() { pg_phase_is "$1" Running && [[ $(pg_field "$1" .status.running) == "$2" ]]; }
pg_phase_is() { [[ $(pg_field "$1" .status.phase) == "$2" ]]; }
# pg_condition PG TYPE FIELD
pg_condition() { pg_field "$1" ".status.conditions[?(@.type==\"$2\")].$3"; }
pg_unschedulable() { [[ $(pg_condition "$1" Unschedulable status) == True ]]; }
# pg_message_matches PG TYPE ERE: the condition's message matches ERE (case-insensitive).
pg_message_matches() { pg_condition "$1" "$2" message | grep -qiE -- "$3"; }
# distinct_nodes SELECTOR N: the bound pods are on N different nodes.
distinct_nodes() { (($(nodes_of "$1" | sort -u | wc -l) == $2)); }

# ---------------------------------------------------------------------------------------------
# Writing manifests (applied with `apply_yaml`).

# pod_yaml NAME key=value...: a pod in namespace e2e. Keys: cpu (request, default 100m),
# memory, group (arbiter.dev/pod-group), task (arbiter.dev/task), priority (priorityClassName),
# scheduler (default arbiter), node (spec.nodeName), runfor (arbiter.dev/run-for), stopfor
# (arbiter.dev/stop-for: how long the fake kubelet takes to stop it once deleted), labels (extra
# "k: v" pairs, comma-separated), annotations (the same), node_selector ("k: v"), ns (namespace,
# default $E2E_NS).
pod_yaml() {
  local name=$1
  shift
  local cpu=100m memory="" group="" task="" priority="" scheduler=arbiter node="" runfor=""
  local labels="" node_selector="" ns=$E2E_NS stopfor="" annotations="" kv
  for kv in "$@"; do
    case $kv in
      cpu=*) cpu=${kv#*=} ;;
      memory=*) memory=${kv#*=} ;;
      group=*) group=${kv#*=} ;;
      task=*) task=${kv#*=} ;;
      priority=*) priority=${kv#*=} ;;
      scheduler=*) scheduler=${kv#*=} ;;
      node=*) node=${kv#*=} ;;
      runfor=*) runfor=${kv#*=} ;;
      stopfor=*) stopfor=${kv#*=} ;;
      labels=*) labels=${kv#*=} ;;
      annotations=*) annotations=${kv#*=} ;;
      node_selector=*) node_selector=${kv#*=} ;;
      ns=*) ns=${kv#*=} ;;
      *) fail "pod_yaml: unknown key $kv" ;;
    esac
  done
  echo "---"
  echo "apiVersion: v1"
  echo "kind: Pod"
  echo "metadata:"
  echo "  name: $name"
  echo "  namespace: $ns"
  echo "  labels:"
  echo "    e2e: \"true\""
  [[ -n $group ]] && echo "    arbiter.dev/pod-group: $group"
  [[ -n $task ]] && echo "    arbiter.dev/task: $task"
  if [[ -n $labels ]]; then
    local l
    IFS=, read -ra l <<<"$labels"
    printf '    %s\n' "${l[@]}"
  fi
  [[ -n $runfor || -n $stopfor || -n $annotations ]] && echo "  annotations:"
  [[ -n $runfor ]] && printf '    arbiter.dev/run-for: "%s"\n' "$runfor"
  [[ -n $stopfor ]] && printf '    arbiter.dev/stop-for: "%s"\n' "$stopfor"
  if [[ -n $annotations ]]; then
    local a
    IFS=, read -ra a <<<"$annotations"
    printf '    %s\n' "${a[@]}"
  fi
  echo "spec:"
  echo "  schedulerName: $scheduler"
  echo "  restartPolicy: Never"
  # Pods that take time to stop (stopfor) have a grace period long enough for it.
  if [[ -n $stopfor ]]; then
    echo "  terminationGracePeriodSeconds: 60"
  else
    echo "  terminationGracePeriodSeconds: 0"
  fi
  [[ -n $node ]] && echo "  nodeName: $node"
  [[ -n $priority ]] && echo "  priorityClassName: $priority"
  [[ -n $node_selector ]] && echo "  nodeSelector: {$node_selector}"
  echo "  containers:"
  echo "  - name: main"
  echo "    image: registry.k8s.io/pause:3.10"
  echo "    resources:"
  echo "      requests: {cpu: \"$cpu\"${memory:+, memory: \"$memory\"}}"
}

# pg_yaml NAME MIN [MIN_TASK_MEMBER]: a PodGroup; MIN_TASK_MEMBER is a flow map, e.g. "{ps: 1}".
pg_yaml() {
  echo "---"
  echo "apiVersion: arbiter.dev/v1alpha1"
  echo "kind: PodGroup"
  echo "metadata: {name: $1, namespace: $E2E_NS}"
  echo "spec:"
  echo "  minMember: $2"
  [[ -n ${3:-} ]] && echo "  minTaskMember: $3"
  return 0
}

# workers_yaml NAME REPLICAS CPU: a BatchJob of one task `worker`, all of whose pods must start.
workers_yaml() {
  printf -- '---\napiVersion: arbiter.dev/v1alpha1\nkind: BatchJob\nmetadata: {name: %s, namespace: %s}\n' \
    "$1" "$E2E_NS"
  printf 'spec:\n  tasks:\n    - name: worker\n      replicas: %s\n      minAvailable: %s\n' "$2" "$2"
  printf '      template:\n        spec:\n          containers: [{name: c, image: busybox, resources: {requests: {cpu: "%s"}}}]\n' \
    "$3"
}
# batchjob_phase_is NAME PHASE
batchjob_phase_is() { [[ $(kn get batchjob "$1" -o jsonpath='{.status.phase}') == "$2" ]]; }

# priorityclass_yaml NAME VALUE [PREEMPTION_POLICY]: the policy (e.g. Never) goes to its pods.
priorityclass_yaml() {
  printf -- '---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %s\n' \
    "$1" "$2"
  [[ -n ${3:-} ]] && echo "preemptionPolicy: $3"
  return 0
}

# apply_yaml: creates the manifests on stdin in one kubectl call (kept in $E2E_TMP).
apply_yaml() {
  local file
  file=$(mktemp "$E2E_TMP/manifest.XXXXXX.yaml")
  cat >"$file"
  k create -f "$file" >/dev/null || fail "kubectl create -f $file failed"
}

# ---------------------------------------------------------------------------------------------
# Queues (issue 6).

# webhook_ready: arbiter-controller's admission webhook is configured and answers: it refuses a
# Queue whose guarantee exceeds its capability (a dry run: nothing is created).
webhook_ready() {
  k get validatingwebhookconfiguration arbiter-controller >/dev/null 2>&1 &&
    ! queue_yaml probe 'guarantee={cpu: 2}' 'capability={cpu: 1}' |
      k apply --dry-run=server -f - >/dev/null 2>&1
}

# queue_yaml NAME key=value...: a Queue. Keys: weight, capability and guarantee (flow maps, e.g.
# "{cpu: 3}"), parent, state (Open|Closed), team (namespaceSelector matchLabels team=VALUE),
# reclaimable, quota (spec.quota.enforce: None, Capability or Deserved).
queue_yaml() {
  local name=$1
  shift
  local kv
  echo "---"
  echo "apiVersion: arbiter.dev/v1alpha1"
  echo "kind: Queue"
  echo "metadata: {name: $name}"
  echo "spec:"
  for kv in "$@"; do
    case $kv in
      weight=* | capability=* | guarantee=* | parent=* | state=* | reclaimable=*)
        echo "  ${kv%%=*}: ${kv#*=}" ;;
      team=*) echo "  namespaceSelector: {matchLabels: {team: \"${kv#*=}\"}}" ;;
      quota=*) echo "  quota: {enforce: ${kv#*=}}" ;;
      *) fail "queue_yaml: unknown key $kv" ;;
    esac
  done
  # An empty spec is an empty map, not null.
  (($#)) || echo "  {}"
}

# group_yaml NAME key=value...: a PodGroup. Keys: min (minMember, default 1), queue (spec.queue),
# ns (namespace, default $E2E_NS), min_resources (flow map), priority (priorityClassName).
group_yaml() {
  local name=$1
  shift
  local min=1 queue="" ns=$E2E_NS min_resources="" priority="" kv
  for kv in "$@"; do
    case $kv in
      min=*) min=${kv#*=} ;;
      queue=*) queue=${kv#*=} ;;
      ns=*) ns=${kv#*=} ;;
      min_resources=*) min_resources=${kv#*=} ;;
      priority=*) priority=${kv#*=} ;;
      *) fail "group_yaml: unknown key $kv" ;;
    esac
  done
  echo "---"
  echo "apiVersion: arbiter.dev/v1alpha1"
  echo "kind: PodGroup"
  echo "metadata: {name: $name, namespace: $ns}"
  echo "spec:"
  echo "  minMember: $min"
  [[ -n $queue ]] && echo "  queue: $queue"
  [[ -n $min_resources ]] && echo "  minResources: $min_resources"
  [[ -n $priority ]] && echo "  priorityClassName: $priority"
  return 0
}

# queue_field NAME JSONPATH: e.g. queue_field light .status.allocated.cpu
queue_field() { k get queue "$1" -o jsonpath="{$2}"; }

# milli QUANTITY: a CPU quantity ("3", "3500m", "0.5", "" = 0) in millicores.
milli() {
  local q=${1:-0}
  if [[ $q =~ ^([0-9]+)m$ ]]; then
    echo $((10#${BASH_REMATCH[1]}))
  elif [[ $q =~ ^([0-9]*)\.([0-9]{1,3})$ ]]; then
    local frac=${BASH_REMATCH[2]}000
    echo $((10#${BASH_REMATCH[1]:-0} * 1000 + 10#${frac:0:3}))
  elif [[ $q =~ ^[0-9]+$ ]]; then
    echo $((10#$q * 1000))
  else
    fail "milli: cannot read the CPU quantity '$q'"
  fi
}

# queue_cpu_milli NAME FIELD: status.FIELD.cpu of the queue in millicores (FIELD: deserved,
# allocated, used).
queue_cpu_milli() { milli "$(queue_field "$1" ".status.$2.cpu")"; }
queue_cpu_is() { (($(queue_cpu_milli "$1" "$2") == $3)); }

# bound_cpu_milli SELECTOR [NAMESPACE]: the summed CPU requests (millicores) of the bound pods
# that match SELECTOR, from kubectl's view of them.
bound_cpu_milli() {
  local total=0 node cpu
  while read -r node cpu; do
    [[ $node == "<none>" ]] && continue
    total=$((total + $(milli "$cpu")))
  done < <(k -n "${2:-$E2E_NS}" get pods -l "$1" --no-headers \
    -o custom-columns=NODE:.spec.nodeName,CPU:.spec.containers[0].resources.requests.cpu)
  echo "$total"
}
bound_cpu_is() { (($(bound_cpu_milli "$1" "${3:-$E2E_NS}") == $2)); }
