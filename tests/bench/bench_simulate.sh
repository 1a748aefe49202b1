#!/usr/bin/env bash
# psiplace simulate's speed: a generated SWF trace (gen_trace.awk) of
# BENCH_JOBS jobs (100000) on BENCH_NODES nodes of 32 CPUs (1000), one
# policy (FIRSTAVAILABLE), at load 0.9 and 1.05.  Prints `bench:` lines:
# CPU seconds of the replay (user + system of the command).
# usage: bench_simulate.sh PSIPLACE
set -euo pipefail
psiplace=$1
here=$(cd "$(dirname "$0")" && pwd)
jobs=${BENCH_JOBS:-100000} nodes=${BENCH_NODES:-1000}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
awk -v nodes="$nodes" 'BEGIN { print "name,cpus,real_memory,speed"
  for (i = 1; i <= nodes; i++) printf "n%d,32,64000,%s\n", i, i % 4 ? "1.0" : "2.0" }' >"$d/n.csv"
for load in 0.9 1.05; do
  awk -v jobs="$jobs" -v nodes="$nodes" -v cpus=32 -v load="$load" -f "$here/gen_trace.awk" >"$d/t.swf"
  TIMEFORMAT=%U+%S
  t=$( { time "$psiplace" simulate --trace "$d/t.swf" --table "$d/n.csv" --policy FIRSTAVAILABLE \
           --format csv >"$d/out" ; } 2>&1 )
  cpu=$(echo "$t" | awk -F+ '{ print $1 + $2 }')
  echo "bench: simulate_${jobs}jobs_${nodes}nodes_load${load} $cpu s"
  sed -n 2p "$d/out" | sed 's/^/# /'
done
