#!/usr/bin/env bash
# Topology-aware gangs, off and on, side by side on the simulator (docs/placement.md#topology):
# the `topology` shape (arbiterctl generate: racks of 4, 8 and 12 nodes in two zones, gangs of 4
# to 32 pods each asking for one rack), simulated for each seed
#   off        without the topology plugin (the gangs' spec.topology is not read),
#   required   with it (the default configuration), every gang Required in one rack,
#   preferred  with it, every gang Preferred in one rack for up to WAIT s (default 60), then spread.
# Prints, per seed and mode: gangs started, those across racks and across zones, racks per gang,
# the gangs' wait (p50, p90, p99, max), mean CPU utilisation and makespan; then the totals.
#
#   bench/sim/topology.sh [--seeds N] [--wait SECONDS] [--nodes N] [--jobs N] [--out DIR]
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
sim_options topology 13 "$@"
"$arbiterctl" generate topology "${sizes[@]}" --cluster-out "$out/cluster.yaml" \
  --workload-out "$out/required.workload.yaml" >/dev/null
sed "s/mode: Required, level: rack/mode: Preferred, level: rack, maxWaitSeconds: $wait/" \
  "$out/required.workload.yaml" >"$out/preferred.workload.yaml"
grep -q "mode: Preferred" "$out/preferred.workload.yaml" ||
  { echo "the generated workload asks for no Required rack: $out/required.workload.yaml" >&2; exit 1; }
cat >"$out/off.yaml" <<'YAML'
actions: [enqueue, allocate, preempt, reclaim, backfill]
tiers:
  - plugins: [{name: priority}, {name: gang}, {name: drf}, {name: proportion}]
  - plugins: [{name: predicates}, {name: nodeorder}]
YAML

for seed in $(seq 1 "$seeds"); do
  for mode in off required preferred; do
    echo "simulating seed $seed, $mode ..." >&2
    workload=$out/required.workload.yaml config=()
    [[ $mode == preferred ]] && workload=$out/preferred.workload.yaml
    [[ $mode == off ]] && config=(--config "$out/off.yaml")
    "$arbiterctl" simulate --cluster "$out/cluster.yaml" --workload "$workload" \
      "${config[@]}" --seed "$seed" --report "$out/$mode-$seed.json" >"$out/$mode-$seed.txt" 2>&1
  done
done

python3 - "$out" "$seeds" "$wait" <<'PY'
import json, sys
out, seeds, wait = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"topology shape; preferred waits up to {wait} s; gang waits in seconds")
cols = ["seed", "mode", "gangs", "across racks", "across zones", "racks/gang", "wait p50",
        "p90", "p99", "max", "cpu util", "makespan s"]
rows, totals = [], {}
for seed in range(1, seeds + 1):
    for mode in ("off", "required", "preferred"):
        m = json.load(open(f"{out}/{mode}-{seed}.json"))["summary"]
        t, w = m["topology"], m["gangWaitMs"]
        if m["partialGangs"] or m.get("invariantViolations"):
            sys.exit(f"{mode}-{seed}: partial gangs or invariant violations: {out}/{mode}-{seed}.json")
        rows.append([seed, mode, t["gangs"], t["crossRack"], t["crossZone"],
                     f'{t["racksPerGang"]["mean"]:.2f}', f'{w["p50"] / 1000:.0f}',
                     f'{w["p90"] / 1000:.0f}', f'{w["p99"] / 1000:.0f}', f'{w["max"] / 1000:.0f}',
                     f'{m["meanCpuUtilisation"]:.3f}', f'{m["makespanMs"] / 1000:.0f}'])
        a = totals.setdefault(mode, [0, 0, 0, [], [], []])
        a[0] += t["gangs"]; a[1] += t["crossRack"]; a[2] += t["crossZone"]
        a[3].append(w["mean"] / 1000); a[4].append(m["meanCpuUtilisation"]); a[5].append(m["makespanMs"] / 1000)
width = [max(len(str(r[i])) for r in rows + [cols]) for i in range(len(cols))]
for r in [cols] + rows:
    print("  ".join(str(v).rjust(width[i]) for i, v in enumerate(r)))
print()
print("over all seeds: mode, gangs across racks, across zones, mean gang wait s, cpu util, makespan s")
for mode, (g, cr, cz, wm, u, mk) in totals.items():
    print(f"  {mode:9s}  {cr}/{g} ({100 * cr / g:.0f} %)  {cz}/{g} ({100 * cz / g:.0f} %)  "
          f"{sum(wm) / len(wm):.0f}  {sum(u) / len(u):.3f}  {sum(mk) / len(mk):.0f}")
PY
echo "reports in $out" >&2
