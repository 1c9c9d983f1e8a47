#!/usr/bin/env bash
# Reliability (issue 20): an API server that throttles. The scheduler runs with
# --kube-api-qps 20 --kube-api-burst 40; the fault proxy then answers every request but watches
# with 429 and Retry-After: 2 for 6 s, then half of them with 503 for 6 s, then none.
#   - while throttled, the scheduler sends no more than its QPS allows (20 × 6 + 40), binds
#     nothing, and keeps running;
#   - through the 503s and after, every pod is bound, and once it is, the requests are back to a
#     trickle (no storm of retries after recovery);
#   - the independent checker finds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # rel_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup throttling --nodes 4 --node-cpu 8
fault_proxy_start
rel_start_scheduler --kube-api-qps 20 --kube-api-burst 40

# pods SET: a gang of 4 and 6 single pods, 1 CPU each, labelled set=SET.
pods() {
  {
    pg_yaml "g$1" 4
    for i in 0 1 2 3; do pod_yaml "g$1-$i" group="g$1" cpu=1 labels="set: $1"; done
    for i in 0 1 2 3 4 5; do pod_yaml "s$1-$i" cpu=1 labels="set: $1"; done
  } | apply_yaml
}
pods a
wait_until "the first 10 pods are bound" 30 bound_is set=a 10

fault_rules '{"rules": [
  {"name": "throttle", "watch": false, "action": "status", "code": 429, "retryAfterSeconds": 2}]}'
start=$(fault_stat requests)
pods b
holds_for "nothing is bound while every request is answered 429" 6 bound_is set=b 0
sent=$(($(fault_stat requests) - start))
expect "the scheduler sent $sent requests in those 6 s (its QPS allows 160)" test "$sent" -le 160
expect "and they were answered 429 ($(fault_stat rules.throttle.injected))" \
  test "$(fault_stat rules.throttle.injected)" -ge 1

fault_rules '{"rules": [
  {"name": "unavailable", "watch": false, "action": "status", "code": 503, "probability": 0.5}]}'
start=$(fault_stat requests)
holds_for "the scheduler keeps running through 503s" 6 scheduler_alive
sent=$(($(fault_stat requests) - start))
expect "it sent $sent requests in those 6 s (at most 160)" test "$sent" -le 160

fault_rules '{"rules": []}'
wait_until "the 10 pods are bound once the API server recovers" 60 bound_is set=b 10
start=$(fault_stat requests)
holds_for "all stay bound" 5 bound_is set=b 10
sent=$(($(fault_stat requests) - start))
expect "no storm after recovery: $sent requests in 5 s (at most 140)" test "$sent" -le 140
check_invariants --settled

e2e_done
