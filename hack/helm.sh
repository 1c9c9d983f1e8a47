#!/usr/bin/env bash
# Builds helm from its Go module (go install helm.sh/helm/v3/cmd/helm@HELM_VERSION, from the Go
# module proxy), caches it outside the checkout and links it as _output/bin/helm. Idempotent: with
# the cache filled it only re-links. Prints the path of the helm binary.
#   hack/helm.sh
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION=v3.22.0
cache_root="${ARBITER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/arbiter}"
dir="$cache_root/helm-$HELM_VERSION"
if [[ ! -x $dir/bin/helm ]]; then
  command -v go >/dev/null || { echo "helm.sh: needs Go (the machine's)" >&2; exit 1; }
  mkdir -p "$cache_root"
  exec 9>"$cache_root/.helm.lock"
  flock 9
  if [[ ! -x $dir/bin/helm ]]; then
    echo "helm.sh: building helm $HELM_VERSION (go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION)" >&2
    t0=$SECONDS
    rm -rf "$dir/bin.partial"
    mkdir -p "$dir/bin.partial"
    (
      cd "$dir/bin.partial"
      CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="" GOBIN="$dir/bin.partial" \
        go install -p "${ARBITER_BUILD_JOBS:-2}" -trimpath -buildvcs=false -ldflags "-s -w" \
        "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    )
    rm -rf "${dir:?}/bin"
    mv "$dir/bin.partial" "$dir/bin"
    echo "helm.sh: built in $((SECONDS - t0))s" >&2
  fi
  exec 9>&-
fi
mkdir -p _output/bin
ln -sfn "$dir/bin/helm" _output/bin/helm
echo "$PWD/_output/bin/helm"
