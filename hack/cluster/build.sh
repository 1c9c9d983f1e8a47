#!/usr/bin/env bash
# Builds the local control plane's binaries from the Go module proxy, caches them outside the
# checkout and links them into _output/bin. Idempotent: with a warm cache it only re-links.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: hack/cluster/build.sh [--force] [-h|--help]

Builds kube-apiserver, kube-scheduler, kube-controller-manager, kubectl, etcd and
etcdctl from the Go module in hack/cluster/k8s (one pinned k8s.io/kubernetes
release, etcd at the version that release selects) and kwok (go install
sigs.k8s.io/kwok/cmd/kwok@KWOK_VERSION). Versions: hack/cluster/k8s/versions.env.

Binaries are cached outside the checkout, keyed by the versions and a hash of
go.mod/go.sum, and symlinked into _output/bin/. A second run with the same
versions only checks the cache and re-links (well under a second). A cold build
takes roughly 10-25 minutes on 2 cores.

Options:
  --force     rebuild even if the cache has the binaries
  -h, --help  show this help

Environment:
  ARBITER_CACHE_DIR   cache root (default: ${XDG_CACHE_HOME:-$HOME/.cache}/arbiter)
  ARBITER_BUILD_JOBS  go build -p value (default: 2)

Requires Go >= the `go` line of hack/cluster/k8s/go.mod (1.26.0 for v1.36.3).
Prints the cache directories and _output/bin on success.
EOF
}

force=0
while (($#)); do
  case "$1" in
    --force) force=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=k8s/versions.env
source "$K8S_MODULE_DIR/versions.env"

# Bump when the build recipe (flags, ldflags, binary set) changes, so old caches are not reused.
RECIPE=1

cache_root="${ARBITER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/arbiter}"
mod_hash="$(cat "$K8S_MODULE_DIR/go.mod" "$K8S_MODULE_DIR/go.sum" "$K8S_MODULE_DIR/tools.go" | sha256sum | cut -c1-12)"
k8s_dir="$cache_root/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}-r${RECIPE}-${mod_hash}"
kwok_dir="$cache_root/kwok-${KWOK_VERSION}-r${RECIPE}${KWOK_GOTOOLCHAIN:+-$KWOK_GOTOOLCHAIN}"
k8s_bins=(kube-apiserver kube-scheduler kube-controller-manager kubectl etcd etcdctl)

have_all() { # DIR NAME...
  local dir="$1" b
  shift
  [[ -f "$dir/complete" ]] || return 1
  for b in "$@"; do [[ -x "$dir/bin/$b" ]] || return 1; done
}

# mod_file MODULE@VERSION Info|GoMod: prints that file of a module from the module proxy (empty
# output if it cannot be had).
mod_file() {
  local f
  f="$(cd "$K8S_MODULE_DIR" && go mod download -json "$1" 2>/dev/null | sed -n "s/.*\"$2\": \"\(.*\)\".*/\1/p")" || true
  if [[ -n "$f" && -f "$f" ]]; then cat "$f"; fi
}

