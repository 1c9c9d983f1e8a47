#!/usr/bin/env bash
# /metrics, /healthz and /readyz of both binaries (issue 16), scraped by a real Prometheus
# (Debian's package) on 1 node x 4 CPU:
#  1. arbiter-scheduler and arbiter-controller, with --metrics-bind-address 127.0.0.1:0, answer
#     /healthz and, once their watches synced and they know they lead, /readyz;
#  2. a gang of 2 x 1 CPU runs and a 6 CPU pod waits: the scheduler's exposition passes
#     `promtool check metrics` and counts the sessions, the 2 binds decided and made, the pod
#     left unschedulable, the pending job by queue and gate, the queue's allocation in cores,
#     the API requests by verb and code, the watches, the leader flag and the build;
#     `arbiterctl top` shows the sessions per second, the pending job and the queue's CPU;
#  3. the controller's exposition passes promtool too and counts its reconciles;
#  4. Prometheus scrapes both (up == 1) and gives back the pending job's series and the binds.
# shellcheck source-path=SCRIPTDIR disable=SC2016  # PromQL and jsonpath in single quotes
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v prometheus >/dev/null || skip "no prometheus (hack/install-deps.sh installs it)"
command -v promtool >/dev/null || skip "no promtool (hack/install-deps.sh installs it)"
e2e_setup metrics --nodes 1 --node-cpu 4

# endpoint_port LOG: the port the binary logged it serves /metrics on.
endpoint_port() {
  sed -nE 's|.*serving /metrics /healthz /readyz on 127\.0\.0\.1:([0-9]+).*|\1|p' "$1" | head -n1
}
logs_port() { [[ -n $(endpoint_port "$1") ]]; }
http_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1$2"; }
answers() { [[ $(http_code "$1" "$2") == "$3" ]]; }

e2e_start_scheduler --metrics-bind-address 127.0.0.1:0
wait_until "the scheduler logs its metrics port" 10 logs_port "$E2E_TMP/scheduler.log"
sched_port=$(endpoint_port "$E2E_TMP/scheduler.log")
e2e_start_controller --metrics-bind-address 127.0.0.1:0
wait_until "the controller logs its metrics port" 30 logs_port "$E2E_TMP/controller.log"
ctrl_port=$(endpoint_port "$E2E_TMP/controller.log")

# --- 1. probes ---------------------------------------------------------------------------------
expect "the scheduler's /healthz answers 200" answers "$sched_port" /healthz 200
wait_until "the scheduler's /readyz answers 200 once synced" 30 answers "$sched_port" /readyz 200
expect "the controller's /healthz answers 200" answers "$ctrl_port" /healthz 200
wait_until "the controller's /readyz answers 200 once synced" 30 answers "$ctrl_port" /readyz 200

# --- 2. the scheduler's exposition ---------------------------------------------------------------
{
  pg_yaml gang 2
  pod_yaml gang-0 group=gang cpu=1
  pod_yaml gang-1 group=gang cpu=1
  pod_yaml big cpu=6
} | apply_yaml
wait_until "the gang runs" 30 bound_is arbiter.dev/pod-group=gang 2
wait_until "big is unschedulable" 30 pod_unschedulable big

scrape() { curl -sf "http://127.0.0.1:$1/metrics"; }
# sample PORT SERIES: the value of the series (exact name and labels as exposed), or nothing.
sample() { scrape "$1" | awk -v s="$2" '$1 == s {print $2}'; }
# sample_is PORT SERIES OP VALUE: e.g. sample_is 8080 'arbiter_sessions_total' -ge 1
sample_is() {
  local v
  v=$(sample "$1" "$2")
  [[ -n $v ]] && python3 -c 'import sys; a=float(sys.argv[1]); b=float(sys.argv[3]); sys.exit(0 if {"-eq": a == b, "-ge": a >= b}[sys.argv[2]] else 1)' "$v" "$3" "$4"
}
scrape "$sched_port" >"$E2E_TMP/scheduler.metrics" || fail "GET /metrics of the scheduler failed"
promtool check metrics <"$E2E_TMP/scheduler.metrics" >"$E2E_TMP/promtool.out" 2>&1 ||
  fail "promtool check metrics refused the scheduler's exposition: $(cat "$E2E_TMP/promtool.out")"
pass "promtool check metrics accepts the scheduler's exposition"
wait_until "sessions are counted" 10 sample_is "$sched_port" arbiter_sessions_total -ge 1
wait_until "the 2 binds are counted as decided" 10 \
  sample_is "$sched_port" 'arbiter_decisions_total{decision="bind"}' -eq 2
