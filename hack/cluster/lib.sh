# shellcheck shell=bash
# shellcheck disable=SC2034  # variables used by the scripts that source this file
# Shared helpers for hack/cluster/*.sh. Source it; it defines functions and a few variables only.

CLUSTER_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CLUSTER_LIB_DIR/../.." && pwd)"
OUTPUT_DIR="$REPO_ROOT/_output"
CLUSTERS_DIR="$OUTPUT_DIR/cluster"
K8S_MODULE_DIR="$CLUSTER_LIB_DIR/k8s"
export REPO_ROOT

log() { printf '%s %s\n' "[$(date +%H:%M:%S)]" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# version_ge A B: true if Go-style version A (1.26.8, 1.26, 1.26rc1) >= B.
version_ge() {
  local a b
  a="${1%%[a-z]*}"
  b="${2%%[a-z]*}"
  local IFS=.
  # shellcheck disable=SC2206
  local -a x=($a) y=($b)
  local i
  for i in 0 1 2; do
    local p="${x[i]:-0}" q="${y[i]:-0}"
    ((10#$p > 10#$q)) && return 0
    ((10#$p < 10#$q)) && return 1
  done
  return 0
}

# require_go [MIN]: puts a Go toolchain on PATH and checks its version against MIN (default: the
# `go` line of hack/cluster/k8s/go.mod). Debian's golang package is far too old for Kubernetes.
require_go() {
  local min="${1:-}"
  if [[ -z "$min" && -f "$K8S_MODULE_DIR/go.mod" ]]; then
    min="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$K8S_MODULE_DIR/go.mod")"
  fi
  min="${min:-1.26.0}"
  if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
    PATH="/usr/local/go/bin:$PATH"
  fi
  command -v go >/dev/null 2>&1 ||
    die "Go >= $min is required to build the local cluster (kube-apiserver, etcd, kwok), but 'go' was not found. Install Go $min or newer from the Go project (Debian's golang is too old) and put it on PATH (e.g. /usr/local/go/bin)."
  local have
  have="$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null)"
  have="${have#go}"
  version_ge "$have" "$min" ||
    die "Go $have at $(command -v go) is too old: k8s.io/kubernetes@${K8S_VERSION:-?} needs Go >= $min. Install a newer Go and put it first on PATH."
  GO_VERSION="$have"
  export PATH
}

# pick_ports N: prints N distinct free TCP ports on 127.0.0.1, one per line. Ports are drawn from
# 20000-32767, below Linux' ephemeral range, so outgoing connections cannot take them meanwhile;
# each is checked by binding it. Call it under cluster_lock so that concurrent up.sh runs do not
# pick the same port.
pick_ports() {
  local n="$1" py=""
  for py in /usr/bin/python3 python3; do command -v "$py" >/dev/null 2>&1 && break; py=""; done
  if [[ -n "$py" ]]; then
    "$py" - "$n" <<'EOF'
import random, socket, sys
n = int(sys.argv[1]); got = []
while len(got) < n:
    p = random.randint(20000, 32767)
    if p in got:
        continue
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    got.append(p)
print("\n".join(map(str, got)))
EOF
  else
    local -a got=()
    local p
    while ((${#got[@]} < n)); do
      p=$((20000 + RANDOM % 12768))
      [[ " ${got[*]} " == *" $p "* ]] && continue
      [[ -n "$(ss -Htan "( sport = :$p )" 2>/dev/null)" ]] && continue
      got+=("$p")
    done
    printf '%s\n' "${got[@]}"
  fi
}

# pid_alive PID: true if PID runs and is not a zombie.
pid_alive() {
  local st
  [[ "$1" =~ ^[0-9]+$ ]] || return 1
  st="$(sed -E 's/^.*\) ([A-Za-z]).*$/\1/' "/proc/$1/stat" 2>/dev/null || true)"
  [[ -n "$st" && "$st" != Z && "$st" != X ]]
}

# pid_is PID COMPONENT: true if PID is alive and still runs the binary up.sh started for
# COMPONENT (argv[0] ends in /COMPONENT), so that a recycled pid is never mistaken for ours.
pid_is() {
  local argv0
  pid_alive "$1" || return 1
  argv0="$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n1 || true)"
  [[ "$argv0" == */"$2" || "$argv0" == "$2" ]]
}

# valid_name NAME: cluster names become directory names.
valid_name() {
  [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$ ]]
}
