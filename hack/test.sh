#!/usr/bin/env bash
# Installs what is missing, builds, and runs Arbiter's tests with ctest; non-zero on any failure.
#   hack/test.sh                      all labels: unit, differential, cli, integration, e2e,
#                                     reliability, security, docs (release)
#   hack/test.sh --preset asan        the unit label under AddressSanitizer + UBSan
#   hack/test.sh --label unit [--label e2e ...]   only these labels
#   hack/test.sh --fuzz [SECONDS]     build the libFuzzer targets and run each (default 60 s)
# Tests labelled integration run against a local cluster (hack/cluster/) that this script starts
# and always stops, also on failure; e2e, reliability and security tests start clusters of their
# own. Tests labelled docs (tutorials run as tests, each on a cluster of its own, mostly waiting
# for their jobs' run times) run beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
labels=()
fuzz_seconds=
while (($#)); do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --preset=*) preset=${1#*=}; shift ;;
    --label) labels+=("$2"); shift 2 ;;
    --label=*) labels+=("${1#*=}"); shift ;;
    --fuzz)
      fuzz_seconds=60
      if [[ ${2:-} =~ ^[0-9]+$ ]]; then fuzz_seconds=$2; shift; fi
      shift ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

hack/install-deps.sh

if [[ -n $fuzz_seconds ]]; then
  hack/build.sh --preset fuzz
  status=0
  for fuzzer in build-fuzz/fuzz/*_fuzz; do
    name=$(basename "$fuzzer" _fuzz)
    corpus=build-fuzz/corpus/$name
    mkdir -p "$corpus"
    echo "fuzz: $name for ${fuzz_seconds}s (seeds: tests/fuzz/corpus/$name)"
    # -timeout: any single input taking over 10 s is a hang; -rss_limit_mb: a huge allocation.
    if ! "$fuzzer" "$corpus" "tests/fuzz/corpus/$name" -max_total_time="$fuzz_seconds" \
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="build-fuzz/crash-$name-" 2> "build-fuzz/$name.log"; then
      tail -50 "build-fuzz/$name.log"
      echo "fuzz: $name FAILED (artifacts: build-fuzz/crash-$name-*)"
      status=1
    else
      grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "build-fuzz/$name.log" | tail -2
      echo "fuzz: $name passed: no crash, leak, hang or timeout"
    fi
  done
  exit $status
fi

if ((${#labels[@]} == 0)); then
  if [[ $preset == release ]]; then
    labels=(unit differential cli integration e2e reliability security docs)
  else
    labels=(unit)
  fi
fi

hack/build.sh --preset "$preset"

build_dir=build
[[ $preset == release ]] || build_dir=build-$preset
ctest_args=(--test-dir "$build_dir" --output-on-failure --parallel "$(nproc)")
# Each ctest run writes its results as JUnit, which hack/check-skips.py reads at the end: what ran
# per label, and (CI=true) no skipped test unless tests/allowed-skips.txt allows it.
junit_dir=$PWD/$build_dir/junit
rm -rf "$junit_dir"
mkdir -p "$junit_dir"

plain=() cluster=() docs=0
for label in "${labels[@]}"; do
  case $label in
    integration|e2e|reliability|security) cluster+=("$label") ;;
    docs) docs=1 ;;
    *) plain+=("$label") ;;
  esac
done

status=0
if ((${#plain[@]})); then
  regex=$(IFS='|'; echo "^(${plain[*]})\$")
  ctest "${ctest_args[@]}" -L "$regex" --output-junit "$junit_dir/plain.xml" || status=1
fi
if ((${#cluster[@]} || docs)); then
  # Build (or find cached) kube-apiserver, etcd and kwok first, so that no test's timeout has to
  # cover a cold build (minutes on a fresh machine); and helm, for the chart's test (built from
  # its Go module, cached the same way).
  hack/cluster/build.sh
  hack/helm.sh >/dev/null
fi
if ((${#cluster[@]})); then
  # The ecosystem's controllers (JobSet, Kueue) for the e2e tests of issue 18, built from their Go
  # modules beside the first cluster tests, which mostly wait (niced: the tests come first); a
  # test that needs one waits on the build's lock.
  (for c in jobset kueue; do nice -n 10 hack/cluster/build-ecosystem.sh "$c" || true; done) \
    >"$build_dir/ecosystem-build.log" 2>&1 &
fi
docs_pid=
docs_log=$build_dir/docs-tests.log
if ((docs)); then
  # Beside the cluster tests: a tutorial waits most of its minutes for run times to pass, and
  # starts and stops its own cluster.
  ctest --test-dir "$build_dir" --output-on-failure -L '^docs$' \
    --output-junit "$junit_dir/docs.xml" >"$docs_log" 2>&1 &
  docs_pid=$!
fi
own=()  # labels whose tests start a cluster each: e2e, reliability, security
for label in "${cluster[@]}"; do
  if ! ctest --test-dir "$build_dir" -N -L "^$label\$" | grep -q 'Total Tests: [1-9]'; then
    echo "test.sh: no tests labelled $label"
  elif [[ $label == integration ]]; then
    # Integration tests run one at a time: they share one cluster, which with-cluster.sh starts.
    hack/cluster/with-cluster.sh -- ctest --test-dir "$build_dir" --output-on-failure \
      -L '^integration$' --output-junit "$junit_dir/integration.xml" || status=1
  else
    own+=("$label")
  fi
done
if ((${#own[@]})); then
  # Each e2e and reliability test starts a cluster of its own and mostly waits on it (measured:
  # a third of two cores busy when two run at once), so two run at a time.
  regex=$(IFS='|'; echo "^(${own[*]})\$")
  ctest --test-dir "$build_dir" --output-on-failure --parallel 2 -L "$regex" \
    --output-junit "$junit_dir/own-clusters.xml" || status=1
fi
if [[ -n $docs_pid ]]; then
  wait "$docs_pid" || status=1
  echo "test.sh: the tutorials (label docs, run beside the cluster tests):"
  cat "$docs_log"
fi
hack/check-skips.py "$build_dir" "$junit_dir"/*.xml || status=1
exit $status
