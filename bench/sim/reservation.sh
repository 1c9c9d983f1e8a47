#!/usr/bin/env bash
# Reservation against starvation, off and on, side by side on the simulator (docs/placement.md):
# the `starvation` shape (arbiterctl generate: big gangs under a stream of small jobs), simulated
# with the default configuration and with reservation enabled (waitSeconds WAIT, default 60), for
# each seed. Prints, per seed and configuration: the big gangs' waits, the small jobs' wait
# (mean, p50, p90, max), mean CPU utilisation and makespan; then the on/off ratios over all seeds.
#
#   bench/sim/reservation.sh [--seeds N] [--wait SECONDS] [--nodes N] [--jobs N] [--out DIR]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim_options reservation 10 "$@"
"$arbiterctl" generate starvation "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/workload.yaml" >/dev/null
base='actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}]'
printf '%s\n' "$base" >"$out/off.yaml"
printf '%s\nreservation: {enabled: true, waitSeconds: %s}\n' "$base" "$wait" >"$out/on.yaml"

for seed in $(seq 1 "$seeds"); do
  for mode in off on; do
    echo "simulating seed $seed, reservation $mode ..." >&2
    "$arbiterctl" simulate --cluster "$out/cluster.yaml" --workload "$out/workload.yaml" \
      --config "$out/$mode.yaml" --seed "$seed" --report "$out/$mode-$seed.json" \
      >"$out/$mode-$seed.txt" 2>&1 || true
  done
done

python3 - "$out" "$seeds" "$wait" <<'PY'
import json, statistics, sys
out, seeds, wait = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]

print(f"starvation shape, reservation waitSeconds {wait}; waits in seconds")
cols = ["seed", "reservation", "big gang waits", "small mean", "p50", "p90", "max",
        "not started", "cpu util", "makespan s"]
rows, totals = [], {"off": [[], [], [], []], "on": [[], [], [], []]}
for seed in range(1, seeds + 1):
    for mode in ("off", "on"):
        r = json.load(open(f"{out}/{mode}-{seed}.json"))
        c = r["jobOutcomes"]["columns"]
        jobs = [dict(zip(c, row)) for row in r["jobOutcomes"]["rows"]]
        big = [(j["startMs"] - j["arrivalMs"]) / 1000 for j in jobs
               if j["minMember"] > 1 and j["startMs"] >= 0]
        small = [(j["startMs"] - j["arrivalMs"]) / 1000 for j in jobs
                 if j["minMember"] == 1 and j["startMs"] >= 0]
        never = sum(1 for j in jobs if j["startMs"] < 0)
        m = r["summary"]
        rows.append([seed, mode, " ".join(f"{w:.0f}" for w in big),
                     f"{statistics.mean(small):.1f}", f"{pct(small, 50):.1f}",
                     f"{pct(small, 90):.1f}", f"{max(small):.1f}", never,
                     f'{m["meanCpuUtilisation"]:.3f}', f'{m["makespanMs"] / 1000:.0f}'])
        t = totals[mode]
        t[0] += big
        t[1] += small
        t[2].append(m["meanCpuUtilisation"])
        t[3].append(m["makespanMs"] / 1000)
widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) for i, c in enumerate(cols)]
print("  ".join(str(c).rjust(w) for c, w in zip(cols, widths)))
for r in rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print()
for mode in ("off", "on"):
    big, small, util, span = totals[mode]
    print(f"reservation {mode:3}: big gang wait p50 {pct(big, 50):.0f} s, p90 {pct(big, 90):.0f} s, "
          f"max {max(big):.0f} s ({len(big)} started); small jobs' mean wait {statistics.mean(small):.1f} s; "
          f"cpu util {statistics.mean(util):.3f}; makespan {statistics.mean(span):.0f} s")
off, on = totals["off"], totals["on"]

def ratio(a, b, digits):
    return f"x{a / b:.{digits}f}" if b else "n/a (nothing waited without it)"

print(f"on/off: big gang max wait {ratio(max(on[0]), max(off[0]), 2)}, small jobs' mean wait "
      f"{ratio(statistics.mean(on[1]), statistics.mean(off[1]), 2)}, cpu util "
      f"{ratio(statistics.mean(on[2]), statistics.mean(off[2]), 3)}, makespan "
      f"{ratio(statistics.mean(on[3]), statistics.mean(off[3]), 3)}")
PY
echo "reports in $out" >&2
