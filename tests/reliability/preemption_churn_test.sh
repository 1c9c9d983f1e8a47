#!/usr/bin/env bash
# Reliability (issue 20): preemption against a PodDisruptionBudget, then with victims recreated at
# once, on 2 nodes × 8 CPU. Gang low (priority 10, 4 × 4 CPU) fills the cluster, a budget keeps
# all 4 of its pods available, and gang high (priority 1000, 4 × 4 CPU) arrives.
#   1. The scheduler reads the budget: it sends no eviction at all (none made, none refused) and
#      high waits whole, nothing of it bound, saying that a PodDisruptionBudget protects the pods
#      it would need.
#   2. The budget goes: low is evicted whole, once; its pods are recreated at once, as its
#      controller would; high runs whole, and the recreated low waits whole: no pod evicted twice
#      for one preemptor, no A→B→A cycle (high is never evicted, low never placed again while high
#      runs). The independent checker (settled) finds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119,SC2016  # optional flags; eval in single quotes
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup preemption_churn --nodes 2 --node-cpu 8
SCHED_METRICS_PORT=$(free_ports 1)
e2e_start_scheduler --metrics-bind-address "127.0.0.1:$SCHED_METRICS_PORT"

sel_low=arbiter.dev/pod-group=low
sel_high=arbiter.dev/pod-group=high
low_pods() {  # GENERATION
  local i
  for i in 0 1 2 3; do pod_yaml "low-$1-$i" cpu=4 group=low labels="team: ml"; done
}
{
  priorityclass_yaml low 10
  priorityclass_yaml high 1000
  group_yaml low min=4 priority=low
  low_pods 1
} | apply_yaml
wait_until "gang low fills the cluster" 30 bound_is "$sel_low" 4
budget_keeping_all low 4
pdb_synced() {
  [[ $(kn get pdb low -o jsonpath='{.status.currentHealthy}') == 4 ]] 2>/dev/null
}
wait_until "the budget allows no disruption" 10 pdb_synced

# --- 1. the budget refuses ------------------------------------------------------------------------
{
  group_yaml high min=4 priority=high
  for i in 0 1 2 3; do pod_yaml "high-$i" cpu=4 group=high; done
} | apply_yaml
evictions() { metric arbiter_evictions_total "result=\"$1\""; }
wait_until "high waits, saying a PodDisruptionBudget protects the pods it would evict" 30 \
  pg_message_matches high Unschedulable 'PodDisruptionBudget'
no_low_gone() { (($(kn get pods -l "$sel_low" -o name | wc -l) == 4)) && bound_is "$sel_low" 4; }
holds_for "no pod of low is evicted, nothing of high is bound" 15 \
  eval 'no_low_gone && bound_is "$sel_high" 0'
expect "no eviction was even sent ($(evictions evicted) made, $(evictions refused) refused)" \
  eval '(($(evictions evicted) == 0 && $(evictions refused) == 0))'

# --- 2. the budget goes; the victims come back at once ---------------------------------------------
kn delete pdb low >/dev/null
low_gone() { (($(kn get pods -l "$sel_low" -o name | wc -l) == 0)); }
wait_until "low is evicted whole once the budget is gone" 60 low_gone
low_pods 2 | apply_yaml
wait_until "high runs whole" 60 bound_is "$sel_high" 4
e2e_invariant eval 'bound_is "$sel_high" 4 && bound_is "$sel_low" 0'
holds_for "high keeps running and the recreated low waits whole (no cycle)" 10 true
wait_until "the recreated low says why it waits" 30 pg_unschedulable low
e2e_invariant
none_evicted_twice() {
  k get events.events.k8s.io -n "$E2E_NS" -o json | python3 -c '
import collections, json, sys
count = collections.Counter(e["regarding"]["name"] for e in json.load(sys.stdin)["items"]
                            if e.get("reason") == "Preempted")
twice = [n for n, c in count.items() if c > 1 or n.startswith("high-")]
print(" ".join(twice))
sys.exit(1 if twice else 0)'
}
expect "no pod was evicted twice, and no pod of high at all" none_evicted_twice
check_invariants --settled

e2e_done
