#!/usr/bin/env bash
# What deploy/monitoring/ ships (issue 16), checked with Prometheus' own promtool:
#  1. the alerting rules load (`promtool check rules`), and fire when they should on made-up series
#     (`promtool test rules tests/cli/monitoring/alerts_test.yaml`);
#  2. every query of the Grafana dashboard is valid PromQL (each made a recording rule, then
#     `promtool check rules`);
#  3. every metric the rules and the dashboard name is one docs/metrics.md lists (so neither can
#     drift from what the binaries expose, which tests/e2e/metrics_test.sh checks).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; }
command -v promtool >/dev/null || fail "no promtool (hack/install-deps.sh installs prometheus)"
alerts=deploy/monitoring/arbiter-alerts.yaml
dashboard=deploy/monitoring/grafana-dashboard.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

promtool check rules "$alerts" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "promtool check rules $alerts"; }
pass "the alerting rules load"
(cd tests/cli/monitoring && promtool test rules alerts_test.yaml) >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "promtool test rules: an alert does not fire as expected"; }
pass "the alerts fire when they should (promtool test rules)"

python3 - "$dashboard" "$tmp/dashboard-rules.yaml" <<'PY' || fail "$dashboard is not a dashboard with queries"
import json, sys
d = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
assert d.get("uid") and exprs, "no uid or no queries"
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        out.write(f"      - record: dashboard:query:{i}\n        expr: {json.dumps(e)}\n")
PY
promtool check rules "$tmp/dashboard-rules.yaml" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "a query of $dashboard is not valid PromQL"; }
pass "every query of the dashboard is valid PromQL"

# shellcheck disable=SC2016  # backquotes, not an expansion
documented=$(grep -oE '`arbiter_[a-z_]+`' docs/metrics.md | tr -d '`' | sort -u)
used=$(grep -ohE 'arbiter_[a-z_]+' "$alerts" "$dashboard" | sed -E 's/_(bucket|sum|count)$//' | sort -u)
missing=$(comm -13 <(echo "$documented") <(echo "$used"))
[[ -z $missing ]] || fail "not in docs/metrics.md: $missing"
pass "every metric they use is one docs/metrics.md lists ($(echo "$used" | wc -l) metrics)"
echo "PASSED: monitoring_test"
