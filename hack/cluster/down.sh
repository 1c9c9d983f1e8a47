#!/usr/bin/env bash
# Stops a local cluster started by up.sh: exactly the processes in its pid files, then removes
# its state (including etcd's data on tmpfs).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: hack/cluster/down.sh [--name NAME | --all] [--keep-logs] [--timeout SEC]

Stops the processes that hack/cluster/up.sh started for cluster NAME (default:
local), by the pids in _output/cluster/NAME/*.pid (never by process name): SIGTERM,
then SIGKILL after --timeout seconds (default: 20), and waits until they are gone.
Then removes etcd's data directory (tmpfs), the cluster's port reservations and
_output/cluster/NAME.

Options:
  --name NAME   the cluster to stop (default: local)
  --all         stop every cluster under _output/cluster/
  --keep-logs   keep _output/cluster/NAME (logs, certificates, kubeconfig); only the
                pid files and etcd data are removed
  --timeout SEC seconds to wait after SIGTERM before SIGKILL (default: 20)
  -h, --help    show this help
Stopping a cluster that is not running is not an error.
EOF
}

names=()
all=0
keep_logs=0
timeout=20
while (($#)); do
  case "$1" in
    --name) [[ -n "${2:-}" ]] || { echo "error: --name needs a value" >&2; exit 2; }; names+=("$2"); shift ;;
    --name=*) names+=("${1#*=}") ;;
    --all) all=1 ;;
    --keep-logs) keep_logs=1 ;;
    --timeout) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "error: --timeout needs seconds" >&2; exit 2; }; timeout="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"

if ((all)); then
  names=()
  for d in "$CLUSTERS_DIR"/*/; do
    [[ -d "$d" ]] && names+=("$(basename "$d")")
  done
  ((${#names[@]})) || { log "no clusters under $CLUSTERS_DIR"; exit 0; }
elif ((${#names[@]} == 0)); then
  names=(local)
fi

# Components whose pid files are read. Each pid file's process must still be the binary up.sh
# started (pid_is), so a recycled pid is never signalled.
components=(kube-controller-manager kube-scheduler kwok kube-apiserver etcd)

# stop_group TIMEOUT COMPONENT:PID...: SIGTERM to all, SIGKILL to those still alive after
# TIMEOUT seconds, then waits until all are gone.
stop_group() {
  local secs="$1" item
  shift
  (($#)) || return 0
  for item in "$@"; do kill -TERM "${item#*:}" 2>/dev/null || true; done
  local deadline=$((SECONDS + secs)) killed=0 left
  while :; do
    left=0
    for item in "$@"; do pid_alive "${item#*:}" && left=$((left + 1)); done
    ((left == 0)) && return 0
    if ((!killed && SECONDS >= deadline)); then
      for item in "$@"; do
        if pid_alive "${item#*:}"; then
          log "${item%%:*} (pid ${item#*:}) did not exit ${secs}s after SIGTERM; sending SIGKILL"
          kill -KILL "${item#*:}" 2>/dev/null || true
        fi
      done
      killed=1
    fi
    sleep 0.1
  done
}

stop_cluster() {
  local name="$1" dir="$CLUSTERS_DIR/$1"
  valid_name "$name" || { log "invalid cluster name '$name'"; return 1; }
  [[ -d "$dir" ]] || { log "cluster '$name' is not running (no $dir)"; return 0; }

  # Clients first, then the apiserver, then etcd, so that none hangs on a server already gone.
  local -a clients=() apiserver=() etcd=() stopped=()
  local c pid
  for c in "${components[@]}"; do
    [[ -f "$dir/$c.pid" ]] || continue
    pid="$(cat "$dir/$c.pid")"
    pid_is "$pid" "$c" || continue
    case "$c" in
      kube-apiserver) apiserver+=("$c:$pid") ;;
      etcd) etcd+=("$c:$pid") ;;
      *) clients+=("$c:$pid") ;;
    esac
    stopped+=("$c")
  done
  stop_group "$timeout" "${clients[@]}"
  stop_group "$timeout" "${apiserver[@]}"
  stop_group "$timeout" "${etcd[@]}"
  if ((${#stopped[@]})); then log "stopped cluster '$name': ${stopped[*]}"; fi

  # etcd data (on tmpfs); only paths up.sh makes are removed.
  if [[ -f "$dir/etcd-data-dir" ]]; then
    local data
    data="$(cat "$dir/etcd-data-dir")"
    if [[ "$data" == /dev/shm/arbiter-etcd-"$name".* || "$data" == "$dir/etcd-data" ]]; then
      rm -rf "$data"
    fi
  fi
  # Port reservations made by up.sh.
  local ports_dir="${ARBITER_PORTS_DIR:-${TMPDIR:-/tmp}/arbiter-cluster-ports}" p
  if [[ -f "$dir/ports" ]]; then
    while read -r p; do
      [[ "$p" =~ ^[0-9]+$ && -f "$ports_dir/$p" && "$(cat "$ports_dir/$p")" == "$dir" ]] && rm -f "$ports_dir/$p"
    done <"$dir/ports"
  fi
  if ((keep_logs)); then
    rm -f "$dir"/*.pid "$dir/etcd-data-dir" "$dir/ports"
  else
    rm -rf "$dir"
  fi
}

rc=0
for n in "${names[@]}"; do stop_cluster "$n" || rc=1; done
exit "$rc"
