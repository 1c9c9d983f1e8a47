#!/usr/bin/env bash
# Straggler handling, off and on, side by side on the simulator (docs/placement.md#stragglers):
# the `stragglers` shape (arbiterctl generate: 4 racks of nodes of 16 CPU, an eighth of them slow,
# speed 0.4; Poisson streams of gangs of 4, 6 and 8 pods of 2 CPU, about 60 % of the CPU; a gang
# ends with its slowest pod), simulated for each seed without the straggler plugin (off), with
# it (on, the default configuration), and with it and every job idempotent (copies: a pod far
# behind its peers gets a backup copy, as a BatchJob task marked idempotent does). Prints, per
# seed and mode: the pods that ran on a slow node, the copies made (and those that ended first),
# the jobs' completion time (arrival to end: mean, p50, p99), their wait (p90), mean CPU
# utilisation and the makespan; then the means over the seeds and the ratios to off.
# --burst submits every job at 0 s (a backlog: the makespan is then set by how fast the cluster
# works through it, not by the last arrival); --speed S gives the slow nodes speed S instead of
# 0.4 (0.2: a task there takes 5 times as long). (--wait is not used.)
#
#   bench/sim/stragglers.sh [--burst] [--speed S] [--seeds N] [--nodes N] [--jobs N] [--out DIR]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
burst=0 speed=""
args=()
while (($#)); do
  case "$1" in
    --burst) burst=1; shift ;;
    --speed) speed="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
sim_options stragglers 18 "${args[@]}"
"$arbiterctl" generate stragglers "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/workload.yaml" >/dev/null
if ((burst)); then
  sed -i -E 's/arrival: \{exponential: [0-9]+ms\}/arrival: 0s/; s/interval: \{exponential: [0-9]+ms\}/interval: 0s/' \
    "$out/workload.yaml"
  grep -q 'exponential' "$out/workload.yaml" && { echo "--burst: arrivals not rewritten" >&2; exit 1; }
fi
if [[ -n $speed ]]; then
  sed -i -E "s/speed: 0\.4\}/speed: $speed}/" "$out/workload.yaml"
  grep -q "speed: $speed}" "$out/workload.yaml" || { echo "--speed: not rewritten" >&2; exit 1; }
fi
sed -E 's/minMember:/idempotent: true, minMember:/' "$out/workload.yaml" >"$out/workload-copies.yaml"
grep -q 'idempotent: true' "$out/workload-copies.yaml" || { echo "no job made idempotent" >&2; exit 1; }
cat >"$out/off.yaml" <<'YAML'
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}, {name: topology}, {name: locality}]
YAML

sim_off_on "straggler plugin"
for seed in $(seq 1 "$seeds"); do
  echo "simulating seed $seed, straggler plugin on and copies ..." >&2
  "$arbiterctl" simulate --cluster "$out/cluster.yaml" --workload "$out/workload-copies.yaml" \
    --seed "$seed" --report "$out/copies-$seed.json" >"$out/copies-$seed.txt" 2>&1
done

python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
modes = ("off", "on", "copies")
rows, runs = [], {m: [] for m in modes}
for seed in range(1, seeds + 1):
    for mode in modes:
        s = json.load(open(f"{out}/{mode}-{seed}.json"))["summary"]
        st = s["stragglers"]
        c = s["completionMs"]
        rows.append((seed, mode, f"{100 * st['podsOnSlowNodes'] / st['pods']:.1f} %",
                     f"{st.get('copies', 0)} / {st.get('copiesWon', 0)}",
                     f"{c['mean'] / 1000:.0f}", f"{c['p50'] / 1000:.0f}", f"{c['p99'] / 1000:.0f}",
                     f"{s['waitMs']['p90'] / 1000:.1f}", f"{s['meanCpuUtilisation']:.3f}",
                     f"{s['makespanMs'] / 1000:.0f}"))
        runs[mode].append(s)
header = ("seed", "mode", "pods on slow nodes", "copies / won", "completion mean s", "p50 s", "p99 s",
          "wait p90 s", "cpu util", "makespan s")
widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
for r in [header] + rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print()
def mean(mode, f):
    return statistics.mean(f(s) for s in runs[mode])
for mode in modes:
    slow = sum(s["stragglers"]["podsOnSlowNodes"] for s in runs[mode])
    pods = sum(s["stragglers"]["pods"] for s in runs[mode])
    print(f"{mode:6}: pods on slow nodes {100 * slow / pods:.1f} %; completion "
          f"mean {mean(mode, lambda s: s['completionMs']['mean']) / 1000:.1f} s, p99 "
          f"{mean(mode, lambda s: s['completionMs']['p99']) / 1000:.1f} s; makespan "
          f"{mean(mode, lambda s: s['makespanMs']) / 1000:.1f} s; cpu util "
          f"{mean(mode, lambda s: s['meanCpuUtilisation']):.3f}")
for mode in modes[1:]:
    def ratio(f):
        return mean(mode, f) / mean("off", f)
    print(f"{mode}/off: completion mean x{ratio(lambda s: s['completionMs']['mean']):.3f}, p99 "
          f"x{ratio(lambda s: s['completionMs']['p99']):.3f}, makespan "
          f"x{ratio(lambda s: s['makespanMs']):.3f}")
PY
echo "reports in $out" >&2
