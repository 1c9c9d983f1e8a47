#!/usr/bin/env bash
# Reservation against starvation, off and on, side by side on the simulator (docs/placement.md):
# the `starvation` shape (arbiterctl generate: big gangs under a stream of small jobs), simulated
# with the default configuration (off), with reservation enabled (on; waitSeconds WAIT, default
# 60), and with reservation enabled and the stream's jobs labelled arbiter.dev/preemptable: "true"
# (preemptable: they may run on reserved nodes and are evicted for the gang), for each seed.
# --no-run-times takes the small jobs' run-time estimates away (the gangs keep theirs), so that
# only the preemptable kind of backfill can use a reserved node. Prints, per seed and mode: the
# big gangs' waits, the small jobs' wait (mean, p50, p90, max) and mean completion time (arrival
# to end, evictions included), evictions and the work they lost, mean CPU utilisation and
# makespan; then each mode against off over all seeds.
#
#   bench/sim/reservation.sh [--seeds N] [--wait SECONDS] [--nodes N] [--jobs N] [--out DIR]
#                            [--no-run-times]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

run_times=1
args=()
for a in "$@"; do
  if [[ $a == --no-run-times ]]; then run_times=0; else args+=("$a"); fi
done
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim_options reservation 16 "${args[@]}"
"$arbiterctl" generate starvation "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/generated.yaml" >/dev/null
# The stream is the generated file's first job: the one with an exponential interval.
stream='interval: {exponential: \([0-9]*ms\)}, runForHint: 1,'
if ((run_times)); then
  cp "$out/generated.yaml" "$out/workload.yaml"
  sed "s/$stream/interval: {exponential: \1}, runForHint: 1, preemptable: true,/" \
    "$out/generated.yaml" >"$out/workload-preemptable.yaml"
else
  sed "s/$stream/interval: {exponential: \1},/" "$out/generated.yaml" >"$out/workload.yaml"
  sed "s/$stream/interval: {exponential: \1}, preemptable: true,/" \
    "$out/generated.yaml" >"$out/workload-preemptable.yaml"
fi
grep -q 'preemptable: true' "$out/workload-preemptable.yaml" ||
  { echo "the generated stream no longer matches: $stream" >&2; exit 1; }
base='actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}]'
printf '%s\n' "$base" >"$out/off.yaml"
printf '%s\nreservation: {enabled: true, waitSeconds: %s}\n' "$base" "$wait" >"$out/on.yaml"

for seed in $(seq 1 "$seeds"); do
  for mode in off on preemptable; do
    echo "simulating seed $seed, reservation $mode ..." >&2
    settings=on workload=workload
    [[ $mode == off ]] && settings=off
    [[ $mode == preemptable ]] && workload="workload-preemptable"
    "$arbiterctl" simulate --cluster "$out/cluster.yaml" --workload "$out/$workload.yaml" \
      --config "$out/$settings.yaml" --seed "$seed" --report "$out/$mode-$seed.json" \
      >"$out/$mode-$seed.txt" 2>&1 || true
  done
done

python3 - "$out" "$seeds" "$wait" "$run_times" <<'PY'
import json, statistics, sys
out, seeds, wait, run_times = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]

modes = ("off", "on", "preemptable")
print(f"starvation shape, reservation waitSeconds {wait}; small jobs "
      f"{'state their run times' if run_times else 'state no run time'}; times in seconds")
cols = ["seed", "mode", "big gang waits", "small wait mean", "p50", "p90", "max",
        "completion", "evictions", "work lost pod-s", "not started", "cpu util", "makespan"]
rows = []
totals = {m: {"big": [], "small": [], "done": [], "evictions": 0, "lost": 0.0, "util": [],
              "span": []} for m in modes}
for seed in range(1, seeds + 1):
    for mode in modes:
        r = json.load(open(f"{out}/{mode}-{seed}.json"))
        c = r["jobOutcomes"]["columns"]
        jobs = [dict(zip(c, row)) for row in r["jobOutcomes"]["rows"]]
        big = [(j["startMs"] - j["arrivalMs"]) / 1000 for j in jobs
               if j["minMember"] > 1 and j["startMs"] >= 0]
        small = [(j["startMs"] - j["arrivalMs"]) / 1000 for j in jobs
                 if j["minMember"] == 1 and j["startMs"] >= 0]
        done = [(j["finishMs"] - j["arrivalMs"]) / 1000 for j in jobs
                if j["minMember"] == 1 and j["finishMs"] >= 0]
        never = sum(1 for j in jobs if j["startMs"] < 0)
        m = r["summary"]
        p = m["preemption"]
        rows.append([seed, mode, " ".join(f"{w:.0f}" for w in big),
                     f"{statistics.mean(small):.1f}", f"{pct(small, 50):.1f}",
                     f"{pct(small, 90):.1f}", f"{max(small):.1f}",
                     f"{statistics.mean(done):.1f}", p["evictions"],
                     f'{p["workLostPodSeconds"]:.0f}', never,
                     f'{m["meanCpuUtilisation"]:.3f}', f'{m["makespanMs"] / 1000:.0f}'])
        t = totals[mode]
        t["big"] += big
        t["small"] += small
        t["done"] += done
        t["evictions"] += p["evictions"]
        t["lost"] += p["workLostPodSeconds"]
        t["util"].append(m["meanCpuUtilisation"])
        t["span"].append(m["makespanMs"] / 1000)
widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) for i, c in enumerate(cols)]
print("  ".join(str(c).rjust(w) for c, w in zip(cols, widths)))
for r in rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print()
for mode in modes:
    t = totals[mode]
    print(f"{mode:11}: big gang wait p50 {pct(t['big'], 50):.0f} s, p90 {pct(t['big'], 90):.0f} s, "
          f"max {max(t['big']):.0f} s ({len(t['big'])} started); small jobs' mean wait "
          f"{statistics.mean(t['small']):.1f} s, mean completion {statistics.mean(t['done']):.1f} s; "
          f"evictions {t['evictions'] / seeds:.0f} per run, work lost {t['lost'] / seeds:.0f} pod-s "
          f"per run; cpu util {statistics.mean(t['util']):.3f}; makespan "
          f"{statistics.mean(t['span']):.0f} s")

def ratio(a, b, digits):
    return f"x{a / b:.{digits}f}" if b else "n/a (nothing waited without it)"

off = totals["off"]
for mode in modes[1:]:
    t = totals[mode]
    print(f"{mode}/off: big gang max wait {ratio(max(t['big']), max(off['big']), 2)}, small jobs' "
          f"mean wait {ratio(statistics.mean(t['small']), statistics.mean(off['small']), 2)}, "
          f"mean completion {ratio(statistics.mean(t['done']), statistics.mean(off['done']), 3)}, "
          f"cpu util {ratio(statistics.mean(t['util']), statistics.mean(off['util']), 3)}, makespan "
          f"{ratio(statistics.mean(t['span']), statistics.mean(off['span']), 3)}")
PY
echo "reports in $out" >&2
