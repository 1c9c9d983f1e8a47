#!/usr/bin/env bash
# How good are start-time estimates? For each shape, arbiterctl simulate --eta-every N estimates
# the start of every Nth job at its arrival by a forecast (sim/forecast.h) from the cluster as it
# is then, with every job's run time known exactly, and compares it with the job's actual start.
# Prints one table: the error's p50/p90 in seconds and relative to the wait (jobs that waited at
# least a minute), estimates that said "never" wrongly, and the forecasts' wall time.
#
# The baseline in the same run is the all-at-once shape: every job arrives at t=0, so nothing the
# forecast cannot see happens later, and its error is the forecast's own (rounding to the
# session period, a fresh scheduler's state). The other shapes add what it cannot foresee: jobs
# that arrive later (other queues reclaiming their share, higher priorities preempting).
# SHAPE+foresee runs the shape with forecasts that also know every job still to arrive and when
# (--eta-foresee-arrivals: no scheduler can): what is left is the forecast's own error.
#
#   bench/sim/eta.sh [--seed N] [--out DIR] [SHAPE[+foresee][:EVERY]...]
#        default: all-at-once:1 contention:1 contention+foresee:3 multi-queue:5 tensorflow:5
#
# Needs build/bin/arbiterctl (hack/build.sh) and python3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
arbiterctl="${ARBITERCTL:-$root/build/bin/arbiterctl}"
seed=1
out="$root/_output/bench/eta-$(date -u +%Y%m%dT%H%M%SZ)"
shapes=()
while (($#)); do
  case "$1" in
    --seed) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) shapes+=("$1"); shift ;;
  esac
done
((${#shapes[@]})) || shapes=(all-at-once:1 contention:1 contention+foresee:3 multi-queue:5 tensorflow:5)
[[ -x $arbiterctl ]] || { echo "no $arbiterctl: run hack/build.sh" >&2; exit 2; }
mkdir -p "$out"

for entry in "${shapes[@]}"; do
  run=${entry%%:*}  # the report's name: the shape, with +foresee
  every=${entry#*:}
  [[ $every == "$entry" ]] && every=1
  shape=${run%+foresee}
  foresee=()
  [[ $shape != "$run" ]] && foresee=(--eta-foresee-arrivals)
  if [[ $shape == all-at-once ]]; then
    # The contention shape's cluster, with 150 gangs of one queue all submitted at t=0.
    "$arbiterctl" generate contention --cluster-out "$out/$shape.cluster.yaml" \
      --workload-out /dev/null 2>/dev/null
    cat >"$out/$shape.workload.yaml" <<'EOF'
description: 150 gangs of 4 x 1 CPU, all submitted at t=0, 5-20 min each
jobs:
  - name: g
    replicas: 150
    queue: a
    minMember: 4
    duration: {uniform: [5m, 20m]}
    tasks: [{name: worker, replicas: 4, requests: {cpu: "1", memory: 1Gi}}]
EOF
  else
    "$arbiterctl" generate "$shape" --cluster-out "$out/$shape.cluster.yaml" \
      --workload-out "$out/$shape.workload.yaml" 2>/dev/null
  fi
  echo "simulating $run, estimating every ${every}th job ..." >&2
  "$arbiterctl" simulate --cluster "$out/$shape.cluster.yaml" --workload "$out/$shape.workload.yaml" \
    --seed "$seed" --eta-every "$every" "${foresee[@]}" --no-invariants --report "$out/$run.json" \
    >"$out/$run.txt" 2>&1 || true
done

python3 - "$out" "${shapes[@]}" <<'PY'
import json, re, sys
out, entries = sys.argv[1], sys.argv[2:]
print(f"{'shape':<19} {'jobs':>5} {'estimated':>9} {'missed':>6} {'err p50':>8} {'err p90':>8} "
      f"{'rel p50':>8} {'rel p90':>8} {'(jobs)':>6} {'forecasts':>10}")
for entry in entries:
    shape = entry.split(":")[0]
    r = json.load(open(f"{out}/{shape}.json"))
    e = r["eta"]
    text = open(f"{out}/{shape}.txt").read()
    took = re.search(r"forecasting took ([0-9.]+) s", text)
    print(f"{shape:<19} {r['summary']['jobs'] if 'jobs' in r['summary'] else len(r['jobOutcomes']['rows']):>5} "
          f"{e['estimated']:>9} {e['missed']:>6} {e['errorMs']['p50']/1000:>7.1f}s "
          f"{e['errorMs']['p90']/1000:>7.1f}s {100*e['relativeError']['p50']:>7.1f}% "
          f"{100*e['relativeError']['p90']:>7.1f}% {e['relativeError']['count']:>6} "
          f"{(took.group(1) + ' s') if took else '-':>10}")
print(f"reports in {out}")
PY
