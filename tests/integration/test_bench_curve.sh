#!/usr/bin/env bash
# Smoke run of the curve benchmark (tests/bench/bench_curve.sh) at small
# scale, so that it cannot rot: 200 absent nodes, one repetition, two
# will-run tests per side, job and policy in a pass, MessageTimeout=5 (the
# registration requests of 200 nodes time out in seconds), on its own three
# testbed instances (BENCH_INSTANCE_A/B/C, default 43, 44 and 45).  Checks
# the output's form and what must hold whatever the times: every will-run
# test succeeded on every side (no warning), a figure and a ratio for every
# series, every daemon stopped; not the times.
source "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
a=${BENCH_INSTANCE_A:-43} b=${BENCH_INSTANCE_B:-44} c=${BENCH_INSTANCE_C:-45}
BENCH_INSTANCE_A=$a BENCH_INSTANCE_B=$b BENCH_INSTANCE_C=$c BENCH_SCALES=200 BENCH_REPEATS=1 \
  BENCH_TESTS=2 BENCH_MSG_TIMEOUT=5 timeout -k 10 600 bash "$src_dir/tests/bench/bench_curve.sh" >"$out" 2>"$err"
check_eq "the bench ends with status 0" 0 "$?" "$(tail -n 20 "$err")"
rel=_slurm$PSIPLACE_SLURM n=curve_200nodes
check_match "header: build type, Slurm release, load average" \
  '^bench_curve: build type .+, Slurm [0-9]+\.[0-9]+\.[0-9]+, load average [0-9.]+, figures: median of 1 repetitions' \
  "$(head -n 1 "$out")"
check_match "a load line for the scale" "^bench_curve: willrun_200nodes$rel: load average [0-9.]+ at start, [0-9.]+ at end\$" \
  "$(cat "$out")"
for pol in LASTAVAILABLE PRIORITYF5; do
  for job in N1 N64 n64; do
    for side in psiplace psiplace_tier_off cons_tres; do
      f=${n}_${pol}_${job}_ctld_cpu_$side$rel
      check_match "$pol $job $side: slurmctld CPU per decision" "^bench: $f [0-9]+\.[0-9]{2} ms\$" \
        "$(grep -F "bench: $f " "$out")"
      check_match "$pol $job $side: its spread" "^bench: ${f}_spread [0-9]+\.[0-9]{2} ms\$" "$(grep -F "bench: ${f}_spread " "$out")"
      [ "$side" = cons_tres ] && continue
      f=${n}_${pol}_${job}_ratio_$side$rel
      check_match "$pol $job $side: ratio to cons_tres" "^bench: $f [0-9]+\.[0-9]{3} $side/cons_tres\$" \
        "$(grep -F "bench: $f " "$out")"
    done
  done
done
check_eq "18 figures and 12 ratios, each with its spread" 60 "$(grep -c "^bench: $n" "$out")"
check_eq "no warning (every will-run test succeeded, the requests timed out and slurmctld was quiet)" "" \
  "$(grep -h 'warning' "$out" "$err")"
for i in "$a" "$b" "$c"; do
  check_eq "instance $i stopped" "" "$(ls "/tmp/psiplace-testbed-$i/pids" 2>/dev/null)"
done
tb_finish
