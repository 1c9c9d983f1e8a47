# Shared by the simulator benchmarks that compare a feature off and on (topology.sh,
# reservation.sh): their options, the arbiterctl they run, and the generated shape's size.
#
#   source lib.sh; sim_options NAME HELP_LINES "$@"
#
# sets seeds, wait, nodes, jobs and out (default _output/bench/NAME-<UTC time>, created) from
# --seeds N --wait SECONDS --nodes N --jobs N --out DIR, arbiterctl, and sizes (the --nodes and
# --jobs to pass to `arbiterctl generate`, none for the shape's defaults). --help prints the
# calling script's lines 2..HELP_LINES. sim_off_on (below) runs the off/on pair of each seed.
# shellcheck shell=bash disable=SC2034  # the variables are the caller's

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
arbiterctl="${ARBITERCTL:-$root/build/bin/arbiterctl}"

# sim_off_on WHAT: simulates $out/cluster.yaml and $out/workload.yaml for each seed, with the
# configuration $out/off.yaml (off) and the default one (on), into $out/MODE-SEED.json and .txt.
sim_off_on() {
  local seed mode config
  for seed in $(seq 1 "$seeds"); do
    for mode in off on; do
      echo "simulating seed $seed, $1 $mode ..." >&2
      config=()
      [[ $mode == off ]] && config=(--config "$out/off.yaml")
      "$arbiterctl" simulate --cluster "$out/cluster.yaml" --workload "$out/workload.yaml" \
        "${config[@]}" --seed "$seed" --report "$out/$mode-$seed.json" >"$out/$mode-$seed.txt" 2>&1
    done
  done
}

sim_options() {
  local name=$1 help_lines=$2
  shift 2
  seeds=5 wait=60 nodes=0 jobs=0
  out="$root/_output/bench/$name-$(date -u +%Y%m%dT%H%M%SZ)"
  while (($#)); do
    case "$1" in
      --seeds) seeds="$2"; shift 2 ;;
      --wait) wait="$2"; shift 2 ;;
      --nodes) nodes="$2"; shift 2 ;;
      --jobs) jobs="$2"; shift 2 ;;
      --out) out="$2"; shift 2 ;;
      -h | --help) sed -n "2,${help_lines}p" "$0"; exit 0 ;;
      *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
  done
  [[ -x $arbiterctl ]] || { echo "no $arbiterctl: run hack/build.sh" >&2; exit 2; }
  mkdir -p "$out"
  sizes=()
  ((nodes > 0)) && sizes+=(--nodes "$nodes")
  ((jobs > 0)) && sizes+=(--jobs "$jobs")
  return 0
}
