#!/usr/bin/env bash
# Differential test: Arbiter's Quantity against k8s.io/apimachinery's, at the version pinned in
# quantity-oracle/go.mod, on the hand-written cases (quantity_cases.txt) and 20,000 random strings.
# Every line must agree: accepted or rejected, String(), format, Value() and MilliValue().
# Usage: quantity_test.sh <quantity_echo binary> <work dir>
# Exits 77 (ctest: skipped, with the reason printed) when Go is not installed.
set -euo pipefail

echo_bin=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin/go "$HOME/go/bin/go"; do
    [[ -x $candidate ]] && PATH="$(dirname "$candidate"):$PATH" && break
  done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "SKIPPED: Go is not installed, so apimachinery cannot be built to compare against"
  exit 77
fi

(cd "$here/quantity-oracle" && go build -o "$work/quantity-oracle" .)

{
  cat "$here/quantity_cases.txt"
  python3 "$here/generate_quantities.py" 20261129 20000
} > "$work/inputs.txt"

"$work/quantity-oracle" < "$work/inputs.txt" > "$work/apimachinery.txt"
"$echo_bin" < "$work/inputs.txt" > "$work/arbiter.txt"

lines=$(wc -l < "$work/inputs.txt")
if diff "$work/apimachinery.txt" "$work/arbiter.txt" > "$work/diff.txt"; then
  echo "PASS: $lines quantities agree with apimachinery $(grep -o 'apimachinery v[0-9.]*' "$here/quantity-oracle/go.mod")"
  exit 0
fi
echo "FAIL: Arbiter and apimachinery disagree (< apimachinery, > arbiter):"
head -40 "$work/diff.txt"
exit 1
