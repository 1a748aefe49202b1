#!/usr/bin/env bash
# psiplace simulate's per-job answers (start and nodes of every job, the
# --jobs-csv file) and figures on small generated traces, for the eight
# policies and several models, against goldens written by the replay as it
# was before its fast paths (data/sim_golden/golden.txt: case, policy,
# sha256 of the per-job CSV, the csv row).  The fast paths must not
# change an answer.  GOLDEN_WRITE=FILE writes the goldens instead (TAP).
# usage: test_cli_simulate_golden.sh PSIPLACE DATA_DIR
set -uo pipefail
psiplace=$1
data=$2
source "$(dirname "$0")/tap.sh"

policies="FIRSTAVAILABLE LASTAVAILABLE CPULOAD MINRESOURCE MAXBALANCE FASTEST CONTIGUOUS PRIORITY"
out=${GOLDEN_WRITE:-$d/golden.txt}
: >"$out"
while read -r name trace args; do
  case $name in ''|'#'*) continue ;; esac
  table=nodes.csv
  case $args in table=*) table=${args%% *}; table=${table#table=}; args=${args#table=$table} ;; esac
  for p in $policies; do
    # shellcheck disable=SC2086 # args: several options
    row=$("$psiplace" simulate --trace "$data/$trace" --table "$data/$table" --policy "$p" \
            --format csv --jobs-csv "$d/jobs.csv" $args | sed -n 2p)
    sum=$(sha256sum <"$d/jobs.csv" | cut -d' ' -f1)
    echo "$name $p $sum $row" >>"$out"
  done
done <"$data/cases.txt"
if [ -n "${GOLDEN_WRITE:-}" ]; then
  echo "# wrote $GOLDEN_WRITE"
  exit 0
fi
while read -r name p sum row; do
  got=$(awk -v n="$name" -v p="$p" '$1 == n && $2 == p { print $3, $4 }' "$out")
  check "$name $p: the same starts and nodes per job, the same figures" "$sum $row" "$got"
done <"$data/golden.txt"
check "every case was replayed" "$(wc -l <"$data/golden.txt")" "$(wc -l <"$out")"
tap_end
