#!/usr/bin/env bash
# The API server's protobuf encoding against its JSON on the same captured PodList (issue 19,
# Deliver 3). Builds bench/proto/podlist_proto_bench.cc against the C++ code protoc generates from
# the .proto files of the k8s.io/api and k8s.io/apimachinery Go modules that the local control
# plane pins (hack/cluster/k8s/go.mod; fetched from the Go module proxy, nothing kept in the
# checkout), then runs it and decode_bench's BM_DecodeCapturedPodList side by side.
#
#   bench/proto/run.sh [--repetitions N]
#
# Needs a release build (hack/build.sh) and a capture (bench/capture-podlist.sh; taken here when
# _output/bench/podlist.pb is missing). Generated code and objects go to _output/bench/proto/; the
# first build compiles core/v1's 4 MB of generated C++ (several minutes on 2 cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
repetitions=5
while (($#)); do
  case "$1" in
    --repetitions) repetitions="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

hack/install-deps.sh
[[ -x build/bench/decode_bench ]] || { echo "no build/bench/decode_bench: run hack/build.sh" >&2; exit 2; }
[[ -s _output/bench/podlist.pb && -s _output/bench/podlist.json ]] || bench/capture-podlist.sh

out=_output/bench/proto
mkdir -p "$out/include/k8s.io" "$out/gen"
modules=(k8s.io/api k8s.io/apimachinery)
(cd hack/cluster/k8s && go mod download "${modules[@]}")
while read -r path dir; do
  [[ -d $dir ]] || { echo "no module directory for $path" >&2; exit 1; }
  ln -sfn "$dir" "$out/include/$path"
done < <(cd hack/cluster/k8s &&
  go list -m -f '{{.Path}} {{if .Replace}}{{.Replace.Dir}}{{else}}{{.Dir}}{{end}}' "${modules[@]}")

protos=(
  k8s.io/api/core/v1/generated.proto
  k8s.io/apimachinery/pkg/api/resource/generated.proto
  k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
  k8s.io/apimachinery/pkg/runtime/generated.proto
  k8s.io/apimachinery/pkg/runtime/schema/generated.proto
  k8s.io/apimachinery/pkg/util/intstr/generated.proto
)
# Generated apart and moved in only where it differs, so that unchanged objects are not rebuilt.
rm -rf "$out/gen.new" && mkdir -p "$out/gen.new"
protoc -I"$out/include" --cpp_out="$out/gen.new" "${protos[@]}" 2>/dev/null
(cd "$out/gen.new" && find . -type f) | while read -r f; do
  if ! cmp -s "$out/gen.new/$f" "$out/gen/$f"; then
    mkdir -p "$(dirname "$out/gen/$f")" && mv "$out/gen.new/$f" "$out/gen/$f"
  fi
done
rm -rf "$out/gen.new"
flags=(-std=c++20 -O2 -DNDEBUG -I"$out/gen")
objects=()
for proto in "${protos[@]}"; do
  cc="$out/gen/${proto%.proto}.pb.cc"
  obj="$out/obj/${proto%.proto}.o"
  objects+=("$obj")
  [[ -s $obj && $obj -nt $cc ]] && continue
  mkdir -p "$(dirname "$obj")"
  echo "compiling $cc ..." >&2
  g++ "${flags[@]}" -c "$cc" -o "$obj"
done
# With the release binaries' allocator and its huge pages (CMakeLists.txt, ARBITER_ALLOCATOR), as
# decode_bench has them.
g++ "${flags[@]}" bench/proto/podlist_proto_bench.cc src/arbiter/cmd/mimalloc_options.cc \
  "${objects[@]}" -o "$out/podlist_proto_bench" \
  -Wl,--push-state,--no-as-needed -lmimalloc -Wl,--pop-state -lprotobuf -lbenchmark -lpthread

common=(--benchmark_min_time=1 --benchmark_repetitions="$repetitions"
        --benchmark_report_aggregates_only=true)
echo "== protobuf (_output/bench/podlist.pb, $(du -h _output/bench/podlist.pb | cut -f1))"
ARBITER_CAPTURED_PODLIST_PB=_output/bench/podlist.pb "$out/podlist_proto_bench" "${common[@]}" 2>&1 |
  grep -E 'median|stddev'
echo "== JSON (_output/bench/podlist.json, $(du -h _output/bench/podlist.json | cut -f1))"
ARBITER_CAPTURED_PODLIST=_output/bench/podlist.json build/bench/decode_bench \
  --benchmark_filter=Captured "${common[@]}" 2>&1 | grep -E 'median|stddev'
