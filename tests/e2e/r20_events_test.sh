#!/usr/bin/env bash
# R20 events. On one 2-CPU node:
#  * a bound pod has a Normal "Scheduled" event "Successfully assigned e2e/POD to NODE" from
#    Arbiter;
#  * a pod too big for any node has a Warning "FailedScheduling" event saying why
#    ("0/1 nodes are available: 1 Insufficient cpu."), and PodScheduled=False/Unschedulable;
#  * a gang of 3 where only 1 pod fits: FailedScheduling on its pods, saying it is about the gang;
#  * `kubectl describe pod` shows these.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r20 --nodes 1 --node-cpu 2
e2e_start_scheduler

pod_yaml small cpu=1 | apply_yaml
wait_until "pod small is bound" 30 not pod_unbound small
wait_until "pod small has a Normal Scheduled event 'Successfully assigned e2e/small to kwok-node-0'" 30 \
  has_event small Normal Scheduled '^Successfully assigned e2e/small to kwok-node-0$'
expect "the Scheduled event names Arbiter as its reporter ($(pod_events small | head -n 1))" \
  event_reporter_is small Scheduled arbiter

pod_yaml huge cpu=4 | apply_yaml
wait_until "pod huge has a Warning FailedScheduling event" 30 has_event huge Warning FailedScheduling
e2e_log "its event: $(event_messages huge Warning FailedScheduling | head -n 1)"
expect "the event says '0/1 nodes are available' and 'Insufficient cpu'" \
  has_event huge Warning FailedScheduling '0/1 nodes are available.*Insufficient cpu'
wait_until "pod huge has PodScheduled=False reason Unschedulable" 30 pod_unschedulable huge
expect "the condition's message names cpu too" pod_message_matches huge 'Insufficient cpu'
describe=$(kn describe pod huge)
describe_shows() { grep -qE -- "$1" <<<"$describe"; }
expect "kubectl describe pod huge shows the FailedScheduling event" \
  describe_shows 'Warning +FailedScheduling .*Insufficient cpu'
expect "kubectl describe pod huge shows PodScheduled False" describe_shows 'PodScheduled +False'

# A gang of 3 x 1 CPU: with small on the node, only 1 of the 3 fits, so none is bound.
{
  pg_yaml trio 3
  for i in 0 1 2; do pod_yaml "trio-$i" cpu=1 group=trio; done
} | apply_yaml
wait_until "the gang's pods have FailedScheduling events" 30 has_event trio-0 Warning FailedScheduling
e2e_log "trio-0's event: $(event_messages trio-0 Warning FailedScheduling | head -n 1)"
expect "the gang's event mentions the gang (group)" \
  has_event trio-0 Warning FailedScheduling '(gang|group)'
expect "none of the gang is bound" bound_is arbiter.dev/pod-group=trio 0
describe=$(kn describe pod trio-1)
expect "kubectl describe pod trio-1 shows a FailedScheduling event" \
  describe_shows 'Warning +FailedScheduling'

e2e_done
