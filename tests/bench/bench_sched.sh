#!/usr/bin/env bash
# Scheduling cost of select/psiplace_cons_tres against select/cons_tres on
# the same job stream, two testbed instances side by side, measured in one
# run and alternating the sides.  Prints `bench:` lines.
#   1. throughput: array jobs of short tasks on the 4-node testbed
#   2. decision cost with 5,000 / 10,000 / 20,000 nodes defined (idle in
#      slurmctld's view, never started): will-run tests (sbatch --test-only)
#      of 1-node and 64-node jobs, which run select_g_job_test over every node
# Every line names the Slurm release it ran on (PSIPLACE_SLURM, e.g.
# bench: sched_throughput_psiplace_slurm24.11 25.1 jobs/s).
# Environment: BENCH_ROUNDS (4), BENCH_TASKS (60), BENCH_TESTS (25),
# BENCH_SCALES ("5000 10000 20000"), BENCH_SKIP_THROUGHPUT=1.
# slurmctld sends the scale nodes a registration request soon after its
# start and marks them not responding (nothing runs there); will-run still
# tests them (job_start_data takes every active node), and with a long
# SlurmdTimeout none goes DOWN during the bench.  Their
# slurmctld runs with SlurmdTimeout=3600: with 30 s it pinged the absent
# nodes every 10 s from agent threads, whose CPU time (thread creation,
# connects) was counted in the decisions' slurmctld CPU: at 20,000 nodes
# psiplace's CPU came out higher than cons_tres's while its wall time was
# lower.  Each series starts once slurmctld is quiet after its start
# (wait_quiet), the sides alternate which goes first, and a series whose
# slurmctld CPU exceeds its wall time is flagged (bench: warning).
set -euo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cluster=$src/contrib/testbed/cluster.sh
rounds=${BENCH_ROUNDS:-4} tasks=${BENCH_TASKS:-60} tests=${BENCH_TESTS:-25}
A=${BENCH_INSTANCE_A:-20} B=${BENCH_INSTANCE_B:-21}
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
# the release's own clients (sbatch, squeue) for 24.11/26.05
if [ "$PSIPLACE_SLURM" != 22.05 ]; then
  eval "$("$cluster" env | grep '^export PATH=')"
fi
rel=_slurm$PSIPLACE_SLURM

start_pair() { # extra nodes
  local timeout=30
  [ "$1" -eq 0 ] || timeout=3600
  export PSIPLACE_SLURMD_TIMEOUT=$timeout
  PSIPLACE_INSTANCE=$A PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_EXTRA_NODES=$1 PSIPLACE_EXTRA_STATE=IDLE "$cluster" start
  PSIPLACE_INSTANCE=$B PSIPLACE_POLICY=none PSIPLACE_SELECT=select/cons_tres PSIPLACE_EXTRA_NODES=$1 PSIPLACE_EXTRA_STATE=IDLE "$cluster" start
}
stop_pair() { PSIPLACE_INSTANCE=$A "$cluster" stop; PSIPLACE_INSTANCE=$B "$cluster" stop; }
trap 'stop_pair >/dev/null 2>&1' EXIT
conf() { echo "/tmp/psiplace-testbed-$1/etc/slurm.conf"; }
now() { date +%s.%N; }

queue_empty() { [ -z "$(SLURM_CONF=$(conf "$1") squeue -h -o %i)" ]; }

# Seconds for one array of $tasks one-CPU tasks to be scheduled, run and leave the queue.
array_seconds() {
  local inst=$1 t0 deadline
  t0=$(now)
  SLURM_CONF=$(conf "$inst") sbatch -Q --array=1-"$tasks" -n1 -o /dev/null --wrap true >/dev/null
  deadline=$((SECONDS + 300))
  until queue_empty "$inst"; do
    [ $SECONDS -lt $deadline ] || { echo "bench: array on instance $inst did not finish" >&2; exit 1; }
    sleep 0.05
  done
  echo "$(now) - $t0" | bc -l
}

# slurmctld's CPU time so far, in clock ticks (utime + stime).
ctld_ticks() { awk '{print $14 + $15}' "/proc/$(cat "/tmp/psiplace-testbed-$1/pids/slurmctld")/stat"; }
tick=$(getconf CLK_TCK)

