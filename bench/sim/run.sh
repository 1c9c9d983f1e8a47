#!/usr/bin/env bash
# Simulates each standard shape (arbiterctl generate) with arbiterctl simulate and prints one
# table: what happened (deterministic for a seed) and what it cost on this machine (measured).
# Reports go to OUT (default _output/bench/sim-<date>/): <shape>.json and <shape>.html.
#
#   bench/sim/run.sh [--seed N] [--out DIR] [SHAPE...]     (default: every shape but scale)
#   bench/sim/run.sh scale                                  the 10,000-node, 150,000-pod run
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
arbiterctl="${ARBITERCTL:-$root/build/bin/arbiterctl}"
seed=1
out="$root/_output/bench/sim-$(date -u +%Y%m%dT%H%M%SZ)"
shapes=()
while (($#)); do
  case "$1" in
    --seed) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) shapes+=("$1"); shift ;;
  esac
done
((${#shapes[@]})) || shapes=(basic-pods small-gangs big-gangs tensorflow multi-queue)
[[ -x $arbiterctl ]] || { echo "no $arbiterctl: run hack/build.sh" >&2; exit 2; }
mkdir -p "$out"

for shape in "${shapes[@]}"; do
  "$arbiterctl" generate "$shape" --cluster-out "$out/$shape.cluster.yaml" \
    --workload-out "$out/$shape.workload.yaml" 2>/dev/null
  echo "simulating $shape ..." >&2
  # Exit code 1 means a partial gang: the table shows it, so go on to the next shape.
  "$arbiterctl" simulate --cluster "$out/$shape.cluster.yaml" --workload "$out/$shape.workload.yaml" \
    --seed "$seed" --report "$out/$shape.json" --html "$out/$shape.html" >"$out/$shape.txt" 2>&1 || true
done

python3 - "$out" "${shapes[@]}" <<'PY'
import json, sys
out, shapes = sys.argv[1], sys.argv[2:]
cols = ["shape", "nodes", "pods", "jobs run", "partial", "sessions", "wait p99 s",
        "session p50 ms", "p99 ms", "max ms", "snapshot p99 ms", "peak MiB", "wall s"]
rows = []
for s in shapes:
    try:
        r = json.load(open(f"{out}/{s}.json"))
    except (OSError, ValueError):
        rows.append([s] + ["failed"] + [""] * (len(cols) - 2))
        continue
    m, p = r["summary"], r["performance"]
    rows.append([s, r["nodes"], r["pods"], f'{m["jobsStarted"]}/{r["jobs"]}', m["partialGangs"],
                 m["sessions"], f'{m["waitMs"]["p99"] / 1000:.1f}',
                 f'{p["sessionMs"]["p50"]:.1f}', f'{p["sessionMs"]["p99"]:.1f}',
                 f'{p["sessionMs"]["max"]:.1f}', f'{p["snapshotMs"]["p99"]:.1f}',
                 f'{p["peakRssBytes"] / 2**20:.0f}', f'{p["wallSeconds"]:.1f}'])
widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) for i, c in enumerate(cols)]
print("  ".join(str(c).rjust(w) for c, w in zip(cols, widths)))
for r in rows:
    print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
print(f"\nreports: {out}")
PY
