#!/usr/bin/env bash
# The container image (issue 16), as hack/image.sh builds it here without a container engine:
#  1. _output/arbiter-image.tar is an OCI archive that skopeo reads, tagged arbiter:VERSION;
#  2. its configuration runs /usr/local/bin/arbiter-scheduler as user 65532:65532 (not root);
#  3. its root filesystem has the three binaries and no shell;
#  4. unpacked, each binary runs from the image's own files alone (chroot), as user 65532, on a
#     read-only root, and reports the version the build reports.
# Usage: tests/cli/image_test.sh, after a build (needs root, as chroot and mount do; CI runs as
# root).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; }
[[ $(id -u) == 0 ]] || fail "needs root (chroot, mount)"

out=$(hack/image.sh --no-build)
echo "$out"
archive=_output/arbiter-image.tar
[[ -f $archive ]] || fail "hack/image.sh wrote no $archive"
version=$(build/bin/arbiter-scheduler --version | awk '{print $2}')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skopeo copy --quiet "oci-archive:$archive:arbiter:$version" "oci:$tmp/oci:arbiter" ||
  fail "skopeo cannot read arbiter:$version from $archive"
pass "$archive is an OCI archive of arbiter:$version"
umoci unpack --rootless --image "$tmp/oci:arbiter" "$tmp/bundle" >/dev/null
python3 - "$tmp/bundle/config.json" <<'EOF' || fail "the image's configuration is not as expected"
import json, sys
process = json.load(open(sys.argv[1]))["process"]
assert process["user"]["uid"] == 65532 and process["user"]["gid"] == 65532, process["user"]
assert process["args"] == ["/usr/local/bin/arbiter-scheduler"], process["args"]
EOF
pass "it runs /usr/local/bin/arbiter-scheduler as 65532:65532"

rootfs=$tmp/bundle/rootfs
for b in arbiter-scheduler arbiter-controller arbiterctl; do
  [[ -x $rootfs/usr/local/bin/$b ]] || fail "no /usr/local/bin/$b in the image"
done
for sh in bin/sh bin/bash usr/bin/sh usr/bin/bash; do
  [[ ! -e $rootfs/$sh ]] || fail "the image has a shell: /$sh"
done
pass "it holds the three binaries and no shell"

# run_in_image CMD ARGS...: CMD from the image's files only (chroot), on a read-only root (a bind
# mount remounted read-only, in a mount namespace of its own), as user 65532.
run_in_image() {
  # shellcheck disable=SC2016  # expanded by the inner sh
  unshare --mount sh -c 'root=$1; shift; mount --bind "$root" "$root" &&
    mount -o remount,bind,ro "$root" && chroot --userspec=65532:65532 "$root" "$@"' sh "$rootfs" "$@"
}
for b in arbiter-scheduler arbiter-controller; do
  got=$(run_in_image "/usr/local/bin/$b" --version) || fail "$b does not run from the image"
  [[ $got == "$b $version "* ]] || fail "$b in the image reports \"$got\", not version $version"
  pass "$b runs from the image as 65532 on a read-only root: $got"
done
got=$(run_in_image /usr/local/bin/arbiterctl --help) || fail "arbiterctl does not run from the image"
[[ $got == *"Arbiter's command line"* ]] || fail "arbiterctl in the image printed: $got"
pass "arbiterctl runs from the image"
echo "PASSED: image_test"
