#!/usr/bin/env bash
# Backfill cycles as sdiag reports them: select/psiplace_cons_tres against
# select/cons_tres on the same generated state, two testbeds side by side
# (instances BENCH_INSTANCE_A/B, 55/56), the sides alternating.
#
# State, per scale (BENCH_SCALES absent nodes x[1-N], default "10000 20000")
# and queue length (BENCH_JOBS pending jobs, default "200 1000"):
#  - a full machine: the absent nodes cannot run jobs, so their being busy is
#    made of reservations rather than running jobs: BENCH_RESV (40)
#    reservations (Users=root, which the jobs do not request) over
#    consecutive node ranges, starting now, ending at deterministic times
#    spread log-uniformly between 4 hours and a day; the real nodes
#    n[1-4] in one more reservation of 3 days.  Nothing can start now, and
#    the time each node frees up differs, as on a machine full of jobs;
#  - the queue, generated once (awk, fixed seed) and submitted in the same
#    order to both sides (priority/basic: submission order): first the top
#    job, 3/4 of the nodes for a day (blocked until most reservations end),
#    then the jobs of 1-256 nodes (log-uniform) and time limits of 5 minutes
#    to a day (log-uniform), all --exclusive; psiplace's jobs carry
#    --psi-alloc-policy (and --psi-alloc-priority for PRIORITYF5).  Each
#    policy's queue is submitted afresh on the psiplace side; the cons_tres
#    side keeps its queue.
# SchedulerParameters, as a large site sets them: bf_max_time=300,
# bf_max_job_test=2000, bf_window=2880 (two days: longer than the longest
# limit plus the reservations), bf_resolution=300, bf_continue, defer
# (submissions do not run the main scheduler); bf_interval=10 (sites use
# 30-120: the cycle's work does not depend on it, and the bench waits for a
# cycle per measurement).
# A measurement: wait until backfill is not in a cycle, `sdiag -r`, touch
# the top job (scontrol update Comment=, which sets last_job_update: the
# backfill thread runs a cycle only when something changed, at most every
# bf_interval), then poll sdiag until one cycle has ended; read Last cycle
# (wall time without the lock yields' sleep), Last depth cycle (jobs
# tested), Total backfilled jobs (must stay 0: nothing can start; a warning
# otherwise), and `squeue --start`: the pending jobs with a planned
# StartTime on each side, how many of the jobs (the i-th submitted on
# either side) are planned at the same StartTime on both, and how many at
# the same StartTime on the same nodes: the policies choose other nodes
# than cons_tres, which changes the holes later jobs fit in, so some plans
# legitimately differ.  slurmctld's CPU from the trigger to the cycle's end
# is given too.  Figures: median of BENCH_REPEATS (3) with the spread; a
# repetition measures A then B or B then A, alternating.
#
# Keeping the absent nodes schedulable: as bench_curve.sh, the nodes' port is
# held by hold_port.py (listens, never accepts), so slurmctld's registration
# requests wait for replies in a few forwarding threads; here with
# MessageTimeout=3600 (slurmctld logs that it is "too high for effective
# fault-tolerance") and SlurmdTimeout=3600, so that they do not time out
# during the measurement: with bench_curve's 30 s they did, the nodes became
# not responding (idle*), left avail_node_bitmap and backfill had nothing
# to plan (every job "Nodes required for job are DOWN, DRAINED...").  Each
# scale waits until slurmctld has sent them and is quiet before it measures.
# Environment: BENCH_SCALES, BENCH_JOBS, BENCH_REPEATS, BENCH_POLICIES
# ("LASTAVAILABLE CPULOAD PRIORITYF5 MAXBALANCE"), BENCH_RESV,
# BENCH_INSTANCE_A/B, BENCH_B (cons_tres; tier_off, below), BENCH_KEEP,
# PSIPLACE_BUILD_DIR.
set -Eeuo pipefail
# A command that fails ends the bench (set -e): say which, never silently
# (a 1,000-job run once ended after its first policy without a word).
trap 'echo "bench_backfill: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
src=${PSIPLACE_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$src/tests/bench/bench_lib.sh"
cluster=$src/contrib/testbed/cluster.sh
repeats=${BENCH_REPEATS:-3} nresv=${BENCH_RESV:-40}
for v in "$repeats" "$nresv" ${BENCH_SCALES:-10000} ${BENCH_JOBS:-200}; do
  case $v in
    '' | *[!0-9]* | 0) echo "bench_backfill: BENCH_REPEATS, BENCH_RESV, BENCH_SCALES, BENCH_JOBS: '$v' is not a positive number" >&2; exit 2 ;;
  esac
