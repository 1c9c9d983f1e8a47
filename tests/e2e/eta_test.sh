#!/usr/bin/env bash
# Estimated start (issue 17), on 1 node x 4 CPU, the scheduler forecasting every 2 s:
#  1. gang `first` (4 x 1 CPU, pods end 60 s after they start: kwok's arbiter.dev/run-for) runs;
#  2. gang `second` (4 x 1 CPU, 30 s) waits, and its PodGroup's status.explanation.estimate says
#     it starts when `first` ends (first's start + 60 s, within the session period and the
#     forecast's rounding), with confidence High, as `arbiterctl explain -o json` prints it;
#  3. `arbiterctl whatif` on a third gang of the same shape, not submitted, says it would start
#     when `second` ends (its estimate + 30 s), and nothing is created;
#  4. `second` starts, and its actual start is within 10 s of the estimate.
# shellcheck source-path=SCRIPTDIR disable=SC2016,SC2119  # jsonpath in single quotes; optional flags
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARBITERCTL="${ARBITERCTL:-$E2E_ROOT/build/bin/arbiterctl}"
[[ -x $ARBITERCTL ]] || skip "no $ARBITERCTL (build it first)"
e2e_setup eta --nodes 1 --node-cpu 4
e2e_start_scheduler --forecast-interval 2s

ctl() {
  local command=$1
  shift
  "$ARBITERCTL" "$command" --kubeconfig "$KUBECONFIG" "$@"
}
# epoch RFC3339: seconds since the epoch.
epoch() { date -u -d "$1" +%s; }

# --- 1. first runs --------------------------------------------------------------------------------
{
  group_yaml first min=4
  for i in 0 1 2 3; do pod_yaml "first-$i" group=first cpu=1 runfor=60s; done
} | apply_yaml
wait_until "gang first runs" 30 phase_is arbiter.dev/pod-group=first Running 4
first_start=$(kn get pods -l arbiter.dev/pod-group=first \
  -o jsonpath='{range .items[*]}{.status.startTime}{"\n"}{end}' | sort | head -1)
first_start=$(epoch "$first_start")

# --- 2. second waits, with an estimate -------------------------------------------------------------
{
  group_yaml second min=4
  for i in 0 1 2 3; do pod_yaml "second-$i" group=second cpu=1 runfor=30s; done
} | apply_yaml
estimated() {
  local out
  out=$(ctl explain -n "$E2E_NS" second -o json 2>/dev/null) || return 1
  python3 -c 'import json, sys; e = (json.loads(sys.argv[1]).get("explanation") or {}).get("estimate") or {}; print(e["start"], e["confidence"]) if e.get("start") else sys.exit(1)' "$out"
}
has_estimate() { estimated >/dev/null; }
wait_until "PodGroup second carries an estimated start" 30 has_estimate
read -r second_estimate confidence < <(estimated)
second_estimate=$(epoch "$second_estimate")
expect "the estimate is first's start + 60 s ($((second_estimate - first_start)) s after it)" \
  test $((second_estimate - first_start)) -ge 58 -a $((second_estimate - first_start)) -le 64
expect "the estimate's confidence is High (every run time was given): $confidence" \
  test "$confidence" = High
text=$(ctl explain -n "$E2E_NS" second)
e2e_log "arbiterctl explain -n $E2E_NS second:"$'\n'"$text"
expect "explain prints the estimate and what it assumes" \
  grep -q "assumes:.*after 1 job end (1 by run-for)" <<<"$text"

# --- 3. whatif -----------------------------------------------------------------------------------
{
  group_yaml third min=4
  for i in 0 1 2 3; do pod_yaml "third-$i" group=third cpu=1 runfor=30s; done
} >"$E2E_TMP/third.yaml"
whatif=$(ctl whatif -n "$E2E_NS" "$E2E_TMP/third.yaml" -o json)
third_estimate=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["start"])' "$whatif")
third_estimate=$(epoch "$third_estimate")
expect "whatif: third would start when second ends ($((third_estimate - second_estimate)) s after second's estimate)" \
  test $((third_estimate - second_estimate)) -ge 28 -a $((third_estimate - second_estimate)) -le 34
expect "whatif created nothing" test -z "$(kn get podgroup third --ignore-not-found -o name)"
text=$(ctl whatif -n "$E2E_NS" "$E2E_TMP/third.yaml")
e2e_log "arbiterctl whatif -n $E2E_NS third.yaml:"$'\n'"$text"
expect "whatif prints its answer in words" \
  grep -q "^PodGroup $E2E_NS/third (not submitted): would start in " <<<"$text"

# --- 4. the actual start ---------------------------------------------------------------------------
wait_until "gang second starts once first has ended" 90 phase_is arbiter.dev/pod-group=second Running 4
second_start=$(kn get pods -l arbiter.dev/pod-group=second \
  -o jsonpath='{range .items[*]}{.status.startTime}{"\n"}{end}' | sort | head -1)
second_start=$(epoch "$second_start")
expect "second started $((second_start - second_estimate)) s from its estimate (within 10 s)" \
  test $((second_start - second_estimate)) -ge -10 -a $((second_start - second_estimate)) -le 10

e2e_done
