#!/usr/bin/env bash
# Reruns every micro-benchmark (build/bench/*_bench) and prints, first, the figures issue 19 sets
# targets for, each beside its target and beside the baseline measured in the same binary (the
# naive scan), then every benchmark's time and counters. A regression shows the day it lands.
#
#   bench/micro/run.sh [--min-time SECONDS] [--out DIR]
#
# Raw results: DIR/<bench>.json (Google Benchmark's JSON; default _output/bench/micro-<date>/).
# Needs a release build (hack/build.sh) and python3. Figures depend on the machine and its load:
# quote them in docs/benchmarks.md with the command, commit and machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bench_dir="${BENCH_DIR:-$root/build/bench}"
min_time=0.2
out="$root/_output/bench/micro-$(date -u +%Y%m%dT%H%M%SZ)"
while (($#)); do
  case "$1" in
    --min-time) min_time="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
benches=(scheduler_bench decode_bench quantity_bench fairness_bench metrics_bench)
for b in "${benches[@]}"; do
  [[ -x $bench_dir/$b ]] || { echo "no $bench_dir/$b: run hack/build.sh" >&2; exit 2; }
done
mkdir -p "$out"
for b in "${benches[@]}"; do
  echo "running $b ..." >&2
  "$bench_dir/$b" --benchmark_min_time="$min_time" --benchmark_format=json \
    --benchmark_out="$out/$b.json" --benchmark_out_format=json >/dev/null 2>"$out/$b.log"
done

python3 - "$out" "${benches[@]}" <<'PY'
import json, sys

out, benches = sys.argv[1], sys.argv[2:]
results = {}
for b in benches:
    for r in json.load(open(f"{out}/{b}.json"))["benchmarks"]:
        results[r["name"]] = r

SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

def seconds(name):
    r = results.get(name)
    return None if r is None else r["real_time"] * SCALE[r["time_unit"]]

def counter(name, key):
    r = results.get(name)
    return None if r is None else r.get(key)

nodes = 5000
rows = []  # figure, measured, target, met, baseline

def add(figure, value, unit, target, better, baseline=""):
    if value is None:
        rows.append([figure, "missing", f"{better} {target:g} {unit}", "?", baseline])
        return
    met = value >= target if better == ">=" else value <= target if better == "<=" else value < target
    rows.append([figure, f"{value:,.1f} {unit}", f"{better} {target:g} {unit}",
                 "yes" if met else "NO", baseline])

naive = seconds(f"BM_NaiveScan/nodes:{nodes}/pods:10000")
naive_ns = None if naive is None else naive / (10000 * nodes) * 1e9
naive_note = "" if naive_ns is None else f"naive scan {naive_ns:.1f} ns"
add("identical pods, 5,000 nodes: placements/s",
    counter(f"BM_Session/nodes:{nodes}/gangs:10000/size:1/kinds:1", "pods_per_s"),
    "pods/s", 1_000_000, ">=")
differ = seconds(f"BM_Session/nodes:{nodes}/gangs:10000/size:1/kinds:10000")
add("pods that differ, 5,000 nodes: per node per pod",
    None if differ is None else differ / (10000 * nodes) * 1e9, "ns", 5, "<=", naive_note)
gangs = seconds(f"BM_Session/nodes:{nodes}/gangs:1000/size:3/kinds:1000")
add("1,000 gangs of 3 that differ, 5,000 nodes: per gang",
    None if gangs is None else gangs / 1000 * 1e6, "us", 20, "<")
same = seconds(f"BM_Session/nodes:{nodes}/gangs:1000/size:3/kinds:1")
add("1,000 identical gangs of 3, 5,000 nodes: per gang",
    None if same is None else same / 1000 * 1e6, "us", 20, "<")
preempt = seconds(f"BM_SessionPreempt/nodes:{nodes}/running:10000/pending:100")
add("preemption, 5,000 full nodes, 100 pending gangs (issue 13)",
    None if preempt is None else preempt * 1e3, "ms", 100, "<")
decode = counter("BM_DecodePodList/50000", "bytes_per_second")
portable = counter("BM_DecodePodListPortable/50000", "bytes_per_second")
kernel = (results.get("BM_DecodePodList/50000") or {}).get("label", "")
add(f"re-list decode, generated 50,000-pod list ({kernel or 'kernel?'} readers)",
    None if decode is None else decode / 1e6, "MB/s", 800, ">=",
    "" if portable is None else f"portable readers {portable / 1e6:,.0f} MB/s")

print("Issue 19's in-process targets (measured now, this machine):")
cols = ["figure", "measured", "target", "met", "baseline, same binary"]
widths = [max(len(c), *(len(str(r[i])) for r in rows)) for i, c in enumerate(cols)]
print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
for r in rows:
    print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))

print("\nEvery benchmark (real time; counters as the benchmark reports them):")
skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
        "family_index", "per_family_instance_index", "aggregate_name", "time_unit",
        "iterations", "real_time", "cpu_time"}
for name, r in results.items():
    extra = ", ".join(f"{k} {v:.4g}" for k, v in r.items()
                      if k not in skip and isinstance(v, (int, float)))
    print(f"  {name}: {r['real_time']:.4g} {r['time_unit']}" + (f"  ({extra})" if extra else ""))
PY
echo "raw results in $out" >&2
