#!/usr/bin/env bash
# Reliability (issue 20): the scheduler's watches under faults injected between it and the API
# server by the fault proxy, on a cluster of 4 nodes × 8 CPU.
#  1. Bookmarks after every 2 events, and the first 4 pod watches ended cleanly after 3 events
#     (very short watches): each is resumed from where it was; the pods are listed once only.
#  2. Under churn (gangs and single pods created, bound and deleted round after round): pod
#     watches answered 410 over HTTP, ended by an in-stream ERROR 410, torn inside an object, and
#     streams of every kind given a malformed line, after every connection was dropped. The scheduler re-lists where it must, and its
#     cache stays right: after the churn, pods that exactly fill the cluster all run (no delete was
#     lost), one more does not (no bind was lost), and the independent checker finds nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # rel_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup watch_faults --nodes 4 --node-cpu 8
fault_proxy_start
# Rules act on the requests that come after them: these are in place before the first watch.
fault_rules '{"rules": [
  {"name": "short", "path": "^/api/v1/pods$", "action": "watch-end", "afterEvents": 3, "limit": 4},
  {"name": "bookmarks", "action": "watch-bookmark", "afterEvents": 2}]}'
rel_start_scheduler
pods_listed() { (($(metric arbiter_watch_lists_total 'kind="pods"') >= 1)); }
wait_until "the scheduler listed the pods" 30 pods_listed

# round N [CPU]: a gang of 3 and 3 single pods, 1 CPU each, all bound.
round() {
  local r=$1
  {
    pg_yaml "g$r" 3
    for i in 0 1 2; do pod_yaml "g$r-$i" group="g$r" cpu=1 labels="round: \"$r\""; done
    for i in 0 1 2; do pod_yaml "s$r-$i" cpu=1 labels="round: \"$r\""; done
  } | apply_yaml
  wait_until "round $r: its 6 pods are bound" 60 bound_is "round=$r" 6
}
drop_round() { kn delete pods -l "round=$1" --wait=false >/dev/null; }

# --- 1. bookmarks and short watches resume without a LIST ---------------------------------------
r=0
short_ended() { (($(fault_stat rules.short.injected) >= 4)); }
while ! short_ended && ((r < 10)); do
  r=$((r + 1))
  round "$r"
  ((r > 1)) && drop_round $((r - 1))
done
expect "4 pod watches were ended short" short_ended
expect "bookmarks were sent ($(fault_stat rules.bookmarks.injected) watches)" \
  test "$(fault_stat rules.bookmarks.injected)" -ge 1
streams=$(metric arbiter_watch_streams_total 'kind="pods"')
expect "the pod watch was resumed after each ($streams streams)" test "$streams" -ge 5
lists=$(metric arbiter_watch_lists_total 'kind="pods"')
expect "and the pods were listed once only ($lists)" test "$lists" -eq 1

# --- 2. 410s, torn streams and malformed lines under churn --------------------------------------
fault_rules '{"rules": [
  {"name": "gone-http", "path": "^/api/v1/pods$", "watch": true, "action": "status", "code": 410, "limit": 2},
  {"name": "gone-stream", "path": "^/api/v1/pods$", "action": "watch-error", "afterEvents": 2, "limit": 2},
  {"name": "torn", "action": "watch-cut", "afterEvents": 1, "midObject": true, "limit": 3},
  {"name": "garbage", "action": "watch-garbage", "afterEvents": 1, "limit": 2}]}'
# The watches open now keep the first rules: drop their connections (a network failure, one
# more fault) so that the next ones meet these.
curl -sS -X POST "http://$FAULT_CONTROL/connections/reset" >/dev/null
all_injected() {
  (($(fault_stat rules.gone-http.injected) == 2 && $(fault_stat rules.gone-stream.injected) == 2 &&
    $(fault_stat rules.torn.injected) == 3 && $(fault_stat rules.garbage.injected) == 2))
}
# At least 3 rounds, so that faults meet creations, binds and deletions alike.
first=$r last=$((r + 12))
while { ! all_injected || ((r < first + 3)); } && ((r < last)); do
  r=$((r + 1))
  round "$r"
  drop_round $((r - 1))
done
expect "every fault was injected (410 over HTTP 2, in the stream 2, torn 3, malformed 2)" all_injected
expect "the pods were listed again after the 410s" \
  test "$(metric arbiter_watch_lists_total 'kind="pods"')" -gt "$lists"
fault_rules '{"rules": []}'
check_invariants

# --- the cache is right: exactly full, then one more ---------------------------------------------
drop_round "$r"
wait_until "the churn's pods are gone" 60 pod_count_is e2e=true 0
{
  for g in 0 1 2 3 4 5 6 7; do
    pg_yaml "full$g" 4
    for i in 0 1 2 3; do pod_yaml "full$g-$i" group="full$g" cpu=1 labels='fill: "yes"'; done
  done
} | apply_yaml
wait_until "32 pods of 1 CPU fill the 4 × 8 CPU: every delete was seen" 60 bound_is fill=yes 32
pod_yaml one-more cpu=1 | apply_yaml
wait_until "one more pod gets its reason" 30 pod_unschedulable one-more
holds_for "and stays unbound: every bind was seen" 5 pod_unbound one-more
check_invariants --settled

e2e_done
