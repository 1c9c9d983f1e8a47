#!/usr/bin/env bash
# Test fixture: runs a command against a fresh local cluster and always stops the cluster.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: hack/cluster/with-cluster.sh [up.sh options] -- COMMAND [ARGS...]

Starts a local cluster with hack/cluster/up.sh (a unique --name unless one is
given), exports KUBECONFIG (and ARBITER_CLUSTER_NAME, ARBITER_CLUSTER_ENV, the
path of its cluster.env), runs COMMAND, then stops the cluster with
hack/cluster/down.sh, also when COMMAND fails or the script is interrupted.
Exits with COMMAND's exit code (or up.sh's, if the cluster did not start).

If KUBECONFIG is set and ARBITER_REUSE_CLUSTER=1, no cluster is started: COMMAND
runs against that KUBECONFIG's cluster, which is left running.

Set ARBITER_KEEP_CLUSTER_LOGS=1 to keep _output/cluster/NAME (logs) after the run.

Example:
  hack/cluster/with-cluster.sh --nodes 4 --with-kube-scheduler -- kubectl get nodes
EOF
}

up_args=()
while (($#)); do
  case "$1" in
    --) shift; break ;;
    -h|--help) usage; exit 0 ;;
    *) up_args+=("$1"); shift ;;
  esac
done
(($#)) || { echo "error: no command given (put it after --)" >&2; usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -n "${KUBECONFIG:-}" && "${ARBITER_REUSE_CLUSTER:-0}" == 1 ]]; then
  echo "with-cluster: reusing the cluster of KUBECONFIG=$KUBECONFIG" >&2
  exec "$@"
fi

name=""
for ((i = 0; i < ${#up_args[@]}; i++)); do
  case "${up_args[i]}" in
    --name) name="${up_args[i + 1]:-}" ;;
    --name=*) name="${up_args[i]#*=}" ;;
  esac
done
if [[ -z "$name" ]]; then
  name="wc-$$-$RANDOM"
  up_args+=(--name "$name")
fi

down_args=(--name "$name")
[[ "${ARBITER_KEEP_CLUSTER_LOGS:-0}" == 1 ]] && down_args+=(--keep-logs)
stopped=0
# shellcheck disable=SC2317  # called from the traps
stop() {
  ((stopped)) && return 0
  stopped=1
  "$here/down.sh" "${down_args[@]}" >&2 || echo "with-cluster: down.sh failed for cluster $name" >&2
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

rc=0
out="$("$here/up.sh" "${up_args[@]}")" || rc=$?
if ((rc != 0)); then
  echo "with-cluster: up.sh failed (exit $rc)" >&2
  exit "$rc"
fi
kubeconfig="${out##*export KUBECONFIG=}"
[[ -f "$kubeconfig" ]] || { echo "with-cluster: unexpected up.sh output: $out" >&2; exit 1; }
export KUBECONFIG="$kubeconfig"
export ARBITER_CLUSTER_NAME="$name"
export ARBITER_CLUSTER_ENV
ARBITER_CLUSTER_ENV="$(dirname "$kubeconfig")/cluster.env"

# Run COMMAND in the background and wait for it, so that a SIGTERM/SIGINT to this script is
# handled at once (bash defers traps until a foreground child exits): the command gets the
# signal too, and the cluster is stopped. Explicit <&0 keeps the caller's stdin.
"$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true; stop; exit 143' TERM
trap 'kill -INT "$child" 2>/dev/null || true; stop; exit 130' INT
rc=0
wait "$child" || rc=$?
exit "$rc"
