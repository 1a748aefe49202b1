#!/usr/bin/env bash
# libpsiplace_mpi.so as an application sees it: its soname, exactly the
# public API exported (psiplace_mall_* and psiplace_release_*, every
# function malleable.h and resize.h declare, nothing else), each
# installed header compiling on its own, and the example program of
# doc/malleability.md building and linking against the exports alone.
# Usage: mpi_library.sh LIB.so INCLUDE_DIR EXAMPLE.c CC [MPICC]
set -uo pipefail
so=$1 inc=$2 example=$3 cc=$4 mpicc=${5:-}
bad=0
fail() { echo "mpi_library: $*"; bad=1; }

soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libpsiplace_mpi.so.0 ] || fail "soname is '$soname', not libpsiplace_mpi.so.0"

# nm -D: VALUE TYPE NAME[@@VERSION]; the version node itself is type A
exported=$(nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
[ -n "$exported" ] || fail "exports nothing"
while read -r sym; do
  [[ $sym =~ ^psiplace_(mall|release)_[a-z_]+$ ]] || fail "exports '$sym', which is not psiplace_mall_* or psiplace_release_* (common/malleable/libpsiplace_mpi.map)"
done <<<"$exported"
declared=$(cat "$inc/psiplace/malleable.h" "$inc/psiplace/resize.h" |
  grep -oE '\bpsiplace_(mall|release)_[a-z_]+\(' | tr -d '(' | sort -u)
[ -n "$declared" ] || fail "no function found in malleable.h and resize.h"
missing=$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$exported"))
[ -z "$missing" ] || fail "declared but not exported: $(echo $missing)"
undefined=$(nm -D --undefined-only "$so" | awk '{ print $2 }' | grep -E '^psiplace_' | paste -sd' ')
[ -z "$undefined" ] || fail "needs psiplace symbols it does not define: $undefined"

for h in resize error spawnplan intvec; do
  printf '#include "psiplace/%s.h"\nint main(void) { return 0; }\n' "$h" |
    $cc -std=c11 -Wall -Werror -fsyntax-only -I"$inc" -x c - || fail "psiplace/$h.h does not compile on its own"
done
if [ -n "$mpicc" ]; then
  printf '#include "psiplace/malleable.h"\nint main(void) { return 0; }\n' |
    "$mpicc" -std=c11 -Wall -Werror -fsyntax-only -I"$inc" -x c - || fail "psiplace/malleable.h does not compile on its own"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$mpicc" -std=c11 -Wall -Wextra -Werror -I"$inc" -o "$tmp/hello" "$example" \
    -L"$(dirname "$so")" -lpsiplace_mpi -Wl,--no-undefined ||
    fail "$(basename "$example") does not build against $(basename "$so")"
fi
[ "$bad" -eq 0 ] && echo "mpi_library: $soname exports $(wc -l <<<"$exported") functions, all of malleable.h and resize.h, nothing else"
exit "$bad"
