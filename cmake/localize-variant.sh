#!/usr/bin/env bash
# Joins the objects of a second build of some sources (the decoders compiled for AVX2,
# src/arbiter/CMakeLists.txt) into one object in which only the entry points stay global.
#   localize-variant.sh LD OUTPUT KEEP_PREFIX OBJECT...
#
# Why: every inline function and template those sources use (std::vector's growth, simdjson's
# helpers, the model's inline methods) is also emitted, compiled for AVX2, into their objects, and
# a linker keeps one copy of each for the whole program, whichever it meets first. Were that the
# AVX2 copy, portable code would run AVX2 instructions on a CPU without them. So the objects are
# linked together first (their section groups, the inline functions' copies, resolved among
# themselves), and then everything they define is made local, except the symbols whose names
# begin with KEEP_PREFIX (the entry points, defined nowhere else) and typeinfo (which exceptions
# match by). The static locals of inline functions (thread_local scratch vectors, constant tables)
# are made local too, so each build keeps to its own: out of their section groups they would clash
# with the other objects' copies.
set -euo pipefail
ld=$1 out=$2 keep=$3
shift 3
# The global definitions to make local, from nm's POSIX format (name, type, value, size; upper-case
# types and u, unique, are global): all but the entry points and typeinfo.
to_localize() {
  nm --defined-only --format=posix "$1" |
    awk -v keep="$keep" '$2 ~ /^([A-Z]|u)$/ && index($1, keep) != 1 && $1 !~ /^(_ZTI|_ZTS|DW\.ref\.)/ { print $1 }'
}
trap 'rm -f "$out.joined.o" "$out.weak.o" "$out.tmp.o" "$out.local"' EXIT
"$ld" -r --force-group-allocation -o "$out.joined.o" "$@"
to_localize "$out.joined.o" >"$out.local"
# objcopy leaves GCC's "unique" symbols (u) global when asked to make them local, but makes them
# weak when asked to; weak, they can be made local.
objcopy --weaken-symbols="$out.local" "$out.joined.o" "$out.weak.o"
objcopy --localize-symbols="$out.local" "$out.weak.o" "$out.tmp.o"
remaining=$(to_localize "$out.tmp.o")
if [[ -n $remaining ]]; then
  while read -r symbol; do echo "still global: $symbol"; done <<<"$remaining" >&2
  exit 1
fi
mv "$out.tmp.o" "$out"
