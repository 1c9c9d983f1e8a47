#!/usr/bin/env bash
# Security (issue 20): pathological inputs a tenant can write leave the scheduler running and its
# sessions bounded:
#   1. extreme quantities the API server accepts: a pod asking for 10^15 CPU and 8 EiB of memory,
#      a PodGroup whose minResources ask for as much, a queue whose capability is 10^15 CPU: each
#      waits with a reason (nothing overflows into "fits"), and ordinary pods are bound beside
#      them;
#   2. a pod with annotations near the API server's limit (250 KiB in all): bound like any other;
#   3. 10,000 PodGroups in one namespace (no pods yet: the most a tenant can write without
#      requesting resources): a gang of 3 created after them is bound, and no session meanwhile
#      took longer than 3.3 s (a bucket of arbiter_session_duration_seconds; a bound far above what
#      such a session costs, so that only a blow-up fails it, not a slow machine).
# The scheduler runs through the fault proxy at its default QPS, so that its writes (a status per
# group) compete with its binds as they would in a cluster.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # optional flags
set -euo pipefail
# shellcheck source=../reliability/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../reliability/lib.sh"

e2e_setup pathological --nodes 2 --node-cpu 8
fault_proxy_start
rel_start_scheduler

# --- 1. extreme quantities ----------------------------------------------------------------------
{
  queue_yaml vast 'capability={cpu: "1e15"}'
  pod_yaml huge-cpu cpu=1e15
  pod_yaml huge-memory memory=8Ei
  group_yaml huge-group min=1 min_resources='{cpu: "1e15", memory: 8Ei}'
  pod_yaml huge-group-0 cpu=100m group=huge-group
  group_yaml in-vast min=1 queue=vast
  pod_yaml in-vast-0 cpu=1e15 group=in-vast
  pod_yaml ordinary-0 cpu=1 runfor=1h
  pod_yaml ordinary-1 cpu=1 runfor=1h
} | apply_yaml
wait_until "ordinary pods are bound beside them" 30 bound_is e2e=true 2
for pod in huge-cpu huge-memory huge-group-0 in-vast-0; do
  wait_until "$pod waits, with a reason" 30 pod_unschedulable "$pod"
  expect "(and is not bound)" pod_unbound "$pod"
done
expect "the reason of 10^15 CPU names the CPU" pod_message_matches huge-cpu cpu
expect "the reason of 8 EiB names the memory" pod_message_matches huge-memory memory

# --- 2. annotations near the limit ----------------------------------------------------------------
big=$(head -c 192000 /dev/zero | tr '\0' 'a')
pod_yaml annotated cpu=100m runfor=1h \
  annotations="example.com/big: $big,example.com/big2: ${big:0:56000}" | apply_yaml
wait_until "a pod with 248 KB of annotations is bound" 30 bound_is e2e=true 3

# --- 3. 10,000 PodGroups in one namespace ---------------------------------------------------------
k create namespace crowd >/dev/null
groups=$E2E_TMP/groups
mkdir -p "$groups"
python3 - "$groups" <<'EOF'
import sys
# Four files of 2,500 PodGroups, created by four kubectl processes at once.
for part in range(4):
    with open(f"{sys.argv[1]}/part-{part}.yaml", "w") as out:
        for i in range(part * 2500, (part + 1) * 2500):
            out.write(f"---\napiVersion: arbiter.dev/v1alpha1\nkind: PodGroup\n"
                      f"metadata: {{name: g-{i:05d}, namespace: crowd}}\nspec: {{minMember: 2}}\n")
EOF
# The count and the bucket from one scrape each time: a session may end between two scrapes.
scrape=$(curl -sS "http://127.0.0.1:$SCHED_METRICS_PORT/metrics")
sessions_before=$(metric_in arbiter_session_duration_seconds_count 'phase="total"' <<<"$scrape")
slow_before=$(metric_in arbiter_session_duration_seconds_bucket 'phase="total",le="3.2768"' \
  <<<"$scrape")
pids=()
for part in 0 1 2 3; do
  k create -f "$groups/part-$part.yaml" >"$E2E_TMP/groups-$part.log" 2>&1 &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid" || fail "creating the PodGroups failed (see $E2E_TMP)"; done
expect "10,000 PodGroups exist" test "$(k -n crowd get podgroups --no-headers | wc -l)" -eq 10000
cached_groups_at_least() { (($(metric arbiter_cache_objects 'kind="podgroup"') >= $1)); }
wait_until "the scheduler holds them all" 60 cached_groups_at_least 10000
{
  group_yaml probe min=3
  for i in 0 1 2; do pod_yaml "probe-$i" cpu=500m group=probe runfor=1h; done
} | apply_yaml
wait_until "a gang of 3 created after them is bound" 60 bound_is arbiter.dev/pod-group=probe 3
scrape=$(curl -sS "http://127.0.0.1:$SCHED_METRICS_PORT/metrics")
sessions=$(($(metric_in arbiter_session_duration_seconds_count 'phase="total"' <<<"$scrape") -
  sessions_before))
within=$(($(metric_in arbiter_session_duration_seconds_bucket 'phase="total",le="3.2768"' \
  <<<"$scrape") - slow_before))
e2e_log "sessions while the 10,000 groups came and the gang was bound: $sessions"
e2e_log "session time: $(curl -sS "http://127.0.0.1:$SCHED_METRICS_PORT/metrics" |
  grep '^arbiter_session_duration_seconds_bucket{phase="total"' | tr '\n' ' ')"
expect "there were sessions ($sessions)" test "$sessions" -gt 0
expect "none of them took longer than 3.3 s ($within of $sessions within)" test "$within" -eq "$sessions"

check_invariants --settled
e2e_done
