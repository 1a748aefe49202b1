#!/usr/bin/env bash
# Every external symbol the libraries define carries a prefix of psiplace's
# own, so that a program linking them (the command, an MPI program linking
# libpsiplace_mpi, a plugin) cannot clash with a generic name such as
# `choose` or `reserve`; a plugin exports only what Slurm looks up in it.
# Usage: symbols.sh LIB.a... -- PLUGIN.so...
#
# Allowed prefixes, kept short:
#   psiplace_  the public names and most internal ones (STYLE.md)
#   mall_      libpsiplace_mpi's internal functions (common/malleable/
#              mall_internal.h): the part's own prefix, apart from its public
#              psiplace_mall_ API so that a reader tells the two apart
#   sim_       libpsiplace_sim's internal functions (common/sim/): that
#              library is linked by the command and the tests only, never
#              by a plugin or an MPI program
# Plugins (their version scripts hide everything else): plugin_*, init,
# fini, select_p_* (select plugin), job_submit, job_modify (job_submit
# plugin), slurm_spank_*, spank_plugin_version.
set -uo pipefail
allowed='^(psiplace_|mall_|sim_)'
plugin_allowed='^(plugin_[a-z_]+|init|fini|job_submit|job_modify|select_p_[a-z_]+|slurm_spank_[a-z_]+|spank_plugin_version)$'
# AddressSanitizer's ODR indicators (one per global variable, named by the
# compiler, -Db_sanitize=address) are not ours to name.
skip_symbol='^__odr_asan[._]'

bad=0 n=0 libs=() plugins=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; plugins=("$@"); break ;;
    *) libs+=("$1"); shift ;;
  esac
done
[ ${#libs[@]} -gt 0 ] || { echo "symbols: no library given"; exit 2; }

for lib in "${libs[@]}"; do
  [ -f "$lib" ] || { echo "symbols: $lib: not found"; exit 2; }
  # nm -A: LIB:MEMBER:VALUE TYPE NAME (undefined ones have no VALUE)
  while IFS=: read -r _ member rest; do
    sym=${rest##* }
    member=${member##*/}
    n=$((n + 1))
    [[ $sym =~ $skip_symbol ]] && { n=$((n - 1)); continue; }
    if ! [[ $sym =~ $allowed ]]; then
      echo "symbols: $(basename "$lib") ($member) defines external '$sym' without an allowed prefix (psiplace_, mall_, sim_): make it static or prefix it"
      bad=1
    fi
  done < <(nm -A -g --defined-only "$lib")
done
for so in "${plugins[@]}"; do
  [ -f "$so" ] || { echo "symbols: $so: not found"; exit 2; }
  while read -r _ _ sym; do
    n=$((n + 1))
    if ! [[ $sym =~ $plugin_allowed ]]; then
      echo "symbols: $(basename "$so") exports '$sym', which Slurm does not look up: hide it (exports.map)"
      bad=1
    fi
  done < <(nm -D --defined-only "$so")
done
[ "$n" -gt 0 ] || { echo "symbols: no symbol found"; exit 2; }
[ "$bad" -eq 0 ] && echo "symbols: $n external symbols, every one prefixed or a plugin interface"
exit "$bad"
