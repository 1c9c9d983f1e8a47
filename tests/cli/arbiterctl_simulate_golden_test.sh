#!/usr/bin/env bash
# The scheduler decides the same as before a refactoring: each standard shape, generated and
# simulated with seed 1 (the measured "performance" section left out), gives a report whose
# sha256 is the one recorded in golden/simulate.sha256. A report that differs means the
# scheduling decisions changed.
# Usage: arbiterctl_simulate_golden_test.sh ARBITERCTL [--update]
set -euo pipefail

arbiterctl=$(realpath "${1:?usage: $0 ARBITERCTL [--update]}")
update=${2:-}
golden="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/golden/simulate.sha256"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arbiterctl-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

shapes=(basic-pods big-gangs contention multi-queue small-gangs starvation tensorflow)
# The report names its input files as given: relative names keep it the same in any directory.
cd "$tmp"
for shape in "${shapes[@]}"; do
  "$arbiterctl" generate "$shape" --cluster-out "$shape.cluster.yaml" \
    --workload-out "$shape.workload.yaml" 2>/dev/null
  # Exit code 1 reports a partial gang; the digest shows any change, so it is not fatal here.
  "$arbiterctl" simulate --cluster "$shape.cluster.yaml" --workload "$shape.workload.yaml" \
    --seed 1 --no-performance --report "$shape.json" >"$shape.out" 2>&1 || [[ $? == 1 ]] ||
    { echo "FAIL: simulate $shape: $(cat "$shape.out")"; exit 1; }
done

if [[ $update == --update ]]; then
  { grep '^#' "$golden"; sha256sum "${shapes[@]/%/.json}"; } >"$tmp/new"
  mv "$tmp/new" "$golden"
  echo "updated $golden"
  exit 0
fi

failed=0
for shape in "${shapes[@]}"; do
  want=$(awk -v f="$shape.json" '$2 == f {print $1}' "$golden")
  got=$(sha256sum "$shape.json" | cut -d' ' -f1)
  if [[ -z $want ]]; then
    echo "FAIL: $shape: no digest recorded in $golden"
    failed=1
  elif [[ $want != "$got" ]]; then
    echo "FAIL: $shape: report changed (sha256 $got, recorded $want); decisions differ"
    failed=1
  else
    echo "PASS: $shape: report identical to the recorded one"
  fi
done
exit $failed
