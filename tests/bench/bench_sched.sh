#!/usr/bin/env bash
# Scheduling cost of select/psiplace_cons_tres against select/cons_tres on
# the same job stream, two testbed instances side by side, measured in one
# run and alternating the sides.  Prints `bench:` lines.
#   1. throughput: array jobs of short tasks on the 4-node testbed
#   2. decision cost with 5,000 / 10,000 / 20,000 nodes defined (idle in
#      slurmctld's view, never started): will-run tests (sbatch --test-only)
#      of 1-node and 64-node jobs, which run select_g_job_test over every node
# Every figure is measured in BENCH_REPEATS repetitions and printed as the
# median, followed by a NAME_spread line (max - min, same unit), as
# bench_rank does.  A repetition alternates the sides: two arrays or two
# will-run series per side, A before B, then B before A.  A header line
# names the build the plugins come from (buildtype, optimization, -O/-f
# flags, source commit) and the Slurm release; a line per series gives the
# machine's 1-minute load average at its start and its end (at the end of
# a scale series it includes the testbed's own registration requests, up
# to one slurmctld thread per absent node):
#   bench_sched: build type plain optimization=plain c_args: -O2 (...), Slurm 22.05.8, ...
#   bench_sched: willrun_20000nodes_slurm22.05: load average 1.52 at start, 2.05 at end
#   bench: willrun_20000nodes_N1_psiplace_slurm22.05 21.40 ms
#   bench: willrun_20000nodes_N1_psiplace_slurm22.05_spread 3.10 ms
# Every line names the Slurm release it ran on (PSIPLACE_SLURM).
# Environment: BENCH_REPEATS (3), BENCH_ROUNDS (2: arrays per side in a
# repetition), BENCH_TASKS (60), BENCH_TESTS (25: will-run tests per side,
# job size and series; a repetition has two series),
# BENCH_SCALES ("5000 10000 20000"), BENCH_SKIP_THROUGHPUT=1,
# PSIPLACE_BUILD_DIR (default: cluster.sh build-dir).
# The scale nodes are measured right after start: a few seconds after it
# slurmctld sends every node a registration request, and as the requests
# fail (about 25 s for 20,000 absent nodes) it marks the nodes not
# responding and stops offering them (a 64-node will-run then fails, a
# 1-node one costs 2 ms instead of 20).  So each repetition of a scale
# starts the pair afresh.  Their
# slurmctld runs with SlurmdTimeout=3600: with 30 s it pinged the absent
# nodes every 10 s from agent threads, whose CPU time (thread creation,
# connects) was counted in the decisions' slurmctld CPU: at 20,000 nodes
# psiplace's CPU came out higher than cons_tres's while its wall time was
# lower.  The registration agents still run during the series (waiting
# for them to end would leave no scale nodes to decide over): the sides
# alternate which goes first, and a series whose slurmctld CPU exceeds its
# wall time, or whose will-run tests fail, is flagged (bench: warning).
set -euo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$src/tests/bench/bench_lib.sh"
cluster=$src/contrib/testbed/cluster.sh
repeats=${BENCH_REPEATS:-3} rounds=${BENCH_ROUNDS:-2} tasks=${BENCH_TASKS:-60} tests=${BENCH_TESTS:-25}
for v in "$repeats" "$rounds" "$tasks" "$tests"; do
  case $v in
    '' | *[!0-9]* | 0) echo "bench_sched: BENCH_REPEATS, BENCH_ROUNDS, BENCH_TASKS, BENCH_TESTS: '$v' is not a positive number" >&2; exit 2 ;;
  esac
done
A=${BENCH_INSTANCE_A:-20} B=${BENCH_INSTANCE_B:-21}
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
# the release's own clients (sbatch, squeue) for 24.11/26.05
if [ "$PSIPLACE_SLURM" != 22.05 ]; then
  eval "$("$cluster" env | grep '^export PATH=')"
