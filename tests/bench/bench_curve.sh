#!/usr/bin/env bash
# The curve: will-run decision cost (slurmctld CPU per `sbatch --test-only`)
# against the number of nodes, three testbeds side by side and alternating:
#   A psiplace, ranked tier on (default RankedTier)
#   C psiplace, ranked tier off (RankedTier=1000000 on the plugstack line)
#   B plain select/cons_tres
# at BENCH_SCALES absent nodes x[1-N] (5,000 .. 100,000), for the jobs
#   N1 (-N1), N64 (-N64, fixed count) and n64 (-n64: the node range is left
#   open, so psiplace lets cons_tres decide the count first: count_first)
# under LASTAVAILABLE (the cluster policy) and PRIORITYF5 (the job's
# --psi-alloc-policy=PRIORITY with a 5-term --psi-alloc-priority).
# Prints `bench:` lines (median of BENCH_REPEATS and _spread, as
# bench_sched.sh), a header with build type, Slurm release and load average,
# and a load line per scale.
#
# Keeping the absent nodes schedulable: slurmctld sends every node a
# registration request a few seconds after its start.  Sent to a port
# nobody listens on, each fails at once, the forwarding tree is abandoned
# and one thread per node retries for up to MessageTimeout seconds: at
# 20,000 nodes about 20,000 threads, at 50,000 more than this machine's
# pid_max (32,768) allows, and when they end the nodes are not responding
# and no longer offered.  Here the nodes' port is held by hold_port.py,
# which listens and never accepts: the connects succeed in the kernel's
# accept queue and the requests wait for replies (MessageTimeout=30) in the
# tree's first threads, the nodes stay IDLE and offered for minutes, and
# what slurmctld does meanwhile is sleep.  Environment: BENCH_REPEATS (3),
# BENCH_TESTS (10 will-run tests per side, job and policy in a pass; two
# passes per repetition), BENCH_SCALES, BENCH_INSTANCE_A/B/C (23/24/25),
# BENCH_MSG_TIMEOUT (30: MessageTimeout; the smoke run's 200 nodes settle
# sooner with less), PSIPLACE_BUILD_DIR.
set -euo pipefail
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$src/tests/bench/bench_lib.sh"
cluster=$src/contrib/testbed/cluster.sh
repeats=${BENCH_REPEATS:-3} tests=${BENCH_TESTS:-10} msg_timeout=${BENCH_MSG_TIMEOUT:-30}
for v in "$repeats" "$tests" "$msg_timeout"; do
  case $v in
    '' | *[!0-9]* | 0) echo "bench_curve: BENCH_REPEATS, BENCH_TESTS, BENCH_MSG_TIMEOUT: '$v' is not a positive number" >&2; exit 2 ;;
  esac
done
A=${BENCH_INSTANCE_A:-23} B=${BENCH_INSTANCE_B:-24} C=${BENCH_INSTANCE_C:-25}
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
[ "$PSIPLACE_SLURM" = 22.05 ] || eval "$("$cluster" env | grep '^export PATH=')"
rel=_slurm$PSIPLACE_SLURM
PSIPLACE_BUILD_DIR=${PSIPLACE_BUILD_DIR:-$("$cluster" build-dir)}
export PSIPLACE_BUILD_DIR
prio='APROCS + 0.5*CPROCS + 0.001*AMEM - 0.0001*CMEM + 0.01*CDISK'
holders=()

side() { case $1 in "$A") echo psiplace ;; "$C") echo psiplace_tier_off ;; *) echo cons_tres ;; esac; }
start_one() { # instance extra
  local inst=$1
  hold_port_start "$inst" "/tmp/psiplace-hold-$inst.out" bench_curve
  local env=(PSIPLACE_INSTANCE="$inst" PSIPLACE_EXTRA_NODES="$2" PSIPLACE_EXTRA_STATE=IDLE
    PSIPLACE_SLURMD_TIMEOUT=3600 PSIPLACE_MSG_TIMEOUT="$msg_timeout" PSIPLACE_CTLD_WAIT=600)
  case $inst in
    "$A") env+=(PSIPLACE_POLICY=LASTAVAILABLE) ;;
    "$C") env+=(PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_PLUGSTACK_ARGS=RankedTier=1000000) ;;
    *) env+=(PSIPLACE_POLICY=none PSIPLACE_SELECT=select/cons_tres) ;;
  esac
  # the real nodes n[1-4] may not register in time at 100,000 nodes: the
  # scale series need only slurmctld
  env "${env[@]}" timeout 900 "$cluster" start >/dev/null 2>&1 ||
    SLURM_CONF=$(conf "$inst") timeout 30 scontrol ping | grep -q UP ||
    { echo "bench_curve: instance $inst did not start" >&2; exit 1; }
}
stop_all() {
  local i
  # in a session of its own, like cluster.sh stop: a SIGKILL to this
  # script's process group (meson's timeout) cannot end it between instances
  # (a stop that fails must not end this function under set -e before the
  # port holders are ended: they outlived a run whose instance was refused)
  setsid -w bash -c 'for i in "${@:2}"; do PSIPLACE_INSTANCE=$i timeout 120 "$1" stop; done' _ "$cluster" $A $B $C || true
  for i in "${holders[@]}"; do kill "$i" 2>/dev/null || true; done
  holders=()
}
trap 'stop_all >/dev/null 2>&1' EXIT
tick=$(getconf CLK_TCK)
bt=$(build_type "$PSIPLACE_BUILD_DIR")
printf 'bench_curve: build type %s, Slurm %s, load average %s, figures: median of %d repetitions and spread (max - min)\n' \
  "$bt" "$(timeout 10 slurmctld -V | awk '{print $2}')" "$(load1)" "$repeats"

