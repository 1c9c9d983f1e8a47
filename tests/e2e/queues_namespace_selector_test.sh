#!/usr/bin/env bash
# Who may use a queue (issue 6): queue team-a admits only namespaces labelled team=a
# (spec.namespaceSelector). A PodGroup naming it from namespace e2e (no label) is never bound and
# gets Unschedulable / QueueNotAllowed; one from namespace team-a (labelled) is bound. A PodGroup
# naming a Closed queue gets QueueClosed, one naming a missing queue QueueNotFound; none of the
# refused groups is bound over several sessions. Then the refusals are lifted one by one (the
# namespace is labelled, the queue opened, the missing queue created) and each group is bound.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup qns --nodes 2 --node-cpu 8

k create namespace team-a >/dev/null
k label namespace team-a team=a >/dev/null

e2e_start_scheduler

{
  queue_yaml team-a weight=1 team=a
  queue_yaml shut weight=1 state=Closed
} | apply_yaml

# group_with_pods NAME QUEUE NAMESPACE: a PodGroup of minMember 2 and its 2 pods of 1 CPU.
group_with_pods() {
  group_yaml "$1" min=2 queue="$2" ns="$3"
  pod_yaml "$1-0" cpu=1 group="$1" ns="$3" runfor=1h labels="case: $1"
  pod_yaml "$1-1" cpu=1 group="$1" ns="$3" runfor=1h labels="case: $1"
}
{
  group_with_pods outsider team-a "$E2E_NS"
  group_with_pods closed shut "$E2E_NS"
  group_with_pods lost nowhere "$E2E_NS"
  group_with_pods insider team-a team-a
} | apply_yaml

# None of the refused groups has a pod bound, at any poll, until the refusal is lifted.
refused_unbound() {
  bound_is case=outsider 0 && bound_is case=closed 0 && bound_is case=lost 0
}
e2e_invariant refused_unbound

insider_bound() { E2E_NS=team-a bound_is case=insider 2; }
insider_running() { E2E_NS=team-a pg_phase_is insider Running; }
wait_until "the group in namespace team-a (labelled team=a) has both pods bound" 30 insider_bound
wait_until "PodGroup team-a/insider is Running" 30 insider_running

# refused PG REASON QUEUE: the group is Unschedulable with that reason, its message names QUEUE.
refused() {
  pg_unschedulable "$1" && [[ $(pg_condition "$1" Unschedulable reason) == "$2" ]] &&
    pg_message_matches "$1" Unschedulable "$3"
}
for c in "outsider QueueNotAllowed team-a" "closed QueueClosed shut" "lost QueueNotFound nowhere"; do
  read -r pg reason queue <<<"$c"
  wait_until "PodGroup $pg (queue $queue) is Unschedulable with reason $reason" 30 \
    refused "$pg" "$reason" "$queue"
  e2e_log "$pg: $(pg_condition "$pg" Unschedulable reason): $(pg_condition "$pg" Unschedulable message)"
  expect "PodGroup $pg is not Running (phase '$(pg_field "$pg" .status.phase)')" \
    not pg_phase_is "$pg" Running
done
holds_for "no pod of the refused groups is bound over several sessions" 3 refused_unbound
# Queue team-a runs the insider only; queue shut runs nothing.
running_counts() {
  [[ $(queue_field team-a .status.running) == 1 && $(queue_field shut .status.running) == 0 ]]
}
wait_until "the queues' status counts 1 running group in team-a and none in shut" 30 running_counts

# Lifting each refusal lets the group start.
e2e_invariant
k label namespace "$E2E_NS" team=a >/dev/null
wait_until "namespace e2e labelled team=a: PodGroup outsider has both pods bound" 30 \
  bound_is case=outsider 2
k patch queue shut --type merge -p '{"spec":{"state":"Open"}}' >/dev/null
wait_until "queue shut opened: PodGroup closed has both pods bound" 30 bound_is case=closed 2
queue_yaml nowhere weight=1 | apply_yaml
wait_until "queue nowhere created: PodGroup lost has both pods bound" 30 bound_is case=lost 2
started() { pg_phase_is "$1" Running && not pg_unschedulable "$1"; }
for pg in outsider closed lost; do
  wait_until "PodGroup $pg is Running and no longer Unschedulable" 30 started "$pg"
done

e2e_log "kubectl get queues:"
k get queues

e2e_done
