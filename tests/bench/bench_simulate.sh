#!/usr/bin/env bash
# psiplace simulate's speed: a generated SWF trace (gen_trace.awk) of
# BENCH_JOBS jobs (100000) on BENCH_NODES nodes of 32 CPUs (1000), each
# policy of BENCH_POLICIES (FIRSTAVAILABLE; "all": the eight), at each
# load of BENCH_LOADS (0.9 1.05).  --1m: the issue's case, 1,000,000 jobs
# on 10,000 nodes (minutes per policy on a shared machine).  Prints
# `bench:` lines: CPU seconds of the replay (user + system of the
# command); a `#` line after it: wall time, load average as it ended,
# the replay's csv row.
# BENCH_MALLEABLE=RULE (e.g. fraction=0.25,seed=1) adds `--malleable RULE`:
# every policy is then replayed rigid and malleable, and the CPU seconds
# are those of both replays (a `#` line gives the malleable row; the
# rigid replay alone is the same bench without it).  --malleable-growth:
# that, at 100k and 1M jobs on 1,000 and 10,000 nodes, load 1.05, to show
# how the time grows with jobs and nodes.
# usage: bench_simulate.sh PSIPLACE [--1m | --malleable-growth]
set -euo pipefail
psiplace=$1
here=$(cd "$(dirname "$0")" && pwd)
jobs=${BENCH_JOBS:-100000} nodes=${BENCH_NODES:-1000}
scales="$jobs:$nodes"
if [ "${2:-}" = --1m ]; then
  scales=1000000:10000
elif [ "${2:-}" = --malleable-growth ]; then
  scales="100000:1000 1000000:1000 100000:10000 1000000:10000"
  : "${BENCH_MALLEABLE:=fraction=0.25,seed=1}" "${BENCH_LOADS:=1.05}"
fi
mall=()
[ -n "${BENCH_MALLEABLE:-}" ] && mall=(--malleable "$BENCH_MALLEABLE")
policies=${BENCH_POLICIES:-FIRSTAVAILABLE}
[ "$policies" = all ] &&
  policies="FIRSTAVAILABLE LASTAVAILABLE CPULOAD MINRESOURCE MAXBALANCE FASTEST CONTIGUOUS PRIORITY"
# gawk refuses `-v load=` (a builtin's name); mawk and busybox awk take it
awk=$(command -v mawk || command -v awk)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for scale in $scales; do
jobs=${scale%:*} nodes=${scale#*:}
"$awk" -v nodes="$nodes" 'BEGIN { print "name,cpus,real_memory,speed"
  for (i = 1; i <= nodes; i++) printf "n%d,32,64000,%s\n", i, i % 4 ? "1.0" : "2.0" }' >"$d/n.csv"
for load in ${BENCH_LOADS:-0.9 1.05}; do
  "$awk" -v jobs="$jobs" -v nodes="$nodes" -v cpus=32 -v load="$load" -f "$here/gen_trace.awk" >"$d/t.swf"
  for p in $policies; do
    TIMEFORMAT=%U+%S+%R
    t=$( { time "$psiplace" simulate --trace "$d/t.swf" --table "$d/n.csv" --policy "$p" \
             "${mall[@]}" --format csv >"$d/out" ; } 2>&1 )
    cpu=$(echo "$t" | awk -F+ '{ print $1 + $2 }')
    wall=$(echo "$t" | awk -F+ '{ print $3 }')
    tag=simulate_${jobs}jobs_${nodes}nodes_load${load}
    [ "$p" = FIRSTAVAILABLE ] || tag=${tag}_$p
    [ ${#mall[@]} -eq 0 ] || tag=${tag}_malleable_rigid_and_malleable
    echo "bench: $tag $cpu s"
    echo "# wall $wall s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    sed -n '2,3p' "$d/out" | sed 's/^/# /'
  done
done
done
