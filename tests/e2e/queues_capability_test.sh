#!/usr/bin/env bash
# Queue capability (issue 6): a queue with capability cpu: 3 on an idle cluster of 2 x 8 CPU gets
# exactly 3 CPUs however much its jobs ask for. An elastic group (minMember 1, 5 pods of 1 CPU)
# gets 3 pods bound, the other 2 stay pending with a message naming the capability; two more
# single-pod groups are not admitted (Unschedulable, the message names the capability) and nothing
# more is bound over several sessions; the Queue's status.allocated is 3 (and deserved 3). The
# cluster is not the limit: a pod of queue default beside them is bound at once.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup qcap --nodes 2 --node-cpu 8

e2e_start_scheduler

{
  queue_yaml capped weight=1 'capability={cpu: 3}'
  group_yaml elastic min=1 queue=capped
  for i in 0 1 2 3 4; do
    pod_yaml "elastic-$i" cpu=1 group=elastic runfor=1h labels="queue: capped"
  done
} | apply_yaml

# At no poll may the queue's pods hold more than 3 CPUs.
at_most_3() { (($(bound_cpu_milli queue=capped) <= 3000)); }
e2e_invariant at_most_3

wait_until "3 of the elastic group's 5 pods are bound (3 CPUs)" 30 \
  bound_cpu_is queue=capped 3000
holds_for "no fourth pod is bound over several sessions, on an idle cluster" 3 \
  bound_is queue=capped 3

# pending_pods_name_capability SELECTOR: every unbound pod's PodScheduled message names the
# queue's capability.
pending_pods_name_capability() {
  local name node
  local -i seen=0
  while read -r name node _; do
    [[ $node == "<none>" ]] || continue
    pod_unschedulable "$name" && pod_message_matches "$name" 'capability' || return 1
    seen+=1
  done < <(pods_table "$1")
  ((seen > 0))
}
wait_until "the 2 unbound elastic pods are Unschedulable, naming the capability" 30 \
  pending_pods_name_capability arbiter.dev/pod-group=elastic
unbound=$(pods_table arbiter.dev/pod-group=elastic | awk '$2 == "<none>" {print $1; exit}')
e2e_log "$unbound: $(pod_condition "$unbound" PodScheduled message)"

# More groups in the same queue: not admitted while it is at its capability.
{
  for i in 0 1; do
    group_yaml "single-$i" min=1 queue=capped
    pod_yaml "single-$i" cpu=1 group="single-$i" runfor=1h labels="queue: capped"
  done
} | apply_yaml
for i in 0 1; do
  wait_until "PodGroup single-$i is Unschedulable" 30 pg_unschedulable "single-$i"
  expect "its message names the capability: '$(pg_condition "single-$i" Unschedulable reason): $(
    pg_condition "single-$i" Unschedulable message)'" \
    pg_message_matches "single-$i" Unschedulable 'capability'
done
holds_for "still exactly 3 CPUs bound to the queue over several sessions" 3 \
  bound_cpu_is queue=capped 3000

wait_until "Queue capped status.allocated.cpu is 3 ('$(queue_field capped .status.allocated.cpu)')" 30 \
  queue_cpu_is capped allocated 3000
expect "Queue capped status.deserved.cpu is 3, its capability ('$(queue_field capped .status.deserved.cpu)')" \
  queue_cpu_is capped deserved 3000

# The cluster has room: a pod of queue default is bound at once.
pod_yaml free-rider cpu=2 runfor=1h | apply_yaml
wait_until "a 2-CPU pod of queue default is bound beside them" 30 \
  not pod_unbound free-rider
holds_for "the capped queue still holds exactly 3 CPUs" 2 bound_cpu_is queue=capped 3000

e2e_log "kubectl get queues:"
k get queues

e2e_done
