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
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "${targets[@]}"
