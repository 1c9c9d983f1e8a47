# shellcheck shell=bash
# Shared helpers of the reliability tests (tests/reliability/*_test.sh), on top of the e2e
# helpers (tests/e2e/lib.sh: a cluster of the test's own, polls with deadlines, diagnostics):
#
#   e2e_setup NAME --nodes 4 --node-cpu 8
#   fault_proxy_start                    # the fault proxy (tests/faultproxy) before the API server
#   rel_start_scheduler [FLAGS...]       # arbiter-scheduler, talking to the API server through it
#   fault_rules '{"rules": [...]}'       # what to inject from now on (tests/faultproxy/README.md)
#   ... load ...
#   check_invariants [--settled]         # the independent checker (check_invariants.py)
#   e2e_done

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

FAULT_PROXY_BIN="$E2E_ROOT/_output/bin/faultproxy"
FAULT_ADDR=""    # host:port the clients of the proxy use
FAULT_CONTROL="" # host:port of its control endpoint
SCHED_METRICS_PORT=""

# fault_proxy_build: builds tests/faultproxy (Go's standard library only: no module download)
# into _output/bin, under a lock so that tests running at once do not race; Go's build cache
# makes it a second when nothing changed.
fault_proxy_build() {
  mkdir -p "$E2E_ROOT/_output/bin"
  (
    flock 9
    cd "$E2E_ROOT/tests/faultproxy" &&
      GOTOOLCHAIN=local GOFLAGS='' CGO_ENABLED=0 go build -o "$FAULT_PROXY_BIN.tmp" . &&
      mv -f "$FAULT_PROXY_BIN.tmp" "$FAULT_PROXY_BIN"
  ) 9>"$E2E_ROOT/_output/bin/.faultproxy.lock"
}

# fault_proxy_start: starts the proxy in front of this test's API server. It serves TLS with a
# throwaway certificate for 127.0.0.1, which rel_start_scheduler gives the scheduler as its CA,
# and passes the scheduler's ServiceAccount token on, so that RBAC applies as without it.
fault_proxy_start() {
  fault_proxy_build || fail "building tests/faultproxy failed (is Go installed?)"
  local dir=$E2E_TMP/faultproxy server
  mkdir -p "$dir"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=faultproxy" \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null ||
    fail "openssl could not make the proxy's certificate"
  server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
  "$FAULT_PROXY_BIN" -upstream "$server" -upstream-ca "$(dirname "$KUBECONFIG")/ca.crt" \
    -tls-cert "$dir/tls.crt" -tls-key "$dir/tls.key" -ready-file "$dir/ready.json" \
    -seed "${FAULT_SEED:-1}" </dev/null >"$E2E_TMP/faultproxy.log" 2>&1 &
  E2E_EXTRA_PIDS+=("$!")
  wait_until "the fault proxy listens" 20 test -s "$dir/ready.json"
  FAULT_ADDR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listen"])' \
    "$dir/ready.json")
  FAULT_CONTROL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["control"])' \
    "$dir/ready.json")
  e2e_log "fault proxy on $FAULT_ADDR (control $FAULT_CONTROL) before $server"
}

# rel_start_scheduler [FLAGS...]: arbiter-scheduler as ServiceAccount arbiter-scheduler, as in a
# pod, but with the proxy as its API server; metrics on a free port ($SCHED_METRICS_PORT).
rel_start_scheduler() {
  local proxied
  SCHED_METRICS_PORT=$(free_ports 1)
  local args=(--period 1s -v "${ARBITER_E2E_VERBOSITY:-2}"
    --metrics-bind-address "127.0.0.1:$SCHED_METRICS_PORT" "$@")
  proxied=$(proxied_service_account)
  e2e_log "starting arbiter-scheduler ${args[*]} (through the fault proxy)"
  (exec env KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="${FAULT_ADDR##*:}" \
    ARBITER_SERVICE_ACCOUNT_DIR="$proxied" "$ARBITER_SCHEDULER" "${args[@]}") \
    </dev/null >"$E2E_TMP/scheduler.log" 2>&1 &
  E2E_SCHEDULER_PID=$!
  wait_until "arbiter-scheduler started (through the proxy) and created Queue default" 30 \
    queue_exists default
}

# budget_keeping_all GROUP N: a PodDisruptionBudget named GROUP that keeps all N pods of PodGroup
# GROUP available, with the status a disruption controller would write (N healthy, none allowed
# to go): kwok clusters run none.
budget_keeping_all() {
  cat <<EOF | apply_yaml
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: $1, namespace: $E2E_NS}
spec:
  minAvailable: $2
  selector: {matchLabels: {arbiter.dev/pod-group: $1}}
EOF
  kn patch pdb "$1" --subresource=status --type=merge -p "{\"status\": {\"currentHealthy\": $2, \"desiredHealthy\": $2, \"expectedPods\": $2, \"disruptionsAllowed\": 0, \"observedGeneration\": 1}}" \
    >/dev/null
}