done
policies=${BENCH_POLICIES:-LASTAVAILABLE CPULOAD PRIORITYF5 MAXBALANCE}
for p in $policies; do
  case $p in
    LASTAVAILABLE | CPULOAD | PRIORITYF5 | MAXBALANCE) ;;
    *) echo "bench_backfill: BENCH_POLICIES: '$p' is not one of LASTAVAILABLE CPULOAD PRIORITYF5 MAXBALANCE" >&2; exit 2 ;;
  esac
done
A=${BENCH_INSTANCE_A:-55} B=${BENCH_INSTANCE_B:-56}
# BENCH_B=tier_off: side B is psiplace with RankedTier=1000000 (every
# candidate ranked, no tier, no shortcut: the full decision) instead of
# cons_tres, with BENCH_POLICIES=LASTAVAILABLE (the cluster policy of both
# sides): a check that the shortcuts plan what the full decision plans
case ${BENCH_B:-cons_tres} in
  cons_tres) side_b=cons_tres ;;
  tier_off) side_b=psiplace_tier_off ;;
  *) echo "bench_backfill: BENCH_B: '$BENCH_B' is not cons_tres or tier_off" >&2; exit 2 ;;
esac
export PSIPLACE_SLURM=${PSIPLACE_SLURM:-22.05}
[ "$PSIPLACE_SLURM" = 22.05 ] || eval "$("$cluster" env | grep '^export PATH=')"
rel=_slurm$PSIPLACE_SLURM
PSIPLACE_BUILD_DIR=${PSIPLACE_BUILD_DIR:-$("$cluster" build-dir)}
export PSIPLACE_BUILD_DIR
prio='APROCS + 0.5*CPROCS + 0.001*AMEM - 0.0001*CMEM + 0.01*CDISK'
bf_interval=${BENCH_BF_INTERVAL:-10}
sched="bf_interval=$bf_interval,bf_max_time=300,bf_max_job_test=2000,bf_window=2880,bf_resolution=300,bf_continue,defer"
tick=$(getconf CLK_TCK)
holders=()
work=$(mktemp -d /tmp/bench_backfill.XXXXXX)

sc() { local inst=$1; shift; SLURM_CONF=$(conf "$inst") timeout 120 "$@"; }
start_one() { # instance nodes
  local inst=$1
  hold_port_start "$inst" "$work/hold-$inst.out" bench_backfill
  local env=(PSIPLACE_INSTANCE="$inst" PSIPLACE_EXTRA_NODES="$2" PSIPLACE_EXTRA_STATE=IDLE
    PSIPLACE_SLURMD_TIMEOUT=3600 PSIPLACE_MSG_TIMEOUT=3600 PSIPLACE_CTLD_WAIT=600
    PSIPLACE_SCHED_PARAMS="$sched")
  if [ "$inst" = "$A" ]; then env+=(PSIPLACE_POLICY=LASTAVAILABLE)
  elif [ "$side_b" = psiplace_tier_off ]; then env+=(PSIPLACE_POLICY=LASTAVAILABLE PSIPLACE_PLUGSTACK_ARGS=RankedTier=1000000)
  else env+=(PSIPLACE_POLICY=none PSIPLACE_SELECT=select/cons_tres); fi
  env "${env[@]}" timeout 900 "$cluster" start >"$work/start-$inst.log" 2>&1 ||
    sc "$inst" scontrol ping | grep -q UP ||
    { tail -20 "$work/start-$inst.log" >&2; echo "bench_backfill: instance $inst did not start" >&2; exit 1; }
}
stop_all() {
  local i
  # in a session of its own, like cluster.sh stop: a SIGKILL to this
  # script's process group (meson's timeout) cannot end it between instances
  setsid -w bash -c 'for i in "${@:2}"; do PSIPLACE_INSTANCE=$i timeout 120 "$1" stop; done' _ "$cluster" $A $B
  for i in "${holders[@]}"; do kill "$i" 2>/dev/null || true; done
  holders=()
}
# BENCH_KEEP=1: leave the last scale's testbeds running (to look at them or
# profile them; stop them with cluster.sh stop and end the hold_port.py
# processes printed)
if [ "${BENCH_KEEP:-0}" = 1 ]; then
  trap 'echo "bench_backfill: kept instances $A $B, hold_port.py PIDs ${holders[*]}" >&2; rm -rf "$work"' EXIT
else
  trap 'stop_all >/dev/null 2>&1; rm -rf "$work"' EXIT
fi
# Until slurmctld has sent its registration requests (10 s after its start
# at least) and been quiet for two seconds (at most one tick of CPU each),
# 300 s at most.
settle() {
  local inst=$1 deadline=$((SECONDS + 300)) c0 quiet=0
  while [ "$quiet" -lt 2 ] || [ $(($(date +%s) - $(stat -c %Y "/tmp/psiplace-testbed-$inst/pids/slurmctld"))) -lt 10 ]; do
    c0=$(ctld_ticks "$inst"); sleep 1
    if [ $(($(ctld_ticks "$inst") - c0)) -gt 1 ]; then quiet=0; else quiet=$((quiet + 1)); fi
    [ $SECONDS -lt $deadline ] || { echo "bench: warning instance $inst: not quiet after 300 s" >&2; return 0; }
  done
}

