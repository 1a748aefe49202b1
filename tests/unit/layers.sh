#!/usr/bin/env bash
# The parts of common/ in layers: a part may include the headers of the
# parts below it and its own, never those of a part beside or above it
# (doc/layout.md).  Checked for every source and private header of common/
# and for every public header of include/psiplace/ (which belongs to the
# part that implements it).  A header or a folder this table does not know
# fails the check: a new part or header must be given its place here.
set -uo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$root" || exit 2

# part -> layer (a higher number is above; equal numbers are siblings,
# which may not use each other)
declare -A layer=(
  [util]=0 [options]=1 [lists]=2 [policy]=3 [topo]=3 [resize_channel]=4 [resize_decision]=4 [site]=5
  [psi]=6 [lama]=6 [spawn]=6 [resize]=6 [sim]=6 [psets]=7 [malleable]=7 [request]=8
)
# public header -> the part that implements it
declare -A owner=(
  [error]=util [readfile]=util [textparse]=util
  [options]=options
  [hostlist]=lists [hostnames]=lists [intvec]=lists [step_layout]=lists
  [policy]=policy [priorityf]=policy [nodecache]=policy
  [binding]=topo [topo]=topo
  [resize_channel]=resize_channel
  [resize_decision]=resize_decision
  [metrics_file]=site [nodetable]=site [plugstack_line]=site [psiplace_conf]=site
  [psi_values]=psi [psi_slots]=psi
  [lama]=lama [lama_launch]=lama
  [spawnplan]=spawn
  [resize]=resize
  [malleable]=malleable
  [sim]=sim
  [psets]=psets
  [ctld_request]=request [user_request]=request [request_launch]=request
)

bad=0
# FILE PART: every psiplace/ header FILE includes must be PART's own or below
check() {
  local file=$1 part=$2 h o
  while read -r h; do
    h=${h%.h}; h=${h%.def}
    o=${owner[$h]:-}
    if [ -z "$o" ]; then
      echo "layers: $file includes psiplace/$h, which has no part in tests/unit/layers.sh"
      bad=1
    elif [ "$o" != "$part" ] && [ "${layer[$o]}" -ge "${layer[$part]}" ]; then
      echo "layers: $file ($part, layer ${layer[$part]}) uses psiplace/$h.h of $o (layer ${layer[$o]}): not below it"
      bad=1
    fi
  done < <(sed -n 's/^#include "psiplace\/\([^"]*\)".*/\1/p' "$file")
}

n=0
for dir in common/*/; do
  part=$(basename "$dir")
  if [ -z "${layer[$part]:-}" ]; then
    echo "layers: common/$part has no layer in tests/unit/layers.sh"
    bad=1
    continue
  fi
  for f in "$dir"*.c "$dir"*.h; do
    [ -f "$f" ] || continue
    check "$f" "$part"
    n=$((n + 1))
  done
done
for f in include/psiplace/*.h; do
  h=$(basename "$f" .h)
  if [ -z "${owner[$h]:-}" ]; then
    echo "layers: $f has no part in tests/unit/layers.sh"
    bad=1
    continue
  fi
  check "$f" "${owner[$h]}"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "layers: no source found under $root"; exit 2; }
[ "$bad" -eq 0 ] && echo "layers: $n files, every include goes down"
exit "$bad"
