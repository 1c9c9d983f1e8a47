#!/usr/bin/env bash
# Data locality with delay scheduling, off and on, side by side on the simulator
# (docs/placement.md#data-locality): the `locality` shape (arbiterctl generate: 4 racks of nodes of
# 16 CPU, 64 data sets each on 3 nodes in 2 racks, streams of jobs reading them at about 75 % of
# the CPU), simulated for each seed without the locality plugin (off) and with it (on, the default
# configuration). Prints, per seed and mode: the pods bound on a node holding their data, in its
# rack, elsewhere; the jobs' wait (p50, p90, max); mean CPU utilisation and makespan; then the
# totals and the on/off ratios. (--wait is not used: the waits are the plugin's defaults.)
#
#   bench/sim/locality.sh [--seeds N] [--nodes N] [--jobs N] [--out DIR]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim_options locality 12 "$@"
"$arbiterctl" generate locality "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/workload.yaml" >/dev/null
cat >"$out/off.yaml" <<'YAML'
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}, {name: topology}]
YAML

sim_off_on "locality"

python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
rows, totals = [], {"off": [], "on": []}
for seed in range(1, seeds + 1):
    for mode in ("off", "on"):
        s = json.load(open(f"{out}/{mode}-{seed}.json"))["summary"]
        loc = s["locality"]
        pods = loc["pods"]
        row = (seed, mode, f"{100 * loc['nodeLocal'] / pods:.1f} %", f"{100 * loc['rackLocal'] / pods:.1f} %",
               f"{100 * loc['remote'] / pods:.1f} %", f"{s['waitMs']['p50'] / 1000:.1f}",
               f"{s['waitMs']['p90'] / 1000:.1f}", f"{s['waitMs']['max'] / 1000:.1f}",
               f"{s['meanCpuUtilisation']:.3f}", f"{s['makespanMs'] / 1000:.0f}")
        rows.append(row)
        totals[mode].append(s)
header = ("seed", "mode", "node-local", "rack-local", "elsewhere", "wait p50 s", "p90 s", "max s",
          "cpu util", "makespan s")
widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
for r in [header] + rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print()
def share(mode, key):
    return sum(s["locality"][key] for s in totals[mode]) / sum(s["locality"]["pods"] for s in totals[mode])
def mean(mode, f):
    return statistics.mean(f(s) for s in totals[mode])
for mode in ("off", "on"):
    print(f"locality {mode:3}: node-local {100 * share(mode, 'nodeLocal'):.1f} %, rack-local "
          f"{100 * share(mode, 'rackLocal'):.1f} %, elsewhere {100 * share(mode, 'remote'):.1f} %; "
          f"job wait p50 {mean(mode, lambda s: s['waitMs']['p50']) / 1000:.2f} s, p90 "
          f"{mean(mode, lambda s: s['waitMs']['p90']) / 1000:.2f} s; cpu util "
          f"{mean(mode, lambda s: s['meanCpuUtilisation']):.3f}")
util = mean("on", lambda s: s["meanCpuUtilisation"]) / mean("off", lambda s: s["meanCpuUtilisation"])
print(f"on/off: cpu util x{util:.3f}, job wait p90 "
      f"x{mean('on', lambda s: s['waitMs']['p90']) / mean('off', lambda s: s['waitMs']['p90']):.2f}")
PY
echo "reports in $out" >&2
