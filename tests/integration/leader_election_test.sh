#!/usr/bin/env bash
# Leader election between real processes on the real local API server (label integration):
#   1. of two candidates exactly one leads;
#   2. when the leader is killed, the other leads within lease duration + 2 retry periods;
#   3. a leader that was paused (SIGSTOP) past its renew deadline, and then resumed, does not
#      act after its successor took over, and stops;
#   4. a leader stopped cleanly (SIGTERM) releases the lease at once.
# Usage: leader_election_test.sh <leader_probe binary>   (needs KUBECONFIG; hack/test.sh sets it)
set -euo pipefail

probe=$1
if [[ -z ${KUBECONFIG:-} ]]; then
  echo "SKIPPED: KUBECONFIG is not set (run under hack/test.sh)"
  exit 77
fi
kubectl=$(dirname "$KUBECONFIG")/../../bin/kubectl
[[ -x $kubectl ]] || kubectl=kubectl
work=$(mktemp -d)
lease=probe-$$-$RANDOM
declare -A pid=()
cleanup() {
  for p in "${pid[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# Lease timings of leader_probe: duration 3 s, renew deadline 2 s, retry 0.5 s.
lease_ns=3000000000 retry_ns=500000000
# API round trips and process scheduling on a busy 2-core machine.
slack_ns=500000000

start() {  # start NAME: runs a candidate, its output in $work/NAME
  "$probe" "$1" "$lease" > "$work/$1" 2> "$work/$1.err" &
  pid[$1]=$!
}
# wait_for PATTERN FILE SECONDS: polls until a line matches, or fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -q "$1" "$2" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}
stamp() { grep "^$1 " "$2" | head -1 | awk '{print $3}'; }
last_act() { grep '^ACT ' "$1" | tail -1 | awk '{print $3}'; }

# 1. Exactly one of two leads.
start a
wait_for '^LEADING' "$work/a" 20 || { fail "a never led"; cat "$work/a.err"; exit 1; }
start b
# b must stay a follower for as long as a renews: watch it over two lease durations.
deadline=$((SECONDS + 6))
while ((SECONDS < deadline)); do
  if grep -q '^LEADING' "$work/b"; then break; fi
  sleep 0.1
done
if grep -q '^LEADING' "$work/b"; then fail "b led while a held the lease"; else pass "only a leads"; fi

# 2. Kill the leader: b takes over within lease + 2 retries.
killed_at=$(date +%s%N)
kill -KILL "${pid[a]}"
wait "${pid[a]}" 2>/dev/null || true
if wait_for '^LEADING' "$work/b" 10; then
  took=$(( $(stamp LEADING "$work/b") - killed_at ))
  bound=$((lease_ns + 2 * retry_ns + slack_ns))
  if ((took <= bound)); then
    pass "b led $((took / 1000000)) ms after a was killed (bound $((bound / 1000000)) ms)"
  else
    fail "b led $((took / 1000000)) ms after a was killed, over the bound $((bound / 1000000)) ms"
  fi
else
  fail "b never led after a was killed"
fi

# 3. Pause the leader past its deadline; its successor takes over; when it resumes it must not act.
start c
sleep_until_acting() { wait_for '^ACT' "$work/b" 5; }
sleep_until_acting || fail "b does not act"
kill -STOP "${pid[b]}"
if wait_for '^LEADING' "$work/c" 15; then
  c_led=$(stamp LEADING "$work/c")
  kill -CONT "${pid[b]}"
  if wait_for '^STOPPED' "$work/b" 10; then
    b_last=$(last_act "$work/b")
    if ((b_last < c_led)); then
      pass "b, resumed, made no decision to act after c took over, and stopped"
    else
      fail "b acted at $b_last, after c took over at $c_led"
    fi
  else
    fail "b, resumed, never stopped leading"
  fi
else
  kill -CONT "${pid[b]}"
  fail "c never led while b was paused"
fi

# 4. A clean stop releases the lease: the holder is empty right after c exits.
kill -TERM "${pid[c]}"
wait_for '^STOPPED' "$work/c" 10 || fail "c did not stop on SIGTERM"
wait "${pid[c]}" 2>/dev/null || true
holder=$("$kubectl" -n kube-system get lease "$lease" -o jsonpath='{.spec.holderIdentity}')
if [[ -z $holder ]]; then pass "c released the lease on SIGTERM"; else fail "lease still held by $holder"; fi
"$kubectl" -n kube-system delete lease "$lease" >/dev/null 2>&1 || true

echo "$passed passed, $failed failed"
((failed == 0))
