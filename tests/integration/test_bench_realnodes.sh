#!/usr/bin/env bash
# Smoke run of the real-nodes benchmark (tests/bench/bench_realnodes.sh) at
# small scale, so that it cannot rot: 16 real slurmd -N, 50 jobs of 1-8
# nodes, one repetition, a 2-s idle interval, on its own testbed
# (BENCH_INSTANCE, default 51).  Checks the output's form and what must
# hold whatever the times: the slurmd's cost measured, both streams ran
# (main scheduler cycles counted), psiplace's three 1-node jobs went to the
# nodes `psiplace rank` ranks first and not where cons_tres put them, and
# every daemon the bench started ended by its PID; not the times.
source "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
inst=${BENCH_INSTANCE:-51}
BENCH_INSTANCE=$inst BENCH_NODES=16 BENCH_JOBS=50 BENCH_MAX_NODES=8 BENCH_REPEATS=1 BENCH_IDLE=2 BENCH_POLICY=LASTAVAILABLE \
  timeout -k 10 300 bash "$src_dir/tests/bench/bench_realnodes.sh" >"$out" 2>"$err"
check_eq "the bench ends with status 0" 0 "$?" "$(tail -n 20 "$err")"
rel=_slurm$PSIPLACE_SLURM n=realnodes_16nodes
check_match "header: build type, Slurm release, load average, the settings" \
  '^bench_realnodes: build type .+, Slurm [0-9]+\.[0-9]+\.[0-9]+, load average [0-9.]+, 16 slurmd -N .*SlurmdTimeout=[0-9]+ \(ping every [0-9]+ s\), MessageTimeout=[0-9]+, TreeWidth=[0-9]+, SchedulerParameters=[^,]+, Epilog=[^,]+, 50 jobs of 1-8 nodes' \
  "$(head -n 1 "$out")"
check_match "the slurmd's memory (RSS per slurmd)" "^bench: ${n}_slurmd_rss$rel [0-9]+\.[0-9] MiB\$" "$(cat "$out")"
check_match "the slurmd's idle CPU" "^bench: ${n}_slurmd_idle_cpu$rel [0-9]+\.[0-9]{3} ms/min\$" "$(cat "$out")"
check_match "a load line for the stream" "^bench_realnodes: ${n}_50jobs$rel: load average [0-9.]+ at start, [0-9.]+ at end\$" "$(cat "$out")"
for side in psiplace cons_tres; do
  for f in "rate jobs/s" "ctld_cpu_per_job ms" "main_mean_cycle us" "main_cycles cycles"; do
    set -- $f
    check_match "$1 of $side: value and spread" "^bench: ${n}_50jobs_$1_$side$rel [0-9]+(\.[0-9]+)? $2\$" \
      "$(grep -F "${n}_50jobs_$1_$side$rel " "$out")"
    check_match "$1 of $side: spread" "^bench: ${n}_50jobs_$1_$side${rel}_spread [0-9]+(\.[0-9]+)? $2\$" "$(cat "$out")"
  done
  cycles=$(awk -v f="bench: ${n}_50jobs_main_cycles_$side$rel" 'index($0, f " ") == 1 {print $3}' "$out")
  check_eq "$side: the main scheduler ran (cycles > 0: $cycles)" 1 "$([ "${cycles:-0}" -gt 0 ] && echo 1 || echo 0)"
  rate=$(awk -v f="bench: ${n}_50jobs_rate_$side$rel" 'index($0, f " ") == 1 {print $3}' "$out")
  check_eq "$side: jobs started at a positive rate ($rate jobs/s)" 1 "$(echo "${rate:-0} > 0" | bc -l)"
done
check_match "rate ratio psiplace/cons_tres" "^bench: ${n}_50jobs_rate_ratio$rel [0-9]+\.[0-9]{3} psiplace/cons_tres\$" "$(cat "$out")"
check_match "CPU ratio psiplace/cons_tres" "^bench: ${n}_50jobs_ctld_cpu_ratio$rel [0-9]+\.[0-9]{3} psiplace/cons_tres\$" "$(cat "$out")"
# LASTAVAILABLE on 16 idle nodes: r16, r15, r14 (rank's first each time);
# cons_tres's index order r1, r2, r3
check_match "policy check: psiplace chose rank's nodes, cons_tres its own" \
  '^bench_realnodes: policy check: psiplace \(LASTAVAILABLE\) chose r16 r15 r14 for three 1-node jobs on the idle machine, psiplace rank ranked r16 r15 r14 first; cons_tres chose r1 r2 r3$' \
  "$(grep 'policy check' "$out")"
check_eq "policy applied" "bench: ${n}_policy_applied$rel 1 check" "$(grep -F "${n}_policy_applied$rel " "$out")"
check_eq "every daemon ended by its PID" "bench_realnodes: ended 18 recorded daemons by PID, 0 left" "$(grep 'recorded daemons' "$out")"
check_eq "no recorded daemon left" "" "$(ls "/tmp/psiplace-realnodes-$inst/pids" 2>/dev/null)"
check_eq "no warning" "" "$(grep -hi 'warning' "$out" "$err")"
tb_finish
