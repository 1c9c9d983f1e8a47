#!/usr/bin/env bash
# Regenerates go.mod, go.sum and tools.go of this module for one k8s.io/kubernetes release.
# Only needed when moving to another release; the generated files are committed.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: hack/cluster/k8s/update.sh [KUBERNETES_VERSION]

Regenerates hack/cluster/k8s/{go.mod,go.sum,tools.go} for one k8s.io/kubernetes
release (default: the one in versions.env). Steps:
  1. read the release's go.mod from the Go module proxy (go mod download -json);
  2. add a `replace k8s.io/X => k8s.io/X v0.<minor>.<patch>` for every
     `k8s.io/X => ./staging/...` line in it (Go ignores a dependency's replaces);
  3. copy its `go` and `godebug` lines;
  4. require k8s.io/kubernetes and etcdctl at the etcd version kubernetes selects;
  5. go mod tidy, then check that no module kubernetes pins was moved;
  6. write K8S_VERSION and ETCD_VERSION into versions.env.
Then run hack/cluster/build.sh (the cache key changes with go.sum).
EOF
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"
k8s_version="${1:-$K8S_VERSION}"
staging_version="v0.${k8s_version#v1.}"

# shellcheck source=../lib.sh
source "$here/../lib.sh"
require_go ""

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

gomod="$(go mod download -json "k8s.io/kubernetes@${k8s_version}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
[[ -f "$gomod" ]] || die "could not fetch go.mod of k8s.io/kubernetes@${k8s_version}"

go mod init arbiter.dev/hack/cluster/k8s >/dev/null 2>&1
go_line="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")"
go mod edit -go="$go_line"
while read -r _ kv; do go mod edit -godebug="$kv"; done < <(grep -E '^godebug [a-z]' "$gomod" || true)

mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/.*#\1#p' "$gomod" | sort -u)
((${#staging[@]} > 0)) || die "no staging replaces found in $gomod"
for m in "${staging[@]}"; do
  go mod edit -replace="${m}=${m}@${staging_version}"
done
echo "staging modules replaced: ${#staging[@]} at ${staging_version}" >&2

cat >tools.go <<'EOF'
//go:build tools

// Package tools pins the commands that hack/cluster/build.sh builds. It is never compiled
// (build tag "tools"); it only keeps the packages in go.mod and go.sum.
package tools

import (
	_ "go.etcd.io/etcd/etcdctl/v3"
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
EOF

go get "k8s.io/kubernetes@${k8s_version}"
etcd_version="$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
go get "go.etcd.io/etcd/server/v3@${etcd_version}" "go.etcd.io/etcd/etcdctl/v3@${etcd_version}"
go mod tidy

# Every module that kubernetes requires must keep the version kubernetes chose: adding etcdctl
# must not upgrade anything the apiserver links.
moved=0
declare -A selected=()
while read -r mod ver; do selected[$mod]="$ver"; done < <(
  go list -m -f '{{.Path}} {{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}' all)
while read -r mod ver; do
  sel="${selected[$mod]:-}"
  if [[ -n "$sel" && "$sel" != "$ver" && "$ver" != "v0.0.0" ]]; then
    echo "warning: $mod: kubernetes pins $ver, this module selects $sel" >&2
    moved=1
  fi
done < <(awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&NF>=2{print $1, $2}' "$gomod")

cp go.mod go.sum tools.go "$here/"
sed -i -e "s/^K8S_VERSION=.*/K8S_VERSION=${k8s_version}/" -e "s/^ETCD_VERSION=.*/ETCD_VERSION=${etcd_version}/" \
  "$here/versions.env"
echo "k8s.io/kubernetes ${k8s_version}, etcd ${etcd_version}, staging ${staging_version}" >&2
((moved == 0)) || echo "warning: see above; some versions differ from kubernetes' own go.mod" >&2
