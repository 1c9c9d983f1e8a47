#!/usr/bin/env bash
# Configures and builds Arbiter with a CMake preset (CMakePresets.json).
#   hack/build.sh [--preset release|debug|asan|fuzz] [--target T]...
# release (the default) builds in build/, executables in build/bin/; other presets in build-<preset>/.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
targets=()
while (($#)); do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --preset=*) preset=${1#*=}; shift ;;
    --target) targets+=(--target "$2"); shift 2 ;;
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

hack/install-deps.sh
# Compiles are cached outside the checkout (ccache keyed on paths relative to it), so that a
# fresh clone on the same machine, which is what CI builds, recompiles only what changed.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/arbiter/ccache}"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "${targets[@]}"