# The reservations making the machine full (same on both sides).
reserve() { # instance nodes
  local inst=$1 n=$2 k lo hi dur
  sc "$inst" scontrol create reservation ReservationName=real StartTime=now Duration=4320 \
    Nodes='n[1-4]' Users=root >/dev/null
  for ((k = 0; k < nresv; k++)); do
    lo=$((k * n / nresv + 1)) hi=$(((k + 1) * n / nresv))
    [ "$hi" -ge "$lo" ] || continue
    # minutes: 240 .. 1440, log-uniform over k, interleaved so neighbours
    # differ; at least 4 hours, longer than a scale's run: when the first
    # ended after 10 minutes, jobs started on its nodes mid-run
    dur=$(awk -v k="$(((k * 17) % nresv))" -v n="$nresv" 'BEGIN {printf "%d", 240 * exp(log(6) * k / (n - 1 > 0 ? n - 1 : 1))}')
    sc "$inst" scontrol create reservation ReservationName="busy$k" StartTime=now Duration="$dur" \
      Nodes="x[$lo-$hi]" Users=root >/dev/null
  done
}

# The queue: "nodes minutes" per line, the top job first.
gen_queue() { # nodes jobs
  awk -v n="$1" -v jobs="$2" 'BEGIN {
    srand(21); print int(3 * n / 4), 1440
    for (j = 1; j < jobs; j++) {
      k = int(exp(log(256) * rand()) + 0.5); if (k > n) k = n; if (k < 1) k = 1
      print k, int(5 * exp(log(288) * rand()))
    }
  }'
}
submit() { # instance policy queue-file
  local inst=$1 pol=$2 args=() k t
  if [ "$inst" = "$A" ]; then
    case $pol in
      PRIORITYF5) args=(--psi-alloc-policy=PRIORITY "--psi-alloc-priority=$prio") ;;
      *) args=("--psi-alloc-policy=$pol") ;;
    esac
  fi
  # the partition DOWN meanwhile (it takes jobs but schedules none): else
  # backfill cycles over the growing queue hold slurmctld's locks and the
  # submissions wait for their yields (at 20,000 nodes 4 s per sbatch)
  sc "$inst" scontrol update PartitionName=scale State=DOWN
  while read -r k t; do
    sc "$inst" sbatch -Q -p scale --exclusive -N "$k" -t "$t" "${args[@]}" -o /dev/null --wrap true
  done <"$3" >/dev/null
  sc "$inst" scontrol update PartitionName=scale State=UP
}
cancel_all() { # instance
  local inst=$1 deadline=$((SECONDS + 120))
  sc "$inst" scancel -p scale >/dev/null 2>&1 || true
  until [ -z "$(sc "$inst" squeue -h -t PD -p scale -o %i)" ]; do
    [ $SECONDS -lt $deadline ] || { echo "bench_backfill: jobs of instance $inst not cancelled" >&2; exit 1; }
    sleep 0.2
  done
}

# sdiag's backfill fields: "active when cycles last_ms depth backfilled"
bf_stats() { # instance
  sc "$1" sdiag | awk '
    /^Backfilling stats/ {bf = 1; act = /WARNING/ ? 1 : 0}
    bf && /Total backfilled jobs \(since last slurm start\)/ {b = $NF}
    bf && /^[ \t]*Total cycles:/ {n = $NF}
    bf && /^[ \t]*Last cycle when:/ {w = $NF; gsub(/[()]/, "", w)}
    bf && /^[ \t]*Last cycle:/ {c = $NF / 1000}
    bf && /^[ \t]*Last depth cycle:/ {d = $NF}
    END {print act + 0, w + 0, n + 0, c + 0, d + 0, b + 0}'
}
# One backfill cycle on instance $1: sets R to "cycle_ms depth backfilled planned cpu_ms".
cycle() {
  local inst=$1 top c0 deadline=$((SECONDS + 900)) act when n c d b planned cpu
  # not in a cycle (one that starts between this and the reset is whole
  # and of the same state: counted as well)
  while :; do
    read -r act when n c d b < <(bf_stats "$inst")
    [ "$act" = 1 ] || break
    [ $SECONDS -lt $deadline ] || { echo "bench_backfill: instance $inst: backfill never idle" >&2; exit 1; }
    sleep 0.2
  done
  sc "$inst" sdiag -r >/dev/null
  # awk reads all of squeue's output: with `head -1` a queue of 1,000 jobs
  # (more than one stdio buffer) ended squeue by SIGPIPE, and pipefail
  # with errexit ended the bench (the runs that stopped after one policy)
  top=$(sc "$inst" squeue -h -t PD -p scale --sort=-p -o %i | awk 'NR == 1')
  c0=$(ctld_ticks "$inst")
  sc "$inst" scontrol update JobId="$top" Comment="bench$SECONDS"
  while :; do
    read -r act when n c d b < <(bf_stats "$inst")
    [ "$act" = 1 ] || [ "$n" -lt 1 ] || break
    [ $SECONDS -lt $deadline ] || { echo "bench_backfill: instance $inst: no backfill cycle" >&2; exit 1; }
    sleep 0.2
  done
  cpu=$(echo "1000 * ($(ctld_ticks "$inst") - $c0) / $tick" | bc -l)
  sc "$inst" squeue --start -h -t PD -p scale -o '%i %S %Y' | sort -n | awk '{print $2, $3}' >"$work/plan-$inst"
  planned=$(grep -vc 'N/A' "$work/plan-$inst") || true
  R="$c $d $b $planned $cpu"
}

