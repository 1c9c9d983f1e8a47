#!/usr/bin/env bash
# Straggler handling, off and on, side by side on the simulator (docs/placement.md#stragglers):
# the `stragglers` shape (arbiterctl generate: 4 racks of nodes of 16 CPU, an eighth of them slow,
# speed 0.4; Poisson streams of gangs of 4, 6 and 8 pods of 2 CPU, about 60 % of the CPU; a gang
# ends with its slowest pod), simulated for each seed without the straggler plugin (off) and with
# it (on, the default configuration). Prints, per seed and mode: the pods that ran on a slow node,
# the jobs' completion time (arrival to end: mean, p50, p99), their wait (p90), mean CPU
# utilisation and the makespan; then the means over the seeds and the on/off ratios.
# (--wait is not used.)
#
#   bench/sim/stragglers.sh [--seeds N] [--nodes N] [--jobs N] [--out DIR]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim_options stragglers 13 "$@"
"$arbiterctl" generate stragglers "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/workload.yaml" >/dev/null
cat >"$out/off.yaml" <<'YAML'
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}, {name: topology}, {name: locality}]
YAML

sim_off_on "straggler plugin"

python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
rows, runs = [], {"off": [], "on": []}
for seed in range(1, seeds + 1):
    for mode in ("off", "on"):
        s = json.load(open(f"{out}/{mode}-{seed}.json"))["summary"]
        st = s["stragglers"]
        c = s["completionMs"]
        rows.append((seed, mode, f"{100 * st['podsOnSlowNodes'] / st['pods']:.1f} %",
                     f"{c['mean'] / 1000:.0f}", f"{c['p50'] / 1000:.0f}", f"{c['p99'] / 1000:.0f}",
                     f"{s['waitMs']['p90'] / 1000:.1f}", f"{s['meanCpuUtilisation']:.3f}",
                     f"{s['makespanMs'] / 1000:.0f}"))
        runs[mode].append(s)
header = ("seed", "mode", "pods on slow nodes", "completion mean s", "p50 s", "p99 s",
          "wait p90 s", "cpu util", "makespan s")
widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
for r in [header] + rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print()
def mean(mode, f):
    return statistics.mean(f(s) for s in runs[mode])
for mode in ("off", "on"):
    slow = sum(s["stragglers"]["podsOnSlowNodes"] for s in runs[mode])
    pods = sum(s["stragglers"]["pods"] for s in runs[mode])
    print(f"straggler plugin {mode:3}: pods on slow nodes {100 * slow / pods:.1f} %; completion "
          f"mean {mean(mode, lambda s: s['completionMs']['mean']) / 1000:.1f} s, p99 "
          f"{mean(mode, lambda s: s['completionMs']['p99']) / 1000:.1f} s; makespan "
          f"{mean(mode, lambda s: s['makespanMs']) / 1000:.1f} s; cpu util "
          f"{mean(mode, lambda s: s['meanCpuUtilisation']):.3f}")
def ratio(f):
    return mean("on", f) / mean("off", f)
print(f"on/off: completion mean x{ratio(lambda s: s['completionMs']['mean']):.3f}, p99 "
      f"x{ratio(lambda s: s['completionMs']['p99']):.3f}, makespan "
      f"x{ratio(lambda s: s['makespanMs']):.3f}")
PY
echo "reports in $out" >&2