# Wait (up to 120 s) until slurmctld uses less than 2 ticks of CPU in half a
# second: after its start it sends every node a registration request, and
# for 20,000 absent nodes those agents ran into the first series of the
# instance started first (psiplace's), doubling its slurmctld CPU.
wait_quiet() {
  local inst=$1 t deadline=$((SECONDS + 120))
  while [ $SECONDS -lt $deadline ]; do
    t=$(ctld_ticks "$inst")
    sleep 0.5
    [ $(($(ctld_ticks "$inst") - t)) -ge 2 ] || return 0
  done
  echo "bench: warning instance $inst: slurmctld still busy 120 s after start" >&2
}

# "wall_seconds ctld_cpu_seconds" for $tests will-run tests of an N-node job.
test_seconds() {
  local inst=$1 nodes=$2 part=$3 t0 c0 i failed=0
  t0=$(now); c0=$(ctld_ticks "$inst")
  for ((i = 0; i < tests; i++)); do
    # sbatch --test-only exits 1 when it cannot run (it always can here): a
    # failure is a time-out or an error, reported instead of ending silently
    SLURM_CONF=$(conf "$inst") sbatch --test-only -p "$part" -N"$nodes" --wrap true >/dev/null 2>&1 ||
      failed=$((failed + 1))
  done
  if [ "$failed" -gt 0 ]; then
    echo "bench: warning instance $inst N$nodes: $failed of $tests will-run tests failed" >&2
  fi
  local w c
  w=$(echo "$(now) - $t0" | bc -l)
  c=$(echo "($(ctld_ticks "$inst") - $c0) / $tick" | bc -l)
  # sbatch runs between the decisions: slurmctld's CPU cannot exceed the
  # wall time unless something else ran in it meanwhile
  if [ "$(echo "$c > $w" | bc -l)" = 1 ]; then
    echo "bench: warning instance $inst N$nodes: slurmctld CPU $c s > wall $w s (background work counted)" >&2
  fi
  echo "$w $c"
}

if [ "${BENCH_SKIP_THROUGHPUT:-0}" != 1 ]; then
start_pair 0 >/dev/null
ta=0 tb=0
for ((r = 0; r < rounds; r++)); do
  if ((r % 2)); then tb=$(echo "$tb + $(array_seconds $B)" | bc -l); ta=$(echo "$ta + $(array_seconds $A)" | bc -l)
  else ta=$(echo "$ta + $(array_seconds $A)" | bc -l); tb=$(echo "$tb + $(array_seconds $B)" | bc -l); fi
done
printf "bench: sched_throughput_psiplace$rel %.1f jobs/s\n" "$(echo "$rounds * $tasks / $ta" | bc -l)"
printf "bench: sched_throughput_cons_tres$rel %.1f jobs/s\n" "$(echo "$rounds * $tasks / $tb" | bc -l)"
printf "bench: sched_throughput_ratio$rel %.3f psiplace/cons_tres\n" "$(echo "$tb / $ta" | bc -l)"
stop_pair >/dev/null
fi

for extra in ${BENCH_SCALES:-5000 10000 20000}; do
  start_pair "$extra" >/dev/null
  wait_quiet $A
  wait_quiet $B
  for n in 1 64; do
    a=0 b=0 ca=0 cb=0
    for ((r = 0; r < 2; r++)); do # alternating which side goes first
      for inst in $( ((r % 2)) && echo "$B $A" || echo "$A $B"); do
        read -r w c < <(test_seconds "$inst" $n scale) ||
          { echo "bench: will-run series on instance $inst failed" >&2; exit 1; }
        if [ "$inst" = "$A" ]; then a=$(echo "$a + $w" | bc -l); ca=$(echo "$ca + $c" | bc -l)
        else b=$(echo "$b + $w" | bc -l); cb=$(echo "$cb + $c" | bc -l); fi
      done
    done
    printf "bench: willrun_%dnodes_N%d_psiplace$rel %.2f ms\n" "$extra" "$n" "$(echo "1000 * $a / (2 * $tests)" | bc -l)"
    printf "bench: willrun_%dnodes_N%d_cons_tres$rel %.2f ms\n" "$extra" "$n" "$(echo "1000 * $b / (2 * $tests)" | bc -l)"
    printf "bench: willrun_%dnodes_N%d_ratio$rel %.3f cons_tres/psiplace\n" "$extra" "$n" "$(echo "$b / $a" | bc -l)"
    printf "bench: willrun_%dnodes_N%d_ctld_cpu_psiplace$rel %.2f ms\n" "$extra" "$n" "$(echo "1000 * $ca / (2 * $tests)" | bc -l)"
    printf "bench: willrun_%dnodes_N%d_ctld_cpu_cons_tres$rel %.2f ms\n" "$extra" "$n" "$(echo "1000 * $cb / (2 * $tests)" | bc -l)"
  done
  stop_pair >/dev/null
done