# ms of slurmctld CPU per decision over $tests will-run tests of job $2 under policy $3
series() {
  local inst=$1 job=$2 pol=$3 c0 i failed=0 args=(-p scale)
  case $job in N1) args+=(-N1) ;; N64) args+=(-N64) ;; n64) args+=(-n64) ;; esac
  [ "$pol" = LASTAVAILABLE ] || args+=(--psi-alloc-policy=PRIORITY "--psi-alloc-priority=$prio")
  c0=$(ctld_ticks "$inst")
  for ((i = 0; i < tests; i++)); do
    SLURM_CONF=$(conf "$inst") timeout 120 sbatch --test-only "${args[@]}" --wrap true >/dev/null 2>&1 ||
      failed=$((failed + 1))
  done
  [ "$failed" -eq 0 ] || echo "bench: warning instance $inst $job $pol: $failed of $tests will-run tests failed" >&2
  echo "1000 * ($(ctld_ticks "$inst") - $c0) / $tick / $tests" | bc -l
}

# Poll until slurmctld's registration requests have timed out (about 45 s
# after its start: the first "Socket timed out" in its log) and it has been
# quiet for a second (at most one tick of CPU), 300 s at most: the requests'
# ends cost a burst of CPU that must not be counted as decisions.
settle() {
  local inst=$1 deadline=$((SECONDS + 300)) c0
  until grep -q 'Socket timed out' "/tmp/psiplace-testbed-$inst/log/slurmctld.log"; do
    [ $SECONDS -lt $deadline ] || { echo "bench: warning instance $inst: no registration time-out in 300 s" >&2; return 0; }
    sleep 0.5
  done
  while :; do
    c0=$(ctld_ticks "$inst"); sleep 1
    [ $(($(ctld_ticks "$inst") - c0)) -gt 1 ] || return 0
    [ $SECONDS -lt $deadline ] || { echo "bench: warning instance $inst: not quiet after 300 s" >&2; return 0; }
  done
}

for extra in ${BENCH_SCALES:-5000 10000 20000 50000 100000}; do
  for i in $A $C $B; do start_one "$i" "$extra"; done
  for i in $A $C $B; do settle "$i"; done
  l0=$(load1)
  declare -A cpu=()
  for ((k = 0; k < repeats; k++)); do
    for pol in LASTAVAILABLE PRIORITYF5; do
      for job in N1 N64 n64; do
        for ((r = 0; r < 2; r++)); do # rotate which side goes first
          case $(((2 * k + r) % 3)) in 0) o="$A $C $B" ;; 1) o="$C $B $A" ;; *) o="$B $A $C" ;; esac
          for inst in $o; do
            cpu[$inst.$pol.$job.$k]=$(echo "${cpu[$inst.$pol.$job.$k]:-0} + $(series "$inst" $job $pol) / 2" | bc -l)
          done
        done
      done
    done
  done
  stop_all >/dev/null 2>&1
  echo "bench_curve: willrun_${extra}nodes$rel: load average $l0 at start, $(load1) at end"
  for pol in LASTAVAILABLE PRIORITYF5; do
    for job in N1 N64 n64; do
      for inst in $A $C $B; do
        v=() ratio=()
        for ((k = 0; k < repeats; k++)); do
          v+=("${cpu[$inst.$pol.$job.$k]}")
          ratio+=("$(echo "${cpu[$inst.$pol.$job.$k]} / ${cpu[$B.$pol.$job.$k]}" | bc -l)")
        done
        figure "curve_${extra}nodes_${pol}_${job}_ctld_cpu_$(side "$inst")$rel" %.2f ms "${v[@]}"
        [ "$inst" = "$B" ] || figure "curve_${extra}nodes_${pol}_${job}_ratio_$(side "$inst")$rel" %.3f "$(side "$inst")/cons_tres" "${ratio[@]}"
      done
    done
  done
done
