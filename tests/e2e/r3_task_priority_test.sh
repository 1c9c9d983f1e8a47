#!/usr/bin/env bash
# R3 priority inside a job: a TensorFlow-like job of 1 parameter server (PriorityClass tf-ps,
# 1000) and 4 workers (tf-worker, 100), PodGroup minMember 3 with minTaskMember {ps: 1}, each pod
# a whole node, on 3 nodes: only 3 of the 5 pods can start, and the parameter server is among
# them although the PodGroup came first and the workers were created before it.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup r3 --nodes 3 --node-cpu 4
{
  priorityclass_yaml tf-ps 1000
  priorityclass_yaml tf-worker 100
} | apply_yaml
e2e_start_scheduler

# The PodGroup first, as a job controller makes it, then the pods, workers first: minTaskMember
# {ps: 1} keeps the workers from starting as a gang of their own before the parameter server
# exists (the three workers alone would meet minMember 3).
pg_yaml tf 3 '{ps: 1}' | apply_yaml
{
  for i in 0 1 2 3; do pod_yaml "tf-worker-$i" cpu=4 group=tf task=worker priority=tf-worker; done
} | apply_yaml
holds_for "no worker starts while the parameter server does not exist" 2 \
  bound_is arbiter.dev/pod-group=tf 0
pod_yaml tf-ps-0 cpu=4 group=tf task=ps priority=tf-ps | apply_yaml
expect "the parameter server has spec.priority 1000 (Priority admission)" \
  pod_priority_is tf-ps-0 1000

sel=arbiter.dev/pod-group=tf
wait_until "3 of the job's 5 pods are bound" 30 bound_is "$sel" 3
expect "the parameter server is among them (bound: $(pods_table "$sel" | awk '$2 != "<none>" {print $1}' | xargs))" \
  not pod_unbound tf-ps-0
three_with_ps() { bound_is "$sel" 3 && ! pod_unbound tf-ps-0; }
holds_for "exactly 3 bound, the parameter server one of them" 3 three_with_ps
expect "2 workers are bound and 2 left pending" bound_is arbiter.dev/task=worker 2
wait_until "PodGroup tf is Running with 3 running" 30 pg_running_is tf 3

e2e_done
