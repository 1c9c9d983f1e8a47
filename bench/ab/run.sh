#!/usr/bin/env bash
# Compares two builds of a Google Benchmark binary side by side: runs BASE and NEW alternately
# (BASE, NEW, BASE, NEW, ...) so that drift in the machine's load falls on both, and prints per
# benchmark the median real time of each and NEW / BASE.
#
#   bench/ab/run.sh BASE_BINARY NEW_BINARY [--filter REGEX] [--rounds N] [--min-time S]
#                   [--repetitions N]   (each run N times in one process; default 1)
#
# Example (scheduler_bench of a commit before a change, kept aside, against the current build):
#   git worktree add /tmp/base <commit> && (cd /tmp/base && hack/build.sh)
#   bench/ab/run.sh /tmp/base/build/bench/scheduler_bench build/bench/scheduler_bench \
#     --filter 'BM_Session/nodes:(5000|10000)'
set -euo pipefail

base=${1:?usage: $0 BASE_BINARY NEW_BINARY [--filter REGEX] [--rounds N] [--min-time S] [--repetitions N]}
new=${2:?usage: $0 BASE_BINARY NEW_BINARY [--filter REGEX] [--rounds N] [--min-time S] [--repetitions N]}
shift 2
filter=.
rounds=3
min_time=0.5
repetitions=1
while (($#)); do
  case $1 in
    --filter) filter=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --min-time) min_time=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

out=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for side in base new; do
    binary=$base
    [[ $side == new ]] && binary=$new
    echo "round $r/$rounds: $side" >&2
    "$binary" --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
      --benchmark_repetitions="$repetitions" --benchmark_format=json >"$out/$side-$r.json" 2>/dev/null
  done
done

python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = {"base": {}, "new": {}}
order = []
for side in times:
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{out}/{side}-{r}.json"))["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            name = b["name"]
            if name not in order:
                order.append(name)
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
            times[side].setdefault(name, []).append(b["real_time"] * scale)
width = max(len(n) for n in order)
print(f'{"benchmark".ljust(width)}  {"base ms":>10}  {"new ms":>10}  {"new/base":>8}')
for name in order:
    b = statistics.median(times["base"].get(name, [float("nan")]))
    n = statistics.median(times["new"].get(name, [float("nan")]))
    print(f"{name.ljust(width)}  {b:10.3f}  {n:10.3f}  {n / b:8.2f}")
PY
