#!/usr/bin/env bash
# Reruns, one after another (they share the machine's two cores, so never two at once), every
# benchmark whose figures docs/benchmarks.md quotes as a measurement of one build, and keeps each
# one's output: what a commit that re-measures "every figure" runs. Not rerun here: comparisons of
# two builds (bench/ab/run.sh, --baseline-bin-dir, --variant), profiles (perf, valgrind) and
# allocator swaps (LD_PRELOAD), whose figures are of the commits they name. About two hours on a
# 2-core machine, most of it end to end.
#
#   bench/all.sh [--out DIR] [--skip STEP,...] [--only STEP,...]
#
# Steps, in order (names for --skip / --only):
#   micro      bench/micro/run.sh --min-time 1: every Google Benchmark case, the targets' table
#   captured   bench/capture-podlist.sh 2000, then bench/proto/run.sh (JSON and protobuf)
#   sim        bench/sim/run.sh: every standard shape but scale
#   scale      bench/sim/run.sh scale: 10,000 nodes, 150,000 pods (peak memory included)
#   contention arbiterctl simulate of the contention shape, seed 1 (work lost to reclaim)
#   placement  bench/sim/reservation.sh, locality.sh --seeds 5, stragglers.sh --seeds 5
#   eta        bench/sim/eta.sh: start-time estimates against actual starts
#   batchjobs  bench/e2e/batchjobs.sh: 1,000 BatchJobs on 1,000 nodes
#   explain    bench/ctl/explain.sh: arbiterctl explain on 1,000 nodes, 10,000 pods
#   e2e        bench/e2e/run.sh, burst and backlog (--precreate), 1,000 nodes
#   gangs      the gang phases beside kube-scheduler's and Kueue's, gangs of 3 and of 100
#   e2e5000    bench/e2e/run.sh at 5,000 nodes, burst and backlog
#   image      hack/image.sh: the container image's size
#
# Output: DIR/<step>.log for each step (default _output/bench/all-<commit>/), the end-to-end
# runs' JSON beside them, and DIR/steps.tsv: step, exit status, seconds. A failed step is
# reported and the next one runs. Needs hack/build.sh and hack/cluster/build.sh done.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

commit=$(git rev-parse --short HEAD)
out="_output/bench/all-$commit"
skip=""
only=""
while (($#)); do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --skip) skip=",$2,"; shift 2 ;;
    --only) only=",$2,"; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/all.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
touch "$out/steps.tsv"  # appended to: runs with --only add their steps

step() {
  local name=$1
  shift
  if [[ -n "$only" && "$only" != *",$name,"* ]] || [[ "$skip" == *",$name,"* ]]; then return; fi
  echo "== $name ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
  local start=$SECONDS
  "$@" >"$out/$name.log" 2>&1
  local status=$?
  printf '%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - start))" | tee -a "$out/steps.tsv"
}

micro() { bench/micro/run.sh --min-time 1 --out "$out/micro"; }
captured() { bench/capture-podlist.sh 2000 && bench/proto/run.sh; }
sim() { bench/sim/run.sh --out "$out/sim"; }
scale() { bench/sim/run.sh --out "$out/scale" scale; }
contention() {
  build/bin/arbiterctl generate contention --cluster-out "$out/contention.cluster.yaml" \
    --workload-out "$out/contention.workload.yaml" &&
    build/bin/arbiterctl simulate --cluster "$out/contention.cluster.yaml" \
      --workload "$out/contention.workload.yaml" --seed 1 --report "$out/contention.json"
}
placement() {
  bench/sim/reservation.sh --out "$out/reservation" &&
    bench/sim/locality.sh --seeds 5 --out "$out/locality" &&
    bench/sim/stragglers.sh --seeds 5 --out "$out/stragglers"
}
eta() { bench/sim/eta.sh --out "$out/eta"; }
batchjobs() { bench/e2e/batchjobs.sh; }
explain() { bench/ctl/explain.sh; }
e2e() {
  bench/e2e/run.sh --json "$out/e2e-burst.json" &&
    bench/e2e/run.sh --precreate --json "$out/e2e-backlog.json"
}
gangs() {
  local phases=null-binder,kube-scheduler-gang,arbiter-gang,kueue-gang
  bench/e2e/run.sh --phases "$phases" --json "$out/gangs-burst.json" &&
    bench/e2e/run.sh --precreate --phases "${phases#null-binder,}" \
      --json "$out/gangs-backlog.json" &&
    bench/e2e/run.sh --gangs 30 --gang-size 100 --phases "$phases" \
      --json "$out/gangs100-burst.json" &&
    bench/e2e/run.sh --precreate --gangs 30 --gang-size 100 --phases "$phases" \
      --json "$out/gangs100-backlog.json"
}
e2e5000() {
  local shape=(--nodes 5000 --pods 10000 --gangs 3000)
  bench/e2e/run.sh "${shape[@]}" --json "$out/e2e5000-burst.json" &&
    bench/e2e/run.sh --precreate "${shape[@]}" --json "$out/e2e5000-backlog.json"
}

image() { hack/image.sh && ls -l _output/arbiter-image.tar; }

echo "bench/all.sh: commit $commit, output in $out"
for s in micro captured sim scale contention placement eta batchjobs explain e2e gangs e2e5000 image; do step "$s" "$s"; done
echo "== done ($(date -u +%H:%M:%S) UTC)"
column -t "$out/steps.tsv"