wait_until "and as made" 10 sample_is "$sched_port" 'arbiter_binds_total{result="bound"}' -eq 2
expect "the pod left pending is counted" \
  sample_is "$sched_port" 'arbiter_decisions_total{decision="unschedulable"}' -ge 1
wait_until "the pending job is counted by queue and gate" 10 \
  sample_is "$sched_port" 'arbiter_pending_jobs{queue="default",gate="Placement"}' -eq 1
wait_until "the queue's allocation is in cores" 10 \
  sample_is "$sched_port" 'arbiter_queue_allocated{queue="default",resource="cpu",unit="core"}' -eq 2
expect "the binds' POSTs are counted by verb and code" \
  sample_is "$sched_port" 'arbiter_api_requests_total{code="201",verb="POST"}' -ge 2
expect "each watch's LIST is counted" \
  sample_is "$sched_port" 'arbiter_watch_lists_total{kind="pods"}' -ge 1
expect "it leads" sample_is "$sched_port" arbiter_leader -eq 1
expect "the build is labelled" grep -q '^arbiter_build_info{binary="arbiter-scheduler"' \
  "$E2E_TMP/scheduler.metrics"
expect "session durations are histograms by phase" \
  sample_is "$sched_port" 'arbiter_session_duration_seconds_count{phase="total"}' -ge 1

# `arbiterctl top` reads the same exposition twice and shows rates and the pending job.
top_out=$("$E2E_ROOT/build/bin/arbiterctl" top --metrics-url "http://127.0.0.1:$sched_port/metrics" \
  --once --interval 1s) || fail "arbiterctl top failed"
echo "$top_out" >"$E2E_TMP/top.out"
expect "arbiterctl top shows a leading scheduler running sessions" \
  grep -qE '^sessions  [1-9][0-9.]*/s' "$E2E_TMP/top.out"
expect "and the pending job by queue and gate" \
  grep -qE '^ +default +Placement +1$' "$E2E_TMP/top.out"
expect "and the queue's CPU against its share" grep -qE '^default +2 +4 ' "$E2E_TMP/top.out"

# --- 3. the controller's exposition --------------------------------------------------------------
scrape "$ctrl_port" >"$E2E_TMP/controller.metrics" || fail "GET /metrics of the controller failed"
promtool check metrics <"$E2E_TMP/controller.metrics" >"$E2E_TMP/promtool.out" 2>&1 ||
  fail "promtool check metrics refused the controller's exposition: $(cat "$E2E_TMP/promtool.out")"
pass "promtool check metrics accepts the controller's exposition"
wait_until "the controller counts its reconciles" 10 \
  sample_is "$ctrl_port" arbiter_controller_reconciles_total -ge 1
expect "the controller leads" sample_is "$ctrl_port" arbiter_leader -eq 1

# --- 4. a real Prometheus scrapes both ------------------------------------------------------------
prom_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
cat >"$E2E_TMP/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: arbiter-scheduler
    static_configs: [{targets: ["127.0.0.1:$sched_port"]}]
  - job_name: arbiter-controller
    static_configs: [{targets: ["127.0.0.1:$ctrl_port"]}]
EOF
promtool check config "$E2E_TMP/prometheus.yml" >/dev/null || fail "promtool check config failed"
prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" </dev/null >"$E2E_TMP/prometheus.log" 2>&1 &
E2E_EXTRA_PIDS+=("$!")
# query_is PROMQL PYTHON_EXPR: the instant query's first value `v` (a float) satisfies the
# expression.
query_is() {
  local out
  out=$(curl -sf --get --data-urlencode "query=$1" "http://127.0.0.1:$prom_port/api/v1/query") ||
    return 1
  python3 -c 'import json, sys
r = json.loads(sys.argv[1])["data"]["result"]
sys.exit(0 if r and eval(sys.argv[2], {"v": float(r[0]["value"][1])}) else 1)' "$out" "$2"
}
wait_until "Prometheus scrapes the scheduler" 30 query_is 'up{job="arbiter-scheduler"}' 'v == 1'
wait_until "and the controller" 30 query_is 'up{job="arbiter-controller"}' 'v == 1'
wait_until "Prometheus gives back the pending job's series" 10 \
  query_is 'arbiter_pending_jobs{job="arbiter-scheduler",queue="default",gate="Placement"}' 'v == 1'
expect "and the binds" query_is 'arbiter_binds_total{job="arbiter-scheduler",result="bound"}' 'v == 2'

e2e_done
