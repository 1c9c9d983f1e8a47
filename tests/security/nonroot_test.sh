#!/usr/bin/env bash
# Security (issue 20): the daemons run as an arbitrary non-root user on a read-only root. The
# image's root filesystem (hack/image.sh --rootfs: the binaries and their libraries, nothing else)
# is bind-mounted read-only in a mount namespace of its own, with the ServiceAccount's files
# mounted where a pod has them; arbiter-scheduler runs in it (chroot) as user 4242 and
# arbiter-controller as user 4343, neither of which the image names, as in a pod of an
# OpenShift-style cluster that picks the UID. They schedule a pod and run a BatchJob (the
# controller makes its PodGroup and pods, the scheduler binds them), and each process is shown to
# run with that UID and a read-only root. Needs root (chroot, mount; CI runs as root).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=../reliability/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../reliability/lib.sh"

[[ $(id -u) == 0 ]] || skip "needs root (chroot, mount)"
e2e_setup nonroot --nodes 2 --node-cpu 8
rootfs=$E2E_TMP/rootfs
(cd "$E2E_ROOT" && hack/image.sh --rootfs "$rootfs") >"$E2E_TMP/image.log" 2>&1 ||
  { cat "$E2E_TMP/image.log"; fail "hack/image.sh --rootfs failed"; }
sa_mount=/var/run/secrets/kubernetes.io/serviceaccount
mkdir -p "$rootfs$sa_mount"
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
hostport=${server#https://}

# run_as NAME UID ARGS...: build/bin's NAME as it is in the image, as UID, its ServiceAccount's
# files readable by anyone (the kubelet's default mode 0644) at the pod path; log in
# $E2E_TMP/NAME.log. The process keeps the pid of the background job (every step execs).
run_as() {
  local name=$1 uid=$2 sa files=$E2E_TMP/mounted-$1
  shift 2
  sa=$(e2e_service_account "$name")
  mkdir -p "$files"
  cp "$sa/token" "$sa/ca.crt" "$sa/namespace" "$files/"
  chmod 0755 "$files"
  chmod 0644 "$files"/*
  # shellcheck disable=SC2016  # expanded by the inner sh
  exec env -i PATH="$PATH" KUBERNETES_SERVICE_HOST="${hostport%:*}" KUBERNETES_SERVICE_PORT="${hostport##*:}" \
    unshare --mount sh -c 'root=$1 files=$2 at=$3 uid=$4; shift 4
      mount --make-rprivate / && mount --bind "$root" "$root" &&
        mount --bind "$files" "$root$at" && mount -o remount,bind,ro "$root" &&
        exec chroot --userspec="$uid:$uid" "$root" "$@"' \
    sh "$rootfs" "$files" "$sa_mount" "$uid" "/usr/local/bin/$name" "$@"
}
run_as arbiter-scheduler 4242 --period 1s -v 2 </dev/null >"$E2E_TMP/scheduler.log" 2>&1 &
E2E_SCHEDULER_PID=$!
wait_until "arbiter-scheduler (user 4242) started and created Queue default" 30 \
  queue_exists default
run_as arbiter-controller 4343 --period 1s -v 2 </dev/null >"$E2E_TMP/controller.log" 2>&1 &
E2E_CONTROLLER_PID=$!

# runs_as PID UID: the process's real and effective UIDs and GIDs are UID, and its root is a
# read-only mount.
runs_as() {
  awk -v u="$2" '($1 == "Uid:" || $1 == "Gid:") && !($2 == u && $3 == u) {bad = 1} END {exit bad}' \
    "/proc/$1/status"
}
root_read_only() {
  # Field 5 of mountinfo is the mount point as the process sees it, field 6 its options.
  awk '$5 == "/" && $6 ~ /(^|,)ro(,|$)/ {found = 1} END {exit !found}' "/proc/$1/mountinfo"
}
expect "arbiter-scheduler runs as user and group 4242" runs_as "$E2E_SCHEDULER_PID" 4242
expect "on a read-only root" root_read_only "$E2E_SCHEDULER_PID"
# (Until it has exec'd, the controller's pid is still unshare's or chroot's, run as root.)
wait_until "arbiter-controller runs as user and group 4343" 10 runs_as "$E2E_CONTROLLER_PID" 4343
expect "on a read-only root" root_read_only "$E2E_CONTROLLER_PID"
# write_refused PID: in the process's mount namespace, even root cannot write to its root.
write_refused() {
  local out
  out=$(nsenter --target "$1" --mount touch "$rootfs/probe" 2>&1) && return 1
  grep -q "Read-only file system" <<<"$out"
}
expect "nothing can be written there (not even by root)" write_refused "$E2E_SCHEDULER_PID"

pod_yaml single cpu=1 runfor=1h | apply_yaml
wait_until "the scheduler binds a pod" 30 bound_is e2e=true 1
workers_yaml trainer 3 1 | apply_yaml
wait_until "the controller runs a BatchJob: its 3 pods are made and bound" 60 \
  bound_is arbiter.dev/job-name=trainer 3
check_invariants --settled
e2e_done
