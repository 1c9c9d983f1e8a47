#!/usr/bin/env bash
# arbiterctl simulate and generate, run as a user runs them (issue 7's acceptance):
#   * the same workload simulated twice with one seed gives byte-identical reports (the measured
#     "performance" section left out with --no-performance), another seed a different one;
#   * a bad input file fails with exit code 2 and a message naming the file, line and field;
#   * the HTML report, opened in headless Chromium, has its four charts laid out and drawn.
# Usage: arbiterctl_simulate_test.sh ARBITERCTL
set -euo pipefail

arbiterctl=${1:?usage: $0 ARBITERCTL}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiterctl-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
checks=0
pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { echo "FAIL: $*"; exit 1; }

"$arbiterctl" generate tensorflow --nodes 60 --jobs 40 \
  --cluster-out "$tmp/cluster.yaml" --workload-out "$tmp/workload.yaml" 2>/dev/null
for run in a b; do
  "$arbiterctl" simulate --cluster "$tmp/cluster.yaml" --workload "$tmp/workload.yaml" \
    --seed 7 --no-performance --report "$tmp/$run.json" >"$tmp/$run.out" 2>&1 ||
    fail "simulate run $run: $(cat "$tmp/$run.out")"
done
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "seed 7 twice: the reports differ"
grep -q '"partialGangs": 0' "$tmp/a.json" || fail "partial gangs in $(grep partialGangs "$tmp/a.json")"
grep -q '"jobsFinished": 40' "$tmp/a.json" || fail "not all 40 jobs finished"
pass "seed 7 twice: identical reports ($(wc -c <"$tmp/a.json") bytes), 0 partial gangs"
"$arbiterctl" simulate --cluster "$tmp/cluster.yaml" --workload "$tmp/workload.yaml" \
  --seed 8 --no-performance --report "$tmp/c.json" >/dev/null 2>&1
if cmp -s "$tmp/a.json" "$tmp/c.json"; then fail "seeds 7 and 8 gave the same report"; fi
pass "seed 8 gives another report"

# Bad input: the message names the file, the line and the field; exit code 2.
cat >"$tmp/bad.yaml" <<'YAML'
jobs:
  - name: j
    duration: 1m
    tasks:
      - {name: w, requests: {cpu: 2x}}
YAML
set +e
"$arbiterctl" simulate --cluster "$tmp/cluster.yaml" --workload "$tmp/bad.yaml" >"$tmp/bad.out" 2>&1
code=$?
set -e
[[ $code == 2 ]] || fail "bad workload: exit code $code, want 2"
grep -q "$tmp/bad.yaml:5: jobs\[0\].tasks\[0\].requests.cpu" "$tmp/bad.out" ||
  fail "bad workload: message does not name file:line and field: $(cat "$tmp/bad.out")"
pass "bad workload: $(cat "$tmp/bad.out")"
printf 'submit,name,pods,cpu,memory,duration\n0,j,1,1,1Gi,60\n5,k,one,1,1Gi,60\n' >"$tmp/t.csv"
printf 'trace: t.csv\n' >"$tmp/traced.yaml"
set +e
"$arbiterctl" simulate --cluster "$tmp/cluster.yaml" --workload "$tmp/traced.yaml" >"$tmp/bad.out" 2>&1
code=$?
set -e
if [[ $code != 2 ]] || ! grep -q "t.csv:3: column pods" "$tmp/bad.out"; then
  fail "bad trace: exit $code, $(cat "$tmp/bad.out")"
fi
pass "bad trace: $(cat "$tmp/bad.out")"

# The HTML report in a real browser.
"$arbiterctl" simulate --cluster "$tmp/cluster.yaml" --workload "$tmp/workload.yaml" \
  --html "$tmp/report.html" >/dev/null 2>&1
chrome=$(command -v chromium-headless-shell || command -v chromium || true)
if [[ -z $chrome ]]; then
  echo "SKIPPED: no headless Chromium (hack/install-deps.sh installs chromium-headless-shell)"
  exit 77
fi
# --virtual-time-budget lets the page's load handler run before the DOM is dumped.
"$chrome" --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 \
  --dump-dom "file://$tmp/report.html" >"$tmp/dom.html" 2>"$tmp/chrome.log" ||
  fail "chromium failed: $(tail -5 "$tmp/chrome.log")"
grep -q 'data-charts-rendered="4"' "$tmp/dom.html" ||
  fail "the page did not report 4 rendered charts: $(grep -o 'data-charts-rendered="[0-9]*"' "$tmp/dom.html" || echo none)"
for id in chart-utilisation chart-queues chart-waits chart-sessions; do
  grep -Eq "id=\"$id\"[^>]*data-rendered=\"true\"" "$tmp/dom.html" ||
    fail "chart $id is not rendered"
done
pass "headless Chromium laid out and drew the 4 charts"
echo "all $checks checks passed"
