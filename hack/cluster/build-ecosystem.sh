#!/usr/bin/env bash
# Builds a workload controller of the Kubernetes ecosystem from its Go module, for the e2e tests
# that run it against the local cluster (issue 18), and caches it outside the checkout like the
# control plane (hack/cluster/build.sh). Prints the directory that holds bin/ and crds/.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: hack/cluster/build-ecosystem.sh [--force] jobset|kueue

  jobset   the JobSet controller, sigs.k8s.io/jobset@JOBSET_VERSION: bin/jobset, crds/
  kueue    Kueue's manager, sigs.k8s.io/kueue/cmd/kueue@KUEUE_VERSION: bin/kueue, crds/

Versions: hack/cluster/k8s/versions.env. The module is fetched from the Go module proxy at build
time into a throwaway module (go.mod requiring it, nothing else), built with CGO off, and its CRDs
copied from the module's own config/ directory; nothing of it is kept in this repository. A cold
build takes a few minutes on 2 cores; a warm one only checks the cache.

Environment: ARBITER_CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/arbiter),
ARBITER_BUILD_JOBS (go build -p, default 2).
USAGE
}

force=0
what=""
while (($#)); do
  case "$1" in
    --force) force=1 ;;
    -h|--help) usage; exit 0 ;;
    jobset|kueue) what=$1 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[[ -n $what ]] || { usage >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=k8s/versions.env
source "$K8S_MODULE_DIR/versions.env"

# Bump when the recipe changes, so that old caches are not reused.
RECIPE=1
case $what in
  jobset) module=sigs.k8s.io/jobset version=$JOBSET_VERSION package=sigs.k8s.io/jobset crd_dir=config/components/crd/bases ;;
  kueue) module=sigs.k8s.io/kueue version=$KUEUE_VERSION package=sigs.k8s.io/kueue/cmd/kueue crd_dir=config/components/crd/bases ;;
esac
cache_root="${ARBITER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/arbiter}"
dir="$cache_root/$what-$version-r$RECIPE"

if ((force == 0)) && [[ -f $dir/complete && -x $dir/bin/$what ]]; then
  echo "$dir"
  exit 0
fi

require_go ""
mkdir -p "$cache_root"
exec 9>"$cache_root/.build-$what.lock"
flock 9
if ((force == 0)) && [[ -f $dir/complete && -x $dir/bin/$what ]]; then
  echo "$dir"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-build-$what.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A module of our own that requires only this one: `go install pkg@version` would also ask the
# proxy for the module's version list, which the proxy here does not serve.
cat >"$work/go.mod" <<GOMOD
module arbiter.dev/build/$what

go 1.26

require $module $version
GOMOD
printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$package" >"$work/tools.go"
log "building $what ($package@$version) with $(go version | cut -d' ' -f3); a cold build takes a few minutes"
t0=$SECONDS
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/crds"
(
  cd "$work"
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
  go mod tidy >&2
  go build -p "${ARBITER_BUILD_JOBS:-2}" -trimpath -buildvcs=false -ldflags "-s -w" \
    -o "$dir/bin/$what" "$package" >&2
  src=$(go list -m -f '{{.Dir}}' "$module")
  cp "$src/$crd_dir"/*.yaml "$dir/crds/"
  chmod u+w "$dir/crds/"*.yaml
)
date -u +%FT%TZ >"$dir/complete"
log "$what built in $((SECONDS - t0))s"
echo "$dir"