build_k8s() {
  local out="$k8s_dir/bin.partial"
  rm -rf "$out" "${k8s_dir:?}/bin" "$k8s_dir/complete"
  mkdir -p "$out"

  local ver="$K8S_VERSION" maj min ts
  maj="${ver#v}"; maj="${maj%%.*}"
  min="${ver#v*.}"; min="${min%%.*}"
  # The release's tag time from the proxy, so that buildDate is meaningful and reproducible.
  ts="$(mod_file "k8s.io/kubernetes@${K8S_VERSION}" Info | sed -n 's/.*"Time":"\([^"]*\)".*/\1/p')"
  ts="${ts:-1970-01-01T00:00:00Z}"
  local ldf="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf+=" -X $p.gitVersion=${ver} -X $p.gitMajor=${maj} -X $p.gitMinor=${min}"
    ldf+=" -X $p.gitTreeState=clean -X $p.buildDate=${ts} -X $p.gitCommit="
  done
  # etcd's Version is a constant in the module; only the git SHA is left to stamp.
  ldf+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=module-${ETCD_VERSION}"

  log "building kubernetes ${K8S_VERSION} (kube-apiserver, kube-scheduler, kube-controller-manager, kubectl) and etcd ${ETCD_VERSION} (etcd, etcdctl) with $(go version | cut -d' ' -f3); cold build takes 10-25 min on 2 cores"
  local t0=$SECONDS
  (
    cd "$K8S_MODULE_DIR"
    # One go build for all six commands, so shared packages are compiled once.
    CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=readonly \
      go build -p "${ARBITER_BUILD_JOBS:-2}" -trimpath -buildvcs=false -ldflags "$ldf" -o "$out/" \
        k8s.io/kubernetes/cmd/kube-apiserver \
        k8s.io/kubernetes/cmd/kube-scheduler \
        k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kubectl \
        go.etcd.io/etcd/server/v3 \
        go.etcd.io/etcd/etcdctl/v3
  )
  # The etcd server's package path ends in server/v3, so go names the binary "server".
  mv "$out/server" "$out/etcd"
  mv "$out" "$k8s_dir/bin"
  date -u +%FT%TZ >"$k8s_dir/complete"
  log "kubernetes and etcd built in $((SECONDS - t0))s"
}

build_kwok() {
  local out="$kwok_dir/bin.partial"
  rm -rf "$out" "${kwok_dir:?}/bin" "$kwok_dir/complete"
  mkdir -p "$out"
  log "building kwok ${KWOK_VERSION} (go install sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}${KWOK_GOTOOLCHAIN:+, GOTOOLCHAIN=$KWOK_GOTOOLCHAIN})"
  local t0=$SECONDS
  # Built apart from the kubernetes module: kwok pins its own k8s.io/* versions.
  (
    cd "$out"
    CGO_ENABLED=0 GOTOOLCHAIN="${KWOK_GOTOOLCHAIN:-local}" GOFLAGS="" GOBIN="$out" \
      go install -p "${ARBITER_BUILD_JOBS:-2}" -trimpath -buildvcs=false -ldflags "-s -w" \
        "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
  )
  mv "$out" "$kwok_dir/bin"
  date -u +%FT%TZ >"$kwok_dir/complete"
  log "kwok built in $((SECONDS - t0))s"
}

mkdir -p "$cache_root"
if ((force)) || ! have_all "$k8s_dir" "${k8s_bins[@]}" || ! have_all "$kwok_dir" kwok; then
  require_go ""
  # One build at a time per cache (parallel test runs on a cold machine would otherwise build
  # the same thing twice); the second one finds the cache filled when it gets the lock.
  exec 9>"$cache_root/.build.lock"
  if ! flock -n 9; then
    log "another build holds $cache_root/.build.lock; waiting for it"
    flock 9
  fi
  if ((force)) || ! have_all "$k8s_dir" "${k8s_bins[@]}"; then build_k8s; fi
  if ((force)) || ! have_all "$kwok_dir" kwok; then
    if [[ -z "$KWOK_GOTOOLCHAIN" ]]; then
      kwok_go="$(mod_file "sigs.k8s.io/kwok@${KWOK_VERSION}" GoMod | sed -n 's/^go \([0-9.]*\)$/\1/p')"
      version_ge "$GO_VERSION" "${kwok_go:-0}" ||
        die "kwok ${KWOK_VERSION} needs Go >= ${kwok_go}, this machine has ${GO_VERSION}: set KWOK_GOTOOLCHAIN (e.g. go1.27.3) in hack/cluster/k8s/versions.env or pick an older KWOK_VERSION"
    fi
    build_kwok
  fi
  exec 9>&-
fi

mkdir -p "$OUTPUT_DIR/bin"
for b in "${k8s_bins[@]}"; do ln -sfn "$k8s_dir/bin/$b" "$OUTPUT_DIR/bin/$b"; done
ln -sfn "$kwok_dir/bin/kwok" "$OUTPUT_DIR/bin/kwok"

echo "kubernetes ${K8S_VERSION} + etcd ${ETCD_VERSION}: $k8s_dir/bin"
echo "kwok ${KWOK_VERSION}: $kwok_dir/bin"
echo "linked into: $OUTPUT_DIR/bin"
