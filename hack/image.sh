#!/usr/bin/env bash
# Builds Arbiter's container image without a container engine or a registry: a root filesystem of
# the three binaries and exactly the shared libraries they load (from this machine's Debian
# packages), a non-root user, no shell; packed as an OCI image with umoci and written as an OCI
# archive with skopeo (both Debian packages).
#
#   hack/image.sh                    # build (hack/build.sh), then _output/arbiter-image.tar
#   hack/image.sh --no-build         # from build/bin as it is (tests/cli/image_test.sh)
#   hack/image.sh --rootfs DIR       # only the root filesystem, into DIR (what the Dockerfile
#                                    # copies into its `scratch` stage, so both make one image)
#
# The image: /usr/local/bin/{arbiter-scheduler,arbiter-controller,arbiterctl}, their libraries
# under the paths the loader finds them at, /etc/passwd and /etc/group naming user `arbiter`
# (65532), /etc/nsswitch.conf and /etc/hosts for glibc's host lookups, an empty /tmp to mount a
# volume on; nothing else. Entrypoint arbiter-scheduler, user 65532:65532; the controller's
# Deployment sets its command. It runs with a read-only root filesystem: nothing writes to it.
# Prints the archive's path and its size, and the unpacked size.
set -euo pipefail
cd "$(dirname "$0")/.."

rootfs_only=""
build=true
while (($#)); do
  case $1 in
    --rootfs) rootfs_only=$2; shift 2 ;;
    --no-build) build=false; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "image.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

binaries=(arbiter-scheduler arbiter-controller arbiterctl)
uid=65532

# make_rootfs DIR: the root filesystem, from build/bin.
make_rootfs() {
  local root=$1 b lib real
  rm -rf "$root"
  mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp"
  chmod 1777 "$root/tmp"
  for b in "${binaries[@]}"; do
    [[ -x build/bin/$b ]] || { echo "image.sh: build/bin/$b is missing (hack/build.sh)" >&2; exit 1; }
    # Debug information stays in build/; the image carries the code only.
    strip --strip-unneeded -o "$root/usr/local/bin/$b" "build/bin/$b"
  done
  # Every library the binaries load, at the path the loader resolved (ldd), and the loader.
  while read -r lib; do
    [[ -n $lib ]] || continue
    real=$(readlink -f "$lib")
    mkdir -p "$root$(dirname "$lib")"
    cp "$real" "$root$lib"
  done < <(for b in "${binaries[@]}"; do
    ldd "build/bin/$b" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
  done | sort -u)
  printf 'root:x:0:0:root:/:/sbin/nologin\narbiter:x:%d:%d:arbiter:/:/sbin/nologin\n' "$uid" "$uid" \
    >"$root/etc/passwd"
  printf 'root:x:0:\narbiter:x:%d:\n' "$uid" >"$root/etc/group"
  # glibc reads these for host lookups (a kubeconfig or webhook URL naming a host).
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
  : >"$root/etc/hosts"
}

if [[ -n $rootfs_only ]]; then
  make_rootfs "$rootfs_only"
  exit 0
fi

hack/install-deps.sh
if $build; then
  hack/build.sh --target arbiter-scheduler --target arbiter-controller --target arbiterctl >/dev/null
fi
# What the binaries report (the commit they were configured at), so the labels cannot disagree.
version=$(build/bin/arbiter-scheduler --version | awk '{print $2}')
revision=$(build/bin/arbiter-scheduler --version | sed -E 's/.*\((.*)\)$/\1/')

work=_output/image
rm -rf "$work"
mkdir -p "$work"
make_rootfs "$work/rootfs"

# An OCI layout with one image; its layer is the root filesystem, owned by root and read-only for
# the user (umoci records ownership as it finds it; --rootless records it as root).
layout="$work/oci"
umoci init --layout "$layout"
umoci new --image "$layout:arbiter"
umoci unpack --rootless --image "$layout:arbiter" "$work/bundle" >/dev/null
rm -rf "$work/bundle/rootfs"
cp -a "$work/rootfs" "$work/bundle/rootfs"
umoci repack --image "$layout:arbiter" "$work/bundle"
umoci config --image "$layout:arbiter" \
  --config.user "$uid:$uid" \
  --config.entrypoint /usr/local/bin/arbiter-scheduler \
  --config.workingdir / \
  --config.env PATH=/usr/local/bin \
  --config.label "org.opencontainers.image.title=arbiter" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=$revision" \
  --config.label "org.opencontainers.image.source=https://github.com/arbiter-dev/arbiter" \
  --architecture amd64 --os linux
umoci gc --layout "$layout"

archive=_output/arbiter-image.tar
rm -f "$archive"
skopeo copy --quiet "oci:$layout:arbiter" "oci-archive:$archive:arbiter:$version"
echo "image: $archive (arbiter:$version, revision $revision)"
echo "size: $(du -h "$archive" | cut -f1) archive (compressed layer), $(du -sh "$work/rootfs" | cut -f1) unpacked"
