#!/usr/bin/env bash
# R9 coexist with the default scheduler, and a static zone. Nodes kwok-node-0/1 are labelled
# zone=a, kwok-node-2/3 are not, and big-node (16 CPU, outside the zone) is added; the scheduler
# runs with --node-selector zone=a:
#  * a pod whose schedulerName is "other" is never touched: not bound, no condition written, no
#    event, its resourceVersion unchanged;
#  * our pods land only on zone=a nodes;
#  * a pod that fits only outside the zone (8 CPU; zone nodes have 4) stays pending, with a reason.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r9 --nodes 4 --node-cpu 4
k label node kwok-node-0 kwok-node-1 zone=a >/dev/null
k create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: big-node
  labels: {type: kwok, kubernetes.io/hostname: big-node, kubernetes.io/os: linux, kubernetes.io/arch: amd64}
  annotations: {kwok.x-k8s.io/node: fake}
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
YAML
node_ready() { [[ $(k get node "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
wait_until "big-node (16 CPU, no zone label) is Ready" 30 node_ready big-node

e2e_start_scheduler --node-selector zone=a

pod_yaml foreign cpu=100m scheduler=other | apply_yaml
foreign_rv=$(kn get pod foreign -o jsonpath='{.metadata.resourceVersion}')

{
  for i in 0 1 2 3; do pod_yaml "zoned-$i" cpu=1 labels="set: zoned"; done
} | apply_yaml
wait_until "our 4 pods are bound" 30 bound_is set=zoned 4
nodes=$(nodes_of set=zoned | sort | xargs)
only_zone_a() { ! nodes_of set=zoned | grep -qvE '^kwok-node-[01]$'; }
expect "all 4 are on zone=a nodes ($nodes)" only_zone_a

pod_yaml outside cpu=8 | apply_yaml
wait_until "the 8-CPU pod (fits only on big-node, outside the zone) is marked Unschedulable" 30 \
  pod_unschedulable outside
e2e_log "its PodScheduled message: $(pod_condition outside PodScheduled message)"

foreign_untouched() {
  pod_unbound foreign &&
    [[ $(kn get pod foreign -o jsonpath='{.metadata.resourceVersion}') == "$foreign_rv" ]] &&
    [[ -z $(pod_events foreign) ]]
}
outside_pending_foreign_untouched() { pod_unbound outside && foreign_untouched; }
holds_for "the 8-CPU pod stays unbound; the other scheduler's pod stays untouched" 3 \
  outside_pending_foreign_untouched
no_conditions() { [[ -z $(kn get pod "$1" -o jsonpath='{.status.conditions}') ]]; }
expect "the other scheduler's pod has no conditions" no_conditions foreign
expect "our pods are still only on zone=a nodes" only_zone_a

e2e_done
