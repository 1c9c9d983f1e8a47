#!/usr/bin/env bash
# PodGroup upkeep (issue 14, R18): pods that speak another project's gang convention run under
# Arbiter without a hand-made PodGroup, because arbiter-controller creates it, on 2 nodes x 8 CPU:
#  1. 3 pods of 4 CPU with Volcano's annotation scheduling.k8s.io/group-name: mpi and
#     arbiter.dev/min-member: "3": the controller creates PodGroup mpi (minMember 3, queue
#     default, labelled arbiter.dev/created-by), and the scheduler runs all 3 together;
#  2. 2 pods with scheduler-plugins' label scheduling.x-k8s.io/pod-group: big and
#     arbiter.dev/min-member: "4": the group is created with minMember 4 and none of the 2 pods
#     is bound (a gang of 4 never starts with 2);
#  3. a pod whose arbiter.dev/min-member is "zero" gets no group (it keeps waiting, and the
#     controller's log names the pod and the annotation).
# shellcheck source-path=SCRIPTDIR disable=SC2119  # e2e_start_scheduler's flags are optional
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup upkeep --nodes 2 --node-cpu 8
e2e_start_scheduler
e2e_start_controller

pg_exists() { kn get podgroup "$1" >/dev/null 2>&1; }

# ---- 1. Volcano's annotation -------------------------------------------------------------------
for i in 0 1 2; do
  pod_yaml "mpi-$i" cpu=4 \
    annotations='scheduling.k8s.io/group-name: mpi,arbiter.dev/min-member: "3"'
done | apply_yaml
wait_until "the controller created PodGroup mpi" 30 pg_exists mpi
expect "PodGroup mpi has minMember 3 ($(pg_field mpi .spec.minMember))" \
  test "$(pg_field mpi .spec.minMember)" == 3
expect "PodGroup mpi is in queue default ($(pg_field mpi .spec.queue))" \
  test "$(pg_field mpi .spec.queue)" == default
expect "PodGroup mpi says who made it" \
  test "$(pg_field mpi '.metadata.labels.arbiter\.dev/created-by')" == arbiter-controller
wait_until "the 3 pods of mpi run together" 30 pg_running_is mpi 3

# ---- 2. scheduler-plugins' label, a gang larger than its pods ----------------------------------
for i in 0 1; do
  pod_yaml "big-$i" cpu=1 labels='scheduling.x-k8s.io/pod-group: big' \
    annotations='arbiter.dev/min-member: "4"'
done | apply_yaml
wait_until "the controller created PodGroup big" 30 pg_exists big
expect "PodGroup big has minMember 4 ($(pg_field big .spec.minMember))" \
  test "$(pg_field big .spec.minMember)" == 4
wait_until "PodGroup big reports why it waits" 30 pg_unschedulable big
holds_for "neither pod of big is bound (2 of minMember 4)" 3 \
  bound_is scheduling.x-k8s.io/pod-group=big 0

# ---- 3. a bad annotation -----------------------------------------------------------------------
pod_yaml bad-0 cpu=1 group=bad annotations='arbiter.dev/min-member: "zero"' | apply_yaml
controller_logged_bad() {
  grep -q 'pod e2e/bad-0: annotation arbiter.dev/min-member: "zero" is not a whole number' \
    "$E2E_TMP/controller.log"
}
wait_until "the controller's log names the bad pod and its annotation" 30 controller_logged_bad
holds_for "no PodGroup bad is made and bad-0 is not bound" 3 \
  eval 'not pg_exists bad && pod_unbound bad-0'

e2e_done
