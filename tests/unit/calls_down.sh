#!/usr/bin/env bash
# Inside a part, calls between files go down only (doc/layout.md, "Inside a
# part"): no object file of the table below uses a symbol that a file on its
# own level or above defines.  Read from the built objects with nm, so a
# call through a header counts as much as one in the source.
# Usage: calls_down.sh PART DIR_OR_LIB...   (PART: malleable, spank, select,
# policy or sim)
# A LIB.a is read member by member; a DIR holds the objects (a plugin's
# meson private directory, NAME.so.p).  An object the table does not know
# fails the check: a new file must be given its level here.
set -uo pipefail
part=${1:?part}
shift

declare -A level
case $part in
  malleable) # common/malleable/, libpsiplace_mpi
    level=([mall_watchdog]=0 [mall_names]=0 [mall_state]=0 [mall_baselines]=1
           [mall_expand]=2 [mall_shrink]=3 [mall_init]=3
           [mall_rm]=4) ;;
  spank) # plugins/spank/, psiplace.so
    level=([spank_ctx]=0 [spank_options]=0 [spank_psets]=1 [spank_submit]=1
           [spank_step]=2 [psiplace_spank]=3) ;;
  select) # plugins/select/, select_psiplace_cons_tres.so: the site (and the
    # merged job's cores, expand_cores) below the
    # call to cons_tres, the shortcuts on it, the entry points on top
    level=([site_files]=0 [topo_leaves]=0 [expand_cores]=0 [site_reader]=1 [site]=2 [cons_tres_call]=3
           [shortcuts]=4 [select_psiplace_cons_tres]=5) ;;
  policy) # common/policy/, the policy_* members of psiplace_core: the sort
    # and the expressions below the rating, the columns above it, the
    # entry points that choose a path on top
    only=policy_
    level=([policy_names]=0 [select_weights]=0 [nodecache]=0 [priorityf]=0 [rank_sort]=0
           [set_policies]=1 [engine]=2 [nodecols]=3 [rank_columns]=4 [rank_dispatch]=5) ;;
  sim) # common/sim/, libpsiplace_sim (the order sim_replay.h gives)
    level=([sim_rows]=0 [sim_gzip]=0 [sim_mall_opts]=0 [sim_opts]=0 [sim_scontrol]=0 [sim_sacct]=1 [sim_swf]=1
           [sim_trace]=2
           [sim_heap]=0 [sim_choose]=0 [sim_room]=1 [sim_nodes]=2 [sim_start]=3
           [sim_reserve]=3 [sim_plan]=4 [sim_pass]=5 [sim_mall]=5 [sim_run]=6) ;;
  *) echo "calls_down: unknown part '$part'"; exit 2 ;;
esac
only=${only:-}

objs=()
for a in "$@"; do
  if [ -d "$a" ]; then
    objs+=("$a"/*.o)
  elif [ -f "$a" ]; then
    objs+=("$a")
  else
    echo "calls_down: $a: not found"; exit 2
  fi
done

# FILE SYMBOL lines from nm -A (archive members or plain objects)
table() { nm -A "$@" "${objs[@]}" 2>/dev/null | sed 's/^\([^ ]*\): *\(.*\)$/\1 \2/' |
  awk -v only="$only" '{f=$1; sub(/.*[\/:]/, "", f); sub(/\.c\.o$/, "", f)
    if (only == "" || index(f, only) == 1) print f, $NF}'; }
# the object's file name as in the table: strip meson's folder prefix
# (malleable_mall_state -> mall_state)
name() {
  local f=$1 k
  for k in "${!level[@]}"; do
    [ "$f" = "$k" ] || [ "${f%_"$k"}" != "$f" ] && { echo "$k"; return; }
  done
  echo "?$f"
}

declare -A def
bad=0 n=0
while read -r f s; do
  f=$(name "$f")
  if [ "${f:0:1}" = "?" ]; then
    echo "calls_down: ${f:1}.c has no level in tests/unit/calls_down.sh ($part)"
    bad=1
    continue
  fi
  def[$s]=$f
done < <(table --defined-only -g | sort -u)
[ ${#def[@]} -gt 0 ] || { echo "calls_down: no object of $part found in $*"; exit 2; }
while read -r f s; do
  f=$(name "$f")
  [ "${f:0:1}" = "?" ] && continue
  o=${def[$s]:-}
  [ -n "$o" ] || continue
  n=$((n + 1))
  if [ "${level[$o]}" -ge "${level[$f]}" ]; then
    echo "calls_down: $f.c (level ${level[$f]}) uses $s of $o.c (level ${level[$o]}): not below it"
    bad=1
  fi
done < <(table --undefined-only | sort -u)
[ "$bad" -eq 0 ] && echo "calls_down: $part: $n uses between files, every one goes down"
exit "$bad"