bt=$(build_type "$PSIPLACE_BUILD_DIR")
printf 'bench_backfill: build type %s, Slurm %s, load average %s, SchedulerParameters=%s, figures: median of %d repetitions and spread (max - min)\n' \
  "$bt" "$(timeout 10 slurmctld -V | awk '{print $2}')" "$(load1)" "$sched" "$repeats"

for n in ${BENCH_SCALES:-10000 20000}; do
  start_one "$A" "$n"; start_one "$B" "$n"
  settle "$A"; settle "$B"
  reserve "$A" "$n"; reserve "$B" "$n"
  for jobs in ${BENCH_JOBS:-200 1000}; do
    gen_queue "$n" "$jobs" >"$work/queue"
    cancel_all "$B"
    submit "$B" none "$work/queue"
    for pol in $policies; do
      cancel_all "$A"
      submit "$A" "$pol" "$work/queue"
      l0=$(load1)
      declare -A res=() same=() same_nodes=()
      for ((k = 0; k < repeats; k++)); do
        if ((k % 2)); then o="$B $A"; else o="$A $B"; fi
        for inst in $o; do cycle "$inst"; res[$inst.$k]=$R; done
        # the i-th job submitted on each side planned at the same StartTime
        same[$k]=$(paste -d' ' "$work/plan-$A" "$work/plan-$B" | awk '$1 == $3 && $1 != "N/A"' | wc -l)
        # ... and on the same nodes
        same_nodes[$k]=$(paste -d' ' "$work/plan-$A" "$work/plan-$B" | awk '$1 == $3 && $2 == $4 && $1 != "N/A"' | wc -l)
      done
      name=backfill_${n}nodes_${jobs}jobs_$pol
      echo "bench_backfill: $name$rel: load average $l0 at start, $(load1) at end"
      for inst in $A $B; do
        side=psiplace; [ "$inst" = "$A" ] || side=$side_b
        for f in 1 2 5; do
          v=()
          for ((k = 0; k < repeats; k++)); do v+=("$(echo "${res[$inst.$k]}" | cut -d' ' -f$f)"); done
          case $f in
            1) figure "${name}_cycle_$side$rel" %.1f ms "${v[@]}" ;;
            2) figure "${name}_depth_$side$rel" %.0f jobs "${v[@]}" ;;
            5) figure "${name}_cycle_cpu_$side$rel" %.1f ms "${v[@]}" ;;
          esac
        done
        read -r _ _ bfd planned _ <<<"${res[$inst.0]}"
        printf 'bench: %s_planned_%s%s %d jobs\n' "$name" "$side" "$rel" "$planned"
        printf 'bench: %s_backfilled_%s%s %d jobs\n' "$name" "$side" "$rel" "$bfd"
      done
      ratio=()
      for ((k = 0; k < repeats; k++)); do
        ratio+=("$(echo "$(echo "${res[$A.$k]}" | cut -d' ' -f1) / $(echo "${res[$B.$k]}" | cut -d' ' -f1)" | bc -l)")
      done
      for inst in $A $B; do
        [ "$(echo "${res[$inst.0]}" | cut -d' ' -f3)" = 0 ] ||
          echo "bench: warning $name instance $inst: jobs started (a reservation ended?): not the state measured"
      done
      figure "${name}_cycle_ratio$rel" %.3f "psiplace/$side_b" "${ratio[@]}"
      figure "${name}_planned_same_start$rel" %.0f jobs "${same[@]}"
      figure "${name}_planned_same_nodes$rel" %.0f jobs "${same_nodes[@]}"
      unset res same same_nodes
    done
  done
  [ "${BENCH_KEEP:-0}" = 1 ] || stop_all >/dev/null 2>&1
done
