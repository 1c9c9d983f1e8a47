#!/usr/bin/env bash
# Issue 18, Deliver 2: Volcano's and scheduler-plugins' PodGroups, read directly. For each
# dialect, a gang of 3 x 3 CPU on 3 nodes of 4 CPU, one of which holds a 2-CPU pod of another
# scheduler, starts none of its pods while a plain pod beside it is scheduled, and its PodGroup
# says so in its own API's shape; once the 2-CPU pod goes, all 3 start and the PodGroup says
# Running with its counts. arbiter-controller runs and makes no PodGroup of Arbiter's for them. A
# Volcano PodGroup with a bad minMember is named in the scheduler's log, its pod waits, the rest is
# scheduled. The scheduler-plugins CRD is installed after the scheduler started: it is found
# (looked for every 30 s).
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


e2e_setup ecosystem_podgroups --nodes 3 --node-cpu 4

fixtures=$E2E_ROOT/tests/fixtures/crds
k apply -f "$fixtures/scheduling.volcano.sh_podgroups.yaml" >/dev/null
wait_until "the Volcano PodGroup CRD is established" 60 crds_established podgroups.scheduling.volcano.sh

e2e_start_scheduler
e2e_start_controller

# vc NAME FIELD / sp NAME FIELD: a field of that API's PodGroup.
vc() { kn get podgroups.scheduling.volcano.sh "$1" -o jsonpath="{$2}"; }
sp() { kn get podgroups.scheduling.x-k8s.io "$1" -o jsonpath="{$2}"; }
vc_is() { [[ $(vc "$1" "$2") == "$3" ]]; }
sp_is() { [[ $(sp "$1" "$2") == "$3" ]]; }
sp_phase_in() { [[ " ${*:2} " == *" $(sp "$1" .status.phase) "* ]]; }
no_arbiter_podgroups() { [[ -z $(kn get podgroups.arbiter.dev -o name) ]]; }
log_has() { grep -qF -- "$1" "$E2E_TMP/scheduler.log"; }

# gang DIALECT NAME: the PodGroup of that API, minMember 3, and its 3 pods of 3 CPU, which name it
# the way that API's workloads do (Volcano: annotation; scheduler-plugins: label).
gang() {
  local dialect=$1 name=$2 i
  if [[ $dialect == volcano ]]; then
    printf -- '---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n'
    printf 'metadata: {name: %s, namespace: %s}\nspec: {minMember: 3, queue: default}\n' "$name" "$E2E_NS"
    for i in 0 1 2; do
      pod_yaml "$name-$i" cpu=3 labels="app: $name" annotations="scheduling.k8s.io/group-name: $name"
    done
  else
    printf -- '---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n'
    printf 'metadata: {name: %s, namespace: %s, labels: {arbiter.dev/queue: default}}\n' "$name" "$E2E_NS"
    printf 'spec: {minMember: 3, scheduleTimeoutSeconds: 10}\n'
    for i in 0 1 2; do
      pod_yaml "$name-$i" cpu=3 labels="app: $name,scheduling.x-k8s.io/pod-group: $name"
    done
  fi
}

# all_or_nothing DIALECT NAME WAITING_CHECK...: the scenario above for one dialect.
all_or_nothing() {
  local dialect=$1 name=$2
  shift 2
  pod_yaml sleeper cpu=2 scheduler=other node=kwok-node-0 | apply_yaml
  wait_until "the 2-CPU pod of another scheduler runs on kwok-node-0" 30 pod_phase_is sleeper Running
  # While the room is short, at every poll: not a single gang pod is bound.
  e2e_invariant bound_is "app=$name" 0
  {
    gang "$dialect" "$name"
    pod_yaml "plain-$name" cpu=1 labels="app: plain-$name"
  } | apply_yaml
  wait_until "$dialect: the plain pod beside the gang is scheduled" 30 bound_is "app=plain-$name" 1
  wait_until "$dialect: PodGroup $name says it waits, in its own shape" 30 "$@"
  holds_for "$dialect: none of the 3 gang pods is bound over several sessions" 3 bound_is "app=$name" 0
  # (Binding 3 pods is 3 API calls: the count rises 0 -> 3 through 1 and 2 for a moment.)
  e2e_invariant
  kn delete pod sleeper --wait=false >/dev/null
  wait_until "$dialect: all 3 gang pods are bound once the room is free" 30 bound_is "app=$name" 3
  wait_until "$dialect: all 3 are Running" 30 phase_is "app=$name" Running 3
}
# ---- Volcano ----
# Waiting: condition Unschedulable=True whose message names cpu, phase not Running.
vc_waiting() {
  vc_is tf '.status.conditions[?(@.type=="Unschedulable")].status' True &&
    [[ $(vc tf '.status.conditions[?(@.type=="Unschedulable")].message') == *cpu* ]] &&
    [[ $(vc tf .status.phase) != Running ]]
}
all_or_nothing volcano tf vc_waiting
vc_running() { vc_is "$1" .status.phase Running && vc_is "$1" .status.running "$2"; }
sp_running() { sp_is "$1" .status.phase Running && sp_is "$1" .status.running "$2"; }
no_arbiter_fields() { [[ -z $(vc "$1" .status.explanation)$(vc "$1" .status.scheduled) ]]; }
wait_until "Volcano: PodGroup tf is Running with status.running=3" 30 vc_running tf 3
expect "Volcano: its Scheduled condition is True" \
  vc_is tf '.status.conditions[?(@.type=="Scheduled")].status' True
expect "Volcano: Arbiter's own fields are not written into Volcano's status" no_arbiter_fields tf

# A Volcano PodGroup Arbiter cannot read: named in the log with its field; its pod waits; the
# rest is scheduled.
{
  printf -- '---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n'
  printf 'metadata: {name: bad, namespace: %s}\nspec: {minMember: -1}\n' "$E2E_NS"
  pod_yaml bad-0 cpu=100m labels="app: bad" annotations="scheduling.k8s.io/group-name: bad"
  pod_yaml after-bad cpu=100m labels="app: after-bad"
} | apply_yaml
wait_until "the bad PodGroup is named with its field in the scheduler's log" 30 \
  log_has "podgroup.scheduling.volcano.sh $E2E_NS/bad: spec.minMember: must not be negative, got -1"
wait_until "a pod created after it is scheduled" 30 bound_is app=after-bad 1
holds_for "the bad group's pod is not bound" 3 bound_is app=bad 0
expect "arbiter-controller made no PodGroup of Arbiter's for Volcano's groups" no_arbiter_podgroups
kn delete pods -l 'app in (tf,plain-tf,bad,after-bad)' --wait=false >/dev/null
wait_until "the Volcano part's pods are gone" 60 pod_count_is e2e=true 0

# ---- scheduler-plugins, its CRD installed while the scheduler runs ----
k apply -f "$fixtures/scheduling.x-k8s.io_podgroups.yaml" >/dev/null
wait_until "the scheduler-plugins PodGroup CRD is established" 60 crds_established podgroups.scheduling.x-k8s.io
wait_until "the scheduler found the scheduler-plugins API once its CRD was installed" 60 \
  log_has "watching podgroups.scheduling.x-k8s.io: API scheduling.x-k8s.io/v1alpha1 is served"
sp_waiting() { sp_phase_in web Pending Scheduling; }
all_or_nothing scheduler-plugins web sp_waiting
wait_until "scheduler-plugins: PodGroup web is Running with status.running=3" 30 sp_running web 3
expect "arbiter-controller made no PodGroup of Arbiter's for scheduler-plugins' groups" \
  no_arbiter_podgroups

e2e_done