fi
rel=_slurm$PSIPLACE_SLURM
PSIPLACE_BUILD_DIR=${PSIPLACE_BUILD_DIR:-$("$cluster" build-dir)}
export PSIPLACE_BUILD_DIR

start_pair() { # extra nodes
  local timeout=30
  [ "$1" -eq 0 ] || timeout=3600
  export PSIPLACE_SLURMD_TIMEOUT=$timeout
  PSIPLACE_INSTANCE=$A PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_EXTRA_NODES=$1 PSIPLACE_EXTRA_STATE=IDLE timeout 300 "$cluster" start
  PSIPLACE_INSTANCE=$B PSIPLACE_POLICY=none PSIPLACE_SELECT=select/cons_tres PSIPLACE_EXTRA_NODES=$1 PSIPLACE_EXTRA_STATE=IDLE timeout 300 "$cluster" start
}
# in a session of its own (see bench_curve.sh)
stop_pair() { setsid -w bash -c 'for i in "${@:2}"; do PSIPLACE_INSTANCE=$i timeout 60 "$1" stop; done' _ "$cluster" "$A" "$B"; }
trap 'stop_pair >/dev/null 2>&1' EXIT

slurm_version=$(timeout 10 slurmctld -V | awk '{print $2}') || slurm_version=unknown
printf 'bench_sched: build type %s, Slurm %s, load average %s, figures: median of %d repetitions and spread (max - min)\n' \
  "$(build_type "$PSIPLACE_BUILD_DIR")" "$slurm_version" "$(load1)" "$repeats"

# Non-zero when the queue is not empty or squeue did not answer.
queue_empty() {
  local out
  out=$(SLURM_CONF=$(conf "$1") timeout 10 squeue -h -o %i) || return 1
  [ -z "$out" ]
}

# Seconds for one array of $tasks one-CPU tasks to be scheduled, run and leave the queue.
array_seconds() {
  local inst=$1 t0 deadline
  t0=$(now)
  SLURM_CONF=$(conf "$inst") timeout 30 sbatch -Q --array=1-"$tasks" -n1 -o /dev/null --wrap true >/dev/null
  deadline=$((SECONDS + 300))
  until queue_empty "$inst"; do
    [ $SECONDS -lt $deadline ] || { echo "bench: array on instance $inst did not finish" >&2; exit 1; }
    sleep 0.05
  done
  echo "$(now) - $t0" | bc -l
}

# slurmctld's CPU time so far, in clock ticks (utime + stime).
tick=$(getconf CLK_TCK)

# "wall_seconds ctld_cpu_seconds" for $tests will-run tests of an N-node job;
# what names the series in warnings.
test_seconds() {
  local inst=$1 nodes=$2 part=$3 what=$4 t0 c0 i failed=0
  t0=$(now); c0=$(ctld_ticks "$inst")
  for ((i = 0; i < tests; i++)); do
    # sbatch --test-only exits 1 when it cannot run (it always can here): a
    # failure is a time-out or an error, reported instead of ending silently
    SLURM_CONF=$(conf "$inst") timeout 30 sbatch --test-only -p "$part" -N"$nodes" --wrap true >/dev/null 2>&1 ||
      failed=$((failed + 1))
  done
  if [ "$failed" -gt 0 ]; then
    echo "bench: warning instance $inst $what: $failed of $tests will-run tests failed" >&2
  fi
  local w c
  w=$(echo "$(now) - $t0" | bc -l)
  c=$(echo "($(ctld_ticks "$inst") - $c0) / $tick" | bc -l)
  # sbatch runs between the decisions: slurmctld's CPU cannot exceed the
  # wall time unless something else ran in it meanwhile
  if [ "$(echo "$c > $w" | bc -l)" = 1 ]; then
    echo "bench: warning instance $inst $what: slurmctld CPU $c s > wall $w s (background work counted)" >&2
  fi
  echo "$w $c"
}

