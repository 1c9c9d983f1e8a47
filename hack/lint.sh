#!/usr/bin/env bash
# Fails on any file that clang-format would change and on any clang-tidy warning in src/.
#   hack/lint.sh              every file (clang-tidy in parallel, cached per file)
#   hack/lint.sh --changed [BASE]   tidy only the .cc files changed since BASE (default: origin/main
#                             or the first commit), for a quick local check
#   hack/lint.sh --fix        rewrite unformatted files instead of failing
# Shell scripts under hack/, tests/ and .ci/ are checked with shellcheck.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
base=''
fix=false
while (($#)); do
  case $1 in
    --changed) mode=changed; if [[ ${2:-} != --* && -n ${2:-} ]]; then base=$2; shift; fi; shift ;;
    --fix) fix=true; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "lint.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

hack/install-deps.sh
format=clang-format-16
tidy=clang-tidy-16
status=0

mapfile -t cxx_files < <(git ls-files --cached --others --exclude-standard \
  -- '*.cc' '*.h' | grep -E '^(src|tests|bench)/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)

if $fix; then
  "$format" -i "${cxx_files[@]}"
else
  unformatted=()
  for f in "${cxx_files[@]}"; do
    "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
  done
  if ((${#unformatted[@]})); then
    echo "lint: not clang-formatted (run hack/lint.sh --fix):"
    printf '  %s\n' "${unformatted[@]}"
    status=1
  fi
fi

mapfile -t shell_files < <(git ls-files --cached --others --exclude-standard -- '*.sh' .ci/run |
  while read -r f; do [[ -f $f ]] && echo "$f"; done)
if ((${#shell_files[@]})) && ! shellcheck -x "${shell_files[@]}"; then
  echo "lint: shellcheck found problems"
  status=1
fi

# clang-tidy needs the compile database of a configured build.
cmake --preset release >/dev/null
if [[ $mode == changed ]]; then
  if [[ -z $base ]]; then
    base=$(git rev-parse -q --verify origin/main || git rev-list --max-parents=0 HEAD | tail -1)
  fi
  # The fuzzers are in the fuzz build's database only, as in the full run below.
  mapfile -t tidy_files < <(git diff --name-only "$base" -- 'src/*.cc' | grep -v '_fuzz\.cc$' |
    while read -r f; do [[ -f $f ]] && echo "$f"; done)
else
  mapfile -t tidy_files < <(printf '%s\n' "${cxx_files[@]}" | grep -E '^src/.*\.cc$' | grep -v '_fuzz\.cc$')
fi

if ((${#tidy_files[@]})); then
  # Parallel, and cached per file outside the checkout (hack/run-tidy.py), so that lint stays
  # within minutes as the code grows: only what changed, or what a changed header reaches, reruns.
  start=$SECONDS
  if ! python3 hack/run-tidy.py --tidy "$tidy" --build build "${tidy_files[@]}"; then
    echo "lint: clang-tidy found problems"
    status=1
  fi
  echo "lint: clang-tidy took $((SECONDS - start)) s"
fi

((status == 0)) && echo "lint: clean"
exit $status
