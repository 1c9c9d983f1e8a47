#!/usr/bin/env bash
# Per-thread CPU of a process that is about to start (or running), until it exits: waits for a
# process whose command line matches REGEX (pgrep -f), reads each thread's utime+stime from
# /proc once a second, and prints, when the process is gone, each thread's CPU seconds in the
# order the threads were created (#0 is the main thread). For arbiter-scheduler that order is:
# #1 the event recorder, #2 the status writer, then the binder's workers, then the watches.
#
#   bench/e2e/thread-cpu.sh '[b]in/arbiter-scheduler .*bench-arbiter ' &
#   bench/e2e/run.sh --precreate --phases arbiter
#
# (The [b] keeps the pattern from matching this script's own command line.)
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 REGEX" >&2; exit 2; }
pattern=$1
pid=""
for _ in $(seq 1 3000); do  # up to 10 minutes
  pid=$(pgrep -f "$pattern" | head -1 || true)
  [[ -n $pid ]] && break
  sleep 0.2
done
[[ -n $pid ]] || { echo "error: no process matches $pattern" >&2; exit 1; }
ticks_per_s=$(getconf CLK_TCK)
declare -A ticks=()
while [[ -d /proc/$pid ]]; do
  for stat in /proc/"$pid"/task/*/stat; do
    tid=${stat#/proc/"$pid"/task/}
    tid=${tid%/stat}
    # Fields 14 and 15 (utime, stime) counted after the command name, which may hold spaces.
    if line=$(cat "$stat" 2>/dev/null); then
      read -r -a fields <<<"${line##*) }"
      ticks[$tid]=$((fields[11] + fields[12]))
    fi
  done
  sleep 1
done
echo "pid $pid: CPU seconds per thread, in creation order"
i=0
for tid in $(printf '%s\n' "${!ticks[@]}" | sort -n); do
  awk -v i="$i" -v tid="$tid" -v t="${ticks[$tid]}" -v hz="$ticks_per_s" \
    'BEGIN { if (t > 0) printf "#%-3d tid %-8s %6.2f s\n", i, tid, t / hz }'
  i=$((i + 1))
done
