#!/usr/bin/env bash
# Security (issue 20): the credentials the daemons hold.
#   1. In-cluster token rotation without a restart. arbiter-scheduler runs as in a pod (its token
#      in a file), through the fault proxy, with a token bound to a Secret (`kubectl create token
#      --bound-object-kind Secret`), so that deleting the Secret revokes it:
#        a. the file is replaced by a new token, then the old one revoked: a new pod is bound;
#        b. the token is revoked before the file changes (the scheduler meets 401s), then a new
#           token is written: a pod created meanwhile is bound;
#      the same process throughout, and its metrics count the 401s of b (the fault happened).
#   2. No secret in logs, events or metrics: the scheduler and arbiter-controller (keeping the
#      webhook's certificate in a Secret) run at the highest verbosity (-v 10: every request and the
#      start of every response body) while the proxy answers 503, resets connections and drops
#      bind responses; then every token they held, the webhook's private key (as PEM and as the
#      base64 the API carries it in), the proxy's key, any "Bearer " not followed by the mask and
#      any "PRIVATE KEY" are searched for in both logs, both binaries' metrics, the events and
#      the status of every PodGroup and Queue.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # optional flags
set -euo pipefail
# shellcheck source=../reliability/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../reliability/lib.sh"

export ARBITER_E2E_VERBOSITY=10
e2e_setup secrets --nodes 2 --node-cpu 8
cluster=$(cluster_dir)
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
sa_ns=arbiter-system
sa_dir=$(e2e_service_account arbiter-scheduler)

# bound_token SECRET: a token of ServiceAccount arbiter-scheduler, valid while Secret SECRET
# exists (created here).
bound_token() {
  k -n "$sa_ns" create secret generic "$1" >/dev/null
  k -n "$sa_ns" create token arbiter-scheduler --duration 1h \
    --bound-object-kind Secret --bound-object-name "$1"
}
# status_of TOKEN: the HTTP status the API server answers a request made with TOKEN.
status_of() {
  curl -s -o /dev/null -w '%{http_code}' --cacert "$cluster/ca.crt" \
    -H "Authorization: Bearer $1" "$server/api"
}
accepted() { [[ $(status_of "$1") == 200 ]]; }
revoked() { [[ $(status_of "$1") == 401 ]]; }
# The scheduler reads its token where rel_start_scheduler copies it: replace the copy as the
# kubelet does (a new file moved into place, so a reader never sees half a token).
token_file=$E2E_TMP/sa-scheduler-proxied/token
write_token() {
  printf '%s' "$1" >"$token_file.new"
  mv -f "$token_file.new" "$token_file"
}

token_a=$(bound_token token-a)
token_b=$(bound_token token-b)
token_c=$(bound_token token-c)
expect "a token bound to a Secret is accepted while the Secret exists" accepted "$token_a"
printf '%s' "$token_a" >"$sa_dir/token"

fault_proxy_start
rel_start_scheduler
pid=$E2E_SCHEDULER_PID
pod_yaml before | apply_yaml
wait_until "a pod is bound with token A" 30 bound_is e2e=true 1

# --- 1a. the file changes first, then the old token is revoked ------------------------------------
write_token "$token_b"
k -n "$sa_ns" delete secret token-a >/dev/null
wait_until "token A is revoked (its Secret deleted)" 30 revoked "$token_a"
pod_yaml after-swap | apply_yaml
wait_until "a pod created after the swap is bound (token B read from the file)" 30 \
  bound_is e2e=true 2

# --- 1b. revoked first: 401s until the new token is written --------------------------------------
unauthorized_before=$(metric arbiter_api_requests_total 'code="401"')
k -n "$sa_ns" delete secret token-b >/dev/null
wait_until "token B is revoked" 30 revoked "$token_b"
pod_yaml during-401 | apply_yaml
met_401() { (($(metric arbiter_api_requests_total 'code="401"') > unauthorized_before)); }
wait_until "the scheduler meets 401s with the revoked token" 30 met_401
expect "and binds nothing meanwhile" bound_is e2e=true 2
write_token "$token_c"
wait_until "once token C is in the file, the pending pod is bound" 60 bound_is e2e=true 3
expect "by the same process, never restarted" test "$pid" == "$E2E_SCHEDULER_PID"
expect "which is still running" kill -0 "$pid"