# The sides in the order of pass $1 of a repetition: A first, then B first.
order() { if (($1 % 2)); then echo "$B $A"; else echo "$A $B"; fi; }

if [ "${BENCH_SKIP_THROUGHPUT:-0}" != 1 ]; then
  l0=$(load1)
  start_pair 0 >/dev/null
  ra=() rb=() rr=()
  for ((k = 0; k < repeats; k++)); do
    ta=0 tb=0
    for ((r = 0; r < rounds; r++)); do
      for inst in $(order $r); do
        s=$(array_seconds "$inst")
        if [ "$inst" = "$A" ]; then ta=$(echo "$ta + $s" | bc -l); else tb=$(echo "$tb + $s" | bc -l); fi
      done
    done
    ra+=("$(echo "$rounds * $tasks / $ta" | bc -l)")
    rb+=("$(echo "$rounds * $tasks / $tb" | bc -l)")
    rr+=("$(echo "$tb / $ta" | bc -l)")
  done
  stop_pair >/dev/null
  echo "bench_sched: sched_throughput$rel: load average $l0 at start, $(load1) at end"
  figure "sched_throughput_psiplace$rel" %.1f jobs/s "${ra[@]}"
  figure "sched_throughput_cons_tres$rel" %.1f jobs/s "${rb[@]}"
  figure "sched_throughput_ratio$rel" %.3f psiplace/cons_tres "${rr[@]}"
fi

for extra in ${BENCH_SCALES:-5000 10000 20000}; do
  l0=$(load1)
  # per job size: per-repetition wall and CPU ms per decision of A and B, ratio
  declare -A wa=() wb=() ca=() cb=() ratio=()
  for ((k = 0; k < repeats; k++)); do
    # a fresh pair per repetition: the scale nodes are offered only for
    # about 25 s after the start (see above)
    start_pair "$extra" >/dev/null
    for n in 1 64; do
      a=0 b=0 xa=0 xb=0
      for ((r = 0; r < 2; r++)); do # alternating which side goes first
        for inst in $(order $r); do
          read -r w c < <(test_seconds "$inst" $n scale "${extra}nodes N$n repetition $((k + 1))/$repeats pass $((r + 1))") ||
            { echo "bench: will-run series on instance $inst failed" >&2; exit 1; }
          if [ "$inst" = "$A" ]; then a=$(echo "$a + $w" | bc -l); xa=$(echo "$xa + $c" | bc -l)
          else b=$(echo "$b + $w" | bc -l); xb=$(echo "$xb + $c" | bc -l); fi
        done
      done
      wa[$n]+=" $(echo "1000 * $a / (2 * $tests)" | bc -l)"
      wb[$n]+=" $(echo "1000 * $b / (2 * $tests)" | bc -l)"
      ca[$n]+=" $(echo "1000 * $xa / (2 * $tests)" | bc -l)"
      cb[$n]+=" $(echo "1000 * $xb / (2 * $tests)" | bc -l)"
      ratio[$n]+=" $(echo "$b / $a" | bc -l)"
    done
    stop_pair >/dev/null
  done
  echo "bench_sched: willrun_${extra}nodes$rel: load average $l0 at start, $(load1) at end"
  for n in 1 64; do
    p=willrun_${extra}nodes_N$n
    # shellcheck disable=SC2086 # the lists are blank-separated numbers
    {
      figure "${p}_psiplace$rel" %.2f ms ${wa[$n]}
      figure "${p}_cons_tres$rel" %.2f ms ${wb[$n]}
      figure "${p}_ratio$rel" %.3f cons_tres/psiplace ${ratio[$n]}
      figure "${p}_ctld_cpu_psiplace$rel" %.2f ms ${ca[$n]}
      figure "${p}_ctld_cpu_cons_tres$rel" %.2f ms ${cb[$n]}
    }
  done
done
