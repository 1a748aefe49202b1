#!/usr/bin/env bash
# Smoke run of the backfill benchmark (tests/bench/bench_backfill.sh) at
# small scale, so that it cannot rot: 200 absent nodes, 20 pending jobs, one
# repetition, LASTAVAILABLE only, on its own two testbed instances
# (BENCH_INSTANCE_A/B, default 57 and 58).  Checks the output's form and
# what must hold whatever the times: every job tested in the cycle, none
# started (the machine is full of reservations), jobs planned on both sides;
# not the times.
source "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
BENCH_INSTANCE_A=${BENCH_INSTANCE_A:-57} BENCH_INSTANCE_B=${BENCH_INSTANCE_B:-58} \
  BENCH_SCALES=200 BENCH_JOBS=20 BENCH_REPEATS=1 BENCH_POLICIES=LASTAVAILABLE BENCH_RESV=4 \
  timeout -k 10 600 bash "$src_dir/tests/bench/bench_backfill.sh" >"$out" 2>"$err"
check_eq "the bench ends with status 0" 0 "$?" "$(tail -n 20 "$err")"
rel=_slurm$PSIPLACE_SLURM n=backfill_200nodes_20jobs_LASTAVAILABLE
check_match "header: build type, Slurm release, load average, SchedulerParameters" \
  '^bench_backfill: build type .+, Slurm [0-9]+\.[0-9]+\.[0-9]+, load average [0-9.]+, SchedulerParameters=bf_interval=[0-9]+,.*bf_max_job_test=[0-9]+,bf_window=[0-9]+' "$(head -n 1 "$out")"
check_match "a load line for the series" "^bench_backfill: $n$rel: load average [0-9.]+ at start, [0-9.]+ at end\$" "$(cat "$out")"
for side in psiplace cons_tres; do
  for f in "cycle ms" "cycle_cpu ms" "depth jobs"; do
    set -- $f
    check_match "$1 of $side: value and spread" \
      "^bench: ${n}_$1_$side$rel [0-9]+(\.[0-9])? $2\$" "$(grep -F "${n}_$1_$side$rel " "$out")"
    check_match "$1 of $side: spread" "^bench: ${n}_$1_$side${rel}_spread [0-9]+(\.[0-9])? $2\$" "$(cat "$out")"
  done
  check_eq "$side: the cycle tested all 20 jobs" 20 "$(awk -v f="bench: ${n}_depth_$side$rel" 'index($0, f " ") == 1 {print $3}' "$out")"
  check_eq "$side: no job started (backfilled 0)" "bench: ${n}_backfilled_$side$rel 0 jobs" "$(grep -F "${n}_backfilled_$side$rel " "$out")"
  check_match "$side: jobs planned (StartTime set)" "^bench: ${n}_planned_$side$rel ([1-9]|1[0-9]|20) jobs\$" "$(grep -F "${n}_planned_$side$rel " "$out")"
done
check_match "ratio psiplace/cons_tres" "^bench: ${n}_cycle_ratio$rel [0-9]+\.[0-9]{3} psiplace/cons_tres\$" "$(cat "$out")"
check_match "jobs planned at the same start on both sides" "^bench: ${n}_planned_same_start$rel [0-9]+ jobs\$" "$(cat "$out")"
check_match "jobs planned at the same start on the same nodes on both sides" "^bench: ${n}_planned_same_nodes$rel [0-9]+ jobs\$" "$(cat "$out")"
check_eq "no warning" "" "$(grep -h 'warning' "$out" "$err")"
for i in "${BENCH_INSTANCE_A:-57}" "${BENCH_INSTANCE_B:-58}"; do
  check_eq "instance $i stopped" "" "$(ls "/tmp/psiplace-testbed-$i/pids" 2>/dev/null)"
done

# B. The shortcuts (ranked tier, exact_first) against the full decision:
# the same queue backfilled by psiplace with the default RankedTier and by
# psiplace with RankedTier=1000000 (every candidate ranked): every job
# planned at the same start on the same nodes.
BENCH_B=tier_off BENCH_INSTANCE_A=${BENCH_INSTANCE_A:-57} BENCH_INSTANCE_B=${BENCH_INSTANCE_B:-58} \
  BENCH_SCALES=200 BENCH_JOBS=20 BENCH_REPEATS=1 BENCH_POLICIES=LASTAVAILABLE BENCH_RESV=4 \
  timeout -k 10 600 bash "$src_dir/tests/bench/bench_backfill.sh" >"$out" 2>"$err"
check_eq "B: the bench ends with status 0" 0 "$?" "$(tail -n 20 "$err")"
planned=$(awk -v f="bench: ${n}_planned_psiplace$rel" 'index($0, f " ") == 1 {print $3}' "$out")
check_match "B: jobs planned" '^([1-9]|1[0-9]|20)$' "$planned"
check_eq "B: the tier-off side planned as many" "$planned" \
  "$(awk -v f="bench: ${n}_planned_psiplace_tier_off$rel" 'index($0, f " ") == 1 {print $3}' "$out")"
check_eq "B: every planned job at the same start on the same nodes" "$planned" \
  "$(awk -v f="bench: ${n}_planned_same_nodes$rel" 'index($0, f " ") == 1 {print $3}' "$out")" "$(cat "$out")"
tb_finish