# --- 2. no secret in logs, events or metrics --------------------------------------------------------
ctrl_port=$(free_ports 1)
e2e_start_controller --webhook-bind-address 127.0.0.1 --webhook-port 0 \
  --webhook-cert-secret "$sa_ns/arbiter-webhook-cert" --metrics-bind-address "127.0.0.1:$ctrl_port"
cert_kept() { k -n "$sa_ns" get secret arbiter-webhook-cert >/dev/null 2>&1; }
wait_until "the controller keeps the webhook's certificate in a Secret" 30 cert_kept
fault_rules '{"rules": [
  {"name": "unavailable", "watch": false, "action": "status", "code": 503, "probability": 0.2},
  {"name": "reset", "watch": false, "action": "reset", "probability": 0.05},
  {"name": "ambiguous", "method": "POST", "path": "/binding$", "action": "drop-response", "probability": 0.3}]}'
for i in $(seq 1 12); do
  pod_yaml "faulty-$i" cpu=500m | apply_yaml
done
wait_until "pods are bound through the faults" 120 bound_is e2e=true 15
for rule in unavailable ambiguous; do
  expect "the proxy injected $rule" test "$(fault_stat "rules.$rule.injected")" -gt 0
done
fault_rules '{"rules": []}'
# A queue too small for its pod: a FailedScheduling event and conditions, where a careless
# message could quote a credential.
{
  queue_yaml tight 'capability={cpu: 100m}'
  group_yaml too-big min=1 queue=tight
  pod_yaml too-big cpu=1 group=too-big
} | apply_yaml
wait_until "the pod over its queue's capability is reported unschedulable" 30 pod_unschedulable too-big

# What is searched: the tokens, the keys, and what any credential would be printed with.
secrets=$E2E_TMP/secrets
mkdir -p "$secrets"
printf '%s\n' "$token_a" "$token_b" "$token_c" "$(cat "$E2E_TMP/sa-arbiter-controller/token")" \
  >"$secrets/literal"
key_b64=$(k -n "$sa_ns" get secret arbiter-webhook-cert -o jsonpath='{.data.tls\.key}')
[[ -n $key_b64 ]] || fail "the webhook's Secret has no tls.key"
{
  echo "$key_b64" | cut -c 1-64
  echo "$key_b64" | base64 -d | grep -v -- '-----' | head -n 3
  grep -v -- '-----' "$E2E_TMP/faultproxy/tls.key" | head -n 3
} >>"$secrets/literal"

haystack=$E2E_TMP/haystack
{
  cat "$E2E_TMP/scheduler.log" "$E2E_TMP/controller.log"
  curl -sS "http://127.0.0.1:$SCHED_METRICS_PORT/metrics"
  curl -sS "http://127.0.0.1:$ctrl_port/metrics"
  k get events -A -o json
  k get podgroups,queues -A -o json
} >"$haystack" 2>&1
expect "the scheduler logged requests at -v 10 (the search has something to search)" \
  grep -q 'authorization="Bearer <masked>"' "$E2E_TMP/scheduler.log"
expect "and response bodies" grep -q 'response body: ' "$E2E_TMP/controller.log"
expect "and both binaries' metrics" test "$(grep -c '^# TYPE arbiter_api_requests_total' "$haystack")" -eq 2
expect "no token or key in the logs, metrics, events or statuses" \
  not grep -qFf "$secrets/literal" "$haystack"
expect "no bearer header but the mask" not grep -qE 'Bearer [^<]' "$haystack"
expect "no private key" not grep -q 'PRIVATE KEY' "$haystack"

check_invariants --settled
e2e_done
