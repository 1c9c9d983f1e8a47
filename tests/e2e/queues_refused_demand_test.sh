#!/usr/bin/env bash
# Refused groups claim no share (issue 6: "a queue at its deserved share gets more only from idle
# resources no other queue asks for"; "enqueue never leaves resources idle while a queue below
# its deserved share has pending groups that fit"). On an idle cluster of 2 x 8 CPU, queue shut is
# Closed and holds 20 one-CPU groups it will never run, and queue team-a (namespaceSelector
# team=a) is named by 20 groups of namespace e2e, which it does not admit. Queue open (no
# selector) floods the cluster with 20 one-CPU groups: it gets all 16 CPUs, since the refused
# groups can never use any of them, and the refused queues deserve nothing.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup qrefused --nodes 2 --node-cpu 8

e2e_start_scheduler

{
  queue_yaml shut weight=1 state=Closed
  queue_yaml team-a weight=1 team=a
  queue_yaml open weight=1
  for i in $(seq 20); do
    group_yaml "closed-$i" queue=shut
    pod_yaml "closed-$i" cpu=1 group="closed-$i" runfor=1h labels="case: closed"
    group_yaml "outsider-$i" queue=team-a
    pod_yaml "outsider-$i" cpu=1 group="outsider-$i" runfor=1h labels="case: outsider"
  done
} | apply_yaml
wait_until "the refused groups are Unschedulable (QueueClosed, QueueNotAllowed)" 30 \
  eval 'pg_unschedulable closed-20 && pg_unschedulable outsider-20'

{
  for i in $(seq 20); do
    group_yaml "open-$i" queue=open
    pod_yaml "open-$i" cpu=1 group="open-$i" runfor=1h labels="case: open"
  done
} | apply_yaml

e2e_invariant eval 'bound_is case=closed 0 && bound_is case=outsider 0'
wait_until "queue open has all 16 CPUs of the idle cluster" 30 bound_cpu_is case=open 16000
holds_for "and keeps them" 3 bound_cpu_is case=open 16000
wait_until "queue open deserves all 16 CPUs, the refused queues none" 30 \
  eval 'queue_cpu_is open deserved 16000 && queue_cpu_is shut deserved 0 && queue_cpu_is team-a deserved 0'
k get queues

e2e_done
