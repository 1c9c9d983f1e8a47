#!/usr/bin/env bash
# Installs, with apt, every Debian package that Arbiter's build, tests, lint and fuzzing need.
# Idempotent: when everything is present it only asks dpkg and returns in well under a second.
# Why each library was chosen: docs/dependencies.md.
set -euo pipefail

# --build: only what building the binaries needs (the Dockerfile's build stage).
build_only=false
[[ ${1:-} == --build ]] && build_only=true

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config git ccache
  # libraries
  libcurl4-openssl-dev libsimdjson-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libcli11-dev libcpp-httplib-dev nlohmann-json3-dev libssl-dev libboost-dev prometheus-cpp-dev
  # the allocator of the release binaries (CMakeLists.txt: ARBITER_ALLOCATOR)
  libmimalloc-dev
  # GoogleTest and Google Benchmark: CMake builds the tests and benchmarks by default
  libgtest-dev libgmock-dev libbenchmark-dev
)
$build_only || packages+=(
  # LLVM 16: libFuzzer (clang, compiler-rt), clang-format and clang-tidy for lint
  clang-16 libclang-rt-16-dev clang-format-16 clang-tidy-16
  # tests and benchmarks (hyperfine times whole commands); a headless Chromium renders the
  # simulator's HTML report in a test
  chromium-headless-shell hyperfine
  # bench/proto/run.sh: the API server's protobuf encoding measured against its JSON
  protobuf-compiler libprotobuf-dev
  # a real Prometheus scrapes the metrics endpoints in a test (promtool checks the exposition)
  prometheus
  # the container image, built without a container engine (hack/image.sh)
  umoci skopeo
  # scripts: the local cluster's certificates, free ports (ss), detached daemons and port locks
  # (setsid, flock), lint of shell scripts. Go itself is the machine's (hack/cluster/build.sh
  # checks its version): Debian's golang is too old to build Kubernetes.
  openssl python3 shellcheck curl ca-certificates iproute2 util-linux
)

missing=()
for p in "${packages[@]}"; do
  if [[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != installed ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to run apt-get" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The unversioned names (used by editors and the before-stop hook) point at LLVM 16 unless the
# machine already has its own.
for tool in clang-format clang-tidy; do
  if ! command -v "$tool" >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]]; then
    update-alternatives --install "/usr/bin/$tool" "$tool" "/usr/bin/$tool-16" 100 >/dev/null
  fi
done