# proxied_service_account: the directory of ServiceAccount arbiter-scheduler's files as in a pod,
# with the proxy's certificate as its CA (the proxy passes the token on).
proxied_service_account() {
  local sa proxied=$E2E_TMP/sa-scheduler-proxied
  sa=$(e2e_service_account arbiter-scheduler)
  mkdir -p "$proxied"
  cp "$sa/token" "$sa/namespace" "$proxied/"
  cp "$E2E_TMP/faultproxy/tls.crt" "$proxied/ca.crt"
  echo "$proxied"
}

# fault_rules JSON: replaces the proxy's rules (an empty list stops injecting).
fault_rules() {
  local out
  out=$(curl -sS -X PUT --data-binary "$1" "http://$FAULT_CONTROL/rules" 2>&1) ||
    fail "fault_rules: $out"
  [[ $out == *'"rules"'* ]] || fail "fault_rules: the proxy refused them: $out"
  e2e_log "fault rules: $1"
}

# fault_stat PATH: a number from the proxy's /stats, e.g. `fault_stat requests`,
# `fault_stat rules.ambiguous.injected`.
fault_stat() {
  curl -sS "http://$FAULT_CONTROL/stats" | python3 -c '
import json, sys
value = json.load(sys.stdin)
for step in sys.argv[1].split("."):
    value = value.get(step, 0) if isinstance(value, dict) else 0
print(value)' "$1"
}

# metric NAME [LABELS]: the value of one sample of the scheduler's metrics (0 if absent), e.g.
# `metric arbiter_watch_lists_total 'kind="pod"'`.
metric() { curl -sS "http://127.0.0.1:$SCHED_METRICS_PORT/metrics" | metric_in "$@"; }
# metric_in NAME [LABELS]: the same, from a scrape on stdin (to read several samples of one
# instant: two scrapes may see different sessions).
metric_in() {
  python3 -c '
import sys
name, labels = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
total = 0.0
for line in sys.stdin:
    if line.startswith("#"):
        continue
    series, _, value = line.rpartition(" ")
    if series == name or (series.startswith(name + "{") and labels in series):
        total += float(value)
print(int(total) if total == int(total) else total)' "$1" "${2:-}"
}

# check_invariants [--settled] [--mark ...]: the independent checker; fails the test on a
# violation. Safety holds at every moment, so without --settled one look decides. Settled means
# "once the scheduler has caught up" (a Queue's status follows its pods by a session and a
# write), so with --settled the checker looks again until it finds nothing, for up to 30 s, and
# then prints what it still finds.
check_invariants() {
  local out deadline=$(($(now_ms) + 30000)) looks=0 settled=0
  [[ " $* " == *" --settled "* ]] && settled=1
  while true; do
    looks=$((looks + 1))
    if out=$(python3 "$E2E_ROOT/tests/reliability/check_invariants.py" --kubectl "$KUBECTL" "$@"); then
      pass "${out##*$'\n'}$( ((looks > 1)) && echo " (look $looks)")"
      return 0
    fi
    ((settled && $(now_ms) < deadline)) || break
    sleep "$E2E_POLL"
  done
  echo "$out"
  fail "the checker found violations (above)"
}
# invariants_hold [--settled]: the same, for wait_until (quiet, no failure).
invariants_hold() {
  python3 "$E2E_ROOT/tests/reliability/check_invariants.py" --kubectl "$KUBECTL" "$@" >/dev/null
}

# ---------------------------------------------------------------------------------------------
# Process faults on the test's control plane (hack/cluster/up.sh keeps COMPONENT.pid in the
# cluster's directory; down.sh stops what they name).

cluster_dir() { dirname "$KUBECONFIG"; }
component_pid() { cat "$(cluster_dir)/$1.pid"; }

# component_signal COMPONENT SIGNAL: e.g. `component_signal etcd STOP`.
component_signal() {
  kill -s "$2" "$(component_pid "$1")" || fail "kill -s $2 $1 failed"
  e2e_log "sent SIG$2 to $1 (pid $(component_pid "$1"))"
}

# component_kill COMPONENT: SIGKILL, and waits until it is gone; its command line is kept in
# $E2E_TMP/COMPONENT.cmdline for component_start.
component_kill() {
  local comp=$1 pid
  pid=$(component_pid "$comp")
  cp "/proc/$pid/cmdline" "$E2E_TMP/$comp.cmdline"
  readlink "/proc/$pid/cwd" >"$E2E_TMP/$comp.cwd"
  kill -9 "$pid"
  wait_until "$comp (pid $pid) is gone after SIGKILL" 10 pid_gone "$pid"
}
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# component_start COMPONENT: starts it again as it ran before component_kill (same binary, flags,
# data), detached as up.sh starts it, and records its new pid.
component_start() {
  local comp=$1 dir
  dir=$(cluster_dir)
  local -a cmd
  mapfile -d '' -t cmd <"$E2E_TMP/$comp.cmdline"
  (
    cd "$(cat "$E2E_TMP/$comp.cwd")" || exit 1
    # shellcheck disable=SC2016  # expanded by the inner shell
    setsid bash -c 'echo $$ >"$0.pid.tmp" && mv "$0.pid.tmp" "$0.pid" && exec "$@"' \
      "$dir/$comp" "${cmd[@]}" </dev/null >>"$dir/$comp.log" 2>&1 &
  )
  wait_until "$comp started again" 10 component_running "$comp"
  e2e_log "started $comp again (pid $(component_pid "$comp"))"
}

