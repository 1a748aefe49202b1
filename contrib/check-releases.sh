#!/usr/bin/env bash
# Compile the select plugin, the SPANK plugin and the CLI, with warnings as
# errors, against a configured source tree of every Slurm release psiplace
# supports (contrib/testbed/slurm-release.sh list).  Trees are cached; build
# directories go to build-releases/VERSION.  Prints one line per release and
# exits non-zero when any release fails.
#   RELEASES="24.11 26.05"   only these
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
rel=contrib/testbed/slurm-release.sh
failed=()
for v in ${RELEASES:-$($rel list)}; do
  if ! tree=$($rel tree "$v"); then failed+=("$v(tree)"); continue; fi
  b=build-releases/$v
  log=$b.log
  mkdir -p build-releases
  if { [ -f "$b/build.ninja" ] || meson setup "$b" --werror -Dslurm_src="$tree" -Dtests=disabled; } >"$log" 2>&1 &&
     ninja -C "$b" plugins/select/select_psiplace_cons_tres.so plugins/spank/psiplace.so cli/psiplace >>"$log" 2>&1; then
    num=$(sed -n "s/^#define SLURM_VERSION_NUMBER[[:space:]]*//p" "$tree/slurm/slurm_version.h"); num=$((num))
    got=$((num >> 16)).$(printf %02d $(((num >> 8) & 255))).$((num & 255))
    # Slurm resolves every name of its node_select_syms[] in the select
    # plugin at load, and a missing one is fatal: check the exports.
    sel=$tree/src/interfaces/select.c
    [ -f "$sel" ] || sel=$tree/src/common/select.c
    want=$(awk '/node_select_syms\[\] = \{/ {f=1; next} f && /\};/ {exit} f' "$sel" | grep -o '"[a-z_]*"' | tr -d '"')
    have=$(nm -D --defined-only "$b/plugins/select/select_psiplace_cons_tres.so" | awk '{print $3}')
    missing=$(comm -23 <(printf '%s\n' $want | sort) <(printf '%s\n' $have | sort))
    if [ -n "$missing" ]; then
      echo "compile: Slurm $got: FAILED: the select plugin lacks $(echo $missing)"
      failed+=("$v(symbols)")
      continue
    fi
    echo "compile: Slurm $got: select plugin (all $(echo $want | wc -w) symbols Slurm resolves), SPANK plugin and CLI built with -Werror"
  else
    tail -n 20 "$log"
    echo "compile: Slurm $v: FAILED (log: $log)"
    failed+=("$v")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "compile failures: ${failed[*]}"; exit 1; }
