#!/usr/bin/env bash
# Reliability (issue 20): evictions the API server refuses although the scheduler's view of the
# PodDisruptionBudgets allowed them. On 2 nodes × 8 CPU, gang low (priority 10, 4 × 4 CPU) fills
# the cluster. The proxy holds every event of the scheduler's budget watch 60 s; then a budget
# that keeps all of low's pods available is created, and gang high (priority 1000, 4 × 4 CPU)
# arrives. The scheduler, seeing no budget, plans to evict low for it:
#   - the API server refuses the evictions (the dry runs the binder sends first answer 429), and
#     not one pod of low is evicted: low stays whole, at every poll, and high has nothing bound;
#   - the scheduler tries again only after its preemption back-off (30 s), not every session: at
#     most one round of refusals for low's 4 pods in the 20 s watched;
#   - once the budget reaches the scheduler's view it plans no eviction, and high waits saying a
#     PodDisruptionBudget protects the pods it would need; the checker (settled) finds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # rel_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup pdb_stale_view --nodes 2 --node-cpu 8
fault_proxy_start
rel_start_scheduler
sel_low=arbiter.dev/pod-group=low
sel_high=arbiter.dev/pod-group=high
{
  priorityclass_yaml low 10
  priorityclass_yaml high 1000
  group_yaml low min=4 priority=low
  for i in 0 1 2 3; do pod_yaml "low-$i" cpu=4 group=low; done
} | apply_yaml
wait_until "gang low fills the cluster" 30 bound_is "$sel_low" 4

# The budget watch lags (the watches opened again through the rule), then the budget comes.
fault_rules '{"rules": [{"name": "lag", "path": "/poddisruptionbudgets$", "action": "watch-delay", "delayMs": 60000}]}'
curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null
lagging() { (($(fault_stat rules.lag.injected) >= 1)); }
wait_until "the scheduler watches budgets again, through the lag" 30 lagging
budget_keeping_all low 4
# The API server enforces the budget: an eviction of low's (a dry run: nothing happens) is refused.
refused_by_budget() {
  local out
  out=$(printf '{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "low-0", "namespace": "%s"}}' \
    "$E2E_NS" | k create --raw "/api/v1/namespaces/$E2E_NS/pods/low-0/eviction?dryRun=All" -f - 2>&1) &&
    return 1 # allowed
  [[ $out == *"disruption budget"* ]]
}
wait_until "the API server refuses to evict low's pods" 10 refused_by_budget

{
  group_yaml high min=4 priority=high
  for i in 0 1 2 3; do pod_yaml "high-$i" cpu=4 group=high; done
} | apply_yaml
evictions() { metric arbiter_evictions_total "result=\"$1\""; }
low_whole() { (($(kn get pods -l "$sel_low" -o name | wc -l) == 4)) && bound_is "$sel_low" 4; }
low_whole_high_none() { low_whole && bound_is "$sel_high" 0; }
e2e_invariant low_whole_high_none
tried() { (($(evictions refused) >= 1)); }
wait_until "the scheduler, seeing no budget, tries to evict low for high: refused" 30 tried
expect "the budget was still out of the scheduler's view (its watch held)" \
  test "$(fault_stat rules.lag.injected)" -ge 1
holds_for "low stays whole, nothing of high bound" 20 true
expect "no pod of low was evicted ($(evictions evicted))" test "$(evictions evicted)" -eq 0
expect "one round of refusals in 20 s, not one a session ($(evictions refused) refused)" \
  test "$(evictions refused)" -le 4

fault_rules '{"rules": []}'
curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null
wait_until "with the budget in view, high waits saying a PodDisruptionBudget protects low" 60 \
  pg_message_matches high Unschedulable 'PodDisruptionBudget'
e2e_invariant
expect "still no pod of low evicted" test "$(evictions evicted)" -eq 0
check_invariants --settled
e2e_done