component_running() {
  [[ -s $(cluster_dir)/$1.pid ]] && kill -0 "$(component_pid "$1")" 2>/dev/null
}

# api_ready: the API server answers /readyz.
api_ready() { k get --raw /readyz >/dev/null 2>&1; }

# scheduler_kill: SIGKILL to the arbiter-scheduler the test started (scheduler_alive stops
# watching it); its log is kept as scheduler-killed-N.log.
SCHEDULER_KILLS=0
scheduler_kill() {
  [[ -n $E2E_SCHEDULER_PID ]] || fail "scheduler_kill: no scheduler running"
  kill -9 "$E2E_SCHEDULER_PID"
  wait "$E2E_SCHEDULER_PID" 2>/dev/null || true
  e2e_log "killed arbiter-scheduler (pid $E2E_SCHEDULER_PID)"
  E2E_SCHEDULER_PID=""
  SCHEDULER_KILLS=$((SCHEDULER_KILLS + 1))
  mv "$E2E_TMP/scheduler.log" "$E2E_TMP/scheduler-killed-$SCHEDULER_KILLS.log"
}

# outage SECONDS: how long a fault lasts. Not a wait for anything: the fault's length is the test.
outage() { sleep "$1"; }

# ---------------------------------------------------------------------------------------------
# Replicas with --leader-elect (as their ServiceAccount, Lease arbiter-system/arbiter-scheduler).

LEASE_NS=arbiter-system
declare -A REPLICA_PID
# start_replica NAME [FLAGS...]: an arbiter-scheduler replica, log $E2E_TMP/NAME.log (appended
# to, so that a replica started again keeps its history).
start_replica() {
  local name=$1
  shift
  e2e_service_account arbiter-scheduler >/dev/null
  e2e_exec_as arbiter-scheduler "$ARBITER_SCHEDULER" --period 1s -v 2 --leader-elect \
    --leader-elect-namespace "$LEASE_NS" "$@" </dev/null >>"$E2E_TMP/$name.log" 2>&1 &
  REPLICA_PID[$name]=$!
  E2E_EXTRA_PIDS+=("$!")
  e2e_log "started replica $name (pid $!)"
}
# start_proxied_replica NAME [FLAGS...]: start_replica, but through the fault proxy
# (fault_proxy_start first), whose rules then reach this replica alone.
start_proxied_replica() {
  local name=$1 proxied
  shift
  proxied=$(proxied_service_account)
  (exec env KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="${FAULT_ADDR##*:}" \
    ARBITER_SERVICE_ACCOUNT_DIR="$proxied" "$ARBITER_SCHEDULER" --period 1s -v 2 --leader-elect \
    --leader-elect-namespace "$LEASE_NS" "$@") </dev/null >>"$E2E_TMP/$name.log" 2>&1 &
  REPLICA_PID[$name]=$!
  E2E_EXTRA_PIDS+=("$!")
  e2e_log "started replica $name (pid $!, through the fault proxy)"
}
lease_holder() {
  k -n "$LEASE_NS" get lease arbiter-scheduler -o jsonpath='{.spec.holderIdentity}' 2>/dev/null
}
has_lease_holder() { [[ -n $(lease_holder) ]]; }
replica_alive() { kill -0 "${REPLICA_PID[$1]}" 2>/dev/null; }
replica_exited() { ! replica_alive "$1"; }
# leading_replica: the live replica whose log says it became leader with the Lease's current
# holder identity, the last to say so.
leading_replica() {
  local name holder best="" best_line=""
  holder=$(lease_holder)
  [[ -n $holder ]] || return 0
  for name in "${!REPLICA_PID[@]}"; do
    replica_alive "$name" || continue
    local line
    line=$(grep "became leader.*identity=$holder\$" "$E2E_TMP/$name.log" 2>/dev/null | tail -n 1)
    [[ -n $line && ( -z $best_line || $line > $best_line ) ]] && best=$name best_line=$line
  done
  echo "$best"
}
has_leading_replica() { [[ -n $(leading_replica) ]]; }

# refusals_only_after LOG EPOCH...: every line of LOG that reports a request RBAC refused came
# within 20 s after one of the EPOCHs (when a kube-apiserver was started: it refuses requests until
# its RBAC informers have synced); prints the first others. For `expect`.
refusals_only_after() {
  python3 - "$@" <<'PY'
import datetime, re, sys
log, restarts = sys.argv[1], [int(t) for t in sys.argv[2:]]
late = []
for line in open(log, errors="replace"):
    if not re.search(r'system:serviceaccount:[^ ]*" cannot ', line):
        continue
    stamp = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)", line)
    when = datetime.datetime.fromisoformat(stamp.group(1)).replace(
        tzinfo=datetime.timezone.utc).timestamp() if stamp else None
    if when is None or not any(0 <= when - t <= 20 for t in restarts):
        late.append(line.strip())
print("\n".join(late[:5]))
sys.exit(1 if late else 0)
PY
}
