#!/usr/bin/env bash
# Reliability (issue 20): 200 pods that can never fit (100 CPU each, on 4 nodes × 8 CPU) wait for
# long, with a session every second.
#   - each gets its reason (PodScheduled=False) once; in the next 20 s (20 sessions) the
#     FailedScheduling events about them grow by no more than one per pod (the scheduler repeats
#     an unchanged verdict once a minute, not every session);
#   - decisions are not delayed behind them: a gang of 4 submitted then is bound within a few
#     sessions;
#   - the independent checker (settled) finds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup unschedulable_flood --nodes 4 --node-cpu 8
e2e_start_scheduler

for i in $(seq 0 199); do pod_yaml "huge-$i" cpu=100 labels='huge: "yes"'; done | apply_yaml
reasons() { kn get pods -l huge=yes -o json | python3 -c '
import json, sys
print(sum(1 for p in json.load(sys.stdin)["items"]
          for c in p["status"].get("conditions") or []
          if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason")))'; }
all_have_reasons() { (($(reasons) == 200)); }
wait_until "the 200 pods each carry PodScheduled=False with a reason" 90 all_have_reasons

# failed_events: FailedScheduling events about the pods, each counted as often as it happened
# (an event series counts its repeats).
failed_events() {
  k get events.events.k8s.io -n "$E2E_NS" -o json | python3 -c '
import json, sys
total = 0
for e in json.load(sys.stdin)["items"]:
    if e.get("reason") == "FailedScheduling" and (e.get("regarding") or {}).get("name", "").startswith("huge-"):
        total += (e.get("series") or {}).get("count", 1)
print(total)'
}
before=$(failed_events)
holds_for "the scheduler keeps running its sessions over them" 20 scheduler_alive
grew=$(($(failed_events) - before))
expect "FailedScheduling events grew by $grew in 20 s (200 pods: at most one each)" test "$grew" -le 200

{
  pg_yaml small 4
  for i in 0 1 2 3; do pod_yaml "small-$i" group=small cpu=1; done
} | apply_yaml
wait_until "a gang of 4 submitted beside them is bound within a few sessions" 10 \
  bound_is arbiter.dev/pod-group=small 4
check_invariants --settled

e2e_done
