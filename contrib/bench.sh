#!/usr/bin/env bash
# Every benchmark; prints the `bench: NAME VALUE UNIT` lines and the
# benchmarks' header lines (`bench_rank: build type ...`, `bench_sched: ...`).
#   contrib/bench.sh [NAME...]   e.g. contrib/bench.sh lama; the names: lama, sched, rank,
#                                simulate, psi_launch, curve, backfill, realnodes, malleable,
#                                mall_rm, mall_payoff
#   PSIPLACE_SLURM=24.11|26.05   the testbed benchmarks on that release
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
contrib/build.sh >/dev/null
b=$(contrib/testbed/cluster.sh build-dir)
meson test -C "$b" --benchmark --num-processes 1 "$@" >/dev/null || true
grep -hE '^bench(_[a-z_]+)?: ' "$b/meson-logs/testlog.txt"
