#!/usr/bin/env bash
# Data locality (issue 21): jobs that name where their data lives (PodGroup spec.locality), on 4
# kwok nodes of 8 CPU labelled topology.arbiter.dev/rack: rack a = nodes 0-1, rack b = nodes 2-3;
# the locality plugin with a node wait of 5 s and a rack wait of 25 s. Shown:
#   - a job of 2 × 2 CPU whose data is on node 3 runs there, both pods (without the hint the
#     default scoring spreads them over the emptiest nodes), and its PodGroup's status.locality
#     says so;
#   - a job whose data is on node 1, which is full: it waits, saying why (delay scheduling), places
#     nothing for the node wait, then runs in the same rack (node 0), not in rack b, which has
#     more room.
#   - a job naming a DataSet (spec.locality.dataSet) before the DataSet exists waits, saying so;
#     once the DataSet is created it runs on the node holding most of its blocks (node 3), not on
#     the emptiest node (node 2), which holds one.
# shellcheck source-path=SCRIPTDIR disable=SC2119,SC2016  # optional flags; eval '...' on purpose
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup locality --nodes 4 --node-cpu 8
k label node kwok-node-0 kwok-node-1 topology.arbiter.dev/rack=a >/dev/null
k label node kwok-node-2 kwok-node-3 topology.arbiter.dev/rack=b >/dev/null
cat >"$E2E_TMP/locality.yaml" <<'YAML'
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins:
      - {name: predicates}
      - {name: nodeorder}
      - {name: topology}
      - {name: locality, arguments: {nodeWaitSeconds: 5, rackWaitSeconds: 25}}
YAML
e2e_start_scheduler --config "$E2E_TMP/locality.yaml" --metrics-bind-address 127.0.0.1:0
metrics_port() {
  sed -nE 's|.*serving /metrics /healthz /readyz on 127\.0\.0\.1:([0-9]+).*|\1|p' \
    "$E2E_TMP/scheduler.log" | head -n1
}
wait_until "the scheduler logs its metrics port" 10 eval '[[ -n $(metrics_port) ]]'

# data_job NAME SIZE CPU NODE: a PodGroup of SIZE pods of CPU each whose data is on NODE.
data_job() {
  pg_yaml "$1" "$2"
  printf '  locality: {nodes: [%s]}\n' "$4"
  for i in $(seq 0 $(($2 - 1))); do pod_yaml "$1-$i" group="$1" cpu="$3"; done
}
# nodes_of GROUP: the nodes its bound pods are on, sorted, with repeats.
nodes_of() {
  pods_table "arbiter.dev/pod-group=$1" | awk '$2 != "<none>" {print $2}' | sort | tr '\n' ' '
}

data_job near 2 2 kwok-node-3 | apply_yaml
wait_until "a job of 2 × 2 CPU whose data is on kwok-node-3 is bound" 30 \
  bound_is arbiter.dev/pod-group=near 2
expect "both its pods are on kwok-node-3 (they are on: $(nodes_of near))" \
  test "$(nodes_of near)" = "kwok-node-3 kwok-node-3 "
near_local() { [[ $(pg_field near .status.locality.nodeLocal) == 2 ]]; }
wait_until "its PodGroup says both are on a node holding its data (status.locality)" 30 near_local

pod_yaml filler cpu=8 node=kwok-node-1 | apply_yaml
wait_until "kwok-node-1 is full (a pod of 8 CPU runs there)" 30 pod_phase_is filler Running
data_job far 1 4 kwok-node-1 | apply_yaml
wait_until "a job whose data is on the full kwok-node-1 says it waits for it" 30 \
  pg_message_matches far Unschedulable "not holding the job's data \(delay scheduling: it waits"
pg_condition far Unschedulable message
echo
none_bound() { bound_is arbiter.dev/pod-group=far 0; }
holds_for "it places nothing while it waits for its node" 2 none_bound
wait_until "after the node wait it is bound" 30 bound_is arbiter.dev/pod-group=far 1
expect "in its data's rack, on kwok-node-0 (it is on: $(nodes_of far))" \
  test "$(nodes_of far)" = "kwok-node-0 "
locality_binds() {
  curl -sf "http://127.0.0.1:$(metrics_port)/metrics" |
    awk -v s="arbiter_locality_binds_total{level=\"$1\"}" '$1 == s {print $2}'
}
expect "arbiter_locality_binds_total counts 2 binds on the data's node, 1 in its rack" \
  eval '[[ $(locality_binds node) == 2 && $(locality_binds rack) == 1 && $(locality_binds any) == 0 ]]'

# A job naming its DataSet before the DataSet exists: it waits for it (at most the node and rack
# waits, 30 s here, then it would go anywhere).
pg_yaml reader 1 >"$E2E_TMP/reader.yaml"
echo '  locality: {dataSet: clicks}' >>"$E2E_TMP/reader.yaml"
pod_yaml reader-0 group=reader cpu=2 >>"$E2E_TMP/reader.yaml"
apply_yaml <"$E2E_TMP/reader.yaml"
wait_until "a job naming the DataSet clicks, which does not exist yet, says it waits for it" 20 \
  pg_message_matches reader Unschedulable "DataSet $E2E_NS/clicks not found \(delay scheduling"
k apply -n "$E2E_NS" -f - >/dev/null <<'YAML'
apiVersion: arbiter.dev/v1alpha1
kind: DataSet
metadata: {name: clicks}
spec:
  blocks:
    - {name: part-0, nodes: [kwok-node-3, kwok-node-2]}
    - {name: part-1, nodes: [kwok-node-3]}
    - {name: part-2, nodes: [kwok-node-3, kwok-node-0]}
YAML
wait_until "once the DataSet exists the job is bound" 20 bound_is arbiter.dev/pod-group=reader 1
expect "on kwok-node-3, which holds its 3 blocks, not the emptiest kwok-node-2, which holds 1 (it is on: $(nodes_of reader))" \
  test "$(nodes_of reader)" = "kwok-node-3 "

e2e_done
